"""Properties of forum nights (RAR) on random legal nights: any roles, modifiers, flags
and actions. They never crash, nobody dies without a kill aimed or moved at them (or a
visit to a paranoid gun owner), and the same night gives the same report twice."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resolver.engine import new_game, play_night
from resolver.model import GameState
from resolver.rulesets import get_ruleset
from resolver.rulesets.forum.roles import MODIFIERS, ROLES, SANITIES

RULES = get_ruleset("forum")
ROLE_NAMES = sorted(ROLES)
MAFIA_ROLES = sorted(r for r, spec in ROLES.items() if spec.alignment == "mafia")
VISITS = {"kill", "protect", "investigate", "block", "jail", "track", "watch", "frame", "clean"}


@st.composite
def forum_nights(draw: Any) -> tuple[GameState, list[list[dict[str, Any]]]]:
    size = draw(st.integers(4, 9))
    names = [f"P{i}" for i in range(size)]
    roles = [draw(st.sampled_from(MAFIA_ROLES))]
    roles += [draw(st.sampled_from(ROLE_NAMES)) for _ in range(size - 1)]
    players = []
    for name, role in zip(names, roles, strict=True):
        seat: dict[str, Any] = {"name": name, "role": role}
        seat["modifiers"] = draw(st.lists(st.sampled_from(sorted(MODIFIERS)), max_size=2))
        if ROLES[role].cop_like:
            seat["sanity"] = draw(st.sampled_from(SANITIES))
        players.append(seat)
    flags = {
        "selfTargeting": draw(st.booleans()),
        "protectionStopsAllKills": draw(st.booleans()),
    }
    state = new_game("forum", players, "rar", flags)
    nights = [draw(_night(state, names)) for _ in range(draw(st.integers(1, 2)))]
    return state, nights


def _night(state: GameState, names: list[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    @st.composite
    def build(draw: Any) -> list[dict[str, Any]]:
        actions = []
        for player in state.players:
            for ability in RULES.abilities_of(state, player):
                if not draw(st.booleans()):
                    continue
                pool = (
                    names
                    if state.flags["selfTargeting"]
                    else [n for n in names if n != player.name]
                )
                targets = [draw(st.sampled_from(pool)) for _ in range(ability.targets)]
                actions.append({"actor": player.name, "ability": ability.slug, "targets": targets})
        return draw(st.permutations(actions))

    return build()


def _reach(actions: list[dict[str, Any]], actor: str, target: str) -> set[str]:
    """Every player an effect of ``actor`` aimed at ``target`` could be moved to."""
    starts = {target} | {
        a["targets"][1]
        for a in actions
        if a["ability"] == "redirect" and a["targets"] and a["targets"][0] == actor
    }
    swaps = [a["targets"] for a in actions if a["ability"] == "swap" and a["targets"]]
    seen = set(starts)
    changed = True
    while changed:
        changed = False
        for x, y in swaps:
            if (x in seen) != (y in seen):
                seen |= {x, y}
                changed = True
    return seen


def _may_die(state: GameState, actions: list[dict[str, Any]]) -> set[str]:
    may = set()
    gun_owners = {p.name for p in state.players if p.role == "paranoid_gun_owner"}
    for a in actions:
        if not a["targets"]:
            continue
        reach = _reach(actions, a["actor"], a["targets"][0])
        if a["ability"] == "kill":
            may |= reach
        if a["ability"] in VISITS and reach & gun_owners:
            may.add(a["actor"])
    return may


def _play(state: GameState, nights: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    reports = []
    for i, raw in enumerate(nights):
        live = [a for a in raw if _legal(state, a)]
        outcome = play_night(state, live)
        report = outcome.to_report(i + 1)
        assert set(report["dead"]) <= _may_die(state, live), (report, live)
        assert all(state.is_alive(n) for n in report["dead"])
        assert set(report["reveals"]) == set(report["dead"])
        assert all(isinstance(line, str) and line for line in report["explanation"])
        reports.append(report)
        state = outcome.state
    return reports


def _legal(state: GameState, action: dict[str, Any]) -> bool:
    """Drop actions a previous night made illegal (dead actor or target, spent use)."""
    names = [action["actor"], *action["targets"]]
    return all(state.is_alive(n) for n in names)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forum_nights())
def test_random_nights_are_sound_and_deterministic(case):
    state, nights = case
    first = _play(state, nights)
    assert _play(state, nights) == first
