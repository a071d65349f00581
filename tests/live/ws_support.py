"""Helpers for the websocket tests: the real Redis channel layer, session sockets, frames.

Every test gets a channel layer with a prefix of its own, so concurrent runs on the same
Redis never hear each other. Sockets go through the full ASGI stack (origin validation,
session auth, routing) with Channels' ``WebsocketCommunicator``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from games import socket_db
from games.live import inbox as live_inbox
from games.live import publisher

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
LIVE_BACKEND = os.environ.get("LIVE_TEST_LAYER", "channels_redis.pubsub.RedisPubSubChannelLayer")


@contextlib.asynccontextmanager
async def live_redis_layer(settings: Any, *, background: bool) -> AsyncIterator[None]:
    """A test's live delivery on the real Redis layer (a prefix of its own), publishing as
    the web server does (a publisher thread: ``background``) or as Celery and commands do
    (in the committing thread). On the way out every push was made, and the async test's
    and the sockets' database connections are closed."""
    settings.CHANNEL_LAYERS = redis_layers()
    settings.LIVE_PUBLISH_IN_BACKGROUND = background
    yield
    assert await asyncio.to_thread(live_inbox.wait_until_pushed, 10)
    assert await asyncio.to_thread(publisher.wait_until_published, 10)
    await database_sync_to_async(connections.close_all)()
    await asyncio.to_thread(socket_db.close_connections)  # the sockets' own threads'


def redis_layers(prefix: str | None = None, url: str = REDIS_URL) -> dict[str, Any]:
    """The Redis layer as the settings configure it, under a prefix of this test's own."""
    host: dict[str, Any] = {"address": url}
    if LIVE_BACKEND.endswith("core.RedisChannelLayer"):
        host["socket_timeout"] = None  # see settings: redis-py 8 and the blocking pop
    return {
        "default": {
            "BACKEND": LIVE_BACKEND,
            "CONFIG": {
                "hosts": [host],
                "capacity": 1000,
                "prefix": prefix or f"livetest{uuid.uuid4().hex[:10]}",
            },
        }
    }


def _session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


class Socket:
    """A connected game socket that collects the items it receives."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.comm = communicator
        self.items: list[dict[str, Any]] = []  # every item/control message, in order
        self.frames = 0

    async def _read(self, timeout: float) -> bool:
        # Not receive_from(timeout): on a timeout the test communicator cancels the app.
        if await self.comm.receive_nothing(timeout=timeout, interval=0.005):
            return False
        text = await self.comm.receive_from()
        self.frames += 1
        batch = json.loads(text)
        assert isinstance(batch, list), text
        self.items.extend(batch)
        return True

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> dict[str, Any]:
        """The first item (already received or arriving) matching ``predicate``."""
        deadline = asyncio.get_running_loop().time() + timeout
        index = 0
        while True:
            while index < len(self.items):
                if predicate(self.items[index]):
                    return self.items[index]
                index += 1
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                kinds = [i.get("kind") or i.get("type") for i in self.items]
                raise AssertionError(f"no matching item within {timeout}s; got {kinds}")
            await self._read(left)

    async def drain(self, quiet: float = 0.3) -> None:
        """Read until nothing arrives for ``quiet`` seconds."""
        while await self._read(quiet):
            pass

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [i for i in self.items if i.get("kind") == kind]

    def controls(self, type_: str) -> list[dict[str, Any]]:
        return [i for i in self.items if i.get("type") == type_]

    async def send(self, message: dict[str, Any]) -> None:
        await self.comm.send_to(text_data=json.dumps(message))

    async def close(self) -> None:
        await self.comm.disconnect()


async def open_socket(
    game_id: int,
    user: Any = None,
    *,
    since: int | None = None,
    origin: bytes = b"http://testserver",
    expect_ready: bool = True,
    query: str = "",
) -> tuple[Socket, bool, Any]:
    """Open ``ws/games/<id>/`` as ``user`` (None: anonymous). Returns (socket, ok, code)."""
    from games.live import publisher
    from mafia_site.asgi import application

    # Importing the ASGI app turns background publishing on for this whole process; the
    # websocket tests choose it per test (``LIVE_PUBLISH_IN_BACKGROUND``), other tests
    # keep publishing in the committing thread.
    publisher.BACKGROUND_DEFAULT = False

    headers = [(b"origin", origin), (b"host", b"testserver")]
    if user is not None:
        cookie = await database_sync_to_async(_session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    path = f"/ws/games/{game_id}/?" + (f"since={since}" if since is not None else "") + query
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=5)
    socket = Socket(communicator)
    if connected and expect_ready:
        await socket.wait_for(lambda i: i.get("type") in ("replay", "reload"))
    return socket, connected, code
