"""The web server: uvicorn serving ``mafia_site.asgi``, with a deadline on request headers.

uvicorn waits for a request's headers as long as the client likes: a client that opens
connections and sends a header line now and then ("slowloris") holds them forever. Here a
request's headers must be complete within ``HTTP_HEADER_TIMEOUT`` seconds of the
connection (or, on a kept-alive connection, of the request's first byte), however the
bytes trickle in; otherwise the server answers 408 and closes. Websockets are capped per
person (or per address, anonymous) by ``mafia_site.socket_limits``.

``python -m mafia_site.serve --host 0.0.0.0 --port 8000 --workers 4`` is what the
Dockerfile runs; ``manage.py runsite`` and the tests use the same ``uvicorn_config``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

APP = "mafia_site.asgi:application"
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 33\r\n"
    b"connection: close\r\n\r\n"
    b"The request's headers came late.\n"
)


def header_timeout() -> float:
    from django.conf import settings

    return float(settings.HTTP_HEADER_TIMEOUT)


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a timer from a request's start to its headers."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # A kept-alive connection's next request: the first one's timer has been disarmed.
        self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._disarm_header_timer()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(header_timeout(), self._headers_late)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(REQUEST_TIMEOUT)
            self.transport.close()


def forwarded_allow_ips() -> str:
    from django.conf import settings

    return str(settings.FORWARDED_ALLOW_IPS)


def uvicorn_options(**overrides: Any) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.Config`` every way of serving the site uses."""
    return {
        "app": APP,
        "http": HeaderDeadlineProtocol,
        "lifespan": "on",  # starts the deadline watchdog (games.deadlines)
        "log_level": os.environ.get("LOG_LEVEL", "info").lower(),
        # Behind a proxy, its X-Forwarded-For names the client (the rate limits and the
        # anonymous socket cap count by address) and X-Forwarded-Proto the scheme: believed
        # from the proxy's addresses only (FORWARDED_ALLOW_IPS).
        "proxy_headers": True,
        "forwarded_allow_ips": forwarded_allow_ips(),
        **overrides,
    }


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")
    parser = argparse.ArgumentParser(description="Serve the site (uvicorn).")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--lifespan", choices=["on", "off", "auto"], default="on")
    parser.add_argument("--no-access-log", action="store_true")
    args = parser.parse_args(argv)
    uvicorn.run(
        **uvicorn_options(
            host=args.host,
            port=args.port,
            workers=args.workers,
            lifespan=args.lifespan,
            access_log=not args.no_access_log,
        )
    )


if __name__ == "__main__":
    main()
