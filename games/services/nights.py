"""Night actions: submitting and withdrawing them (checked by the resolver itself), and
private results in words. The legal choices the role PM offers are ``games.reads.options``."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.i18n import in_game_language

from .. import gateway, naming
from ..errors import ErrorCode, InvalidInput, NotFound, WrongPhase
from ..models import NightAction, Phase, PhaseKind, Post, PrivateResult, Slot, ThoughtAct, Thread
from ..naming import slot_ref
from ..plain_text import is_plain_text
from ..reads.needs import NIGHT_ACTION, needs_of
from ..reads.options import night_options
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
from .thoughts import check_thoughts, keep_thoughts

NIGHT_ZERO = gettext_lazy("Night zero: the mafia meet and talk; nobody acts tonight.")


def submit_night_action(
    user: Any,
    game_id: int,
    *,
    ability: str,
    targets: list[int],
    extra: Mapping[str, Any] | None = None,
    thoughts: str = "",
    now: datetime | None = None,
) -> NightAction:
    """Submit or change tonight's use of ``ability`` (targets are slot ids); ``thoughts``:
    the player's private reasoning (``services.thoughts``), kept with the action.

    Where the rules count refused attempts (``night_attempts``: classic's three), a refusal
    is counted and committed before the player is told; the last one stores a random valid
    target instead, and the refusal says so."""
    refused: InvalidInput | None = None
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        rules = rules_of(tx.game)
        slot = require_player(tx, user, alive=not rules.dead_may_act)
        phase = require_open_phase(tx, PhaseKind.NIGHT)
        if phase.night_zero:
            raise WrongPhase(str(NIGHT_ZERO), ErrorCode.NIGHT_ZERO)
        if not isinstance(targets, list) or not targets:
            raise InvalidInput(
                _("Choose a target (or withdraw the action)."), ErrorCode.NO_TARGET, "targets"
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
            keep_thoughts(tx, slot, ThoughtAct.NIGHT_ACTION, thoughts, phase=phase)
    if refused is not None:
        raise refused  # after the commit: the count (and any default) stands
    assert action is not None  # stored, since it was not refused
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
    night_ending: bool = False,
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
    if tx.game.league_setup and not night_ending:
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
            _(
                "%(refusal)s (Attempt %(failed)s of %(limit)s: after %(limit)s refused attempts "
                "a random valid target is chosen for you.)"
            )
            % {"refusal": refusal.message, "failed": failed, "limit": limit},
            refusal.code,
            refusal.field,
        )
    chosen = _random_valid_targets(tx, phase, slot, option)
    if chosen is None:
        return InvalidInput(
            _("%(refusal)s (%(failed)s refused attempts; there is no valid target.)")
            % {"refusal": refusal.message, "failed": failed},
            refusal.code,
            refusal.field,
        )
    _store_action(tx, phase, slot, ability, chosen, {}, default=True)
    who = ", ".join(t.display_name for t in chosen)
    return InvalidInput(
        _(
            "%(refusal)s (%(failed)s refused attempts: the rules chose a random valid "
            "target for you, %(who)s.)"
        )
        % {"refusal": refusal.message, "failed": failed, "who": who},
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
    for _attempt in range(20 if option["targets"] > 1 else 1):
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


def take_actions_not_sent(tx: Tx, phase: Phase) -> list[str]:
    """A must-act night's end (``Game.must_act``): each living player who sent none of an
    ability they have tonight has it taken at a random legal target (the night form's
    choices, ``night_options``; the same seeded pick as classic's third refusal), and is
    told so in a private result. A faction's kill is one for the faction, by a random
    member, if nobody ordered it. An ability with a field to fill (the forger's role) has
    no random choice and stays unused. Night zero never gets here (nobody acts in it).
    Returns the notes for the host's report (resolver names)."""
    if not tx.game.must_act or phase.night_zero:
        return []
    sent = set(phase.night_actions.values_list("actor_id", "ability"))
    notes: list[str] = []
    kill_by: list[tuple[Slot, Mapping[str, Any]]] = []  # who may order the faction's kill
    for slot in sorted(tx.slots, key=lambda s: s.seat):
        if not slot.alive or not slot.resolver_name:
            continue
        for option in night_options(tx.game, slot):
            if option["factional"]:
                kill_by.append((slot, option))
            elif (slot.pk, option["ability"]) not in sent:
                _take_at_random(tx, phase, slot, option, notes)
    kills = {ability for _, ability in sent}
    if kill_by and kill_by[0][1]["ability"] not in kills:
        rng = random.Random(f"{tx.game.seed}:{phase.number}:faction")
        killer, kill = rng.choice(kill_by)
        _take_at_random(tx, phase, killer, kill, notes)
    return notes


def _take_at_random(
    tx: Tx, phase: Phase, slot: Slot, option: Mapping[str, Any], notes: list[str]
) -> None:
    ability = option["ability"]
    chosen = _random_valid_targets(tx, phase, slot, option)
    if chosen is None:
        with in_game_language(tx.game):  # the host's report: the game's words
            notes.append(
                _("%(player)s sent no %(ability)s; it has no random choice.")
                % {"player": slot.resolver_name, "ability": ability}
            )
        return
    _store_action(tx, phase, slot, ability, chosen, {}, default=True, night_ending=True)
    targets = [t.resolver_name for t in chosen]
    with in_game_language(tx.game):
        notes.append(
            _("%(player)s sent no %(ability)s: taken at random on %(targets)s.")
            % {"player": slot.resolver_name, "ability": ability, "targets": ", ".join(targets)}
        )
    payload = {
        "kind": "must_act",
        "ability": ability,
        "targets": targets,
        "factional": bool(option["factional"]),
    }
    _deliver(tx, phase, slot, payload)


def end_league_night_when_all_in(tx: Tx, phase: Phase) -> None:
    """A league night has no host to cut it: once every seat that must act has acted, its
    deadline moves to now and the deadline machinery (the ETA task, the scan) ends it, as
    it ends any night. Acts after that are refused (``require_open_phase``)."""
    needs = needs_of(tx.game, tx.slots, phase)  # (the dead too, where the rules let them act)
    if any(NIGHT_ACTION in codes for codes in needs.values()):
        return
    if _partners_still_to_order(tx, phase):
        return
    if phase.night_zero and not _mafia_all_spoke(tx, phase):
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


def _mafia_all_spoke(tx: Tx, phase: Phase) -> bool:
    """Whether every living mafia member has posted in the mafia chat tonight. Night zero
    is the mafia's coordination phase (classic: "they do not kill anyone but may discuss
    strategy, agree on signals"): a league's ran about a second, as nobody acts in it
    (issue 33); it now lasts its night unless every member has had their say sooner."""
    mafia = {s.pk for s in tx.slots if s.alive and s.is_mafia}
    spoke = Post.objects.filter(game=tx.game, thread=Thread.MAFIA, phase=phase, slot_id__in=mafia)
    return mafia <= set(spoke.values_list("slot_id", flat=True))


def end_night_zero_when_the_mafia_spoke(tx: Tx) -> None:
    """After a post in a league game's mafia chat: night zero may be over (see above)."""
    phase = tx.phase
    if tx.game.league_setup and phase is not None and phase.night_zero and not phase.resolved:
        end_league_night_when_all_in(tx, phase)


def _partners_still_to_order(tx: Tx, phase: Phase) -> bool:
    """Whether a living member of a faction that shares a kill has sent no order yet. The
    kill is "in" once one member sends it, but every member may send it and the last order
    stands (classic: "Mafia privately choose", together): a league night that ended at the
    first order refused a partner's later one (issue 33). The deadline still ends a night
    a member sits out."""
    spec = rules_of(tx.game).factional_kill
    if spec is None or phase.night_zero:  # night zero: nobody may order a kill
        return False
    state = state_of(tx.game)
    sent = set(phase.night_actions.filter(ability=spec.slug).values_list("actor_id", flat=True))
    rules = rules_of(tx.game)
    for slot in tx.slots:
        if not slot.alive or slot.pk in sent or not slot.resolver_name:
            continue
        player = state.player(slot.resolver_name)
        if rules.may_use_factional_kill(state, player):
            return True
    return False


def withdraw_night_action(
    user: Any, game_id: int, *, ability: str, now: datetime | None = None
) -> None:
    """Take back tonight's use of ``ability``."""
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        slot = require_player(tx, user, alive=not rules_of(tx.game).dead_may_act)
        phase = require_open_phase(tx, PhaseKind.NIGHT)
        if not is_ability_name(ability):
            raise NotFound(_("You have no such action tonight."), ErrorCode.NO_ACTION, "ability")
        deleted, _rows = NightAction.objects.filter(
            phase=phase, actor=slot, ability=ability
        ).delete()
        if not deleted:
            raise NotFound(
                _("You have no %(ability)s action tonight.") % {"ability": ability},
                ErrorCode.NO_ACTION,
                "ability",
            )
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
        raise InvalidInput(_("Say which ability to use."), ErrorCode.NO_ABILITY, "ability")
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
            raise InvalidInput(
                _("The action takes no field %(field)s.") % {"field": repr(key)},
                ErrorCode.EXTRA,
                "extra",
            )
        if not is_plain_text(value, MAX_EXTRA_LENGTH):
            raise InvalidInput(
                _("%(field)s must be text of at most %(limit)s characters.")
                % {"field": key, "limit": MAX_EXTRA_LENGTH},
                ErrorCode.EXTRA,
                "extra",
            )
    try:
        rules.parse_action(state, gateway.night_order(actor, ability, targets, extra), "$", 0)
    except gateway.InvalidScenario as exc:
        raise InvalidInput(naming.render(exc.message, tx.names), ErrorCode.ILLEGAL_ACTION) from None


_RESULT_WORDS = {
    "mafia": pgettext_lazy("investigation result", "mafia"),
    "innocent": pgettext_lazy("investigation result", "innocent"),
    "not_mafia": pgettext_lazy("investigation result", "not mafia"),
    "red": pgettext_lazy("investigation result", "red (town)"),
    # Black is every side but the town's: the Maniac reads black but is not mafia (city
    # rules). Said without naming roles: a result must not hint which roles are dealt.
    "black": pgettext_lazy("investigation result", "black (not town)"),
    "sheriff": pgettext_lazy("investigation result", "the Sheriff"),
    "not_sheriff": pgettext_lazy("investigation result", "not the Sheriff"),
}


def describe_result(result: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """One sentence for a player's private result, in current names."""
    kind = result.get("kind")
    if kind == "must_act":
        chosen = ", ".join(naming.render(str(t), names) for t in result.get("targets", []))
        parts = {"targets": chosen, "ability": result.get("ability")}
        if result.get("factional"):
            return (
                _(
                    "You did not act: the site chose %(targets)s at random for your team's "
                    "%(ability)s."
                )
                % parts
            )
        return (
            _("You did not act: the site chose %(targets)s at random for your %(ability)s.") % parts
        )
    if kind == "no_result":
        # i18n: marked at its source
        return _(gateway.rules_named(str(result.get("ruleset"))).no_result_line)
    target = naming.render(str(result.get("target", "")), names)
    if kind == "investigation":
        word = _RESULT_WORDS.get(str(result.get("result")), str(result.get("result")))
        return _("Your investigation of %(target)s: %(result)s.") % {
            "target": target,
            "result": word,
        }
    if kind == "track":
        visited = [naming.render(v, names) for v in result.get("visited", [])]
        if not visited:
            return _("You tracked %(target)s: they visited nobody.") % {"target": target}
        return _("You tracked %(target)s: they visited %(where)s.") % {
            "target": target,
            "where": ", ".join(visited),
        }
    if kind == "watch":
        visitors = [naming.render(v, names) for v in result.get("visitors", [])]
        if not visitors:
            return _("You watched %(target)s: visited by nobody.") % {"target": target}
        return _("You watched %(target)s: visited by %(who)s.") % {
            "target": target,
            "who": ", ".join(visitors),
        }
    details = ", ".join(
        f"{k}: {naming.render_value(v, names)}" for k, v in result.items() if k != "kind"
    )
    return f"{str(kind).replace('_', ' ').capitalize()}: {details}."


def deliver_results(
    tx: Tx, phase: Phase, results: Sequence[tuple[Slot, Sequence[Mapping[str, Any]]]]
) -> None:
    """Store each player's private results ((slot, results), as the gateway gives them)
    and push them to that player alone, in words: a cop's check, a tracker's visits, a day
    investigator's result."""
    for owner, items in results:
        for result in items:
            _deliver(tx, phase, owner, dict(result))
    if phase.is_night:
        _deliver_no_results(tx, phase, results)


def _deliver(tx: Tx, phase: Phase, owner: Slot, payload: dict[str, Any]) -> None:
    with in_game_language(tx.game):  # the role PM's texts are in the game's language
        text = describe_result(payload, tx.names)
    PrivateResult.objects.create(slot=owner, phase=phase, payload=payload, text=text)
    emit(
        tx,
        "private_result",
        {"phase": phase.number, "text": text, "result": render(tx, payload)},
        f"slot:{owner.pk}",
    )


def _deliver_no_results(
    tx: Tx, phase: Phase, results: Sequence[tuple[Slot, Sequence[Mapping[str, Any]]]]
) -> None:
    """A player who sent an ability that tells them something and got nothing hears it in
    their rule set's words (``Ruleset.no_result_line``): the PM said "No results yet", as if
    the result were still to come (issue 33)."""
    rules = rules_of(tx.game)
    told = {owner.pk for owner, items in results if items}
    for action in phase.night_actions.all():
        if action.ability not in rules.result_abilities or not action.targets:
            continue
        owner = tx.locked.slot(action.actor_id)
        if owner is None or owner.pk in told:
            continue
        told.add(owner.pk)
        payload = {"kind": "no_result", "ability": action.ability, "ruleset": rules.name}
        _deliver(tx, phase, owner, payload)
