"""Who reads which whispers, shared by the whispers page, the API and the live layer.

While the game runs a player reads the whispers their seat sent and received, the host
reads them all, and nobody else reads any (nor learns, in a ``private`` game, that there
were any). Once the game is over everyone reads them all, as everything else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from ..models import Slot, Whisper, Whispers
from ..naming import slot_ref
from .access import Viewer


def has_whispers(viewer: Viewer) -> bool:
    """The game has whispers and this viewer may open its whispers page: a player or the
    host while it runs, everyone once it is over."""
    game = viewer.game
    if game.whispers == Whispers.OFF or game.is_signups or game.is_cancelled:
        return False
    return viewer.sees_everything or viewer.slot is not None


def readable(viewer: Viewer) -> QuerySet[Whisper]:
    """The whispers ``viewer`` may read, oldest first."""
    rows = Whisper.objects.filter(game=viewer.game).select_related("phase")
    if not has_whispers(viewer):
        return rows.none()
    if viewer.sees_everything:
        return rows.order_by("number")
    slot = viewer.slot
    assert slot is not None  # has_whispers: a player
    return rows.filter(Q(sender=slot) | Q(recipient=slot)).order_by("number")


def whisper_data(
    whisper: Whisper, viewer: Viewer, by_id: dict[int, Slot] | None = None
) -> dict[str, Any]:
    """A whisper as the API gives it (its seats from ``by_id`` when the caller read them
    all). Its number within the game only to those who read them all: a player's would
    count, by its gaps, the whispers of others."""
    sender = by_id[whisper.sender_id] if by_id is not None else whisper.sender
    recipient = by_id[whisper.recipient_id] if by_id is not None else whisper.recipient
    return {
        "number": whisper.number if viewer.sees_everything else None,
        "phase": whisper.phase.number if whisper.phase is not None else None,
        "sender": slot_ref(sender),
        "recipient": slot_ref(recipient),
        "body": whisper.body,
        "html": whisper.html,
        "created_at": whisper.created_at.isoformat(),
    }


@dataclass
class Conversation:
    """The whispers between two seats: ``other`` is the player a seat's own page talks
    with; on the page of someone who reads them all, ``first`` and ``other`` are the pair."""

    other: Slot
    first: Slot | None = None
    whispers: list[Whisper] = field(default_factory=list)


def conversations(viewer: Viewer, slots: Iterable[Slot]) -> list[Conversation]:
    """The readable whispers grouped by the other player (a player's own), or by the pair
    of seats (the host's, the archive's), in seat order."""
    by_id = {s.pk: s for s in slots}
    mine = viewer.slot if not viewer.sees_everything else None
    groups: dict[tuple[int, ...], Conversation] = {}
    for whisper in readable(viewer):
        sender, recipient = by_id[whisper.sender_id], by_id[whisper.recipient_id]
        whisper.sender, whisper.recipient = sender, recipient  # the page names them
        if mine is not None:
            other = recipient if sender.pk == mine.pk else sender
            key: tuple[int, ...] = (other.seat,)
            talk = groups.setdefault(key, Conversation(other))
        else:
            first, second = sorted((sender, recipient), key=lambda s: s.seat)
            key = (first.seat, second.seat)
            talk = groups.setdefault(key, Conversation(second, first))
        talk.whispers.append(whisper)
    return [groups[key] for key in sorted(groups)]
