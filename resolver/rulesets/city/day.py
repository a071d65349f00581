"""The city day vote (Layer 5): most votes is out; a tie goes to re-speak and a revote.

Votes for a vote-immune player count like any other (the town may still pile on them),
but the vote-out itself is negated: the lattice's "Vote-immunity -> Day vote-out" edge.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import InvalidScenario
from ...model import SKIP, DayOutcome, DayVotes, GameState
from ...text import _, ngettext
from ...votes import Plurality, plurality, tally
from ..base import names


def tied_players(count: Plurality) -> tuple[str, ...] | None:
    """The players a tie sends to the revote (skip is never one of them), or None."""
    if len(count.leaders) < 2:
        return None
    return tuple(t for t in count.leaders if t != SKIP)


def check(state: GameState, day: DayVotes, where: str) -> None:
    """A revote only follows a tie, and only the tied players (or skip) can be voted."""
    if day.revote is None:
        return
    tied = tied_players(plurality(day.votes))
    if tied is None:
        raise InvalidScenario(
            _("There is no revote: today's vote was not tied."), f"{where}.revote"
        )
    for voter, target in day.revote.items():
        if target != SKIP and target not in tied:
            raise InvalidScenario(
                ngettext(
                    "%(voter)s votes for %(target)s in the revote, but only %(tied)s is in it.",
                    "%(voter)s votes for %(target)s in the revote, but only %(tied)s are in it.",
                    len(tied),
                )
                % {"voter": voter, "target": target, "tied": names(tied)},
                f"{where}.revote.{voter}",
            )


def resolve(state: GameState, day: DayVotes) -> DayOutcome:
    lines = [_count_line(_("Vote count: %(count)s."), day.votes, state)]
    count = plurality(day.votes)
    if not count.leaders:
        return _nobody(state, lines, _("Nobody voted, so nobody is eliminated."))
    if count.single == SKIP:
        return _nobody(state, lines, _("Skip has the most votes: nobody is eliminated."))
    if count.single is not None:
        return _vote_out(state, count.single, count.votes, lines)
    tied = tied_players(count) or ()
    options = names([(_("skip") if t == SKIP else t) for t in count.leaders])
    lines.append(
        ngettext(
            "%(options)s are tied with %(votes)s votes each.",
            "%(options)s are tied with %(votes)s votes each.",
            count.votes,
        )
        % {"options": options, "votes": count.votes}
    )
    if day.revote is None:
        lines.append(_("%(tied)s speak again and go to a revote.") % {"tied": names(tied)})
        return DayOutcome(None, tied, tuple(lines), state)
    lines.append(_count_line(_("Revote: %(count)s."), day.revote, state))
    second = plurality(day.revote, (*tied, SKIP))
    if second.single is not None and second.single != SKIP:
        return _vote_out(state, second.single, second.votes, lines)
    why = (
        _("Nobody is eliminated: skip wins the revote.")
        if second.single == SKIP
        else _("Nobody is eliminated: the revote does not break the tie.")
    )
    return _nobody(state, lines, why)


def _vote_out(state: GameState, target: str, votes: int, lines: list[str]) -> DayOutcome:
    shield = _vote_shield(state, target)
    if shield:
        return _nobody(
            state,
            lines,
            _("%(target)s has the most votes (%(votes)s) but is not eliminated: %(why)s.")
            % {"target": target, "votes": votes, "why": shield},
        )
    lines.append(
        ngettext(
            "%(target)s is eliminated with %(votes)s votes and has a last word.",
            "%(target)s is eliminated with %(votes)s votes and has a last word.",
            votes,
        )
        % {"target": target, "votes": votes}
    )
    if state.player(target).immune:
        lines.append(
            _("%(target)s's immunity card does not stop the day vote (it saves from night kills).")
            % {"target": target}
        )
    # City keeps the card face down until the game ends: the role is not revealed.
    return DayOutcome(target, None, tuple(lines), state.with_dead([target]), {target: "unknown"})


def _vote_shield(state: GameState, target: str) -> str:
    """Why ``target`` cannot be voted out today ('' when they can)."""
    if state.flags["immunityBlocksVote"] and state.player(target).immune:
        return _("%(target)s's immunity card also blocks the day vote (immunityBlocksVote)") % {
            "target": target
        }
    if target in state.vote_immunity:
        return _("the Mistress's visit last night makes %(target)s immune from today's vote") % {
            "target": target
        }
    return ""


def _nobody(state: GameState, lines: list[str], why: str) -> DayOutcome:
    return DayOutcome(None, None, (*lines, why), state)


def _count_line(template: str, votes: Mapping[str, str], state: GameState) -> str:
    """One count as a line: ``template`` ("Vote count: %(count)s.") with the wagons."""
    count = tally(votes, state.alive_names)
    wagons = [
        f"{_('skip') if w.target == SKIP else w.target} {w.size} ({', '.join(w.voters)})"
        for w in count.wagons
    ]
    text = "; ".join(wagons) if wagons else _("no votes")
    if count.not_voting:
        text = _("%(wagons)s; not voting: %(players)s") % {
            "wagons": text,
            "players": ", ".join(count.not_voting),
        }
    return template % {"count": text}
