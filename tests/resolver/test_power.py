"""Power: the block-chain function, the win check and the day's co-wins, called directly."""

from __future__ import annotations

import pytest

from resolver.engine import new_game, play_night
from resolver.errors import InvalidScenario
from resolver.model import GameState
from resolver.rulesets.power import co_winners_of, default_shooter, winner
from resolver.rulesets.power.blocks import Block, find_circles, resolve_blocks

JK, RB, MRB = 3, 2, 1


def rb(user: str, target: str, priority: int = RB) -> Block:
    return Block(user, target, priority)


def jail(user: str, target: str) -> Block:
    return Block(user, target, JK, jail=True)


# -- block chains ----------------------------------------------------------------------
def test_a_single_block_lands():
    out = resolve_blocks([rb("A", "Doc")])
    assert out.blocked == {"Doc"}
    assert out.landed == (rb("A", "Doc"),)


def test_blocking_the_blocker_frees_the_target():
    out = resolve_blocks([rb("A", "Doc"), rb("B", "A")])
    assert out.blocked == {"A"}
    assert out.failed == (rb("A", "Doc"),)


def test_chain_of_three_alternates():
    out = resolve_blocks([rb("A", "Doc"), rb("B", "A"), rb("C", "B")])
    assert out.blocked == {"B", "Doc"}


def test_two_blocks_on_one_blocker_need_only_one_to_land():
    out = resolve_blocks([rb("A", "Doc"), rb("B", "A"), rb("C", "A"), rb("D", "B")])
    assert "A" in out.blocked and "Doc" not in out.blocked


def test_mutual_blocks_both_fail_and_block_both():
    out = resolve_blocks([rb("A", "B"), rb("B", "A")])
    assert out.circles == (("A", "B"),)
    assert out.landed == ()
    assert out.blocked == {"A", "B"}


def test_jail_in_a_circle_protects_nobody():
    out = resolve_blocks([jail("J", "R"), rb("R", "J")])
    assert out.jailed == frozenset()
    assert out.blocked == {"J", "R"}
    assert "J's jail protects nobody" in out.explanation[0]


def test_three_circle_blocks_all_three_but_not_their_targets_outside():
    out = resolve_blocks([rb("A", "B"), rb("B", "C"), rb("C", "A"), rb("D", "A")])
    assert out.circles == (("A", "B", "C"),)
    assert out.blocked == {"A", "B", "C"}
    assert out.landed == (rb("D", "A"),)


def test_circle_member_blocking_outside_player_has_no_effect():
    # find_circles copes with several blocks from one player (not possible from input,
    # but the function is general).
    out = resolve_blocks([rb("A", "B"), rb("B", "A"), rb("A", "Doc")])
    assert "Doc" not in out.blocked


def test_chain_mode_lower_priority_stops_higher():
    blocks = [rb("M", "J", MRB), jail("J", "GF")]
    out = resolve_blocks(blocks)
    assert out.jailed == frozenset() and out.blocked == {"J"}


def test_priority_mode_lower_block_lands_but_cannot_stop_higher_block():
    blocks = [rb("M", "J", MRB), jail("J", "GF")]
    out = resolve_blocks(blocks, by_priority=True)
    assert out.jailed == {"GF"}
    assert out.blocked == {"J", "GF"}  # J's other actions would still be stopped


def test_priority_mode_higher_still_stops_lower():
    out = resolve_blocks([rb("M", "Doc", MRB), rb("R", "M", RB)], by_priority=True)
    assert out.blocked == {"M"}


def test_priority_mode_circle_rule_wins():
    out = resolve_blocks([jail("J", "R"), rb("R", "J")], by_priority=True)
    assert out.blocked == {"J", "R"} and out.jailed == frozenset()


def test_find_circles_ignores_chains():
    assert find_circles([rb("A", "B"), rb("B", "C")]) == ()
    assert find_circles([rb("A", "A")]) == (("A",),)


# -- setup, win check, co-wins ---------------------------------------------------------
def game(*seats: str, **targets: str) -> GameState:
    players = []
    for seat in seats:
        name, role = seat.split(":")
        alive = not name.startswith("+")
        name = name.lstrip("+")
        player = {"name": name, "role": role, "alive": alive}
        if name in targets:
            player["target"] = targets[name]
        players.append(player)
    return new_game("power", players)


def test_town_wins_when_no_mafia_aligned_player_lives():
    state = game("+GF:godfather", "+Fr:framer", "Jes:jester", "V:villager")
    assert winner(state).winner == "town"


def test_mafia_parity_counts_neutrals_with_everyone_else():
    assert winner(game("GF:godfather", "Jes:jester")).winner == "mafia"
    assert winner(game("GF:godfather", "Jes:jester", "V:villager")).winner is None
    assert winner(game("GF:godfather", "M:mafia", "Jes:jester", "V:villager")).winner == "mafia"


def test_co_winners_of_jester_and_executioner():
    state = game(
        "GF:godfather", "Jes:jester", "Exe:executioner", "V:villager", "W:villager", Exe="V"
    )
    assert co_winners_of(state, "Jes") == {"Jes": "the jester was voted out"}
    assert list(co_winners_of(state, "V")) == ["Exe"]
    assert co_winners_of(state, "W") == {}


def test_dead_executioner_does_not_co_win():
    state = game("GF:godfather", "+Exe:executioner", "V:villager", "W:villager", Exe="V")
    assert co_winners_of(state, "V") == {}


def test_executioner_target_must_be_living_town_and_not_self():
    with pytest.raises(InvalidScenario, match="living town player"):
        game("GF:godfather", "Exe:executioner", "J:jester", "V:villager", Exe="J")
    with pytest.raises(InvalidScenario, match="needs a target"):
        game("GF:godfather", "Exe:executioner", "V:villager", Exe="Exe")


def test_default_shooter_is_the_godfather_then_the_first_living_member():
    assert default_shooter(game("M:mafia", "GF:godfather", "V:villager")).name == "GF"
    assert default_shooter(game("M:mafia", "+GF:godfather", "V:villager")).name == "M"


def test_executioner_turned_jester_keeps_no_target_and_state_round_trips():
    state = game(
        "GF:godfather",
        "M:mafia",
        "Exe:executioner",
        "V:villager",
        "W:villager",
        "X:villager",
        Exe="V",
    )
    after = play_night(state, [{"actor": "GF", "targets": ["V"]}]).state
    exe = after.player("Exe")
    assert (exe.role, exe.target) == ("jester", None)
    assert GameState.from_dict(after.to_dict()) == after


def test_find_circles_copes_with_chains_longer_than_the_recursion_limit():
    # A ring of 5,000 roleblockers, each blocking the next: one circle, no RecursionError.
    ring = [rb(f"R{i}", f"R{(i + 1) % 5000}") for i in range(5000)]
    (circle,) = find_circles(ring)
    assert len(circle) == 5000
    assert circle[0] == "R0"
