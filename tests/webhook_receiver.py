"""A real HTTP webhook receiver for the webhook tests: a small ``http.server`` in a thread on
a spare port, recording every request, able to answer 500 to the first N of them."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int  # what the receiver answered


@dataclass
class Receiver:
    port: int
    fail_first: int = 0  # answer 500 to this many requests first
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/webhooks/77/secret-hook-token"

    def delivered(self) -> list[dict[str, Any]]:
        """The bodies it accepted (2xx), in order."""
        with self.lock:
            return [r.body for r in self.requests if r.status < 300]


@contextlib.contextmanager
def webhook_receiver(fail_first: int = 0) -> Iterator[Receiver]:
    receiver = Receiver(port=0, fail_first=fail_first)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            with receiver.lock:
                status = 500 if receiver.fail_first > 0 else 204
                receiver.fail_first = max(receiver.fail_first - 1, 0)
                receiver.requests.append(
                    Received(self.path, dict(self.headers), json.loads(raw or b"{}"), status)
                )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
