"""Connection limits of the real server (``python -m mafia_site.serve``).

* A client that opens connections and trickles header lines ("slowloris") is answered 408
  and cut off once HTTP_HEADER_TIMEOUT has passed since the connection, however steadily it
  sends; a kept-alive connection's next request gets the same deadline; a normal request
  is untouched.
* One client address holds at most WEBSOCKETS_PER_CLIENT websockets: the next handshake
  is refused, and a socket closed makes room for another.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
import websockets

from tests.servers import ROOT, AsgiServer

HEADER_TIMEOUT = 2
SOCKETS = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    # The embedded settings (SQLite, in-memory layer) with the demo game suffice here.
    env = {
        "DATABASE_URL": "sqlite:///" + str(tmp_path_factory.mktemp("db") / "db.sqlite3"),
        "REDIS_URL": "",
        "HTTP_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "WEBSOCKETS_PER_CLIENT": str(SOCKETS),
    }
    for command in ("migrate", "demo"):
        subprocess.run(
            [sys.executable, "manage.py", command],
            cwd=ROOT,
            env={**os.environ, **env},
            check=True,
            capture_output=True,
            timeout=300,
        )
    server = AsgiServer(env, tmp_path_factory.mktemp("logs") / "asgi.log", lifespan="off")
    yield server
    server.stop()


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (or 10 s pass)."""
    sock.settimeout(10)
    chunks = []
    while True:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            return b"".join(chunks) + b"<still open>"
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@pytest.mark.slow
def test_trickled_headers_are_cut_off_at_the_deadline(server: Any) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    opened = time.monotonic()
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    closed_early = False
    # One header line every half second: each one would reset an idle timer.
    for i in range(3 * HEADER_TIMEOUT * 2):
        time.sleep(0.5)
        try:
            sock.sendall(f"X-Slow-{i}: a\r\n".encode())
        except OSError:
            closed_early = True
            break
    answer = _read_all(sock)
    sock.close()
    assert closed_early or answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"<still open>" not in answer
    assert time.monotonic() - opened < 3 * HEADER_TIMEOUT + 10


@pytest.mark.slow
def test_a_silent_connection_is_closed(server: Any) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    answer = _read_all(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


def test_kept_alive_connection_next_request_has_the_same_deadline(server: Any) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    sock.settimeout(10)
    first = sock.recv(65536)
    assert first.startswith(b"HTTP/1.1 "), first[:200]
    assert not first.startswith(b"HTTP/1.1 408")
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # ... and never the blank line
    for i in range(2 * HEADER_TIMEOUT * 2):
        time.sleep(0.5)
        try:
            sock.sendall(f"X-Slow-{i}: a\r\n".encode())
        except OSError:
            break
    rest = _read_all(sock)
    sock.close()
    assert b"<still open>" not in rest
    assert b"HTTP/1.1 408" in first + rest


def test_a_normal_request_is_answered(server: Any) -> None:
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    answer = _read_all(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]


def test_websockets_are_capped_per_client(server: Any) -> None:
    url = f"ws://127.0.0.1:{server.port}/ws/games/1/"  # the demo game
    origin = server.url

    async def scenario() -> None:
        held = [await websockets.connect(url, origin=origin) for _ in range(SOCKETS)]
        try:
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
                await websockets.connect(url, origin=origin)
            assert refused.value.response.status_code == 403
            await held.pop().close()
            await asyncio.sleep(0.2)  # the server sees the close
            held.append(await websockets.connect(url, origin=origin))
        finally:
            for ws in held:
                await ws.close()

    asyncio.run(scenario())
