"""The client library's stream when the site is busy: a handshake refused with HTTP 503
(``mafia_site.socket_limits``: too many under way at once in a web process) is tried again
after two seconds at least, then after twice that, never at once. Against a stand-in
websocket server that refuses the first two handshakes and takes the third."""

from __future__ import annotations

import asyncio
import time
from http import HTTPStatus

import pytest
from mafia_client import Client
from mafia_client.stream import EventStream
from websockets.asyncio.server import serve

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]


async def test_a_busy_site_is_tried_again_after_two_seconds_then_four():
    attempts: list[float] = []

    def busy_twice(connection, request):
        attempts.append(time.monotonic())
        if len(attempts) <= 2:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "busy\n")
        return None

    async def handler(websocket):
        await websocket.wait_closed()

    async with serve(handler, "127.0.0.1", 0, process_request=busy_twice) as server:
        port = server.sockets[0].getsockname()[1]
        stream = EventStream(Client(f"http://127.0.0.1:{port}", token="k"), 1)
        await asyncio.wait_for(stream._connect(), 30)
        await stream.close()
    assert len(attempts) == 3 and stream.connects == 1
    first_wait, second_wait = attempts[1] - attempts[0], attempts[2] - attempts[1]
    assert first_wait >= 2.0, first_wait  # 0.5 s before: a busy site was asked again at once
    assert second_wait >= 4.0, second_wait
