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
    tail = [f"{actor.name} has {shots} shot{'s' if shots != 1 else ''} left."] if shots else []
    if shots == 0:
        tail = [f"{actor.name} has no shots left."]
    kept, failed = common.allegiance_failures(state, (action,))
    if not kept:
        return DayActionOutcome((), frozen_map(), frozen_map(), None, (*failed, *tail), after)
    dead: list[str] = []
    lines: list[str] = []
    results: dict[str, tuple[Mapping[str, Any], ...]] = {}
    announcement: str | None = None
    spent_vests: list[str] = []
    if ability.slug == "day_kill":
        died, line = _shot(after, target, f"{actor.name}'s day shot", spent_vests)
        lines.append(line)
        dead += [target] if died else []
        role = state.player(target).role
        announcement = (
            f"{target} has been shot and dies. {target} was a {role}."
            if died
            else f"Someone shot at {target}, but {target} survives."
        )
    else:
        result = common.investigation_result(state, actor.name, target)
        results[actor.name] = (result,)
        lines.append(
            f"{actor.name} investigates {target} by day and is told {result['result']} "
            "(only they learn it)."
        )
    if common.is_weak(actor) and common.is_scum(state.player(target)):
        died, line = _shot(after, actor.name, f"{actor.name}'s weakness", spent_vests)
        lines.append(f"{actor.name} is weak and targeted {target}, who is scum: {line}")
        if died:
            dead.append(actor.name)
            weak_news = f"{actor.name} dies. {actor.name} was a {actor.role}."
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
    if common.is_bulletproof(player):
        return False, f"{target} survives: they are bulletproof, so {shot} fails."
    if common.has_vest(state, target) and target not in spent_vests:
        spent_vests.append(target)
        return False, f"{target} survives: their one-shot vest stops {shot}; it is now spent."
    return True, f"{target} dies: {shot} hits (nothing protects by day)."


def _parse(
    rules: Ruleset, state: GameState, raw: Any, phase: str, where: str
) -> tuple[Player, AbilitySpec, str]:
    if phase != "day":
        raise InvalidScenario("Day actions are used by day, and it is night.", where)
    if not isinstance(raw, dict):
        raise InvalidScenario("A day action must be an object with actor and targets.", where)
    name = raw.get("actor")
    if not isinstance(name, str) or not state.has_player(name):
        raise InvalidScenario(
            f"The day action's actor {name!r} is not a player in this game.", f"{where}.actor"
        )
    actor = state.player(name)
    if not actor.alive:
        raise InvalidScenario(f"{name} is dead and cannot act.", f"{where}.actor")
    own = [a for a in rules.roles[actor.role].abilities if a.phase == "day"]
    slug = raw.get("ability")
    ability = next((a for a in own if slug in (None, a.slug)), None)
    if ability is None:
        raise InvalidScenario(
            f"{name} ({actor.role}) has no day action"
            + (f" called {slug!r}." if slug is not None else "."),
            f"{where}.ability" if slug is not None else f"{where}.actor",
        )
    why = rules.spent_shots(state, actor)  # type: ignore[attr-defined]
    if why is None and state.memory.get(DAY_ACTED, {}).get(name) == state.phase_number:
        why = f"{name} has already used their day action today."
    if why is not None:
        raise InvalidScenario(why, f"{where}.actor")
    targets = raw.get("targets")
    if not isinstance(targets, list) or len(targets) != 1 or not isinstance(targets[0], str):
        raise InvalidScenario(
            f"{name}'s {ability.slug} takes one target: a list with one player name.",
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
