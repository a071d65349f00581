"""Pushing game events to live viewers, in order, after the commit.

``services`` appends ``GameEvent`` rows inside each transaction and registers
``publish_events(game_id, from_seq)`` with ``transaction.on_commit``: a rolled-back change
never reaches this module, because its callback never runs.

The ``GameEvent`` rows are the outbox: a change is committed to PostgreSQL first, always,
and publishing never decides whether a write succeeds. A push that fails (Redis down or
restarting) is handed to this process's publisher thread, which retries it with a growing
pause until Redis answers, from the first event that did not go out; sockets that missed
frames meanwhile resume from the database anyway (``games.live.replay``).

Publishing is ordered per game. Two commits of one game can run their on-commit callbacks
in different processes in either order, so a per-game publish lock and a "published up to"
cursor live next to the channel layer (Redis, or this process when the layer is in memory):
whoever holds the lock publishes every committed event above the cursor, in seq order, and
a late callback finds nothing left to do. Each event is rendered ONCE for its audience
(``games.live.render.Renderer``) and sent as pre-serialized JSON text to that audience's group; the
per-process hub (``games.live.hub.Hub``) fans it out to the local sockets.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from ..layer_config import layer_config, layer_redis_url
from .sender import Sender, went_out

log = logging.getLogger(__name__)

MAX_BACKLOG = 500  # events one publish call catches up at most
LOCK_TTL_MS = 10_000  # a publisher that dies holding the lock blocks the game this long
SEND_TIMEOUT = 5.0  # seconds; a stuck Redis must not hold a request forever
# A Redis that accepts no connection, or answers nothing, fails a push within these
# (seconds), never a request: pushes only run after the commit.
REDIS_CONNECT_TIMEOUT = 1.0
REDIS_SOCKET_TIMEOUT = 2.0
LOCK_WAIT = 5.0  # seconds to wait for another process's publish of the same game


# ======================================================================================
# Where the publish cursor, the per-audience counters and the lock live
# ======================================================================================
class LocalStore:
    """For the in-memory channel layer: one process, so a thread lock and dicts do."""

    def __init__(self) -> None:
        self._locks: dict[int, threading.Lock] = {}
        self._guard = threading.Lock()
        self._cursor: dict[int, int] = {}
        self._heads: dict[int, dict[str, int]] = {}

    @contextmanager
    def lock(self, game_id: int) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(game_id, threading.Lock())
        with lock:
            yield

    def read(self, game_id: int) -> tuple[int | None, dict[str, int]]:
        return self._cursor.get(game_id), dict(self._heads.get(game_id, {}))

    def advance(self, game_id: int, cursor: int, heads: dict[str, int]) -> None:
        self._cursor[game_id] = cursor
        self._heads.setdefault(game_id, {}).update(heads)


_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"


class RedisStore:
    """Shared by every process using the Redis channel layer (same host, same prefix)."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis

        self.redis = redis.Redis.from_url(
            url,
            socket_connect_timeout=REDIS_CONNECT_TIMEOUT,
            socket_timeout=REDIS_SOCKET_TIMEOUT,
        )
        self.prefix = f"{prefix}:live"
        self._release = self.redis.register_script(_RELEASE)

    def _key(self, game_id: int, what: str) -> str:
        return f"{self.prefix}:{game_id}:{what}"

    @contextmanager
    def lock(self, game_id: int) -> Iterator[None]:
        key, token = self._key(game_id, "lock"), uuid.uuid4().hex
        delay, give_up = 0.0005, time.monotonic() + LOCK_WAIT
        while not self.redis.set(key, token, nx=True, px=LOCK_TTL_MS):
            if time.monotonic() > give_up:
                raise TimeoutError(f"live publish lock of game {game_id} is held")
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        try:
            yield
        finally:
            self._release(keys=[key], args=[token])

    def read(self, game_id: int) -> tuple[int | None, dict[str, int]]:
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(self._key(game_id, "cursor"))
        pipe.hgetall(self._key(game_id, "counts"))
        cursor, heads = pipe.execute()
        return (
            int(cursor) if cursor is not None else None,
            {k.decode(): int(v) for k, v in heads.items()},
        )

    def advance(self, game_id: int, cursor: int, heads: dict[str, int]) -> None:
        pipe = self.redis.pipeline()
        # Long-lived games keep their cursor; idle ones lose it after a week and rebuild it
        # from the database (see ``_publish``).
        pipe.set(self._key(game_id, "cursor"), cursor, ex=7 * 86400)
        if heads:
            # redis-py's mapping type is invariant in its key: a dict[str, int] is one.
            pipe.hset(self._key(game_id, "counts"), mapping=heads)  # type: ignore[arg-type]
            pipe.expire(self._key(game_id, "counts"), 7 * 86400)
        pipe.execute()


_store: tuple[Any, Any] | None = None
_store_guard = threading.Lock()


def get_store() -> LocalStore | RedisStore:
    """The store matching the configured channel layer (rebuilt if the settings change)."""
    global _store
    config = layer_config()
    key = repr(config) + str(settings.DATABASES["default"].get("NAME"))
    with _store_guard:
        if _store is None or _store[0] != key:
            url = layer_redis_url()
            if url is not None:
                options = config.get("CONFIG", {})
                # The database name keeps two sites (or test databases) sharing a Redis
                # and a prefix from sharing cursors: their game ids overlap.
                db_name = settings.DATABASES["default"].get("NAME", "")
                prefix = f"{options.get('prefix', 'asgi')}:{db_name}"
                _store = (key, RedisStore(url, prefix))
            else:
                _store = (key, LocalStore())
        return _store[1]


