"""The power-roles day: question round, open discussion, statements, a concurrent vote.

Three turn-based discussion steps, then the vote:

1. **Question round** ("question"): one turn each; a post asks one question of a named
   living player (the post's ``target``; not oneself), or the player passes (``SKIP``).
2. **Open discussion** ("discussion"): round-robin, one post or pass a turn, lap after
   lap, until the day's message budget is spent or every living player has passed in a
   row. The budget is ``alive x allowance``, the allowance growing by ``growth`` each day
   after the first, clamped to ``[floor, cap]`` (settings ``discussion_open_*``).
3. **Pre-vote statements** ("statement"): one turn each (post or pass).
4. **Vote** ("vote"): everyone votes at once for a living player or skip. Plurality; a tie
   or skip on top eliminates nobody. There are no last words and no revote.

During steps 1-3 the speaker may vote to end the discussion (a line
``VOTE_SKIP_DISCUSSION`` in their message: the document puts it in a discussion message,
and only the speaker sends one; ``UNVOTE_SKIP_DISCUSSION`` takes it back). Votes stand
across turns; a strict majority of the living ends the discussion at once and the vote
begins. ``strip_tokens`` takes those lines out of a post for the site and ``token_events``
turns them into events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..model import SKIP
from ..rulesets.base import names
from ..rulesets.power import nobody_eliminated
from ..text import _, gettext_noop, ngettext
from ..votes import plurality
from .base import (
    DISCUSSION,
    NO_ADDRESSEE,
    NOT_IN_STEP,
    OUT_OF_TURN,
    QUESTION,
    REFUSED,
    SELF_QUESTION,
    STATEMENT,
    UNVOTE_SKIP_DISCUSSION,
    VOTE_SKIP_DISCUSSION,
    DayRuleError,
    DayScript,
    DayState,
    Notice,
    Out,
)

TOKENS = {
    "VOTE_SKIP_DISCUSSION": VOTE_SKIP_DISCUSSION,
    "UNVOTE_SKIP_DISCUSSION": UNVOTE_SKIP_DISCUSSION,
}
DISCUSSION_STEPS = (QUESTION, DISCUSSION, STATEMENT)


def discussion_budget(alive: int, day: int, settings: Mapping[str, Any]) -> int:
    """Open-discussion messages for the day: alive x allowance (growing daily), clamped."""
    allowance = settings["discussion_open_allowance"] + settings["discussion_open_growth"] * (
        day - 1
    )
    floor, cap = settings["discussion_open_floor"], settings["discussion_open_cap"]
    messages: int = max(floor, min(cap, alive * allowance))
    return messages


class PowerDay(DayScript):
    name = "power"
    reply_hint = gettext_noop(
        "Post in your turn: the table beside the thread says whose turn it is. A line "
        "VOTE_SKIP_DISCUSSION on its own votes to end the discussion (UNVOTE_SKIP_DISCUSSION "
        "takes it back). A post does not vote: vote with the table's buttons."
    )
    # The document names configurable ``discussion_open_*`` numbers but gives no values;
    # these defaults are ours (see the README).
    defaults = {
        "discussion_open_allowance": 2,  # messages per living player on day 1
        "discussion_open_growth": 1,  # added to the allowance each later day
        "discussion_open_floor": 6,
        "discussion_open_cap": 40,
    }
    setting_fields = {
        "discussion_open_allowance": (
            gettext_noop("Open discussion: messages per living player on day 1"),
            0,
            100,
        ),
        "discussion_open_growth": (
            gettext_noop("Open discussion: added to that allowance each later day"),
            0,
            100,
        ),
        "discussion_open_floor": (
            gettext_noop("Open discussion: fewest messages a day"),
            0,
            10_000,
        ),
        "discussion_open_cap": (gettext_noop("Open discussion: most messages a day"), 0, 10_000),
    }

    def check_settings(
        self, raw: Mapping[str, Any], seats: Sequence[str], alive: set[str]
    ) -> dict[str, Any]:
        settings = super().check_settings(raw, seats, alive)
        if settings["discussion_open_floor"] > settings["discussion_open_cap"]:
            raise DayRuleError(_("The discussion floor cannot be above its cap."))
        return settings

    def split_post(self, body: str) -> tuple[str, tuple[str, ...]]:
        return strip_tokens(body)

    def token_events(
        self, state: DayState, player: str, tokens: Sequence[str]
    ) -> list[dict[str, str]]:
        return token_events(state, player, tokens)

    # -- steps -----------------------------------------------------------------------
    def first_step(self, state: DayState, out: Out) -> DayState:
        budget = discussion_budget(len(state.alive), state.day, state.settings)
        state = replace(state, budget=budget)
        return self.begin_turns(state, QUESTION, self.day_order(state), out)

    def step_over(self, state: DayState, out: Out) -> DayState:
        if state.step == QUESTION:
            if state.budget <= 0:
                state = self.explain(state, _("The open discussion has no messages today."))
                return self.begin_turns(state, STATEMENT, self.day_order(state), out)
            return self.begin_turns(state, DISCUSSION, self.day_order(state), out)
        if state.step == DISCUSSION:
            return self.begin_turns(state, STATEMENT, self.day_order(state), out)
        if state.step == STATEMENT:
            return self.begin_vote(state, (*state.alive, SKIP), out)
        raise AssertionError(state.step)

    def after_turn(self, state: DayState, out: Out) -> DayState:
        if state.step != DISCUSSION:
            return super().after_turn(state, out)
        if state.messages >= state.budget:
            state = self.explain(
                state,
                ngettext(
                    "The open discussion ends: its %(n)s messages are spent.",
                    "The open discussion ends: its %(n)s messages are spent.",
                    state.budget,
                )
                % {"n": state.budget},
            )
            return self.step_over(state, out)
        if state.silence >= len(state.alive):
            state = self.explain(
                state, _("The open discussion ends: every living player passed in a row.")
            )
            return self.step_over(state, out)
        if state.turn + 1 < len(state.order):
            return replace(state, turn=state.turn + 1)
        return replace(state, turn=0, round=state.round + 1)  # the next lap

    def count(self, state: DayState, out: Out) -> DayState:
        top = plurality(state.rounds[-1])
        out_ = top.single if top.single != SKIP else None
        if out_ is not None:
            return self.finish(
                replace(state, eliminated=out_),
                out,
                _("%(player)s has the most votes (%(votes)s) and is eliminated.")
                % {"player": out_, "votes": top.votes},
            )
        return self.finish(state, out, nobody_eliminated(top))

    # -- turns -----------------------------------------------------------------------
    def turn_options(self, state: DayState) -> tuple[str, ...]:
        if state.step == QUESTION:
            return tuple(p for p in state.alive if p != state.speaker)
        return ()

    def messages_left(self, state: DayState) -> int | None:
        return state.budget - state.messages if state.step == DISCUSSION else None

    def on_post(self, state: DayState, player: str, event: Mapping[str, Any], out: Out) -> DayState:
        if state.step == QUESTION:
            target = event.get("target")
            if target not in self.turn_options(state):
                raise DayRuleError(*_bad_question(state, player, target))
            line = _("%(player)s asks %(target)s a question.")
            out.append(Notice("question", line % {"player": player, "target": target}, player))
        if state.step == DISCUSSION:
            return replace(state, messages=state.messages + 1, silence=0)
        return state

    def on_pass(self, state: DayState, player: str, out: Out) -> DayState:
        if state.step == DISCUSSION:
            return replace(state, silence=state.silence + 1)
        return state

    # -- skip-discussion votes ---------------------------------------------------------
    def extra_actions(self, state: DayState) -> Mapping[str, tuple[str, ...]]:
        if state.step not in DISCUSSION_STEPS:
            return {}
        # The line goes in a message, and only the speaker sends one.
        speaker = state.order[state.turn]
        voted = speaker in state.skip_discussion
        return {speaker: (UNVOTE_SKIP_DISCUSSION,) if voted else (VOTE_SKIP_DISCUSSION,)}

    def _why_not(self, state: DayState, turn: Any, player: str, kind: str) -> tuple[str, str]:
        if kind in TOKENS.values() and turn.speaker and player != turn.speaker:
            return (
                _(
                    "%(token)s goes in your own message, on your turn: it is "
                    "%(speaker)s's turn, not %(player)s's."
                )
                % {"token": kind.upper(), "speaker": turn.speaker, "player": player},
                OUT_OF_TURN,
            )
        if kind in TOKENS.values() and turn.speaker == player:
            if kind == VOTE_SKIP_DISCUSSION:
                line = _("%(player)s already votes to end the discussion.")
                return line % {"player": player}, REFUSED
            line = _("%(player)s has no vote to end the discussion to take back.")
            return line % {"player": player}, REFUSED
        if kind in TOKENS.values() and state.step not in DISCUSSION_STEPS:
            why = _("%(token)s counts only during the question round and the discussion.") % {
                "token": kind.upper()
            }
            return why, NOT_IN_STEP
        return super()._why_not(state, turn, player, kind)

    def skip_discussion_needed(self, state: DayState) -> int:
        """Votes that end the discussion: a strict majority of the living."""
        return len(state.alive) // 2 + 1

    def _on_vote_skip_discussion(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        voters = tuple(p for p in state.alive if p in {*state.skip_discussion, player})
        state = replace(state, skip_discussion=voters)
        needed = self.skip_discussion_needed(state)
        out.append(
            Notice(
                "skip_discussion",
                _("%(player)s votes to end the discussion (%(votes)s/%(needed)s).")
                % {"player": player, "votes": len(voters), "needed": needed},
                player,
            )
        )
        if len(voters) < needed:
            return state
        state = self.explain(
            state,
            _(
                "A majority (%(players)s: %(votes)s of %(alive)s) voted to end the discussion, "
                "so the vote begins."
            )
            % {"players": names(list(voters)), "votes": len(voters), "alive": len(state.alive)},
        )
        return self.begin_vote(replace(state, skip_discussion=()), (*state.alive, SKIP), out)

    def after_removal(self, state: DayState, out: Out) -> DayState:
        """Fewer living players: the votes to end the discussion may be a majority now."""
        voters = state.skip_discussion
        if state.step not in DISCUSSION_STEPS or len(voters) < self.skip_discussion_needed(state):
            return state
        state = self.explain(
            state,
            _(
                "With %(alive)s alive, %(players)s are a majority to end the discussion, "
                "so the vote begins."
            )
            % {"alive": len(state.alive), "players": names(list(voters))},
        )
        return self.begin_vote(replace(state, skip_discussion=()), (*state.alive, SKIP), out)

    def _on_unvote_skip_discussion(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        out.append(
            Notice(
                "skip_discussion",
                _("%(player)s takes back their vote to end the discussion.") % {"player": player},
                player,
            )
        )
        return replace(
            state, skip_discussion=tuple(p for p in state.skip_discussion if p != player)
        )


def _bad_question(state: DayState, player: str, target: Any) -> tuple[str, str]:
    if target is None:
        why = _("%(player)s's question must name the living player it is addressed to, or pass.")
        return why % {"player": player}, NO_ADDRESSEE
    values = {"player": player, "target": target}
    if target == player:
        why = _("%(player)s cannot ask themself; name another living player, or pass.")
        return why % values, SELF_QUESTION
    if target in state.seats:
        return _("%(player)s cannot ask %(target)s: %(target)s is dead.") % values, REFUSED
    why = _("%(player)s cannot ask %(target)s: not a player in this game.")
    return why % {"player": player, "target": repr(target)}, REFUSED


def strip_tokens(body: str) -> tuple[str, tuple[str, ...]]:
    """Take the skip-discussion token lines out of a post.

    Returns the body without them (for the public thread) and the event kinds they stand
    for, in order. A token counts only alone on its line (spaces around it allowed).
    """
    kept: list[str] = []
    found: list[str] = []
    for line in body.splitlines(keepends=True):
        token = TOKENS.get(line.strip())
        if token is None:
            kept.append(line)
        else:
            found.append(token)
    return "".join(kept), tuple(found)


def token_events(state: DayState, player: str, tokens: Sequence[str]) -> list[dict[str, str]]:
    """The event a post's tokens send now, if any.

    The tokens toggle one vote, so only the last counts, and the speaker's only if it
    changes something (a repeated vote or an unvote without a vote sends nothing). Anyone
    else's, or one outside the discussion steps, is sent to be refused with its reason.
    """
    if not tokens or player not in state.alive:
        return []
    speaking = state.step in DISCUSSION_STEPS and state.order[state.turn] == player
    voted = player in state.skip_discussion
    if speaking and (tokens[-1] == VOTE_SKIP_DISCUSSION) == voted:
        return []
    return [{"kind": tokens[-1], "player": player}]


SCRIPT = PowerDay()
