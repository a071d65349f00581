"""Connection limits of the real server (``python -m mafia_site.serve``).

* A client that opens connections and trickles header lines ("slowloris") is answered 408
  and cut off once HTTP_HEADER_TIMEOUT has passed since the connection, however steadily it
  sends; a kept-alive connection's next request gets the same deadline; a normal request
  is untouched.
* One signed-in person holds at most LIVE_SOCKETS_PER_PERSON websockets, wherever from:
  the next is accepted and closed at once with code 4429 (a page's script can read it and
  say so), and a socket closed makes room for another. Two people behind one address each
  have their own cap; an agent's token counts toward the agent (refused with HTTP 429 at
  the handshake, which API clients back off from), not toward its owner.
* Anonymous pages share LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS per client address.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
import websockets

from tests.servers import ROOT, AsgiServer

HEADER_TIMEOUT = 2
PER_PERSON = 3
PER_ADDRESS_ANONYMOUS = 5
TOO_MANY = 4429

# Signed-in people and an agent of ada's, made in the server's database: their session
# cookies (signed with the server's SECRET_KEY, so the shell uses the same one) and the key.
SETUP = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from agents import services as agents

out = {"cookie": settings.SESSION_COOKIE_NAME, "sessions": {}}
for name in ("alice", "bob", "carol", "ada"):
    user = get_user_model().objects.create_user(name, name + "@example.com", "pw-" + name * 4)
    client = Client()
    client.force_login(user)
    out["sessions"][name] = client.cookies[settings.SESSION_COOKIE_NAME].value
ada = get_user_model().objects.get(username="ada")
agents.register_agent(ada, "robo")
out["agent_key"] = agents.create_token(ada, "robo").key
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    # The embedded settings (SQLite, in-memory layer) with the demo game suffice here.
    env = {
        "DATABASE_URL": "sqlite:///" + str(tmp_path_factory.mktemp("db") / "db.sqlite3"),
        "REDIS_URL": "",
        "HTTP_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "LIVE_SOCKETS_PER_PERSON": str(PER_PERSON),
        "LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS": str(PER_ADDRESS_ANONYMOUS),
        # The old per-address cap for everyone, as low as a person's: no longer read, so
        # two people behind one address are not refused by it.
        "WEBSOCKETS_PER_CLIENT": str(PER_PERSON),
        "SECRET_KEY": secrets.token_urlsafe(64),
    }
    for command in (["migrate"], ["demo"], ["shell", "-c", SETUP]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env={**os.environ, **env},
            check=True,
            capture_output=True,
            timeout=300,
        )
    server = AsgiServer(env, tmp_path_factory.mktemp("logs") / "asgi.log", lifespan="off")
    server.people = json.loads(done.stdout.decode().strip().splitlines()[-1])
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


class Pages:
    """Game sockets opened as the demo game's pages are, by a browser of one person (or of
    no one) at the test's one address."""

    def __init__(self, server: Any, person: str | None = None) -> None:
        self.url = f"ws://127.0.0.1:{server.port}/ws/games/1/"  # the demo game
        self.origin = server.url
        people = server.people
        self.headers = (
            {"Cookie": f"{people['cookie']}={people['sessions'][person]}"} if person else {}
        )
        self.held: list[Any] = []

    async def open(self) -> Any:
        """A socket the server kept: its first frame arrived (a refused one is closed)."""
        ws = await websockets.connect(self.url, origin=self.origin, additional_headers=self.headers)
        await asyncio.wait_for(ws.recv(), 10)  # "hello" and the catch-up: it is in
        self.held.append(ws)
        return ws

    async def refused(self) -> None:
        """The next socket is accepted and closed at once with 4429 and a reason."""
        ws = await websockets.connect(self.url, origin=self.origin, additional_headers=self.headers)
        with pytest.raises(websockets.exceptions.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == TOO_MANY, (ws.close_code, ws.close_reason)
        assert ws.close_reason == "Too many open live pages"

    async def close_one(self) -> None:
        await self.held.pop().close()
        await asyncio.sleep(0.3)  # the server sees the close

    async def close_all(self) -> None:
        for ws in self.held:
            await ws.close()
        self.held.clear()
        await asyncio.sleep(0.3)


def test_websockets_are_capped_per_person(server: Any) -> None:
    async def scenario() -> None:
        carol = Pages(server, "carol")
        try:
            for _ in range(PER_PERSON):
                await carol.open()
            await carol.refused()
            await carol.close_one()  # a tab closed makes room for another
            await carol.open()
            await carol.refused()
        finally:
            await carol.close_all()

    asyncio.run(scenario())


def test_two_people_behind_one_address_each_have_their_own_cap(server: Any) -> None:
    async def scenario() -> None:
        alice, bob = Pages(server, "alice"), Pages(server, "bob")
        try:
            # 2 x PER_PERSON sockets from one address: the old per-address cap (set to
            # PER_PERSON in this server's environment) refused half of them.
            for _ in range(PER_PERSON):
                await alice.open()
                await bob.open()
            await alice.refused()
            await bob.refused()
            # Anonymous pages of the same address are counted apart from them.
            anonymous = Pages(server)
            try:
                await anonymous.open()
            finally:
                await anonymous.close_all()
        finally:
            await alice.close_all()
            await bob.close_all()

    asyncio.run(scenario())


def test_anonymous_pages_are_capped_per_address(server: Any) -> None:
    async def scenario() -> None:
        anonymous = Pages(server)
        try:
            for _ in range(PER_ADDRESS_ANONYMOUS):
                await anonymous.open()
            await anonymous.refused()
            # ... while a signed-in person at the same address still gets in.
            carol = Pages(server, "carol")
            try:
                await carol.open()
            finally:
                await carol.close_all()
            await anonymous.close_one()
            await anonymous.open()
        finally:
            await anonymous.close_all()

    asyncio.run(scenario())


def test_an_agent_token_counts_toward_the_agent_not_its_owner(server: Any) -> None:
    url = f"ws://127.0.0.1:{server.port}/ws/games/1/"
    token = {"Authorization": f"Token {server.people['agent_key']}"}  # no Origin: not a page

    async def scenario() -> None:
        ada = Pages(server, "ada")
        robo: list[Any] = []
        try:
            for _ in range(PER_PERSON):
                await ada.open()
            for _ in range(PER_PERSON):
                ws = await websockets.connect(url, additional_headers=token)
                await asyncio.wait_for(ws.recv(), 10)
                robo.append(ws)
            # API clients back off from a refused handshake (an opened socket that closes
            # would be reconnected at once): 429 there, before the socket opens.
            with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
                await websockets.connect(url, additional_headers=token)
            assert refused.value.response.status_code == 429
            await ada.refused()
        finally:
            await ada.close_all()
            for ws in robo:
                await ws.close()

    asyncio.run(scenario())
