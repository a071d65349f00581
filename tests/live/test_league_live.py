"""The league page, live: ``ws/league/`` (anyone may follow the queues, which are public)
says ``{"type": "league"}`` after a join, a leave, a game made and a seat taken from the
queue; the page's own socket (``?parts=1``) gets the page's parts with it, as its viewer's
reload shows them, and never needs to fetch the page."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.fragments import _CSRF_SLOT
from games.models import Game
from league import services as league_services
from tests.factories import UserFactory
from tests.live.ws_support import Socket, _session_cookie, live_redis_layer
from tests.site.live_pages import _by_id, parse

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


async def open_league(user=None, query: str = "") -> Socket:
    from games.live import publisher
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False  # (importing the app turned it on)
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if user is not None:
        cookie = await db(_session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(application, "/ws/league/" + query, headers=headers)
    connected, _ = await comm.connect(timeout=5)
    assert connected, "anyone may follow the queues"
    return Socket(comm)


def is_league(item: dict) -> bool:
    return item.get("type") == "league"


def page(user=None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get("/league/").content.decode()


def as_reload(parts: dict[str, str], fresh: str) -> dict[str, object]:
    """The pushed parts with the page's own CSRF token put in (as league.js does), parsed,
    beside the fresh page's same parts."""
    token = fresh.split('name="csrfmiddlewaretoken" value="', 1)[-1].split('"', 1)[0]
    pushed = {k: _by_id(parse(v.replace(_CSRF_SLOT, token)))[k] for k, v in parts.items()}
    return {"pushed": pushed, "fresh": {k: _by_id(parse(fresh))[k] for k in parts}}


async def told(sock: Socket) -> None:
    """One "league" frame arrives (and is taken): the page would fetch now."""
    await sock.wait_for(is_league)
    sock.items.clear()


async def test_queue_changes_tell_every_league_page():
    sock = await open_league()
    users = [await db(UserFactory)(username=f"live{i}") for i in range(7)]

    await db(league_services.join_queue)(users[0], VANILLA)
    await told(sock)
    assert "1 of 7" in await db(page)()  # what the fetch gets: the count moved

    await db(league_services.leave_queue)(users[0], VANILLA)
    await told(sock)
    assert "1 of 7" not in await db(page)()

    for user in users:  # the last seat makes the game: the queue is empty again
        await db(league_services.join_queue)(user, VANILLA)
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


async def test_the_pages_socket_pushes_its_parts_as_a_reload_shows_them():
    me = await db(UserFactory)(username="livequeuer")
    other = await db(UserFactory)(username="livewatcher")
    mine = await open_league(me, "?parts=1")
    anyone = await open_league(None, "?parts=1")
    for sock, who in ((mine, me), (anyone, None)):  # on connect: the page as it is now
        first = await sock.wait_for(lambda i: is_league(i) and "parts" in i)
        compared = as_reload(first["parts"], await db(page)(who))
        assert compared["pushed"] == compared["fresh"]
        sock.items.clear()
    assert set(first["parts"]) == {"league-queues"}  # anonymous: no "your games"

    await db(league_services.join_queue)(me, VANILLA)
    await db(league_services.join_queue)(other, VANILLA)
    pushed = (await mine.wait_for(lambda i: is_league(i) and "parts" in i))["parts"]
    assert set(pushed) == {"league-games", "league-queues"}
    assert "league-leave-" + VANILLA in pushed["league-queues"]  # my own button: Leave
    await mine.drain()
    latest = [i for i in mine.items if is_league(i)][-1]["parts"]
    compared = as_reload(latest, await db(page)(me))
    assert compared["pushed"] == compared["fresh"] and "2 of 7" in latest["league-queues"]
    theirs = (await anyone.wait_for(lambda i: is_league(i) and "parts" in i))["parts"]
    assert "league-leave-" not in theirs["league-queues"]  # nobody's buttons for anyone
    for sock in (mine, anyone):
        await sock.close()
