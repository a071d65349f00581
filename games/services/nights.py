"""Night actions: submitting and withdrawing them (checked by the resolver itself), and
private results in words. The legal choices the role PM offers are ``games.reads.options``."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import resolver

from .. import naming
from ..errors import ErrorCode, InvalidInput, NotFound, WrongPhase
from ..models import NightAction, Phase, PhaseKind, PrivateResult, Slot
from ..naming import slot_ref
from ..plain_text import is_plain_text
from ..reads.needs import NIGHT_ACTION, needs_of
from ..reads.options import night_options, raw_action
from .common import (
    Tx,
    by_resolver_name,
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

NIGHT_ZERO = "Night zero: the mafia meet and talk; nobody acts tonight."


def submit_night_action(
    user: Any,
    game_id: int,
    *,
    ability: str,
    targets: list[int],
    extra: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> NightAction:
    """Submit or change tonight's use of ``ability`` (targets are slot ids).

    Where the rules count refused attempts (``night_attempts``: classic's three), a refusal
    is counted and committed before the player is told; the last one stores a random valid
    target instead, and the refusal says so."""
    refused: InvalidInput | None = None
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        rules = rules_of(tx.game)
        slot = require_player(tx, user, alive=not rules.dead_may_act)
        phase = require_open_phase(tx, PhaseKind.NIGHT)
        if phase.night_zero:
            raise WrongPhase(NIGHT_ZERO, ErrorCode.NIGHT_ZERO)
        if not isinstance(targets, list) or not targets:
            raise InvalidInput(
                "Choose a target (or withdraw the action).", ErrorCode.NO_TARGET, "targets"
            )
        target_slots = [target_slot(tx, t) for t in targets]
        extra = dict(extra or {})
        try:
            _check_night_action(tx, slot, ability, target_slots, extra)
        except InvalidInput as exc:
            refused = _count_refusal(tx, phase, slot, ability, exc)  # raises if not counted
            action = None
        else:
            action = _store_action(tx, phase, slot, ability, target_slots, extra)
    if refused is not None:
        raise refused  # after the commit: the count (and any default) stands
    return action


def _store_action(
    tx: Tx,
    phase: Phase,
    slot: Slot,
    ability: str,
    target_slots: list[Slot],
    extra: dict[str, Any],
    *,
    default: bool = False,
) -> NightAction:
    action, created = NightAction.objects.update_or_create(
        phase=phase,
        actor=slot,
        ability=ability,
        defaults={"targets": [t.pk for t in target_slots], "extra": extra},
    )
    payload = {
        "actor": slot_ref(slot),
        "ability": ability,
        "targets": [slot_ref(t) for t in target_slots],
        "extra": extra,
        "changed": not created,
        "default": default,
    }
    emit(tx, "night_action", payload, f"slot:{slot.pk}")
    emit(tx, "night_action", payload, "host")
    spec = rules_of(tx.game).factional_kill
    if spec is not None and ability == spec.slug and slot.is_mafia:
        emit(tx, "night_action", payload, "mafia")
    if tx.game.league_setup:
        end_league_night_when_all_in(tx, phase)
    return action


def _count_refusal(
    tx: Tx, phase: Phase, slot: Slot, ability: str, refusal: InvalidInput
) -> InvalidInput:
    """Count a refused use of one of the player's abilities tonight, where the rules count
    them; the error to answer once this is committed. Not counted (raised at once): rules
    that count nothing, a refusal other than the rules' own, an ability the player lacks
    tonight, or one already used validly (a later bad attempt does not undo it)."""
    limit = rules_of(tx.game).night_attempts
    if limit is None or refusal.code != ErrorCode.ILLEGAL_ACTION:
        raise refusal
    option = next((o for o in night_options(tx.game, slot) if o["ability"] == ability), None)
    if option is None:
        raise refusal
    # A team's kill a partner already sent is the team's choice: no default overrides it.
    actors = [s.pk for s in tx.slots if s.is_mafia] if option["factional"] else [slot.pk]
    if NightAction.objects.filter(phase=phase, ability=ability, actor__in=actors).exists():
        raise refusal
    key = f"{slot.pk}:{ability}"
    failed = int(phase.night_refusals.get(key, 0)) + 1
    phase.night_refusals = {**phase.night_refusals, key: failed}
    phase.save(update_fields=["night_refusals"])
    if failed < limit:
        return InvalidInput(
            f"{refusal.message} (Attempt {failed} of {limit}: after {limit} refused attempts "
            "a random valid target is chosen for you.)",
            refusal.code,
            refusal.field,
        )
    chosen = _random_valid_targets(tx, phase, slot, option)
    if chosen is None:
        return InvalidInput(
            f"{refusal.message} ({failed} refused attempts; there is no valid target.)",
            refusal.code,
            refusal.field,
        )
    _store_action(tx, phase, slot, ability, chosen, {}, default=True)
    who = ", ".join(t.display_name for t in chosen)
    return InvalidInput(
        f"{refusal.message} ({failed} refused attempts: the rules chose a random valid "
        f"target for you, {who}.)",
        refusal.code,
        refusal.field,
    )


def _random_valid_targets(
    tx: Tx, phase: Phase, slot: Slot, option: Mapping[str, Any]
) -> list[Slot] | None:
    """A random valid choice of targets (seeded by the game, the night and the seat, so a
    replay makes the same one); None if there is none."""
    if option["extra"]:
        return None  # a free-text field (the forger's role) has no default
    rng = random.Random(f"{tx.game.seed}:{phase.number}:{slot.pk}:{option['ability']}")
    choices = [target_slot(tx, pk) for pk in option["choices"]]
    for _ in range(20 if option["targets"] > 1 else 1):
        if not choices:
            return None
        picked = (
            [rng.choice(choices)]
            if option["targets"] == 1
            else rng.sample(choices, min(option["targets"], len(choices)))
        )
        try:
            _check_night_action(tx, slot, option["ability"], picked, {})
        except InvalidInput:
            continue
        return picked
    return None


def end_league_night_when_all_in(tx: Tx, phase: Phase) -> None:
    """A league night has no host to cut it: once every seat that must act has acted, its
    deadline moves to now and the deadline machinery (the ETA task, the scan) ends it, as
    it ends any night. Acts after that are refused (``require_open_phase``)."""
    needs = needs_of(tx.game, tx.slots, phase)  # (the dead too, where the rules let them act)
    if any(NIGHT_ACTION in codes for codes in needs.values()):
        return
    was = phase.deadline
    phase.deadline = tx.now
    phase.save(update_fields=["deadline"])
    emit(
        tx,
        "deadline_changed",
        {
            "number": phase.number,
            "deadline": phase.deadline.isoformat(),
            "paused_remaining": None,
            "was": was.isoformat() if was else None,
        },
    )


def withdraw_night_action(
    user: Any, game_id: int, *, ability: str, now: datetime | None = None
) -> None:
    """Take back tonight's use of ``ability``."""
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        slot = require_player(tx, user, alive=not rules_of(tx.game).dead_may_act)
        phase = require_open_phase(tx, PhaseKind.NIGHT)
        if not is_ability_name(ability):
            raise NotFound("You have no such action tonight.", ErrorCode.NO_ACTION, "ability")
        deleted, _ = NightAction.objects.filter(phase=phase, actor=slot, ability=ability).delete()
        if not deleted:
            raise NotFound(f"You have no {ability} action tonight.", ErrorCode.NO_ACTION, "ability")
        payload = {"actor": slot_ref(slot), "ability": ability}
        emit(tx, "night_action_withdrawn", payload, f"slot:{slot.pk}")
        emit(tx, "night_action_withdrawn", payload, "host")


MAX_EXTRA_LENGTH = 40
ABILITY_NAME = re.compile(r"[a-z][a-z0-9_]{0,29}")


def is_ability_name(value: Any) -> bool:
    """An ability slug as the rule sets spell them (and as the column holds them)."""
    return isinstance(value, str) and ABILITY_NAME.fullmatch(value) is not None


def _check_night_action(
    tx: Tx, actor: Slot, ability: str, targets: list[Slot], extra: Mapping[str, Any]
) -> None:
    """The resolver's own validation, so the site and the resolver agree on legality."""
    if not isinstance(ability, str) or not ability:
        raise InvalidInput("Say which ability to use.", ErrorCode.NO_ABILITY, "ability")
    rules = rules_of(tx.game)
    state = state_of(tx.game)
    declared: tuple[str, ...] = ()
    if is_ability_name(ability):
        player = state.player(actor.resolver_name)
        spec = next((s for s in rules.abilities_of(state, player) if s.slug == ability), None)
        declared = spec.extra if spec is not None else ()
    # Only the fields the ability declares (the forger's role...), short plain text: the
    # extra is stored and pushed to the host and the team.
    for key, value in extra.items():
        if key not in declared:
            raise InvalidInput(f"The action takes no field {key!r}.", ErrorCode.EXTRA, "extra")
        if not is_plain_text(value, MAX_EXTRA_LENGTH):
            raise InvalidInput(
                f"{key} must be text of at most {MAX_EXTRA_LENGTH} characters.",
                ErrorCode.EXTRA,
                "extra",
            )
    try:
        rules.parse_action(state, raw_action(actor, ability, targets, extra), "$", 0)
    except resolver.InvalidScenario as exc:
        raise InvalidInput(naming.render(exc.message, tx.names), ErrorCode.ILLEGAL_ACTION) from None


_RESULT_WORDS = {
    "mafia": "mafia",
    "innocent": "innocent",
    "not_mafia": "not mafia",
    "red": "red (town)",
    "black": "black (mafia)",
    "sheriff": "the Sheriff",
    "not_sheriff": "not the Sheriff",
}


def describe_result(result: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """One sentence for a player's private result, in current names."""
    kind = result.get("kind")
    target = naming.render(str(result.get("target", "")), names)
    if kind == "investigation":
        word = _RESULT_WORDS.get(str(result.get("result")), str(result.get("result")))
        return f"Your investigation of {target}: {word}."
    if kind == "track":
        visited = [naming.render(v, names) for v in result.get("visited", [])]
        where = ", ".join(visited) if visited else "nobody"
        return f"You tracked {target}: they visited {where}."
    if kind == "watch":
        visitors = [naming.render(v, names) for v in result.get("visitors", [])]
        who = ", ".join(visitors) if visitors else "nobody"
        return f"You watched {target}: visited by {who}."
    details = ", ".join(
        f"{k}: {naming.render_value(v, names)}" for k, v in result.items() if k != "kind"
    )
    return f"{str(kind).replace('_', ' ').capitalize()}: {details}."


def deliver_results(
    tx: Tx, phase: Phase, results: Mapping[str, Iterable[Mapping[str, Any]]]
) -> None:
    """Store each player's private results (resolver name -> results) and push them to that
    player alone, in words: a cop's check, a tracker's visits, a day investigator's result."""
    for name, items in results.items():
        owner = by_resolver_name(tx, name)
        if owner is None:
            continue
        for result in items:
            payload = dict(result)
            text = describe_result(payload, tx.names)
            PrivateResult.objects.create(slot=owner, phase=phase, payload=payload, text=text)
            emit(
                tx,
                "private_result",
                {"phase": phase.number, "text": text, "result": render(tx, payload)},
                f"slot:{owner.pk}",
            )
