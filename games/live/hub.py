"""Fan-out: one ``Hub`` per process (per event loop).

It is the only member of the channel-layer groups, so a group message costs one Redis
message per process, not one per socket. It routes items to the local sockets whose
audiences include the item's, batching per game at most every ``len(sockets) /
LIVE_FRAME_BUDGET`` seconds (0 for a small audience: immediate); each socket's ``Outbox``
sends joined text and, while a send is in flight, merges what arrives.

Redis away. The hub pings the channel layer's Redis every ``LIVE_HEALTH_SECONDS``; when it
stops answering, every local socket gets ``{"type": "live", "state": "paused"}`` (the page
says live updates are paused: the socket is up but nothing can come through it), and when
it answers again, and the layer has had a moment to subscribe again, ``"state": "live"``:
the page then resumes from its positions and catches up from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..layer_config import layer_redis_url
from .audiences import TEAM_AUDIENCES
from .outbox import Outbox
from .wire import group_name, layer_state, setting

log = logging.getLogger(__name__)


class Member:
    """What the hub needs from a socket (implemented by ``consumers.GameConsumer``)."""

    game_id: int
    user_id: int | None
    slot_id: int | None
    outbox: Outbox

    def access_may_have_changed(self, seq: int, meta: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Room:
    game_id: int
    sockets: dict[Any, frozenset[str]] = field(default_factory=dict)
    pending: list[tuple[int, str, str]] = field(default_factory=list)
    states: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    handle: asyncio.Handle | None = None
    last_flush: float = 0.0
    groups: set[str] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    def __init__(self) -> None:
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        assert layer is not None  # the settings always configure one
        self.layer = layer
        self.channel: str | None = None
        self.rooms: dict[int, Room] = {}
        self._task: asyncio.Task | None = None
        self._ready = asyncio.Lock()
        self.budget = float(setting("LIVE_FRAME_BUDGET", 2000))
        self.max_interval = float(setting("LIVE_MAX_BATCH_INTERVAL", 0.5))
        self.health_interval = float(setting("LIVE_HEALTH_SECONDS", 2.0))
        # False while the channel layer's Redis does not answer (``_watch``).
        self.layer_ok = True
        self._watch_task: asyncio.Task | None = None

    async def start(self) -> None:
        async with self._ready:
            if self.channel is None:
                # The default prefix: the core Redis layer reads every process-specific
                # channel of a process through one queue named after that prefix.
                self.channel = await self.layer.new_channel()
                loop = asyncio.get_running_loop()
                self._task = loop.create_task(self._run())
                url = layer_redis_url()
                if url is not None and self.health_interval > 0:
                    self._watch_task = loop.create_task(self._watch(url))

    async def stop(self) -> None:
        for name in ("_task", "_watch_task"):
            task = getattr(self, name)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                setattr(self, name, None)

    # -- the channel layer's health ----------------------------------------------------------
    async def _watch(self, url: str) -> None:
        import redis.asyncio as aioredis

        timeout = min(1.0, self.health_interval)
        client = aioredis.Redis.from_url(
            url, socket_connect_timeout=timeout, socket_timeout=timeout
        )
        try:
            while True:
                try:
                    ok = bool(await client.ping())
                except asyncio.CancelledError:
                    raise
                except Exception:
                    ok = False
                if ok and not self.layer_ok:
                    # The layer's subscriber reconnects on its own (about a second):
                    # let it, and subscribe what failed meanwhile, before saying "live".
                    await asyncio.sleep(self.health_interval)
                    for room in list(self.rooms.values()):
                        await self._sync_groups(room)
                if ok != self.layer_ok:
                    self.layer_ok = ok
                    log.warning("Live hub: the channel layer is %s", "back" if ok else "away")
                    self.tell_everyone(layer_state(ok))
                await asyncio.sleep(self.health_interval)
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    def tell_everyone(self, message: dict[str, Any]) -> None:
        for room in list(self.rooms.values()):
            for member in list(room.sockets):
                member.outbox.control(message)

    # -- membership --------------------------------------------------------------------------
    async def attach(self, member: Any, audiences: frozenset[str]) -> None:
        await self.start()
        room = self.rooms.get(member.game_id)
        if room is None:
            room = self.rooms[member.game_id] = Room(member.game_id)
        room.sockets[member] = audiences
        await self._sync_groups(room)

    async def detach(self, member: Any) -> None:
        room = self.rooms.get(member.game_id)
        if room is None or member not in room.sockets:
            return
        del room.sockets[member]
        await self._sync_groups(room)
        if not room.sockets and not room.groups and self.rooms.get(room.game_id) is room:
            if room.handle:
                room.handle.cancel()
            del self.rooms[room.game_id]

    def audiences(self, member: Any) -> frozenset[str]:
        room = self.rooms.get(member.game_id)
        return room.sockets.get(member, frozenset()) if room else frozenset()

    def set_audiences(self, member: Any, audiences: frozenset[str]) -> None:
        """Takes effect for routing at once; the group subscriptions follow."""
        room = self.rooms.get(member.game_id)
        if room is None or member not in room.sockets:
            return
        if room.sockets[member] != audiences:
            room.sockets[member] = audiences
            asyncio.get_running_loop().create_task(self._sync_groups(room))

    @property
    def _channel(self) -> str:
        """``channel``, made by ``start`` before any room syncs or the loop runs (read inside
        their try blocks, so a missing one is handled as a failing layer is)."""
        if self.channel is None:
            raise RuntimeError("The live hub has no channel yet (start() makes it).")
        return self.channel

    async def _sync_groups(self, room: Room) -> None:
        """Subscribe to the groups the room's sockets need. With Redis away it fails: the
        sockets are told (``_watch``) and it is done again when Redis is back."""
        async with room.lock:
            wanted = {group_name(room.game_id, a) for auds in room.sockets.values() for a in auds}
            try:
                for group in sorted(wanted - room.groups):
                    await self.layer.group_add(group, self._channel)
                    room.groups.add(group)
                for group in sorted(room.groups - wanted):
                    await self.layer.group_discard(group, self._channel)
                    room.groups.discard(group)
            except Exception as exc:
                log.warning("Live hub: subscribing game %s failed: %r", room.game_id, exc)

    # -- receiving ---------------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self._channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Live hub: receiving from the channel layer failed")
                await asyncio.sleep(0.5)
                continue
            try:
                if message.get("type") == "live.batch":
                    self.dispatch(message)
            except Exception:
                log.exception("Live hub: a message could not be routed")

    def dispatch(self, message: dict[str, Any]) -> None:
        room = self.rooms.get(message["game"])
        if room is None:
            return
        audience = message["aud"]
        for entry in message["items"]:
            if entry["state"]:
                key = (audience, entry["kind"])
                current = room.states.get(key)
                if current is None or entry["seq"] > current[0]:
                    room.states[key] = (entry["seq"], entry["text"])
            else:
                room.pending.append((entry["seq"], audience, entry["text"]))
            meta = entry.get("meta")
            if meta:
                # Deliver everything up to this event under the old access, then change it
                # before anything later is routed: a dead player's mafia socket gets nothing
                # posted after the death.
                self.flush(room)
                self._apply_access(room, entry["seq"], meta)
        self._schedule(room)

    def _apply_access(self, room: Room, seq: int, meta: dict[str, Any]) -> None:
        dead = set(meta.get("dead") or ())
        replaced = meta.get("replaced")
        unhosted = set(meta.get("unhosted") or ())
        for member, audiences in list(room.sockets.items()):
            new = audiences
            if member.user_id is not None and member.user_id in unhosted:
                # A co-host removed: nothing more of the host's (a co-host never plays).
                new = frozenset({"public"})
            if member.slot_id in dead:
                new = audiences - TEAM_AUDIENCES
            if (
                replaced
                and member.slot_id == replaced.get("slot_id")
                and member.user_id == replaced.get("old")
            ):
                new = frozenset({"public"})
            if new != audiences:
                self.set_audiences(member, new)
            member.access_may_have_changed(seq, meta)

    # -- sending -----------------------------------------------------------------------------
    def _schedule(self, room: Room) -> None:
        if room.handle is not None or not (room.pending or room.states):
            return
        loop = asyncio.get_running_loop()
        interval = min(self.max_interval, len(room.sockets) / self.budget)
        wait = max(0.0, room.last_flush + interval - loop.time())
        room.handle = loop.call_later(wait, self.flush, room)

    def flush(self, room: Room) -> None:
        if room.handle is not None:
            room.handle.cancel()
            room.handle = None
        room.last_flush = asyncio.get_running_loop().time()
        pending = sorted(room.pending)
        states = room.states
        room.pending, room.states = [], {}
        if not (pending or states):
            return
        frames: dict[frozenset[str], tuple[list, dict]] = {}
        for member, audiences in room.sockets.items():
            frame = frames.get(audiences)
            if frame is None:
                items = [(seq, text) for seq, aud, text in pending if aud in audiences]
                kinds = {k: v for (aud, k), v in states.items() if aud in audiences}
                frame = frames[audiences] = (items, kinds)
            if frame[0] or frame[1]:
                member.outbox.push(frame[0], frame[1])


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def get_hub() -> Hub:
    """This process's hub for the running event loop (tests run one loop per test)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = Hub()
    return hub


def hub_loops() -> list[asyncio.AbstractEventLoop]:
    """The running event loops of this process that have a hub (the in-memory layer)."""
    return [loop for loop, hub in list(_hubs.items()) if hub.channel and loop.is_running()]
