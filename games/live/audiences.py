"""Who hears what. Every ``GameEvent`` is addressed to one audience: "public", "host",
"slot:<id>", "mafia", "dead" or a team thread ("masons"...).

A socket's audiences are computed from the database (``viewer_audiences``, the policy of
``games.reads.access``, as ``Viewer``'s): public always, the player's own slot, the mafia chat /
team thread while alive in the team, the dead thread once dead; the host and, after the
game, everyone: every audience.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models import TEAM_THREADS, Game, GameEvent, Slot
from ..reads import access, snapshot
from .kinds import ACCESS_KINDS

TEAM_AUDIENCES = frozenset({"mafia", *TEAM_THREADS})


def everything(game_id: int, slot_ids: Iterable[int] | None = None) -> frozenset[str]:
    if slot_ids is None:
        slot_ids = Slot.objects.filter(game_id=game_id).values_list("pk", flat=True)
    return access.every_audience(slot_ids)


def audiences_of(game: Game, user: Any, slots: Iterable[Slot]) -> frozenset[str]:
    """What ``user`` may follow of ``game``, from rows already read (the game and all its
    slots): ``games.reads.access.audiences``."""
    return access.audiences(game, user, slots)


def viewer_access(game_id: int, user: Any) -> tuple[frozenset[str], int, int | None] | None:
    """(audiences, the game's event seq when read, the viewer's slot id), or None if there
    is no such game: one call, so a socket's re-check applies all of it or none.

    One query, for the game: the slots come from the process's copy as of its
    ``state_seq`` (``reads.snapshot``, the pages' own), since only a change of state
    (a death, a replacement, the end) changes who may follow what. Every page view opens
    a socket, and its connect used to read the slots twice. The seq is read with the game,
    so the audiences reflect at least that point of the game.
    """
    game = (
        Game.objects.filter(pk=game_id)
        .only("pk", "created_at", "status", "host_id", "event_seq", "state_seq")
        .first()
    )
    if game is None:
        return None
    slots = snapshot.slots(game)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    mine = next((s.pk for s in slots if user_id is not None and s.user_id == user_id), None)
    return access.audiences(game, user, slots), game.event_seq, mine


def viewer_audiences(game_id: int, user: Any) -> tuple[frozenset[str], int] | None:
    """(audiences, the game's event seq when read), or None if there is no such game."""
    found = viewer_access(game_id, user)
    return None if found is None else found[:2]


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
    elif event.kind == "hosts_changed":
        # Whoever gained or lost the host's powers: their sockets are re-checked, and one
        # who lost them is taken off the host's audiences at once (``hub._apply_access``).
        meta["hosts"] = [int(u) for u in payload.get("user_ids", [])]
        if payload.get("change") == "removed":
            meta["unhosted"] = meta["hosts"]
    return meta
