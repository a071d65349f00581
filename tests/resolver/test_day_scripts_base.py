"""The day scripts' shared layer: the registry, speaking order, the state's JSON, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from resolver.days import DayRuleError, DayState, attempt, get_day_script, speaking_order
from resolver.days.base import (
    DONE,
    NO_ADDRESSEE,
    NOT_IN_STEP,
    OUT_OF_TURN,
    REFUSED,
    SELF_QUESTION,
    SPEECH,
    SPEECH_TOO_LONG,
    VOTE,
    Notice,
    Turn,
)

SEATS = [f"S{i}" for i in range(10)]


def test_registry_gives_a_script_per_table_game_and_none_for_the_forum_thread():
    for name in ("classic", "city", "power"):
        assert get_day_script(name).name == name
    assert get_day_script("forum") is None
    with pytest.raises(DayRuleError, match="Unknown rule set 'chess'"):
        get_day_script("chess")


def test_day_scripts_import_no_django():
    code = (
        "import sys, resolver.days.classic, resolver.days.city, resolver.days.power; "
        "sys.exit(any(m.split('.')[0] == 'django' for m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root, check=False).returncode == 0


def test_speaking_order_starts_one_seat_later_each_day_and_wraps():
    assert speaking_order(SEATS, SEATS, 1)[0] == "S0"
    assert speaking_order(SEATS, SEATS, 4)[:2] == ("S3", "S4")
    assert speaking_order(SEATS, SEATS, 11)[0] == "S0"  # ten seats: day 11 is back to seat 0
    assert speaking_order(SEATS, SEATS, 10) == ("S9", *SEATS[:9])


def test_speaking_order_skips_the_dead_and_keeps_seat_order():
    alive = [s for s in SEATS if s not in ("S2", "S3", "S7")]
    assert speaking_order(SEATS, alive, 3) == ("S4", "S5", "S6", "S8", "S9", "S0", "S1")


def test_state_round_trips_through_json_at_every_step_of_a_day():
    script = get_day_script("classic")
    state = script.start_day(SEATS[:4], SEATS[:4], 1, seed=7)
    seen = [state]
    while script.now(state).step != DONE:
        state, _ = script.apply(state, {"kind": "timeout"})
        seen.append(state)
    for s in seen:
        again = DayState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert again == s
        assert script.now(again) == script.now(s)


def test_turn_and_notice_are_plain_json():
    script = get_day_script("city")
    state = script.start_day(["A", "B"], ["A", "B"], 1)
    turn = script.now(state)
    assert isinstance(turn, Turn)
    assert json.loads(json.dumps(turn.to_dict()))["speaker"] == "A"
    assert Notice("step", "x").to_dict() == {"kind": "step", "text": "x", "player": None}


@pytest.mark.parametrize(
    ("event", "reason", "code"),
    [
        ("not a dict", 'An event is an object with a "kind".', REFUSED),
        ({"kind": "dance", "player": "A"}, "Unknown event kind 'dance'.", REFUSED),
        ({"kind": "post", "player": "Zed"}, "'Zed' is not a player in this game.", REFUSED),
        ({"kind": "post", "player": "D"}, "D is dead and cannot act.", REFUSED),
        ({"kind": "post", "player": "B"}, "It is A's turn (speeches), not B's.", OUT_OF_TURN),
        (
            {"kind": "vote", "player": "A", "target": "B"},
            "Nobody can vote during the speeches.",
            NOT_IN_STEP,
        ),
        ({"kind": "close_vote"}, "There is no vote to close: the day is in the speech.", REFUSED),
        (
            {"kind": "post", "player": "A", "words": -1},
            "A post's word count must be a whole",
            REFUSED,
        ),
    ],
)
def test_illegal_events_are_refused_with_a_reason_and_change_nothing(event, reason, code):
    script = get_day_script("city")
    state = script.start_day(["A", "B", "C", "D"], ["A", "B", "C"], 1)
    before = state.to_dict()
    with pytest.raises(DayRuleError) as error:
        script.apply(state, event)
    assert error.value.reason.startswith(reason)
    assert error.value.code == code
    assert state.to_dict() == before


def test_classic_speeches_tell_whose_turn_it_is_and_that_nobody_passes():
    script = get_day_script("classic")
    state = script.start_day(["A", "B", "C"], ["A", "B", "C"], 1)
    with pytest.raises(DayRuleError) as passing:
        script.apply(state, {"kind": "pass", "player": "A"})
    assert passing.value.reason == "Nobody can pass during the speeches."
    assert passing.value.code == NOT_IN_STEP
    # A has spoken but still owes a nomination: B's post is told whose turn it is.
    state, _ = script.apply(state, {"kind": "post", "player": "A", "words": 10})
    with pytest.raises(DayRuleError) as error:
        script.apply(state, {"kind": "post", "player": "B", "words": 10})
    assert error.value.reason == "It is A's turn (speeches), not B's."
    assert error.value.code == OUT_OF_TURN


def test_nothing_happens_after_the_day_is_done():
    script = get_day_script("power")
    state = script.start_day(["A", "B"], ["A", "B"], 1)
    while script.now(state).step != DONE:
        state, _ = script.apply(state, {"kind": "timeout"})
    with pytest.raises(DayRuleError, match="The day is over"):
        script.apply(state, {"kind": "timeout"})


def test_start_day_checks_its_input():
    script = get_day_script("classic")
    with pytest.raises(DayRuleError, match="distinct"):
        script.start_day(["A", "A"], ["A"], 1)
    with pytest.raises(DayRuleError, match="No seat for C"):
        script.start_day(["A", "B"], ["A", "C"], 1)
    with pytest.raises(DayRuleError, match="numbered from 1"):
        script.start_day(["A", "B"], ["A", "B"], 0)
    with pytest.raises(DayRuleError, match="Unknown day setting 'speed'"):
        script.start_day(["A", "B"], ["A", "B"], 1, {"speed": 3})
    with pytest.raises(DayRuleError, match="whole number"):
        script.start_day(["A", "B"], ["A", "B"], 1, {"word_limit": "many"})


def test_attempt_applies_a_legal_event_and_counts_a_refused_one():
    script = get_day_script("classic")
    state = script.start_day(["A", "B", "C"], ["A", "B", "C"], 2)  # day 2: B speaks first
    nominate = {"kind": "nominate", "player": "B", "target": "x"}
    state, notices, refusal = attempt(script, state, nominate)
    assert refusal is not None and refusal.code == REFUSED
    assert refusal.reason == "B cannot nominate 'x': not a player in this game."
    assert state.failures == {"B": 1}
    assert notices[0].kind == "refused"
    state, _, refusal = attempt(script, state, {**nominate, "target": "A"})
    assert refusal is None
    assert state.nominations == {"B": "A"}
    assert state.step == SPEECH and state.failures == {}


def test_a_vote_closes_by_itself_once_every_living_player_has_voted():
    script = get_day_script("power")
    state = script.start_day(["A", "B", "C"], ["A", "B", "C"], 1)
    state, _ = script.apply(state, {"kind": "vote_skip_discussion", "player": "A"})
    state, _ = script.apply(state, {"kind": "pass", "player": "A"})
    state, _ = script.apply(state, {"kind": "vote_skip_discussion", "player": "B"})
    assert script.now(state).step == VOTE
    state, _ = script.apply(state, {"kind": "vote", "player": "A", "target": "C"})
    state, _ = script.apply(state, {"kind": "vote", "player": "A", "target": "B"})  # changed
    state, _ = script.apply(state, {"kind": "vote", "player": "B", "target": "B"})
    assert script.now(state).step == VOTE
    state, _ = script.apply(state, {"kind": "vote", "player": "C", "target": "skip"})
    assert script.now(state).step == DONE
    assert state.eliminated == "B"


def test_each_refusal_of_a_speech_has_its_own_code():
    power = get_day_script("power")
    state = power.start_day(["A", "B", "C"], ["A", "B", "C"], 2)  # the question round
    speaker = power.now(state).speaker
    for target, code in ((None, NO_ADDRESSEE), (speaker, SELF_QUESTION)):
        with pytest.raises(DayRuleError) as error:
            power.apply(state, {"kind": "post", "player": speaker, "target": target})
        assert error.value.code == code
    classic = get_day_script("classic")
    state = classic.start_day(["A", "B", "C"], ["A", "B", "C"], 1)
    with pytest.raises(DayRuleError) as error:
        classic.apply(state, {"kind": "post", "player": "A", "words": 151})
    assert error.value.code == SPEECH_TOO_LONG
    assert "151 words; the limit is 150" in error.value.reason
