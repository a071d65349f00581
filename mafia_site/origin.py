"""The websocket origin check: a socket opens only from a page of this very site.

Channels' ``AllowedHostsOriginValidator`` compares only the Origin's host name with
ALLOWED_HOSTS, so ``http://localhost:8412`` (another program on the same machine) or
``http://127.0.0.1:9999`` passed with a player's cookie. Here the whole origin (scheme,
host and port) must equal the origin of the socket's own URL, or be one of
CSRF_TRUSTED_ORIGINS (the same list that admits cross-origin form posts). A socket with
an ``Authorization`` header is an API client's and signs in with its token alone.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _headers(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers", [])}


def own_origin(scope: dict[str, Any]) -> str | None:
    """``scheme://host[:port]`` of the socket's URL, or None if its Host is not allowed."""
    headers = _headers(scope)
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") in ("wss", "https")
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        # Behind a TLS-terminating proxy the socket itself is plain; trust its header
        # exactly as Django does for HTTP requests.
        name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower().encode()
        value = headers.get(name, b"").decode("latin-1").split(",")[0].strip()
        if value:
            secure = value == proxy[1]
    scheme = "https" if secure else "http"
    default = "443" if secure else "80"
    if host.endswith(f":{default}"):
        host = host[: -len(default) - 1]
    return f"{scheme}://{host}"


def origin_allowed(scope: dict[str, Any]) -> bool:
    if b"authorization" in _headers(scope):
        # An API client's socket (``mafia_site.token_sockets``): no browser can send this
        # header on a websocket, and such a socket is the token's user's, never a cookie's.
        return True
    origin = _headers(scope).get(b"origin", b"").decode("latin-1").strip().lower()
    if not origin or origin == "null":
        return False
    trusted = {o.strip().lower().rstrip("/") for o in settings.CSRF_TRUSTED_ORIGINS}
    return origin == own_origin(scope) or origin in trusted


class SameOriginValidator:
    """ASGI middleware: refuses (closes before accepting) a socket from another origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            # Wait for the handshake, then refuse it: the client sees a 403.
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 4403})
            return None
        return await self.application(scope, receive, send)
