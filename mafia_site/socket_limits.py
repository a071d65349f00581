"""Open websockets are capped per signed-in person, and per client address for anonymous ones.

Each open page holds one socket. A cap per client address refused the 31st tab of a whole
household, campus or NAT behind one address (its pages then stayed silently stale), so a
signed-in person (a session's user, or the user an API token signs in: an agent's token
counts toward the agent's own account, not its owner's) holds at most
``LIVE_SOCKETS_PER_PERSON`` sockets wherever they connect from, and anonymous pages share a
larger ``LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS`` per client address (signed-in people's sockets
do not count toward it). Both still stop one client opening sockets by the thousand to hold
a process's memory and file descriptors.

Counted per web process (no shared store: a socket must not wait on Redis to open, and a
Redis outage must not shut pages out), so with N web processes one person may hold up to N
times the cap.

A page over the cap is told so: its socket is accepted and closed at once with code
``TOO_MANY`` (4429), which a browser's script can read (a handshake refused before it opens
is only "1006" there), and ``static/js/live.js`` shows a notice and tries again slowly. An API
client's socket (``Authorization: Token``) is refused at the handshake with HTTP 429
instead: clients back off on a refused handshake, while one that opened and closed would be
reconnected at once.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.conf import settings

TOO_MANY = 4429
TOO_MANY_REASON = "Too many open live pages"


class SocketsPerPerson:
    """ASGI middleware inside the websocket auth stack (it needs ``scope["user"]``)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.open: Counter[tuple[str, Any]] = Counter()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        key, cap = holder(scope)
        if self.open[key] >= cap:
            await refuse(scope, receive, send)
            return
        self.open[key] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]


def holder(scope: dict) -> tuple[tuple[str, Any], int]:
    """Whom a socket counts toward, and their cap."""
    user = scope.get("user")
    if getattr(user, "is_authenticated", False):
        return ("person", user.pk), settings.LIVE_SOCKETS_PER_PERSON
    client = (scope.get("client") or ("unknown",))[0]
    return ("address", client), settings.LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS


async def refuse(scope: dict, receive: Any, send: Any) -> None:
    """HTTP 429 for an API client's socket where the server can answer a handshake so
    (uvicorn can); otherwise, and for pages, accepted and closed with ``TOO_MANY``."""
    await receive()  # the websocket.connect message
    if scope.get("token_auth") and "websocket.http.response" in scope.get("extensions", {}):
        body = f"{TOO_MANY_REASON}: close some.\n".encode()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", b"60"),
                ],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": TOO_MANY, "reason": TOO_MANY_REASON})
