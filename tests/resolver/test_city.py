"""City rule set: the corrected win predicate (Layer 4) after nights and days, and its data."""

from __future__ import annotations

import pytest

from resolver.engine import check_winner, new_game, play_day, play_night, run_scenario
from resolver.errors import InvalidScenario
from resolver.rulesets.city import RULESET

DOCUMENT_FLAGS = {
    "healCancelsManiacKill": True,
    "loverGrantsVoteImmunity": True,
    "loverDeathDrag": True,
    "loverDragSavable": False,
    "doctorNoRepeatTarget": True,
    "mistressNoRepeatTarget": True,
    "repeatTargetScope": "anyTarget",
    "maniacWinBeatsParity": False,
    "immunityBlocksVote": False,
    "immunitySavesFromDrag": False,
}


def game(roles: dict[str, str], **flags):
    return new_game("city", [{"name": n, "role": r} for n, r in roles.items()], flags=flags)


def test_flags_are_the_documents_table_with_its_defaults():
    assert RULESET.default_flags() == DOCUMENT_FLAGS


def test_roles_and_alignments():
    assert set(RULESET.roles) == {
        "citizen",
        "sheriff",
        "doctor",
        "mistress",
        "mafia",
        "don",
        "maniac",
    }
    assert {r: s.alignment for r, s in RULESET.roles.items()} == {
        "citizen": "town",
        "sheriff": "town",
        "doctor": "town",
        "mistress": "town",
        "mafia": "mafia",
        "don": "mafia",
        "maniac": "maniac",
    }


# (living roles, flags, winner, reason)
PREDICATE_ROWS = [
    pytest.param(["citizen", "sheriff"], {}, "town", "all-blacks-out", id="red-wins"),
    pytest.param(["maniac", "citizen"], {}, "maniac", "maniac-last-black", id="row8-maniac+1red"),
    pytest.param(["maniac"], {}, "maniac", "maniac-last-black", id="maniac-sole-survivor"),
    pytest.param(["maniac", "citizen", "doctor"], {}, None, "", id="maniac+2reds-continues"),
    pytest.param(["maniac", "mafia", "citizen"], {}, None, "", id="row9-no-win-yet"),
    pytest.param(["maniac", "don"], {}, "mafia", "mafia-maniac-standoff", id="row14-standoff"),
    pytest.param(
        ["maniac", "mafia"],
        {"maniacWinBeatsParity": True},
        "maniac",
        "mafia-maniac-standoff",
        id="row14-flag-on-maniac-wins",
    ),
    pytest.param(["mafia", "citizen"], {}, "mafia", "mafia-parity", id="mafia-parity"),
    pytest.param(
        ["don", "mafia", "maniac", "citizen"], {}, "mafia", "mafia-parity", id="parity-with-maniac"
    ),
    pytest.param(
        ["don", "mafia", "maniac", "citizen"],
        {"maniacWinBeatsParity": True},
        None,
        "",
        id="maniac-blocks-parity",
    ),
    pytest.param(
        ["don", "mafia", "maniac"], {}, "mafia", "mafia-maniac-standoff", id="two-mafia-vs-maniac"
    ),
    pytest.param(
        ["don", "mafia", "maniac"],
        {"maniacWinBeatsParity": True},
        None,
        "",
        id="two-mafia-vs-maniac-flag-on",
    ),
    pytest.param(["mafia", "citizen", "citizen"], {}, None, "", id="mafia-below-parity"),
    # The old cue "blacks >= reds" would end this game (3 >= 2); the corrected one does not.
    pytest.param(
        ["don", "mafia", "maniac", "citizen", "sheriff"], {}, None, "", id="old-cue-defect"
    ),
]


@pytest.mark.parametrize(("roles", "flags", "winner", "reason"), PREDICATE_ROWS)
def test_win_predicate(roles, flags, winner, reason):
    state = game({f"P{i}": r for i, r in enumerate(roles)}, **flags)
    verdict = check_winner(state)
    assert (verdict.winner, verdict.reason) == (winner, reason)


def test_everyone_dead_is_a_red_win_by_the_letter_of_the_predicate():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen"}).with_dead(["Moe", "Max"])
    assert check_winner(state.with_dead(["Ann"])).winner == "town"


