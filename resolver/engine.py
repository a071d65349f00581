"""Plays a game phase by phase: the one entry point the CLI and the web app share.

``new_game`` builds the opening state from a setup, ``play_night`` / ``play_day`` take raw
(JSON-shaped) input, check it and return an outcome carrying the next state, and
``run_scenario`` plays a whole CLI scenario into the report of resolver-cli.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .errors import InvalidScenario
from .model import (
    Action,
    DayActionOutcome,
    DayOutcome,
    GameState,
    NightOutcome,
    Player,
    Verdict,
    frozen_map,
)
from .rulesets import get_ruleset
from .rulesets.base import Ruleset
from .text import _

PLAYER_FIELDS = {"name", "role", "alignment", "modifiers", "sanity", "immune", "target", "alive"}


def new_game(
    ruleset: object,  # a CLI scenario's field as sent: get_ruleset checks it
    players: Any,
    method: Any = None,
    flags: Any = None,
    seed: int = 0,
) -> GameState:
    """The state before the first phase, or InvalidScenario if the setup is not legal."""
    rules = get_ruleset(ruleset)
    if method is None:
        method = rules.methods[0]
    elif method not in rules.methods:
        raise InvalidScenario(
            _("The %(rules)s rule set resolves nights with %(methods)s, not %(method)s.")
            % {"rules": rules.name, "methods": ", ".join(rules.methods), "method": repr(method)},
            "$.method",
        )
    checked_flags = rules.check_flags(flags, "$.flags")
    seats = _parse_players(rules, players)
    state = GameState(
        ruleset=rules.name,
        method=method,
        flags=frozen_map(checked_flags),
        players=seats,
        seed=seed,
    )
    for i, player in enumerate(seats):
        if player.target is not None and not state.has_player(player.target):
            raise InvalidScenario(
                _("%(player)s's target %(target)s is not a player in this game.")
                % {"player": player.name, "target": repr(player.target)},
                f"$.players[{i}].target",
            )
        rules.check_player(player, f"$.players[{i}]")
    rules.check_setup(state)
    return state


def _parse_players(rules: Ruleset, raw: Any) -> tuple[Player, ...]:
    if not isinstance(raw, list) or not raw:
        raise InvalidScenario(_("The scenario needs a non-empty list of players."), "$.players")
    seats: list[Player] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"$.players[{i}]"
        if not isinstance(item, dict):
            raise InvalidScenario(_("Each player must be an object with a name and a role."), where)
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InvalidScenario(_("Each player needs a non-empty name."), f"{where}.name")
        if name in seen:
            raise InvalidScenario(
                _("Two players are called %(name)s.") % {"name": name}, f"{where}.name"
            )
        if name == "skip":
            raise InvalidScenario(_('"skip" is reserved for votes; rename the player.'), where)
        seen.add(name)
        role = item.get("role")
        if not isinstance(role, str) or role not in rules.roles:
            raise InvalidScenario(
                _("Unknown role %(role)s for the %(rules)s rule set (roles: %(roles)s).")
                % {"role": repr(role), "rules": rules.name, "roles": ", ".join(rules.roles)},
                f"{where}.role",
            )
        spec = rules.roles[role]
        alignment = item.get("alignment", spec.alignment)
        if alignment not in rules.alignments:
            raise InvalidScenario(
                _("Unknown alignment %(alignment)s; use one of %(alignments)s.")
                % {"alignment": repr(alignment), "alignments": ", ".join(rules.alignments)},
                f"{where}.alignment",
            )
        modifiers = item.get("modifiers", [])
        if not isinstance(modifiers, list):
            raise InvalidScenario(_("modifiers must be a list."), f"{where}.modifiers")
        for j, mod in enumerate(modifiers):
            rules.check_modifier(mod, f"{where}.modifiers[{j}]")
        sanity = item.get("sanity", "sane")
        if sanity not in rules.sanities:
            raise InvalidScenario(
                _("Unknown sanity %(sanity)s; use one of %(sanities)s.")
                % {"sanity": repr(sanity), "sanities": ", ".join(rules.sanities)},
                f"{where}.sanity",
            )
        if sanity != "sane" and not spec.cop_like:
            raise InvalidScenario(
                _("%(name)s is a %(role)s; only investigative roles have a sanity.")
                % {"name": name, "role": role},
                f"{where}.sanity",
            )
        immune = item.get("immune", False)
        if not isinstance(immune, bool) or (immune and not rules.uses_immunity_card):
            raise InvalidScenario(
                _("The %(rules)s rule set has no immunity card.") % {"rules": rules.name}
                if isinstance(immune, bool)
                else _("immune must be true or false."),
                f"{where}.immune",
            )
        target = item.get("target")
        if target is not None and (
            not rules.uses_executioner_target or not isinstance(target, str)
        ):
            raise InvalidScenario(
                _("Only an executioner has a target, and it is a player name."), f"{where}.target"
            )
        alive = item.get("alive", True)
        if not isinstance(alive, bool):
            raise InvalidScenario(_("alive must be true or false."), f"{where}.alive")
        seats.append(Player(name, role, alignment, tuple(modifiers), sanity, immune, target, alive))
    return tuple(seats)


def play_night(state: GameState, raw_actions: Any, where: str = "$.night") -> NightOutcome:
    """Check and resolve one night; the outcome's state is ready for the next phase."""
    rules = get_ruleset(state.ruleset)
    actions = rules.parse_night(state, raw_actions, where)
    outcome = rules.resolve_night(state, actions)
    after = _remember_night(rules, outcome.state, actions)
    after = replace(
        after,
        phase_number=state.phase_number + 1,
        night_number=state.night_number + 1,
        vote_immunity=tuple(outcome.vote_immunity),
    )
    return replace(outcome, state=after)


