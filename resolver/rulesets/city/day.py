"""The city day vote (Layer 5): most votes is out; a tie goes to re-speak and a revote.

Votes for a vote-immune player count like any other (the town may still pile on them),
but the vote-out itself is negated: the lattice's "Vote-immunity -> Day vote-out" edge.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import InvalidScenario
from ...model import SKIP, DayOutcome, DayVotes, GameState
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
        raise InvalidScenario("There is no revote: today's vote was not tied.", f"{where}.revote")
    for voter, target in day.revote.items():
        if target != SKIP and target not in tied:
            raise InvalidScenario(
                f"{voter} votes for {target} in the revote, but only {names(tied)} "
                f"{'is' if len(tied) == 1 else 'are'} in it.",
                f"{where}.revote.{voter}",
            )


def resolve(state: GameState, day: DayVotes) -> DayOutcome:
    lines = [_count_line("Vote count", day.votes, state)]
    count = plurality(day.votes)
    if not count.leaders:
        return _nobody(state, lines, "Nobody voted, so nobody is eliminated.")
    if count.single == SKIP:
        return _nobody(state, lines, "Skip has the most votes: nobody is eliminated.")
    if count.single is not None:
        return _vote_out(state, count.single, count.votes, lines)
    tied = tied_players(count) or ()
    options = names([("skip" if t == SKIP else t) for t in count.leaders])
    lines.append(f"{options} are tied with {count.votes} votes each.")
    if day.revote is None:
        lines.append(f"{names(tied)} speak again and go to a revote.")
        return DayOutcome(None, tied, tuple(lines), state)
    lines.append(_count_line("Revote", day.revote, state))
    second = plurality(day.revote, (*tied, SKIP))
    if second.single is not None and second.single != SKIP:
        return _vote_out(state, second.single, second.votes, lines)
    why = "skip wins the revote" if second.single == SKIP else "the revote does not break the tie"
    return _nobody(state, lines, f"Nobody is eliminated: {why}.")


def _vote_out(state: GameState, target: str, votes: int, lines: list[str]) -> DayOutcome:
    shield = _vote_shield(state, target)
    if shield:
        return _nobody(
            state,
            lines,
            f"{target} has the most votes ({votes}) but is not eliminated: {shield}.",
        )
    lines.append(f"{target} is eliminated with {votes} votes and has a last word.")
    if state.player(target).immune:
        lines.append(
            f"{target}'s immunity card does not stop the day vote (it saves from night kills)."
        )
    # City keeps the card face down until the game ends: the role is not revealed.
    return DayOutcome(target, None, tuple(lines), state.with_dead([target]), {target: "unknown"})


def _vote_shield(state: GameState, target: str) -> str:
    """Why ``target`` cannot be voted out today ('' when they can)."""
    if state.flags["immunityBlocksVote"] and state.player(target).immune:
        return f"{target}'s immunity card also blocks the day vote (immunityBlocksVote)"
    if target in state.vote_immunity:
        return f"the Mistress's visit last night makes {target} immune from today's vote"
    return ""


def _nobody(state: GameState, lines: list[str], why: str) -> DayOutcome:
    return DayOutcome(None, None, (*lines, why), state)


def _count_line(title: str, votes: Mapping[str, str], state: GameState) -> str:
    count = tally(votes, state.alive_names)
    wagons = [f"{w.target} {w.size} ({', '.join(w.voters)})" for w in count.wagons]
    text = "; ".join(wagons) if wagons else "no votes"
    if count.not_voting:
        text += f"; not voting: {', '.join(count.not_voting)}"
    return f"{title}: {text}."
