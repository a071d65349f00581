"""Properties of the three day scripts over random days driven by random events.

A random day (any table size, any living players, any day number, any host settings)
takes a random mix of legal events, illegal ones, refused attempts, timer events and now and
then a player removed mid-day (the site's modkill). At
every state: nobody dead or absent is given a turn or an action, nobody gets two turns in
one round of a step, the state round-trips through JSON, and an illegal event raises
``DayRuleError`` (never anything else). Every day ends: the number of turns it can give is
bounded, and from any state, timers alone end it within a bound. When it ends, the rule
set's own day resolution agrees with the script's outcome.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolver.days import DayRuleError, DayState, get_day_script
from resolver.days.base import DONE, PLAYER_EVENTS, VOTE
from resolver.engine import new_game

RULESETS = ["classic", "city", "power"]
ROLE = {"classic": "town", "city": "citizen", "power": "villager"}


@st.composite
def days(draw: Any, ruleset: str) -> DayState:
    size = draw(st.integers(2, 10))
    seats = [f"P{i}" for i in range(size)]
    alive = draw(st.lists(st.sampled_from(seats), min_size=1, unique=True))
    number = draw(st.integers(1, 12))
    config: dict[str, Any] = {}
    if ruleset == "classic":
        config["word_limit"] = draw(st.integers(0, 200))
    elif ruleset == "city":
        config["vote_immune"] = draw(st.lists(st.sampled_from(seats), unique=True))
    else:
        floor = draw(st.integers(0, 8))
        config = {
            "discussion_open_allowance": draw(st.integers(0, 3)),
            "discussion_open_growth": draw(st.integers(0, 2)),
            "discussion_open_floor": floor,
            "discussion_open_cap": draw(st.integers(floor, 30)),
        }
    seed = draw(st.integers(0, 2**31))
    return get_day_script(ruleset).start_day(seats, alive, number, config, seed=seed)


def random_event(data: Any, state: DayState) -> dict[str, Any]:
    script = get_day_script(state.ruleset)
    turn = script.now(state)
    anyone = [*state.seats, "Nobody"]
    targets = [*state.seats, "skip", "Nobody", None]
    how = data.draw(st.sampled_from(["legal"] * 12 + ["timer"] * 2 + ["invalid", "junk", "gone"]))
    if how == "gone":  # a modkill: anyone, living or not (the dead are refused)
        return {"kind": "removed", "player": data.draw(st.sampled_from(anyone))}
    if how == "legal" and turn.actions:
        player = data.draw(st.sampled_from(sorted(turn.actions)))
        kind = data.draw(st.sampled_from(turn.actions[player]))
    elif how == "timer":
        return {"kind": data.draw(st.sampled_from(["timeout", "close_vote"]))}
    elif how == "invalid":
        return {"kind": "invalid", "player": data.draw(st.sampled_from(anyone))}
    else:
        player = data.draw(st.sampled_from(anyone))
        kind = data.draw(st.sampled_from(sorted(PLAYER_EVENTS)))
    event: dict[str, Any] = {"kind": kind, "player": player}
    if kind == "post":
        event["words"] = data.draw(st.integers(0, 220))
    if kind in ("post", "nominate", "vote"):
        options = list(turn.options) or targets
        event["target"] = data.draw(st.sampled_from(options + targets))
    return event


def check(state: DayState, given: dict[tuple[str, int], set[str]], seen: list[Any]) -> None:
    """The per-state properties; ``given`` and ``seen`` carry the turns handed out so far."""
    script = get_day_script(state.ruleset)
    turn = script.now(state)
    again = DayState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state and script.now(again) == turn
    assert json.loads(json.dumps(turn.to_dict())) == turn.to_dict()
    assert set(turn.actions) <= set(state.alive)
    if turn.speaker is None:
        assert turn.step in (VOTE, DONE)
        return
    assert turn.speaker in state.alive
    assert turn.order and set(turn.order) <= set(state.alive)
    current = (turn.step, turn.round, turn.speaker)
    if seen and seen[-1] == current:
        # The same turn goes on: a classic speaker who posted and must nominate, or a
        # speaker whose place in the order moved because someone earlier left.
        return
    seen.append(current)
    players = given.setdefault((turn.step, turn.round), set())
    assert turn.speaker not in players, f"{turn.speaker} gets a second turn in {current}"
    players.add(turn.speaker)


def turn_bound(state: DayState) -> int:
    """Most turns a day can give: two speaking steps of everyone and a last word, and in
    power each open-discussion message can be followed by a lap of passes."""
    n = len(state.alive)
    return 3 * n + 1 + (state.budget + 1) * n


def agree_with_rule_set(state: DayState) -> None:
    script = get_day_script(state.ruleset)
    players = [
        {"name": p, "role": ROLE[state.ruleset], "alive": p in state.alive} for p in state.seats
    ]
    game = new_game(state.ruleset, players)
    if state.ruleset == "city":
        game = replace(game, vote_immunity=tuple(state.settings["vote_immune"]))
    outcome = script.resolve(game, state)  # raises if the rule set disagrees
    assert outcome.eliminated == state.eliminated
    # The player voted out is alive, unless modkilled during their last words.
    assert state.eliminated is None or state.eliminated in (*state.alive, *state.removed)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_days_keep_the_rules_and_always_end(ruleset: str, data: Any) -> None:
    script = get_day_script(ruleset)
    state = data.draw(days(ruleset))
    start = state
    given_turns: dict[tuple[str, int], set[str]] = {}
    seen: list[Any] = []
    check(state, given_turns, seen)
    for _ in range(data.draw(st.integers(0, 300))):
        if script.now(state).step == DONE:
            break
        event = random_event(data, state)
        before = state.to_dict()
        try:
            state, _ = script.apply(state, event)
        except DayRuleError as error:
            assert error.reason
            assert state.to_dict() == before
            continue
        check(state, given_turns, seen)
    # Timers alone end the day from wherever it is.
    for _ in range(3 * len(state.alive) + 3):
        if script.now(state).step == DONE:
            break
        state, _ = script.apply(state, {"kind": "timeout"})
        check(state, given_turns, seen)
    assert script.now(state).step == DONE
    assert len(seen) <= turn_bound(start)
    assert not set(state.removed) & set(state.alive)
    agree_with_rule_set(state)
