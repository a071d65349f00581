"""The table: whose turn it is, a read (beside ``vote_count``) for pages, the API and events.

Everything here is public: the seats, the step, the speaker, the order, the clock, the
nominations, who has voted in an open vote (never for whom: ballots are shown when the vote
closes) and the closed votes' ballots. ``your_turn`` and ``you_may`` are the one viewer's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..gateway import SKIP, DayScript, DayState, day_script
from ..models import Game, Phase, Slot
from ..naming import slot_ref
from .options import self_vote_refusal


def _day_state(phase: Phase) -> DayState:
    assert phase.day_state is not None  # a table day's, written when it opens
    return DayState.from_dict(phase.day_state)


def _script(game: Game) -> DayScript:
    script = day_script(game.ruleset)
    assert script is not None  # a game at a table day has a day script
    return script


# What the API calls each step when there is no table day going on.
NIGHT, THREAD, NOT_STARTED, OVER = "night", "thread", "not_started", "over"


def turn_view(
    game: Game, phase: Phase | None, slots: Sequence[Slot], viewer: Slot | None = None
) -> dict[str, Any]:
    """Where the table is now, as plain JSON (slot references like the rest of the API)."""
    view: dict[str, Any] = {
        "step": THREAD,
        "day": None,
        "round": None,
        "speaker": None,
        "next": None,
        "order": [],
        "turn": None,
        "deadline": None,
        "paused": False,
        "turn_seq": 0,
        "ends_on_post": False,
        "word_limit": None,
        "messages_left": None,
        "options": [],
        "nominations": [],
        "ballot": [],
        "voted": [],
        "closed_votes": [],
        "skip_discussion": [],
        "seats": [],
        "your_turn": False,
        "you_may": [],
    }
    if game.is_signups:
        return {**view, "step": NOT_STARTED}
    # The seats as dealt at the start: the table sits this way from the first night.
    view["seats"] = [slot_ref(s) for s in sorted(slots, key=lambda s: s.seat)]
    if game.is_finished:
        view["step"] = OVER
    if phase is None:
        return view
    # A finished game's last phase keeps its deadline in the database; no clock runs.
    if phase.deadline and not game.is_finished:
        view["deadline"] = phase.deadline.isoformat()
    view["paused"] = phase.is_paused
    if phase.is_night and not game.is_finished:
        view["step"] = NIGHT
    if not phase.is_table_day:
        return view
    by_name = {s.resolver_name: s for s in slots}

    def ref(name: str | None) -> dict[str, Any] | None:
        return None if name is None or name == SKIP else slot_ref(by_name.get(name))

    def refs(names: Iterable[str]) -> list[dict[str, Any] | None]:
        return [ref(n) for n in names]

    state = _day_state(phase)
    turn = _script(game).now(state)
    view.update(
        {
            "day": state.day,
            "round": turn.round,
            "speaker": ref(turn.speaker),
            "next": ref(_next(state)),
            "order": refs(turn.order),
            "turn": state.turn if turn.speaker else None,
            "turn_seq": phase.turn_seq,
            "ends_on_post": turn.ends_on_post,
            "word_limit": turn.word_limit,
            "messages_left": turn.messages_left,
            "options": [{"skip": True} if o == SKIP else ref(o) for o in turn.options],
            "ballot": [{"skip": True} if o == SKIP else ref(o) for o in state.ballot]
            if turn.step == "vote"
            else [],
            "nominations": [
                {"nominator": ref(n), "target": ref(t), "skip": t == SKIP}
                for n, t in state.nominations.items()
            ],
            "voted": refs(p for p in state.alive if p in state.votes)
            if turn.step == "vote"
            else [],
            "closed_votes": [
                {
                    "round": number,
                    "votes": [
                        {"voter": ref(v), "target": ref(t), "skip": t == SKIP}
                        for v, t in ballots.items()
                    ],
                }
                for number, ballots in enumerate(state.rounds, start=1)
            ],
            "skip_discussion": refs(state.skip_discussion),
        }
    )
    if not game.is_finished:
        view["step"] = turn.step
    if viewer is not None and not game.self_vote_allowed:  # their own name is not theirs to pick
        view["ballot"] = [
            o
            for o in view["ballot"]
            if o is None or o.get("skip") or self_vote_refusal(viewer.pk, o["slot_id"]) is None
        ]
    if viewer is not None and not game.is_finished and not phase.is_paused:
        view["you_may"] = sorted(turn.actions.get(viewer.resolver_name, ()))
        view["your_turn"] = _yours(state, turn, viewer.resolver_name)
    return view


def is_your_turn(game: Game, phase: Phase | None, slot: Slot) -> bool:
    """Whether the table waits for ``slot`` now (``turn_view``'s ``your_turn``): they are
    the speaker, or the vote is open and they have not voted yet."""
    if phase is None or not phase.is_table_day or not game.is_running or phase.is_paused:
        return False
    state = _day_state(phase)
    return _yours(state, _script(game).now(state), slot.resolver_name)


def _yours(state: DayState, turn: Any, name: str) -> bool:
    mine = turn.actions.get(name, ())
    return turn.speaker == name or (
        turn.step == "vote" and "vote" in mine and name not in state.votes
    )


def _next(state: DayState) -> str | None:
    """Who speaks after the current speaker in this step (the next lap's first, in power)."""
    if state.step in ("vote", "done") or not state.order:
        return None
    if state.turn + 1 < len(state.order):
        return state.order[state.turn + 1]
    return state.order[0] if state.step == "discussion" and len(state.order) > 1 else None