# ======================================================================================
# Publishing
# ======================================================================================
def publish_events(game_id: int, from_seq: int) -> None:
    """Send the game's committed events from ``from_seq`` on to connected viewers.

    Called from ``transaction.on_commit``. It never raises and never waits on a Redis that
    is away: a failed push is logged and retried by the publisher thread until Redis is
    back (see the module's docstring), and viewers catch up from the event log when they
    resume (every frame carries its number, so they notice a gap).

    In the web server (``LIVE_PUBLISH_IN_BACKGROUND``, set by ``mafia_site.asgi``) the work
    is handed to this process's publisher thread, so a vote's request does not wait for
    the push, and commits that pile up while a push runs go out together (the older vote
    counts of such a pile are not sent at all). Elsewhere (Celery, commands, tests) it
    runs in the calling thread.
    """
    SENDER.deliver({game_id: from_seq}, background=_in_background())


def _publish_safely(game_id: int, from_seq: int) -> bool:
    """True if the events went out (or there was nothing to send)."""
    return went_out(
        partial(_publish, game_id, from_seq),
        f"Live push of game {game_id} from event {from_seq}",
        log,
    )


def _publish_games(jobs: dict[int, int]) -> dict[int, int]:
    """Publish each game from its first event not yet out: the games that failed."""
    return {game: seq for game, seq in jobs.items() if not _publish_safely(game, seq)}


# One per process (``sender``): a game waiting for a retry holds its later commits back,
# and commits of one game that pile up start at the lowest first event.
SENDER: Sender[int, int] = Sender("live-publisher-jobs", _publish_games, min, in_order=True)


# Set by ``mafia_site.asgi`` (the web server); a setting or the environment overrides it.
BACKGROUND_DEFAULT = False


def _in_background() -> bool:
    value = getattr(settings, "LIVE_PUBLISH_IN_BACKGROUND", None)
    if value is None:
        env = os.environ.get("LIVE_PUBLISH_IN_BACKGROUND")
        value = BACKGROUND_DEFAULT if env is None else env.lower() in ("1", "true", "yes")
    return bool(value) and not _in_memory_layer()


def _in_memory_layer() -> bool:
    return layer_config().get("BACKEND", "").endswith("InMemoryChannelLayer")


def wait_until_published(timeout: float = 10.0) -> bool:
    """Block until this process's background publisher has nothing left (tests)."""
    return SENDER.wait_idle(timeout)


def _publish(game_id: int, from_seq: int) -> None:
    from ..models import GameEvent
    from .numbering import build_messages

    store = get_store()
    with store.lock(game_id):
        cursor, heads = store.read(game_id)
        # Everything committed above the cursor: ours, and earlier commits whose callback
        # has not run yet (a later callback then finds nothing left). No cursor (new game,
        # Redis restarted) or a hopeless backlog: start at ours; viewers resume the rest.
        start = from_seq
        if cursor is not None and from_seq - cursor <= MAX_BACKLOG:
            start = cursor + 1
        if cursor is None or start != cursor + 1:
            heads = {}  # events were skipped: count from the database instead
        events = list(GameEvent.objects.filter(game_id=game_id, seq__gte=start).order_by("seq"))
        if not events and cursor is not None and cursor >= from_seq and _stale(game_id, cursor):
            # A cursor beyond the log: the database was reset under a living Redis.
            events = list(
                GameEvent.objects.filter(game_id=game_id, seq__gte=from_seq).order_by("seq")
            )
            heads = {}
        if not events:
            return
        messages, new_heads = build_messages(game_id, events, heads)
        _send(messages)
        store.advance(game_id, events[-1].seq, new_heads)


def _stale(game_id: int, cursor: int) -> bool:
    from ..models import Game

    seq = Game.objects.filter(pk=game_id).values_list("event_seq", flat=True).first()
    return seq is not None and seq < cursor


class _SenderLoop:
    """An event loop thread of this process for publishing from sync code.

    ``async_to_sync`` from a plain thread (Celery, a management command) would build a
    new event loop, hence a new Redis connection, for every publish; this loop keeps one.
    """

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        thread = threading.Thread(target=self.loop.run_forever, name="live-publisher", daemon=True)
        thread.start()

    def run(self, coro: Any, timeout: float) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)


_sender: _SenderLoop | None = None


def _sender_loop() -> _SenderLoop:
    global _sender
    with _store_guard:
        if _sender is None or _sender.pid != os.getpid():  # threads do not survive a fork
            _sender = _SenderLoop()
        return _sender


def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    if not messages:
        return
    layer = get_channel_layer()
    assert layer is not None  # the settings always configure one

    async def send_all() -> None:
        # In order: the hubs see a game's frames in seq order (one shard, one connection).
        for group, message in messages:
            await layer.group_send(group, message)

    if _in_memory_layer():
        # Its queues live in the server's event loop: send there (from a request thread,
        # a deadline thread or a bot alike). No loop with a hub: nobody is listening.
        from .hub import hub_loops

        for loop in hub_loops():
            asyncio.run_coroutine_threadsafe(send_all(), loop).result(SEND_TIMEOUT)
    else:
        _sender_loop().run(send_all(), timeout=SEND_TIMEOUT)
