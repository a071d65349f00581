"""Day actions: a day vigilante's shot (announced in the thread, the dead player's role
revealed) and a day investigator's check (the result private to them). Each is resolved at
once by the resolver (``resolver.play_day_action``), which also refuses one sent at night,
a second one the same day, or one with no shots left."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from games.i18n import in_game_language

from .. import gateway
from ..errors import ErrorCode, InvalidInput, WrongPhase
from ..models import DayAction, DeathCause, Game, PhaseKind, Slot, ThoughtAct
from ..naming import slot_ref
from . import announcements
from .announcements import announce, link_from_banner
from .ballots import emit_vote_count
from .common import (
    Tx,
    emit,
    game_tx,
    require_open_phase,
    require_player,
    require_running,
    rules_of,
    target_slot,
)
from .nights import deliver_results
from .phases import check_win, kill
from .thoughts import check_thoughts, keep_thoughts
from .wills import post_wills


def use_day_action(
    user: Any,
    game_id: int,
    *,
    target: int,
    ability: str | None = None,
    thoughts: str = "",
    now: datetime | None = None,
) -> DayAction:
    """Use the player's day action on ``target`` (a slot id), resolved at once."""
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        slot = require_player(tx, user)
        phase = tx.phase
        if phase is None or phase.resolved or not phase.is_day:
            raise WrongPhase(_("Day actions are used by day, and it is night."), ErrorCode.NOT_DAY)
        require_open_phase(tx, PhaseKind.DAY)
        if ability is not None and not isinstance(ability, str):
            raise InvalidInput(_("Say which day action to use."), ErrorCode.NO_ABILITY, "ability")
        aim = target_slot(tx, target)
        try:
            outcome = gateway.use_day_action(tx.game, tx.slots, slot, aim, ability)
        except gateway.InvalidScenario as exc:  # (its message in current names)
            raise InvalidInput(exc.message, ErrorCode.ILLEGAL_ACTION) from None
        used = ability or _day_abilities(tx.game, slot)[0]
        keep_thoughts(tx, slot, ThoughtAct.DAY_ACTION, thoughts, phase=phase)
        return _apply(tx, slot, aim, used, outcome)


def _apply(tx: Tx, actor: Slot, aim: Slot, ability: str, outcome: gateway.DayShot) -> DayAction:
    game, phase = tx.game, tx.current
    game.resolver_state = outcome.state.to_dict()
    game.save(update_fields=["resolver_state"])
    record = DayAction.objects.create(
        phase=phase,
        actor=actor,
        ability=ability,
        targets=[aim.pk],
        report=outcome.report,
    )
    dead = []
    for death in outcome.deaths:
        if death.slot.alive:
            kill(tx, death.slot, DeathCause.SHOT, death.revealed_role)
            dead.append(death.slot)
    deliver_results(tx, phase, outcome.results)
    if outcome.announced:
        with in_game_language(game):
            record.post = announce(tx, announcements.day_shot(aim, dead))
        record.save(update_fields=["post"])
    post_wills(tx, dead)
    link_from_banner(tx, tx.phase, replace=False)  # (nothing announced: nothing to link)
    emit(
        tx,
        "day_action",
        {
            "actor": slot_ref(actor),
            "ability": ability,
            "target": slot_ref(aim),
            "explanation": outcome.explanation,
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
