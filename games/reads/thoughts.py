"""Players' thoughts (``games.services.thoughts``) as everyone reads them once the game has
ended: the review and the export. Before the end this answers nothing, whoever asks: the
thoughts are nobody's to read while the game runs, the host's and the team's included."""

from __future__ import annotations

from ..models import Game, Phase, Thought
from ..naming import SeatHistory
from ..shapes import ThoughtEntry
from .seats import seat_history


def thoughts_of(
    game: Game, *, history: SeatHistory | None = None, phase: Phase | None = None
) -> list[ThoughtEntry]:
    """Every thought of the game (of one ``phase``, if given), in the order they were sent
    ([] until it has ended), named by whoever held the seat when they were sent (the
    caller's ``history`` of the seats, if it has read it already)."""
    if not game.is_finished:
        return []
    rows = Thought.objects.filter(game=game).select_related("slot", "phase", "post")
    if phase is not None:
        rows = rows.filter(phase=phase)
    if history is None:
        history = seat_history(game, game.slots.select_related("user"))
    return [
        {
            "slot_id": t.slot_id,
            "seat": t.slot.seat,
            "name": history.holder(t.slot_id, at=t.created_at),
            "phase": t.phase.label if t.phase is not None else None,
            "act": t.act,
            "post": t.post.number if t.post is not None else None,
            "text": t.text,
            "at": t.created_at.isoformat(),
        }
        for t in rows.order_by("id")
    ]
