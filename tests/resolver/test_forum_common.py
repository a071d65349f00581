"""The shared forum night helpers (common.py) that RAR and NAR both use."""

from __future__ import annotations

from resolver.engine import new_game
from resolver.model import Action
from resolver.rulesets.forum import common

PLAYERS = [
    {"name": "Ann", "role": "vanilla_townie", "modifiers": ["one_shot_bulletproof"]},
    {"name": "Bob", "role": "godfather"},
    {"name": "Cat", "role": "goon"},
    {"name": "Dan", "role": "cop", "sanity": "insane"},
    {"name": "Eve", "role": "vigilante"},
]


def state():
    return new_game("forum", PLAYERS)


def test_vest_is_spent_once_and_remembered():
    s = state()
    assert common.has_vest(s, "Ann")
    assert not common.has_vest(s, "Bob")
    after = common.with_vests_spent(s, ["Ann"])
    assert not common.has_vest(after, "Ann")
    assert after.memory[common.VESTS_SPENT] == ["Ann"]
    assert common.with_vests_spent(after, []) is after


def test_investigation_applies_frame_godfather_and_sanity():
    s = state()
    # Dan is insane: every reading is flipped.
    assert common.investigation_result(s, "Dan", "Bob")["result"] == "mafia"
    assert common.investigation_result(s, "Dan", "Bob", framed=True)["result"] == "innocent"
    assert common.investigation_result(s, "Dan", "Cat")["result"] == "innocent"
    moved = common.investigation_result(s, "Dan", "Ann", landed_on="Cat")
    assert moved == {
        "kind": "investigation",
        "target": "Ann",
        "result": "innocent",
        "landed_on": "Cat",
    }


def test_last_mafia_kill_stands_and_vigilante_kill_is_kept():
    s = state()
    actions = (
        Action("Bob", "kill", ("Ann",), 0),
        Action("Eve", "kill", ("Cat",), 1),
        Action("Cat", "kill", ("Dan",), 2),
        Action("Bob", "kill", (), 3),  # no action: does not cancel Cat's kill
    )
    kept, lines = common.last_kill_stands(s, actions)
    assert [a.index for a in kept] == [1, 2]
    assert "last kill submitted stands" in lines[0]


def test_reveals_hide_cleaned_roles_and_results_are_sorted():
    s = state()
    assert common.reveals(s, ["Cat", "Ann"], ["Cat"]) == {"Ann": "vanilla_townie", "Cat": "unknown"}
    assert common.track_result("Bob", ["Eve", "Ann", "Eve"]) == {
        "kind": "track",
        "target": "Bob",
        "visited": ["Ann", "Eve"],
    }
    assert common.watch_result("Bob", []) == {"kind": "watch", "target": "Bob", "visitors": []}
