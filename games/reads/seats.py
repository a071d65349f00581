"""Who held each seat when (``naming.SeatHistory``), read from the slots and their
``Replacement`` rows: pages and the API name past acts by the holder at the time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..models import Game, Replacement, Slot
from ..naming import Change, SeatHistory, queue_name, shown_name


def seat_history(game: Game, slots: Iterable[Slot]) -> SeatHistory:
    slots = list(slots)
    changes: dict[int, list[Change]] = {}
    masks = {s.pk: s.mask_name for s in slots}
    rows = (
        Replacement.objects.filter(slot__game=game)
        .select_related("old_user", "new_user")
        .order_by("at", "id")
    )
    for row in rows:
        # Each holder under the seat's mask in an anonymous game (the same name while it runs).
        mask = masks.get(row.slot_id, "")
        old = shown_name(game, mask, row.old_user.get_username())
        new = shown_name(game, mask, row.new_user.get_username())
        changes.setdefault(row.slot_id, []).append(Change(row.phase_number, row.at, old, new))
    return SeatHistory(
        current={s.pk: s.display_name for s in slots},
        seats={s.pk: s.seat for s in slots},
        changes=changes,
    )


@dataclass(frozen=True)
class Waiting:
    """One person in a game's replacement queue, as a viewer sees them."""

    name: str  # ``naming.queue_name``: their place in line in an anonymous game
    username: str | None  # the account (its agent badge), where it may show; None: masked


def replacement_queue(game: Game, *, sees_all: bool = False) -> list[Waiting]:
    """The game's replacement queue, next in line first; ``sees_all``: the host's view
    (every account named, as the host sees the masked seats' real names)."""
    waiting = []
    signups = game.replacement_queue.select_related("user")
    for place, signup in enumerate(signups, 1):
        real = signup.user.get_username()
        shown = real if sees_all else queue_name(game, place, real)
        waiting.append(Waiting(shown, real if shown == real else None))
    return waiting


def replaced_out(game: Game, user: Any) -> dict[str, Any] | None:
    """If ``user`` once held a slot of this game and no longer does: who replaced them and
    when (public facts: the thread announced it), else None."""
    if not getattr(user, "is_authenticated", False):
        return None
    row = (
        Replacement.objects.filter(slot__game=game, old_user=user)
        .select_related("new_user", "slot")
        .order_by("-at", "-id")
        .first()
    )
    if row is None or game.slots.filter(user=user).exists():
        return None
    phase = game.phases.filter(number=row.phase_number).first() if row.phase_number else None
    by = shown_name(game, row.slot.mask_name, row.new_user.get_username())
    return {"by": by, "when": phase.label if phase else ""}
