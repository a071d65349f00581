"""Day actions: a day vigilante's shot (announced in the thread, the dead player's role
revealed) and a day investigator's check (the result private to them). Each is resolved at
once by the resolver (``resolver.play_day_action``), which also refuses one sent at night,
a second one the same day, or one with no shots left."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import resolver

from .. import naming
from ..errors import ErrorCode, InvalidInput, WrongPhase
from ..models import DayAction, DeathCause, Game, PhaseKind, Slot
from ..naming import slot_ref
from . import announcements
from .announcements import announce, link_from_banner
from .ballots import emit_vote_count
from .common import (
    Tx,
    emit,
    game_tx,
    render,
    require_open_phase,
    require_player,
    require_running,
    rules_of,
    state_of,
    target_slot,
)
from .nights import deliver_results
from .phases import check_win, kill


def use_day_action(
    user: Any,
    game_id: int,
    *,
    target: int,
    ability: str | None = None,
    now: datetime | None = None,
) -> DayAction:
    """Use the player's day action on ``target`` (a slot id), resolved at once."""
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        slot = require_player(tx, user)
        phase = tx.phase
        if phase is None or phase.resolved or not phase.is_day:
            raise WrongPhase("Day actions are used by day, and it is night.", ErrorCode.NOT_DAY)
        require_open_phase(tx, PhaseKind.DAY)
        if ability is not None and not isinstance(ability, str):
            raise InvalidInput("Say which day action to use.", ErrorCode.NO_ABILITY, "ability")
        aim = target_slot(tx, target)
        state = state_of(tx.game)
        raw = {"actor": slot.resolver_name, "targets": [aim.resolver_name]}
        if ability:
            raw["ability"] = ability
        try:
            outcome = resolver.play_day_action(state, raw, phase="day")
        except resolver.InvalidScenario as exc:
            raise InvalidInput(
                naming.render(exc.message, tx.names), ErrorCode.ILLEGAL_ACTION
            ) from None
        used = ability or _day_abilities(tx.game, slot)[0]
        return _apply(tx, slot, aim, used, outcome)


def _apply(
    tx: Tx, actor: Slot, aim: Slot, ability: str, outcome: resolver.DayActionOutcome
) -> DayAction:
    game, phase = tx.game, tx.phase
    game.resolver_state = outcome.state.to_dict()
    game.save(update_fields=["resolver_state"])
    record = DayAction.objects.create(
        phase=phase,
        actor=actor,
        ability=ability,
        targets=[aim.pk],
        report=outcome.to_report(),
    )
    dead = []
    for name in outcome.dead:
        victim = naming.seat_of(name)
        slot = tx.locked.slot_at(victim) if victim is not None else None
        if slot is not None and slot.alive:
            kill(tx, slot, DeathCause.SHOT, outcome.reveals.get(name, ""))
            dead.append(slot)
    deliver_results(tx, phase, outcome.results)
    if outcome.announcement is not None:
        record.post = announce(tx, announcements.day_shot(aim, dead))
        record.save(update_fields=["post"])
        link_from_banner(tx, tx.phase, replace=False)
    emit(
        tx,
        "day_action",
        {
            "actor": slot_ref(actor),
            "ability": ability,
            "target": slot_ref(aim),
            "explanation": render(tx, list(outcome.explanation)),
        },
        "host",
    )
    if dead:
        emit(
            tx,
            "day_shot",
            {"deaths": [{**slot_ref(s), "revealed_role": s.revealed_role} for s in dead]},
        )
        emit_vote_count(tx)
        check_win(tx)
    return record


def _day_abilities(game: Game, slot: Slot) -> list[str]:
    rules = rules_of(game)
    spec = rules.roles.get(slot.role)
    return [a.slug for a in spec.abilities if a.phase == "day"] if spec else []
