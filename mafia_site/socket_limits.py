"""Open websockets are capped per signed-in person, and per client address for anonymous ones;
handshakes under way at once are capped per process.

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

Handshakes under way at once (``HandshakesAtOnce``). A socket's handshake costs its
process several database calls (the session's user, the game's access, the catch-up,
presence, the bell) on the sockets' few database threads. When thousands of pages open at
once (a deadline storm, a restart that reconnects everyone), those calls queued for tens of
seconds, past the clients' timeouts, and the pages and votes of the same process waited
behind them for the CPU (BENCHMARKS.md, "Site capacity": 2,006 of about 2,600 connects timed
out at 250 games). So at most ``LIVE_HANDSHAKES_AT_ONCE`` sockets of a process are between
their handshake and their first frame (the catch-up); the next is refused at once, before
any database call, with ``BUSY`` (4503; HTTP 503 with Retry-After for an API client), and
tries again later with a growing, jittered backoff (``static/js/live.js``, the client
library): the storm is served at the pace the process can, and the requests beside it are
not starved.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from .token_sockets import socket_token


@dataclass(frozen=True)
class Refusal:
    """How a socket is turned away: a close ``code`` a page's script reads, or for an API
    client the HTTP ``status`` and when to try again."""

    code: int
    reason: str
    status: int
    retry_after: int
    advice: str = ""


TOO_MANY = Refusal(4429, "Too many open live pages", 429, retry_after=60, advice=": close some")
BUSY = Refusal(4503, "The site is busy: trying again", 503, retry_after=2)


class SocketsPerPerson:
    """ASGI middleware inside the websocket auth stack (it needs ``scope["user"]``)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.open: Counter[tuple[str, Any]] = Counter()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        key, cap = holder(scope)
        if self.open[key] >= cap:
            await refuse(scope, receive, send, TOO_MANY)
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
    if user is not None and getattr(user, "is_authenticated", False):
        return ("person", user.pk), settings.LIVE_SOCKETS_PER_PERSON
    client = (scope.get("client") or ("unknown",))[0]
    return ("address", client), settings.LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS


async def refuse(scope: dict, receive: Any, send: Any, refusal: Refusal) -> None:
    """The refusal's HTTP status for an API client's socket where the server can answer a
    handshake so (uvicorn can); otherwise, and for pages, accepted and closed with its code."""
    await receive()  # the websocket.connect message
    api_client = scope.get("token_auth") or socket_token(scope) is not None
    if api_client and "websocket.http.response" in scope.get("extensions", {}):
        data = f"{refusal.reason}{refusal.advice}.\n".encode()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": refusal.status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(data)).encode()),
                    (b"retry-after", str(refusal.retry_after).encode()),
                ],
            }
        )
        await send({"type": "websocket.http.response.body", "body": data})
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": refusal.code, "reason": refusal.reason})


class HandshakesAtOnce:
    """ASGI middleware outside every other of the websockets (the session's user is a
    database call too): a handshake counts from its arrival until the app sends its first
    frame or closes it, or returns."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.under_way = 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        cap = settings.LIVE_HANDSHAKES_AT_ONCE
        if cap and self.under_way >= cap:
            await refuse(scope, receive, send, BUSY)
            return
        self.under_way += 1
        counted = True

        def done() -> None:
            nonlocal counted
            if counted:
                counted = False
                self.under_way -= 1

        async def send_and_count(message: dict) -> None:
            # "websocket.accept" is not the end: the catch-up's database calls follow it.
            if message["type"] != "websocket.accept":
                done()
            await send(message)

        try:
            await self.app(scope, receive, send_and_count)
        finally:
            done()
