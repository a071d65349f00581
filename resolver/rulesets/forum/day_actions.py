"""Forum day actions: the day vigilante's shot and the day investigator's check.

A day action is resolved the moment it is sent, by itself: there is nothing to order it
against (no doctor protects by day). The shot kills unless the target is bulletproof or
still has a vest (then spent); the thread gets an announcement and the dead player's role
is revealed. The investigation's result is private to its user. Each user acts at most
once a day; ``shots:N`` limits the uses over the game (the count shared with the night in
``memory["shots_used"]``); ``loyal``/``disloyal`` make the action fail on the wrong side
(the shot is still spent); ``weak`` kills the user too when the target is scum.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import InvalidScenario
from ...model import Action, DayActionOutcome, GameState, Player, frozen_map
from ...text import _, ngettext
from ..base import AbilitySpec, Ruleset
from . import common

# memory key: name -> the phase_number of the day they last acted in
DAY_ACTED = "day_acted"


def resolve_day_action(
    rules: Ruleset, state: GameState, raw: Any, phase: str = "day", where: str = "$.action"
) -> DayActionOutcome:
    """Check and resolve one day action ``{"actor", "ability"?, "targets": [name]}``.

    ``phase`` is the phase the game is in (``"day"`` or ``"night"``): a day action sent at
    night is refused. Bad input raises InvalidScenario (one sentence and a JSON path)."""
    actor, ability, target = _parse(rules, state, raw, phase, where)
    action = Action(actor.name, ability.slug, (target,))
    after = _spend(state, actor)
    shots = rules.shots_left(after, actor)
    tail = []
    if shots:
        tail = [
            ngettext(
                "%(player)s has %(shots)s shot left.", "%(player)s has %(shots)s shots left.", shots
            )
            % {"player": actor.name, "shots": shots}
        ]
    if shots == 0:
        tail = [_("%(player)s has no shots left.") % {"player": actor.name}]
    kept, failed = common.allegiance_failures(state, (action,))
    if not kept:
        return DayActionOutcome((), frozen_map(), frozen_map(), None, (*failed, *tail), after)
    dead: list[str] = []
    lines: list[str] = []
    results: dict[str, tuple[Mapping[str, Any], ...]] = {}
    announcement: str | None = None
    spent_vests: list[str] = []
    if ability.slug == "day_kill":
        shot = _("%(player)s's day shot") % {"player": actor.name}
        died, line = _shot(after, target, shot, spent_vests)
        lines.append(line)
        dead += [target] if died else []
        role = state.player(target).role
        announcement = (
            _("%(target)s has been shot and dies. %(target)s was a %(role)s.")
            if died
            else _("Someone shot at %(target)s, but %(target)s survives.")
        ) % {"target": target, "role": role}
    else:
        result = common.investigation_result(state, actor.name, target)
        results[actor.name] = (result,)
        lines.append(
            _(
                "%(player)s investigates %(target)s by day and is told %(result)s "
                "(only they learn it)."
            )
            % {
                "player": actor.name,
                "target": target,
                "result": common.reading(result["result"]),
            }
        )
    if common.is_weak(actor) and common.is_scum(state.player(target)):
        shot = _("%(player)s's weakness") % {"player": actor.name}
        died, line = _shot(after, actor.name, shot, spent_vests)
        lines.append(
            _("%(player)s is weak and targeted %(target)s, who is scum: %(why)s")
            % {"player": actor.name, "target": target, "why": line}
        )
        if died:
            dead.append(actor.name)
            weak_news = _("%(player)s dies. %(player)s was a %(role)s.") % {
                "player": actor.name,
                "role": actor.role,
            }
            announcement = f"{announcement} {weak_news}" if announcement else weak_news
    after = common.with_vests_spent(after.with_dead(dead), spent_vests)
    reveals = {name: state.player(name).role for name in dead}
    return DayActionOutcome(
        tuple(dead),
        frozen_map(results),
        frozen_map(reveals),
        announcement,
        (*failed, *lines, *tail),
        after,
    )


def _shot(state: GameState, target: str, shot: str, spent_vests: list[str]) -> tuple[bool, str]:
    """Does a day shot kill ``target``, and the line saying why (no protection by day)."""
    player = state.player(target)
    values = {"target": target, "shot": shot}
    if common.is_bulletproof(player):
        return False, _("%(target)s survives: they are bulletproof, so %(shot)s fails.") % values
    if common.has_vest(state, target) and target not in spent_vests:
        spent_vests.append(target)
        line = _("%(target)s survives: their one-shot vest stops %(shot)s; it is now spent.")
        return False, line % values
    return True, _("%(target)s dies: %(shot)s hits (nothing protects by day).") % values


def _parse(
    rules: Ruleset, state: GameState, raw: Any, phase: str, where: str
) -> tuple[Player, AbilitySpec, str]:
    if phase != "day":
        raise InvalidScenario(_("Day actions are used by day, and it is night."), where)
    if not isinstance(raw, dict):
        raise InvalidScenario(_("A day action must be an object with actor and targets."), where)
    name = raw.get("actor")
    if not isinstance(name, str) or not state.has_player(name):
        raise InvalidScenario(
            _("The day action's actor %(actor)s is not a player in this game.")
            % {"actor": repr(name)},
            f"{where}.actor",
        )
    actor = state.player(name)
    if not actor.alive:
        raise InvalidScenario(
            _("%(actor)s is dead and cannot act.") % {"actor": name}, f"{where}.actor"
        )
    own = [a for a in rules.roles[actor.role].abilities if a.phase == "day"]
    slug = raw.get("ability")
    ability = next((a for a in own if slug in (None, a.slug)), None)
    if ability is None:
        raise InvalidScenario(
            (
                _("%(actor)s (%(role)s) has no day action called %(ability)s.")
                if slug is not None
                else _("%(actor)s (%(role)s) has no day action.")
            )
            % {"actor": name, "role": actor.role, "ability": repr(slug)},
            f"{where}.ability" if slug is not None else f"{where}.actor",
        )
    why = rules.spent_shots(state, actor)  # type: ignore[attr-defined]
    if why is None and state.memory.get(DAY_ACTED, {}).get(name) == state.phase_number:
        why = _("%(actor)s has already used their day action today.") % {"actor": name}
    if why is not None:
        raise InvalidScenario(why, f"{where}.actor")
    targets = raw.get("targets")
    if not isinstance(targets, list) or len(targets) != 1 or not isinstance(targets[0], str):
        raise InvalidScenario(
            _("%(actor)s's %(ability)s takes one target: a list with one player name.")
            % {"actor": name, "ability": ability.slug},
            f"{where}.targets",
        )
    rules._check_target(state, actor, ability, targets[0], f"{where}.targets[0]")
    return actor, ability, targets[0]


def _spend(state: GameState, actor: Player) -> GameState:
    """Remember today's use (one a day) and, for an X-shot user, one more shot spent."""
    acted = dict(state.memory.get(DAY_ACTED, {}))
    acted[actor.name] = state.phase_number
    changes: dict[str, Any] = {DAY_ACTED: acted}
    if common.modifier_number(actor, "shots") is not None:
        used = dict(state.memory.get(common.SHOTS_USED, {}))
        used[actor.name] = used.get(actor.name, 0) + 1
        changes[common.SHOTS_USED] = used
    return state.with_memory(**changes)
