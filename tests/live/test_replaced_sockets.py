"""A replaced-out player's open pages are told at once (issue 30): each of their sockets
gets an ``access`` frame with what they may follow now and ``reload``, so the role PM
page they had open becomes the "You were replaced" page a reload shows.

The hub takes the seat's feed off their sockets as soon as the ``replaced`` event is
routed; the re-check then read the same audiences from the database and, comparing with
the hub's already-revoked set, found nothing to say: the page kept the old role PM.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async

from games import services
from games.models import Slot
from tests.live.ws_support import live_redis_layer, open_socket

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(60),
]

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True)
async def live_layer(settings):
    async with live_redis_layer(settings, background=False):
        yield


def _doctor_and_mafia(game) -> tuple[Slot, list[Slot]]:
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    return next(s for s in slots if s.role == "doctor"), [s for s in slots if s.is_mafia]


async def test_every_open_page_of_the_replaced_out_player_is_told_to_reload(
    make_game, host, make_users
):
    game = await db(make_game)("forum-cop-doctor-nine")
    doctor, _mafia = await db(_doctor_and_mafia)(game)
    (newcomer,) = await db(make_users)(1, prefix="sub")
    # Their role PM page and their thread page, each with its own socket.
    role_page = (await open_socket(game.pk, doctor.user, since=game.event_seq))[0]
    thread_page = (await open_socket(game.pk, doctor.user, since=game.event_seq))[0]
    held = role_page.controls("hello")[0]["audiences"]
    assert f"slot:{doctor.pk}" in held

    await db(services.replace_player)(host, game.pk, doctor.pk, newcomer)

    for socket in (role_page, thread_page):
        access = await socket.wait_for(lambda i: i.get("type") == "access")
        # What a reload shows them now: the game as any spectator sees it.
        assert access["audiences"] == ["public"]
        assert access["reload"] is True
    await db(services.host_post)(host, game.pk, body="sentinel")
    for socket in (role_page, thread_page):
        await socket.wait_for(lambda i: "sentinel" in i.get("html", ""))
        assert not socket.of_kind("role_pm")  # the seat's new role PM is not theirs
        assert len(socket.controls("access")) == 1
        await socket.close()
