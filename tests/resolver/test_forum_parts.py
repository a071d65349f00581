"""Forum roles built from parts: third-party wins, private threads, X-shot memory and the
role PM's shots left (issue 13, section 1). Night behaviour of each modifier is in the
scenario files (scenarios/forum-rar/mod-*.json, forum-nar/mod-*.json)."""

from __future__ import annotations

import pytest

from resolver import (
    check_winner,
    new_game,
    play_day,
    play_day_action,
    play_night,
    player_role_pm,
    role_pm,
)
from resolver.errors import InvalidScenario
from resolver.model import GameState
from resolver.rulesets import get_ruleset


def _game(*seats: tuple[str, str] | tuple[str, str, list[str]], **kw):
    players = [
        {"name": s[0], "role": s[1], **({"modifiers": s[2]} if len(s) > 2 else {})} for s in seats
    ]
    return new_game("forum", players, **kw)


@pytest.mark.parametrize(
    ("seats", "winner"),
    [
        ([("A", "vanilla_townie"), ("G", "goon")], "mafia"),
        ([("SK", "serial_killer"), ("G", "goon")], None),  # a standoff: the game goes on
        ([("SK", "serial_killer"), ("A", "vanilla_townie")], "serial_killer"),
        ([("SK", "serial_killer")], "serial_killer"),
        ([("SK", "serial_killer"), ("A", "vanilla_townie"), ("B", "vanilla_townie")], None),
        ([("SK", "serial_killer"), ("G", "goon"), ("H", "goon")], "mafia"),
        ([("Sur", "survivor"), ("A", "vanilla_townie")], "town"),
        ([("Jes", "jester"), ("G", "goon")], "mafia"),
    ],
)
def test_win_check_with_third_parties(seats, winner):
    assert check_winner(_game(*seats)).winner == winner


def test_survivors_alive_at_the_end_co_win():
    verdict = check_winner(_game(("Sur", "survivor"), ("G", "goon")))
    assert (verdict.winner, verdict.co_winners) == ("mafia", ("Sur",))


def test_masons_and_neighbors_share_a_thread():
    state = _game(("M1", "mason"), ("N1", "neighbor"), ("A", "cop"), ("M2", "mason"), ("G", "goon"))
    assert get_ruleset("forum").private_threads(state) == {
        "masons": ["M1", "M2"],
        "neighbors": ["N1"],
    }
    assert role_pm("forum", "mason")["private_thread"] == "masons"


def test_shots_left_in_memory_and_role_pm():
    state = _game(
        ("Vig", "vigilante", ["shots:2"]),
        ("A", "vanilla_townie"),
        ("B", "vanilla_townie"),
        ("C", "vanilla_townie"),
        ("G", "goon"),
    )
    assert player_role_pm(state, "Vig")["shots_left"] == 2
    assert player_role_pm(state, "Vig")["title"] == "Town 2-Shot Vigilante"
    after = play_night(state, [{"actor": "Vig", "targets": ["A"]}]).state
    assert after.memory["shots_used"] == {"Vig": 1}
    assert player_role_pm(after, "Vig")["shots_left"] == 1
    assert player_role_pm(after, "A")["shots_left"] is None
    # stored and restored with the game
    assert GameState.from_dict(after.to_dict()).memory["shots_used"] == {"Vig": 1}


def test_third_party_role_pm():
    pm = role_pm("forum", "serial_killer")
    assert pm["title"] == "Serial Killer"
    assert pm["abilities"] == ["Each night, you may kill one player; you act alone, for yourself."]
    assert "alone" in pm["win_condition"]


def test_modifier_errors_name_the_place():
    with pytest.raises(InvalidScenario) as err:
        _game(("Vig", "vigilante", ["shots:-1"]), ("A", "vanilla_townie"), ("G", "goon"))
    assert err.value.where == "$.players[0].modifiers[0]"


# -- day actions -------------------------------------------------------------------------
def _day_table():
    return _game(
        ("DV", "day_vigilante", ["shots:2"]),
        ("DI", "day_investigator"),
        ("BP", "vanilla_townie", ["bulletproof"]),
        ("Vest", "vanilla_townie", ["one_shot_bulletproof"]),
        ("A", "vanilla_townie"),
        ("G", "goon"),
        ("GF", "godfather"),
    )


def test_day_shot_kills_at_once_and_is_announced():
    out = play_day_action(_day_table(), {"actor": "DV", "targets": ["G"]})
    assert out.dead == ("G",)
    assert out.reveals == {"G": "goon"}
    assert out.announcement == "G has been shot and dies. G was a goon."
    assert any("1 shot left" in line for line in out.explanation)
    assert not out.state.is_alive("G")


def test_day_shot_stopped_by_bulletproof_and_vest():
    state = _day_table()
    out = play_day_action(state, {"actor": "DV", "targets": ["BP"]})
    assert out.dead == () and "bulletproof" in out.explanation[0]
    assert out.announcement == "Someone shot at BP, but BP survives."
    out = play_day_action(state, {"actor": "DV", "targets": ["Vest"]})
    assert out.dead == () and out.state.memory["vests_spent"] == ["Vest"]


def test_day_actions_refused_at_night_twice_a_day_and_when_spent():
    state = _day_table()
    with pytest.raises(InvalidScenario, match="it is night"):
        play_day_action(state, {"actor": "DV", "targets": ["A"]}, phase="night")
    state = play_day_action(state, {"actor": "DV", "targets": ["A"]}).state
    with pytest.raises(InvalidScenario, match="already used their day action today"):
        play_day_action(state, {"actor": "DV", "targets": ["G"]})
    state = play_day(state, {"votes": {}}).state  # the next day (a scenario can skip night)
    state = play_day_action(state, {"actor": "DV", "targets": ["BP"]}).state
    state = play_day(state, {"votes": {}}).state
    with pytest.raises(InvalidScenario, match="used all 2 of their shots") as err:
        play_day_action(state, {"actor": "DV", "targets": ["G"]})
    assert err.value.where == "$.action.actor"


def test_day_actions_are_not_night_actions():
    state = _day_table()
    with pytest.raises(InvalidScenario, match="day action, not a night one"):
        play_night(state, [{"actor": "DV", "ability": "day_kill", "targets": ["A"]}])
    with pytest.raises(InvalidScenario, match="no night ability"):
        play_night(state, [{"actor": "DV", "targets": ["A"]}])


def test_day_investigation_is_private():
    out = play_day_action(_day_table(), {"actor": "DI", "targets": ["GF"]})
    assert out.announcement is None and out.dead == ()
    assert out.results == {"DI": ({"kind": "investigation", "target": "GF", "result": "innocent"},)}


def test_no_day_actions_elsewhere():
    state = new_game("classic", [{"name": "A", "role": "town"}, {"name": "M", "role": "mafia"}])
    with pytest.raises(InvalidScenario, match="no day actions"):
        play_day_action(state, {"actor": "A", "targets": ["M"]})
