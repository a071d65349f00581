"""Who hears what. Every ``GameEvent`` is addressed to one audience: "public", "host",
"slot:<id>", "mafia", "dead" or a team thread ("masons"...).

A socket's audiences are computed from the database (``viewer_audiences``, the same rules
as ``games.views.access.Viewer``): public always, the player's own slot, the mafia chat /
team thread while alive in the team, the dead thread once dead; the host and, after the
game, everyone: every audience.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models import TEAM_THREADS, Game, GameEvent, Slot
from .kinds import ACCESS_KINDS

PRIVATE_AUDIENCES = ("host", "mafia", "dead", *TEAM_THREADS)
TEAM_AUDIENCES = frozenset({"mafia", *TEAM_THREADS})


def everything(game_id: int, slot_ids: Iterable[int] | None = None) -> frozenset[str]:
    if slot_ids is None:
        slot_ids = Slot.objects.filter(game_id=game_id).values_list("pk", flat=True)
    return frozenset({"public", *PRIVATE_AUDIENCES, *(f"slot:{i}" for i in slot_ids)})


def audiences_of(game: Game, user: Any, slots: Iterable[Slot]) -> frozenset[str]:
    """What ``user`` may follow of ``game``, from rows already read (the game and all its
    slots): the same rules as ``games.views.access.Viewer``."""
    slots = list(slots)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    if game.is_finished or (user_id is not None and user_id == game.host_id):
        return everything(game.pk, [s.pk for s in slots])
    audiences = {"public"}
    slot = next((s for s in slots if user_id is not None and s.user_id == user_id), None)
    if slot is not None:
        audiences.add(f"slot:{slot.pk}")
        if game.is_running:
            if slot.alive and slot.is_mafia:
                audiences.add("mafia")
            if slot.alive and slot.private_thread:
                audiences.add(slot.private_thread)
            if not slot.alive:
                audiences.add("dead")
    return frozenset(audiences)


def viewer_audiences(game_id: int, user: Any) -> tuple[frozenset[str], int] | None:
    """(audiences, the game's event seq when read), or None if there is no such game.

    The seq is read first, so the audiences reflect at least that point of the game.
    """
    game = Game.objects.filter(pk=game_id).only("pk", "status", "host_id", "event_seq").first()
    if game is None:
        return None
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    if game.is_finished or (user_id is not None and user_id == game.host_id):
        return everything(game_id), game.event_seq
    slots = Slot.objects.filter(game_id=game_id, user_id=user_id) if user_id else []
    return audiences_of(game, user, slots), game.event_seq


def access_meta(event: GameEvent) -> dict[str, Any] | None:
    """What an access-changing event means for sockets, read from its payload."""
    if event.kind not in ACCESS_KINDS:
        return None
    payload = event.payload or {}
    meta: dict[str, Any] = {"kind": event.kind}
    if event.kind == "day_ended" and payload.get("eliminated"):
        meta["dead"] = [payload["eliminated"]["slot_id"]]
    elif event.kind in ("night_ended", "day_shot"):
        meta["dead"] = [d["slot_id"] for d in payload.get("deaths", [])]
    elif event.kind == "modkill":
        meta["dead"] = [payload.get("slot_id")]
    elif event.kind == "replaced":
        meta["replaced"] = {"slot_id": payload.get("slot_id"), "old": payload.get("old_user_id")}
    return meta
