"""The websockets' database calls, on a bounded pool of threads instead of one shared thread.

Channels' ``database_sync_to_async`` is thread-sensitive: in a server process the database
work of every socket (the session's user, a game's audiences, the catch-up, presence, the
bell, token checks) ran on ONE thread. Handshakes queued behind each other there, passed
the 60 s handshake timeout and reconnected, and queued again (issue 22: what a load, or a
restart that reconnects every socket at once, did to the site). HTTP was not affected:
Django gives each request a thread of its own.

``socket_db(fn)(*args)`` runs ``fn`` as ``database_sync_to_async`` does (closing old and
broken connections before and after), but on ``LIVE_DB_THREADS`` threads of this process:
one slow call holds one thread, not every socket. ``session_auth_stack`` is Channels'
``AuthMiddlewareStack`` with the session's user read the same way.

Why running them on any thread is safe: every function passed here is one whole database
operation. None relies on a transaction spanning two calls (each runs in autocommit or
opens and closes its own ``atomic``), and none leaves or needs thread-local state between
calls (Django's connection is per thread and each call takes whichever the thread has; none
activates a language or time zone). What ordering a socket needs it keeps by awaiting its
calls one at a time; the access re-checks, which may run side by side, compare the event
seq each one read (``games.live.consumers``).

Connections stay bounded: a thread holds at most one, so the sockets of a process hold at
most ``LIVE_DB_THREADS`` (kept for ``DB_CONN_MAX_AGE`` seconds, or, with ``DB_POOL_SIZE``,
taken from psycopg's pool for one call and given back). The pool is the sockets' own, not
the event loop's default executor: that one also resolves the channel layer's Redis host
names and runs ``asyncio.to_thread`` work, which a crowd of slow database calls must not
hold up; and it needs no server start-up hook (the tests' communicator, runserver's daphne).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import SyncToAsync
from channels.auth import AuthMiddleware
from channels.auth import get_user as _channels_get_user
from channels.db import DatabaseSyncToAsync
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")

DEFAULT_THREADS = 8

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_pid: int | None = None
_pool_size = 0


def pool() -> ThreadPoolExecutor:
    """This process's threads for socket database calls (a fork makes its own)."""
    global _pool, _pool_pid, _pool_size
    with _lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool_size = max(1, int(getattr(settings, "LIVE_DB_THREADS", DEFAULT_THREADS)))
            _pool = ThreadPoolExecutor(max_workers=_pool_size, thread_name_prefix="socket-db")
            _pool_pid = os.getpid()
        return _pool


def close_connections(timeout: float = 30.0) -> None:
    """Every thread of the pool closes the database connections it keeps (the tests: before
    the test database is dropped). Django lets only a connection's own thread close it, so
    one call goes to each thread: each waits until all of them have one."""
    with _lock:
        if _pool is None or _pool_pid != os.getpid():
            return
        executor, size = _pool, _pool_size
    barrier = threading.Barrier(size)

    def close() -> None:
        try:
            barrier.wait(timeout)
        finally:
            connections.close_all()

    for future in [executor.submit(close) for _ in range(size)]:
        future.result()


def socket_db(func: Callable[P, R]) -> SyncToAsync[P, R]:
    """``await socket_db(fn)(*args)``: ``fn``, one whole database operation, on the pool."""
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=pool())


# Channels' ``get_user`` is a ``database_sync_to_async`` (thread-sensitive) wrapper: its
# plain function reads the session and its user (flushing a session whose password hash no
# longer matches), one operation on the scope's own session object.
# (types-channels types get_user as a plain coroutine function, without its .func)
session_user: Callable[[dict[str, Any]], Any] = _channels_get_user.func  # type: ignore[attr-defined]


class SessionAuthMiddleware(AuthMiddleware):
    """Channels' ``AuthMiddleware``, the session's user read on the pool."""

    # (the scope as the dict it is; types-channels' TypedDict has no "user" of this type)
    async def resolve_scope(self, scope: dict[str, Any]) -> None:  # type: ignore[override]
        scope["user"]._wrapped = await socket_db(session_user)(scope)


def session_auth_stack(inner: Any) -> Any:
    """``AuthMiddlewareStack`` (cookies, the session, its user) with ``socket_db``."""
    return CookieMiddleware(SessionMiddleware(SessionAuthMiddleware(inner)))
