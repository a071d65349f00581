"""A socket whose handshake waits on the database does not hold up the others' (issue 22).

Under uvicorn every socket's database work (the session's user, the game's audiences, the
catch-up, the bell) ran on one thread of the process (Channels' thread-sensitive
``database_sync_to_async``): one slow call queued every other handshake behind it, past the
handshake timeout. Here one socket's handshake is held inside its database call until the
test lets it go; meanwhile another signed-in socket opens and gets its first frames; then
the held one connects too (``games.socket_db``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services, socket_db
from games.live import consumers, publisher
from games.setups import SETUPS
from tests.live.ws_support import Socket, _session_cookie, live_redis_layer

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(120),
]

db = database_sync_to_async
WAIT = 20.0  # generous: the machine may be busy; a pass never waits this long


@pytest_asyncio.fixture(autouse=True)
async def live_layer(settings):
    async with live_redis_layer(settings, background=True):
        yield


class Hold:
    """Wraps a function: a call ``picks`` chooses waits until ``release`` (at most
    ``2 * WAIT`` seconds, so that a failing test still ends: ``gave_up`` then says so)."""

    def __init__(self, original: Callable[..., Any], picks: Callable[..., bool]) -> None:
        self.original, self.picks = original, picks
        self.entered, self.release, self.gave_up = (threading.Event() for _ in range(3))

    def __call__(self, *args: Any) -> Any:
        if self.picks(*args):
            self.entered.set()
            if not self.release.wait(2 * WAIT):
                self.gave_up.set()
        return self.original(*args)


async def _communicator(path: str, user: Any) -> WebsocketCommunicator:
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False  # (importing the ASGI app turns it on)
    cookie = await db(_session_cookie)(user)
    headers = [
        (b"origin", b"http://testserver"),
        (b"host", b"testserver"),
        (b"cookie", f"sessionid={cookie}".encode()),
    ]
    return WebsocketCommunicator(application, path, headers=headers)


def _other_game(host: Any) -> Any:
    return services.create_game(
        host, title="Another game", seed=3, **SETUPS["forum-vanilla"].game_kwargs()
    )


def _first_slot(game: Any) -> Any:
    return game.slots.select_related("user").order_by("seat").first()


def is_type(type_: str) -> Callable[[dict[str, Any]], bool]:
    return lambda item: item.get("type") == type_


@pytest.mark.parametrize("held_in", ["session user", "game access"])
async def test_a_handshake_held_in_the_database_does_not_hold_up_another(
    held_in, make_game, host, monkeypatch
):
    game = await db(make_game)("forum-vanilla")
    other = await db(_other_game)(host)
    slot = await db(_first_slot)(game)
    path = f"/ws/games/{game.pk}/"
    if held_in == "session user":
        hold = Hold(socket_db.session_user, lambda scope: scope["path"] == path)
        monkeypatch.setattr(socket_db, "session_user", hold)
    else:
        hold = Hold(consumers.viewer_access, lambda game_id, user: game_id == game.pk)
        monkeypatch.setattr(consumers, "viewer_access", hold)

    held = await _communicator(path, slot.user)
    held_connect = asyncio.ensure_future(held.connect(timeout=WAIT * 3))
    try:
        assert await asyncio.to_thread(hold.entered.wait, WAIT), "the handshake never got there"

        # Meanwhile: the host opens another game's socket; it connects and catches up.
        comm = await _communicator(f"/ws/games/{other.pk}/", host)
        connected, _ = await comm.connect(timeout=WAIT)
        assert connected
        second = Socket(comm)
        await second.wait_for(is_type("replay"), timeout=WAIT)
        hello = second.items[0]
        # The session's user was read: the host's socket follows the host's audience.
        assert hello["type"] == "hello" and hello["game"] == other.pk
        assert "host" in hello["audiences"]
        await second.wait_for(is_type("inbox"), timeout=WAIT)  # and the bell
        assert not hold.gave_up.is_set(), "the second socket waited for the held call"
        assert not held_connect.done()  # the first handshake is still held
    finally:
        hold.release.set()

    connected, _ = await held_connect
    assert connected
    first = Socket(held)
    await first.wait_for(is_type("replay"), timeout=WAIT)
    hello = first.items[0]
    assert hello["type"] == "hello" and hello["game"] == game.pk
    assert f"slot:{slot.pk}" in hello["audiences"]  # the player's own, from their session
    await second.close()
    await first.close()


async def test_a_handshake_past_the_cap_is_told_to_try_again(
    make_game, host, monkeypatch, settings
):
    """At most ``LIVE_HANDSHAKES_AT_ONCE`` handshakes of a process are under way; the next is
    closed at once with 4503 (``mafia_site.socket_limits``), before any database call, and a
    handshake that has sent its first frame no longer counts."""
    settings.LIVE_HANDSHAKES_AT_ONCE = 1
    game = await db(make_game)("forum-vanilla")
    slot = await db(_first_slot)(game)
    path = f"/ws/games/{game.pk}/"
    hold = Hold(consumers.viewer_access, lambda game_id, user: game_id == game.pk)
    monkeypatch.setattr(consumers, "viewer_access", hold)
    asked: list[str] = []
    original_user = socket_db.session_user
    monkeypatch.setattr(
        socket_db, "session_user", lambda scope: asked.append(scope["path"]) or original_user(scope)
    )

    held = await _communicator(path, slot.user)
    held_connect = asyncio.ensure_future(held.connect(timeout=WAIT * 3))
    try:
        assert await asyncio.to_thread(hold.entered.wait, WAIT), "the handshake never got there"
        turned_away = await _communicator(path, host)
        connected, _ = await turned_away.connect(timeout=WAIT)
        assert connected  # accepted only to be closed: a page's script reads the code
        closed = await turned_away.receive_output(timeout=WAIT)
        assert closed == {
            "type": "websocket.close",
            "code": 4503,
            "reason": "The site is busy: trying again",
        }
        assert asked == [path], "the refused handshake read the session"
    finally:
        hold.release.set()
    assert (await held_connect)[0]
    first = Socket(held)
    await first.wait_for(is_type("replay"), timeout=WAIT)

    # The held one has caught up: it no longer counts, and the next gets in.
    comm = await _communicator(path, host)
    connected, _ = await comm.connect(timeout=WAIT)
    assert connected
    again = Socket(comm)
    await again.wait_for(is_type("replay"), timeout=WAIT)
    assert "host" in again.items[0]["audiences"]
    await again.close()
    await first.close()
