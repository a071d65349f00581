"""The league page, live: ``ws/league/`` (anyone may follow the queues, which are public)
says ``{"type": "league"}`` after a join, a leave, a game made and a seat taken from the
queue; what the page then fetches is what a reload shows."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import services
from games.models import Game
from tests.factories import UserFactory
from tests.live.ws_support import Socket, live_redis_layer

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(60),
]

db = database_sync_to_async
VANILLA = "forum-vanilla"  # 7 seats


@pytest_asyncio.fixture(autouse=True, params=["background", "inline"])
async def live_layer(request, settings):
    async with live_redis_layer(settings, background=request.param == "background"):
        yield


async def open_league() -> Socket:
    from games.live import publisher
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False  # (importing the app turned it on)
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    comm = WebsocketCommunicator(application, "/ws/league/", headers=headers)
    connected, _ = await comm.connect(timeout=5)
    assert connected, "anyone may follow the queues"
    return Socket(comm)


def is_league(item: dict) -> bool:
    return item.get("type") == "league"


def page() -> str:
    return Client().get("/league/").content.decode()


async def told(sock: Socket) -> None:
    """One "league" frame arrives (and is taken): the page would fetch now."""
    await sock.wait_for(is_league)
    sock.items.clear()


async def test_queue_changes_tell_every_league_page():
    sock = await open_league()
    users = [await db(UserFactory)(username=f"live{i}") for i in range(7)]

    await db(services.join_league_queue)(users[0], VANILLA)
    await told(sock)
    assert "1 of 7" in await db(page)()  # what the fetch gets: the count moved

    await db(services.leave_league_queue)(users[0], VANILLA)
    await told(sock)
    assert "1 of 7" not in await db(page)()

    for user in users:  # the last seat makes the game: the queue is empty again
        await db(services.join_league_queue)(user, VANILLA)
    await told(sock)
    await sock.drain()
    assert await db(Game.objects.filter(league_setup=VANILLA).count)() == 1
    assert "0 of 7" in await db(page)()
    await sock.close()


async def test_a_socket_hears_nothing_else_and_answers_pings():
    sock = await open_league()
    await sock.send({"type": "ping"})
    pong = await sock.wait_for(lambda i: i.get("type") == "pong")
    assert "server_time" in pong
    await sock.send({"type": "league", "forged": True})  # the client cannot tell the others
    other = await open_league()
    await other.drain(0.5)
    assert not [i for i in other.items if is_league(i)]
    await other.close()
    await sock.close()