# -- after a night ---------------------------------------------------------------------------
def test_row8_maniac_wins_after_night():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen", "Bob": "citizen"})
    out = play_night(
        state,
        [
            {"actor": "Moe", "ability": "kill", "targets": ["Bob"]},
            {"actor": "Max", "targets": ["Moe"]},
        ],
    )
    assert sorted(out.dead) == ["Bob", "Moe"]
    assert check_winner(out.state).winner == "maniac"


def test_row9_no_win_after_night():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen", "Bob": "citizen"})
    out = play_night(state, [{"actor": "Moe", "ability": "kill", "targets": ["Bob"]}])
    assert out.dead == ("Bob",)
    assert check_winner(out.state).winner is None


def test_row14_standoff_after_night():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen", "Bob": "citizen"})
    out = play_night(
        state,
        [
            {"actor": "Moe", "ability": "kill", "targets": ["Ann"]},
            {"actor": "Max", "targets": ["Bob"]},
        ],
    )
    verdict = check_winner(out.state)
    assert (verdict.winner, verdict.reason) == ("mafia", "mafia-maniac-standoff")


def test_night_without_a_doctor_ends_in_a_double_kill_town_win():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen"})
    out = play_night(
        state,
        [
            {"actor": "Moe", "ability": "kill", "targets": ["Max"]},
            {"actor": "Max", "targets": ["Moe"]},
        ],
    )
    assert check_winner(out.state).winner == "town"


# -- after a day -----------------------------------------------------------------------------
def test_row8_maniac_wins_after_day():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen"})
    out = play_day(state, {"votes": {"Ann": "Moe", "Max": "Moe", "Moe": "Ann"}})
    assert out.eliminated == "Moe"
    assert check_winner(out.state).winner == "maniac"


def test_row9_no_win_after_day():
    state = game({"Moe": "mafia", "Max": "maniac", "Ann": "citizen", "Bob": "citizen"})
    out = play_day(state, {"votes": {"Ann": "Bob", "Max": "Bob", "Moe": "Ann"}})
    assert out.eliminated == "Bob"
    assert check_winner(out.state).winner is None


@pytest.mark.parametrize(
    ("flags", "winner"), [({}, "mafia"), ({"maniacWinBeatsParity": True}, "maniac")]
)
def test_row14_standoff_after_day(flags, winner):
    scenario = {
        "ruleset": "city",
        "flags": flags,
        "players": [
            {"name": "Moe", "role": "mafia"},
            {"name": "Max", "role": "maniac"},
            {"name": "Ann", "role": "citizen"},
        ],
        "phases": [{"day": {"votes": {"Moe": "Ann", "Max": "Ann", "Ann": "Max"}}}],
    }
    report = run_scenario(scenario)
    assert (report["winner"], report["win_reason"]) == (winner, "mafia-maniac-standoff")


def test_vote_immunity_negates_the_vote_out_but_votes_count():
    state = game({"Mis": "mistress", "Bob": "citizen", "Ann": "citizen", "Moe": "mafia"})
    night = play_night(state, [{"actor": "Mis", "targets": ["Bob"]}])
    assert night.state.vote_immunity == ("Bob",)
    day = play_day(night.state, {"votes": {"Ann": "Bob", "Moe": "Bob", "Mis": "Ann"}})
    assert day.eliminated is None and day.revote is None
    assert day.state.vote_immunity == ()  # it lasts one day


def test_maniac_kill_follows_its_own_heal_flag():
    state = game({"Max": "maniac", "Ann": "citizen", "Doc": "doctor"}, healCancelsManiacKill=False)
    out = play_night(
        state,
        [
            {"actor": "Max", "ability": "kill", "targets": ["Ann"]},
            {"actor": "Doc", "targets": ["Ann"]},
        ],
    )
    assert out.dead == ("Ann",)


def test_maniac_cannot_kill_himself():
    state = game({"Max": "maniac", "Ann": "citizen"})
    with pytest.raises(InvalidScenario) as err:
        play_night(state, [{"actor": "Max", "targets": ["Max"]}])
    assert err.value.where == "$.night[0].targets[0]"
