"""Websockets for API clients: ``Authorization: Token <key>`` signs a socket in.

Bots and agents (the client library's live stream) open the same sockets as the pages,
with the token they use for the API. A browser cannot put a header on a websocket, so a
socket carrying one is not a page's: the origin check (``mafia_site.origin``) lets it
through, and the user is the token's alone, never the cookie's. A bad or revoked key is
refused before the socket opens (close code 4401), as the API answers 401. The token's id
goes in the scope (an agent's as ``scope["token_id"]``, a person's as
``scope["person_token_id"]``): the socket is closed with 4401 when that token is revoked or
deleted (``games.live.tokens``).
"""

from __future__ import annotations

from typing import Any

from games.api_tokens import key_from_header, sign_in
from games.socket_db import socket_db

REFUSED = 4401


def socket_token(scope: dict[str, Any]) -> str | None:
    """The key of the socket's ``Authorization: Token`` header, or None."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            # Another scheme is no key: refused, never the cookie's user instead.
            return key_from_header(value.decode("latin-1")) or ""
    return None


class TokenSocketAuth:
    """ASGI middleware inside ``games.socket_db.session_auth_stack``: a token header replaces
    the session's user with the token's."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = socket_token(scope) if scope["type"] == "websocket" else None
        if key is not None:
            found = await socket_db(sign_in)(key)
            if found is None:
                await receive()  # the websocket.connect message
                await send({"type": "websocket.close", "code": REFUSED})
                return None
            scope = {
                **scope,
                "user": found.user,
                "token_auth": True,
                "token_id": found.token_id,
                "person_token_id": found.person_token_id,
            }
        return await self.application(scope, receive, send)