def _remember_night(rules: Ruleset, state: GameState, actions: tuple[Action, ...]) -> GameState:
    """Record last night's targets (no-repeat rules) and spent one-shot uses."""
    last: dict[str, dict[str, list[str]]] = {}
    uses = {k: dict(v) for k, v in state.memory.get("uses", {}).items()}
    for action in actions:
        if not action.targets:
            continue
        last.setdefault(action.actor, {})[action.ability] = list(action.targets)
        spec = rules.roles[state.player(action.actor).role].ability(action.ability)
        if spec is not None and spec.uses is not None:
            mine = uses.setdefault(action.actor, {})
            mine[action.ability] = mine.get(action.ability, 0) + 1
    return state.with_memory(last_targets=last, uses=uses)


def play_day(state: GameState, raw_day: Any, where: str = "$.day") -> DayOutcome:
    """Check and count one day's votes (and revote, if played)."""
    rules = get_ruleset(state.ruleset)
    day = rules.parse_day(state, raw_day, where)
    outcome = rules.resolve_day(state, day)
    after = replace(outcome.state, phase_number=state.phase_number + 1, vote_immunity=())
    return replace(outcome, state=after)


def play_day_action(
    state: GameState, raw_action: Any, phase: str = "day", where: str = "$.action"
) -> DayActionOutcome:
    """Check and resolve one day action at once (a day vigilante's shot, a day
    investigator's check); ``phase`` is the game's current phase ("day" or "night")."""
    return get_ruleset(state.ruleset).resolve_day_action(state, raw_action, phase, where)


def check_winner(state: GameState) -> Verdict:
    return get_ruleset(state.ruleset).check_winner(state)


def remove_player(state: GameState, name: str) -> GameState:
    """A modkill: the player dies outside the night and the vote."""
    return get_ruleset(state.ruleset).remove_player(state, name)


def scenario_seed(data: Mapping[str, Any]) -> int:
    """A seed from the scenario itself, so replaying it gives the same random choices."""
    seed = data.get("seed")
    if isinstance(seed, int):
        return seed
    canonical = json.dumps(
        {k: data.get(k) for k in ("ruleset", "method", "flags", "players", "phases")},
        sort_keys=True,
    )
    return int.from_bytes(hashlib.sha256(canonical.encode()).digest()[:8], "big")


def run_scenario(data: Any) -> dict[str, Any]:
    """Play a CLI scenario and build the report; raises InvalidScenario on bad input."""
    if not isinstance(data, dict):
        raise InvalidScenario(_("The scenario must be a JSON object."), "$")
    state = new_game(
        data.get("ruleset"),
        data.get("players"),
        data.get("method"),
        data.get("flags"),
        scenario_seed(data),
    )
    phases = data.get("phases", [])
    if not isinstance(phases, list):
        raise InvalidScenario(_("phases must be a list."), "$.phases")
    reports: list[dict[str, Any]] = []
    verdict = check_winner(state)
    for i, phase in enumerate(phases):
        where = f"$.phases[{i}]"
        if verdict.winner is not None:
            break
        if not isinstance(phase, dict) or len(phase) != 1 or not ({"night", "day"} & set(phase)):
            raise InvalidScenario(
                _('Each phase must be {"night": [...]} or {"day": {...}}.'), where
            )
        if "night" in phase:
            outcome: NightOutcome | DayOutcome = play_night(state, phase["night"], f"{where}.night")
        else:
            outcome = play_day(state, phase["day"], f"{where}.day")
        reports.append(outcome.to_report(i + 1))
        state = outcome.state
        verdict = check_winner(state)
    report: dict[str, Any] = {
        "ruleset": state.ruleset,
        "method": state.method,
        "phases": reports,
        "alive": list(state.alive_names),
        "winner": verdict.winner,
        "win_reason": verdict.reason or None,
        "co_winners": sorted(set(state.co_winners) | set(verdict.co_winners)),
    }
    if len(reports) < len(phases):
        report["unplayed_phases"] = len(phases) - len(reports)
    return report
