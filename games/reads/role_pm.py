"""The role PM as one read model: what a player's role PM page and the API's role PM both
show (role, alignment, partners, the resolver's card, tonight's abilities with their legal
targets, day actions, the player's own and the team's actions, private results). The page
and the API format the same ``RolePM``; ``role_pm`` is the card data the services also send
to the player when the roles are dealt or the slot changes hands."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .. import display, gateway
from ..gateway import GameState, Rules, rules_named
from ..models import Game, NightAction, Phase, PrivateResult, Slot
from ..naming import SeatHistory, seat_ref, slot_ref
from ..shapes import Partner
from .options import day_action_options, night_options
from .seats import seat_history


def role_pm(slot: Slot, slots: Iterable[Slot], state: GameState | None = None) -> dict[str, Any]:
    """What a player's role PM tells them: their role and, for mafia and masons, partners.

    ``card`` is the forum-style role PM the resolver writes (``resolver.role_pm``): title
    ("Town 1-Shot Day Vigilante"), alignment, one line per ability, modifiers, win
    condition, private thread and shots left (counted from ``state`` when given).
    """
    data: dict[str, Any] = {
        "slot_id": slot.pk,
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "partners": [],
        "card": role_card(slot, state),
    }
    if slot.executioner_target_id:
        target = next((s for s in slots if s.pk == slot.executioner_target_id), None)
        data["executioner_target"] = slot_ref(target)
    if slot.is_mafia:
        data["partners"] = [partner(s) for s in slots if s.is_mafia and s.pk != slot.pk]
    elif slot.private_thread:
        data["partners"] = [
            partner(s) for s in slots if s.private_thread == slot.private_thread and s.pk != slot.pk
        ]
    return data


def partner(slot: Slot) -> Partner:
    """A teammate on the role PM, with their death (public once it happened)."""
    return {
        **seat_ref(slot),
        "alive": slot.alive,
        "death": slot.get_death_cause_display() if not slot.alive else "",
    }


def role_card(slot: Slot, state: GameState | None = None) -> dict[str, Any] | None:
    """The resolver's role PM of ``slot`` (None before the deal or for an unknown role)."""
    if not slot.role:
        return None
    if state is not None and state.has_player(slot.resolver_name):
        return gateway.player_card(state, slot)
    ruleset = slot.game.ruleset
    try:
        return gateway.role_card(ruleset, slot.role, slot.modifiers or (), slot.alignment or None)
    except KeyError:
        return None


def open_night(game: Game) -> Phase | None:
    """The current night if actions can be sent now (running, not resolved, not paused)."""
    if not game.is_running:
        return None
    phase = game.current_phase()
    if phase is None or not phase.is_night or phase.resolved or phase.is_paused:
        return None
    return phase


def team_kill_actions(game: Game, slot: Slot, phase: Phase | None) -> list[NightAction]:
    """Tonight's faction-kill orders of the living mafia, which every living mafioso sees."""
    rules = rules_named(game.ruleset)
    if phase is None or rules.factional_kill is None or not (slot.alive and slot.is_mafia):
        return []
    return list(
        NightAction.objects.filter(
            phase=phase, ability=rules.factional_kill.slug, actor__alignment="mafia"
        )
        .select_related("actor__user")
        .order_by("updated_at", "id")
    )


@dataclass(frozen=True)
class RolePM:
    """Everything a player's role PM shows, read once for the page and the API alike."""

    game: Game
    slot: Slot
    rules: Rules
    slots: list[Slot]  # the game's, in seat order
    state: GameState | None
    pm: dict[str, Any]  # ``role_pm``: role, alignment, partners, card, executioner target
    description: str
    night: Phase | None  # tonight, while actions can be sent
    night_options: list[dict[str, Any]]  # tonight's abilities, legal targets as slot ids
    day_options: list[dict[str, Any]]  # today's day actions, legal targets as slot ids
    actions: list[NightAction]  # the player's own, by phase and time of sending
    team_kills: list[NightAction]  # tonight's faction-kill orders of the living mafia
    results: list[PrivateResult]  # the player's private results, by phase

    @classmethod
    def of(cls, game: Game, slot: Slot) -> RolePM:
        rules = rules_named(game.ruleset)
        slots = list(game.slots.select_related("user").order_by("seat"))
        state = GameState.from_dict(game.resolver_state) if game.resolver_state else None
        spec = rules.roles.get(slot.role)
        night = open_night(game)
        actions = NightAction.objects.filter(actor=slot).select_related("phase")
        return cls(
            game=game,
            slot=slot,
            rules=rules,
            slots=slots,
            state=state,
            pm=role_pm(slot, slots, state),
            description=display.tr(spec.description) if spec else "",
            night=night,
            night_options=night_options(game, slot) if night is not None else [],
            day_options=day_action_options(game, slot, state),
            actions=sorted(actions, key=lambda a: (a.phase.number, a.updated_at, a.pk)),
            team_kills=team_kill_actions(game, slot, night),
            results=list(
                PrivateResult.objects.filter(slot=slot)
                .select_related("phase")
                .order_by("phase__number", "id")
            ),
        )

    @cached_property
    def history(self) -> SeatHistory:
        """Who held each seat when: past acts name the holder then."""
        return seat_history(self.game, self.slots)

    def held(self, slot_id: int, act: NightAction) -> str:
        """``slot_id``'s holder when ``act`` was sent ("gus", though Zoë Smith replaced gus
        since)."""
        return self.history.holder(slot_id, at=act.updated_at)

    def result_names(self, result: PrivateResult) -> dict[int, str]:
        """Seat -> holder through the result's phase (to render its payload)."""
        return self.history.seat_names(phase=result.phase.number)

    @property
    def paused_night(self) -> bool:
        """A night the host has paused: no action can be sent, changed or withdrawn until
        it resumes (what was sent stands)."""
        if not self.game.is_running:
            return False
        phase = self.game.current_phase()
        return bool(phase and phase.is_night and not phase.resolved and phase.is_paused)

    @property
    def by_id(self) -> dict[int, Slot]:
        return {s.pk: s for s in self.slots}

    @property
    def tonight(self) -> list[NightAction]:
        """The player's actions of tonight (none when no night is open)."""
        night = self.night
        return [a for a in self.actions if night is not None and a.phase_id == night.pk]

    @property
    def past(self) -> list[NightAction]:
        """The player's actions of nights already resolved."""
        return [a for a in self.actions if a.phase.resolved]
