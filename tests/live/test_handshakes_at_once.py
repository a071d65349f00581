"""The count of handshakes under way (``mafia_site.socket_limits.HandshakesAtOnce``) with a
stand-in app: what ends a handshake, what a refused API client gets. The real stack's case
(a handshake held in the database, the next one told to try again) is in
``test_socket_handshakes_in_parallel.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mafia_site.socket_limits import HandshakesAtOnce

pytestmark = pytest.mark.asyncio


class App:
    """Accepts, then waits for ``go`` before its first frame (or raises, or closes)."""

    def __init__(self, end: str = "frame") -> None:
        self.end = end
        self.go = asyncio.Event()
        self.entered = 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        self.entered += 1
        await receive()
        await send({"type": "websocket.accept"})
        await self.go.wait()
        if self.end == "raise":
            raise RuntimeError("the app failed")
        if self.end == "close":
            await send({"type": "websocket.close", "code": 4404})
            return
        await send({"type": "websocket.send", "text": "[]"})
        await asyncio.Event().wait()  # open until cancelled


def _scope(token: bool = False, http_response: bool = False) -> dict:
    headers = [(b"authorization", b"Token abc")] if token else []
    extensions = {"websocket.http.response": {}} if http_response else {}
    return {"type": "websocket", "path": "/ws/games/1/", "headers": headers,
            "extensions": extensions}  # fmt: skip


async def _open(gate: HandshakesAtOnce, scope: dict | None = None) -> tuple[asyncio.Task, list]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "websocket.connect"}

    async def send(message: dict) -> None:
        sent.append(message)

    task = asyncio.ensure_future(gate(scope or _scope(), receive, send))
    await asyncio.sleep(0.01)
    return task, sent


@pytest.mark.parametrize("end", ["frame", "close", "raise"])
async def test_a_handshake_counts_until_its_first_frame_its_close_or_its_end(settings, end):
    settings.LIVE_HANDSHAKES_AT_ONCE = 2
    app = App(end)
    gate = HandshakesAtOnce(app)
    first, _ = await _open(gate)
    second, _ = await _open(gate)
    assert gate.under_way == 2  # both accepted, neither caught up

    third, sent = await _open(gate)
    assert app.entered == 2 and third.done()
    assert sent == [
        {"type": "websocket.accept"},
        {"type": "websocket.close", "code": 4503, "reason": "The site is busy: trying again"},
    ]

    app.go.set()
    await asyncio.sleep(0.01)
    assert gate.under_way == 0
    fourth, sent = await _open(gate)
    assert app.entered == 3 and sent[0] == {"type": "websocket.accept"}
    for task in (first, second, fourth):
        task.cancel()
    await asyncio.gather(first, second, fourth, return_exceptions=True)
    assert gate.under_way == 0


async def test_an_api_client_is_answered_503_with_retry_after(settings):
    settings.LIVE_HANDSHAKES_AT_ONCE = 1
    gate = HandshakesAtOnce(App())
    first, _ = await _open(gate)
    _, sent = await _open(gate, _scope(token=True, http_response=True))
    assert sent[0]["type"] == "websocket.http.response.start"
    assert sent[0]["status"] == 503
    assert (b"retry-after", b"2") in sent[0]["headers"]
    assert sent[1] == {
        "type": "websocket.http.response.body",
        "body": b"The site is busy: trying again.\n",
    }
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)


async def test_no_cap_when_set_to_zero(settings):
    settings.LIVE_HANDSHAKES_AT_ONCE = 0
    app = App()
    gate = HandshakesAtOnce(app)
    tasks = [(await _open(gate))[0] for _ in range(5)]
    assert app.entered == 5
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
