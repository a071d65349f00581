"""Who held each seat when (``naming.SeatHistory``), read from the slots and their
``Replacement`` rows: pages and the API name past acts by the holder at the time."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models import Game, Replacement, Slot
from ..naming import Change, SeatHistory


def seat_history(game: Game, slots: Iterable[Slot]) -> SeatHistory:
    slots = list(slots)
    changes: dict[int, list[Change]] = {}
    rows = (
        Replacement.objects.filter(slot__game=game)
        .select_related("old_user", "new_user")
        .order_by("at", "id")
    )
    for row in rows:
        changes.setdefault(row.slot_id, []).append(
            Change(
                row.phase_number, row.at, row.old_user.get_username(), row.new_user.get_username()
            )
        )
    return SeatHistory(
        current={s.pk: s.display_name for s in slots},
        seats={s.pk: s.seat for s in slots},
        changes=changes,
    )


def replaced_out(game: Game, user: Any) -> dict[str, Any] | None:
    """If ``user`` once held a slot of this game and no longer does: who replaced them and
    when (public facts: the thread announced it), else None."""
    if not getattr(user, "is_authenticated", False):
        return None
    row = (
        Replacement.objects.filter(slot__game=game, old_user=user)
        .select_related("new_user")
        .order_by("-at", "-id")
        .first()
    )
    if row is None or game.slots.filter(user=user).exists():
        return None
    phase = game.phases.filter(number=row.phase_number).first() if row.phase_number else None
    return {"by": row.new_user.get_username(), "when": phase.label if phase else ""}
