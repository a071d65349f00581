"""At most ``WEBSOCKETS_PER_CLIENT`` open websockets per client address, per web process.

Each open page holds one socket; a person with many tabs stays far below the cap, while one
client opening sockets by the thousand would hold a process's memory and file descriptors.
A socket over the cap is refused at the handshake (HTTP 403), before it reaches Channels;
the page's script retries later with its usual back-off. Counted per process (no shared
store: a socket must not wait on Redis to open), so with N web processes one address may
hold up to N times the cap.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings


class SocketsPerClient:
    """ASGI middleware for the websocket router."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        client = (scope.get("client") or ("unknown",))[0]
        if self.open[client] >= settings.WEBSOCKETS_PER_CLIENT:
            await send({"type": "websocket.close", "code": 1013})  # "try again later"
            return
        self.open[client] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]
