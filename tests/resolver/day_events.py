"""Sending events to a day script, shared by the day-script tests of every rule set."""

from __future__ import annotations

from typing import Any

from resolver.days import DayState
from resolver.days.base import VOTE


def send(script: Any, state: DayState, kind: str, player: str | None = None, **fields) -> Any:
    """``script.apply`` of one event: ``(state, notices)``."""
    event = {"kind": kind, **fields}
    if player is not None:
        event["player"] = player
    return script.apply(state, event)


def do(script: Any, state: DayState, kind: str, player: str | None = None, **fields) -> DayState:
    """The state after one event."""
    return send(script, state, kind, player, **fields)[0]


def until(script: Any, state: DayState, step: str) -> DayState:
    """Let every turn time out until the day reaches ``step``."""
    while script.now(state).step != step:
        state = do(script, state, "timeout")
    return state


def votes(script: Any, state: DayState, ballots: dict[str, str]) -> DayState:
    """Everyone in ``ballots`` votes, then the vote closes if it is still open."""
    for voter, target in ballots.items():
        state = do(script, state, "vote", voter, target=target)
    return do(script, state, "close_vote") if script.now(state).step == VOTE else state
