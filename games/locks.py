"""The one place that knows the lock order: game row, then its slots, then its phase.

Every state change locks in this order (``SELECT ... FOR UPDATE``), so two transactions
touching the same game queue up on the game row and can never deadlock on the rest.
SQLite ignores row locks; the settings make its transactions IMMEDIATE instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ErrorCode, NotFound
from .models import Game, Phase, Slot


@dataclass
class Locked:
    """The rows a service function holds for the rest of its transaction."""

    game: Game
    slots: list[Slot]
    phase: Phase | None

    def slot(self, slot_id: int) -> Slot | None:
        return next((s for s in self.slots if s.pk == slot_id), None)

    def slot_of_user(self, user_id: int | None) -> Slot | None:
        if user_id is None:
            return None
        return next((s for s in self.slots if s.user_id == user_id), None)

    def slot_at(self, seat: int) -> Slot | None:
        return next((s for s in self.slots if s.seat == seat), None)

    @property
    def alive(self) -> list[Slot]:
        return [s for s in self.slots if s.alive]


def lock_game(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound("There is no such game.", ErrorCode.NO_GAME) from None


def lock_slots(game: Game) -> list[Slot]:
    slots = list(
        Slot.objects.select_for_update(of=("self",))
        .filter(game=game)
        .select_related("user")
        .order_by("seat")
    )
    for slot in slots:
        slot.game = game  # the locked instance: no query when a slot needs its game's rules
    return slots


def lock_current_phase(game: Game) -> Phase | None:
    if not game.phase_number:
        return None
    phase = Phase.objects.select_for_update().filter(game=game, number=game.phase_number).first()
    if phase is not None:
        phase.game = game  # share the locked instance (event_seq, status) instead of a copy
    return phase


def lock_all(game_id: int) -> Locked:
    """Lock the game, its slots and its current phase, in that order."""
    game = lock_game(game_id)
    slots = lock_slots(game)
    phase = lock_current_phase(game)
    return Locked(game, slots, phase)
