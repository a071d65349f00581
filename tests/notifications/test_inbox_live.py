"""The bell over the REAL Redis channel layer: each socket hears its own person's inbox only,
a change's notifications redraw the bell after the commit, and a (re)connect sends the count
a reload would show."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.live import inbox as live_inbox
from games.live import publisher
from notifications import services as inbox_services
from notifications.models import Notification
from tests.factories import UserFactory
from tests.live.ws_support import Socket, _session_cookie, live_redis_layer, open_socket

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(60),
]

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True, params=["background", "inline"])
async def live_layer(request, settings):
    async with live_redis_layer(settings, background=request.param == "background"):
        yield


async def open_inbox(user=None) -> tuple[Socket, bool, object]:
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if user is not None:
        cookie = await db(_session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(application, "/ws/inbox/", headers=headers)
    connected, code = await comm.connect(timeout=5)
    return Socket(comm), connected, code


def is_inbox(**fields):
    def match(item: dict) -> bool:
        return item.get("type") == "inbox" and all(item.get(k) == v for k, v in fields.items())

    return match


def _note(user, text: str, kind: str = "your_turn") -> Notification:
    return Notification.objects.create(user=user, kind=kind, text=text, link="/games/1/")


async def test_a_socket_hears_only_its_own_persons_inbox():
    alice, bob = await db(UserFactory)(), await db(UserFactory)()
    a, ok, _ = await open_inbox(alice)
    assert ok
    first = await a.wait_for(is_inbox(fresh=False))
    assert first["unread"] == 0 and first["newest"] is None
    b, ok, _ = await open_inbox(bob)
    await b.wait_for(is_inbox(fresh=False))

    secret = await db(_note)(bob, "Bob's turn at the table")
    await db(live_inbox.publish_inbox)({bob.pk})
    got = await b.wait_for(is_inbox(fresh=True))
    assert got["unread"] == 1 and got["newest"]["id"] == secret.pk
    assert got["newest"]["desktop"] is True and got["newest"]["text"] == secret.text

    # A sentinel for Alice: Bob's frame, had it been routed to her, would have come first.
    mine = await db(_note)(alice, "Alice's turn")
    await db(live_inbox.publish_inbox)({alice.pk})
    await a.wait_for(is_inbox(fresh=True))
    frames = a.controls("inbox")
    assert all((f["newest"] or {}).get("id") in (None, mine.pk) for f in frames)
    assert "Bob" not in str(a.items)
    await a.close()
    await b.close()


async def test_anonymous_sockets_follow_no_inbox():
    _sock, ok, code = await open_inbox(None)
    assert not ok and code == 4401


async def test_a_change_redraws_the_players_bell_on_the_game_socket_after_the_commit(
    make_game, host
):
    game = await db(make_game)("forum-vanilla", start=False)
    player = await db(lambda: game.slots.order_by("seat").first().user)()
    sock, ok, _ = await open_socket(game.pk, player)
    assert ok
    hello = await sock.wait_for(is_inbox(fresh=False))
    assert hello["unread"] == 0
    await db(services.start_game)(host, game.pk)
    got = await sock.wait_for(lambda i: is_inbox(fresh=True)(i) and i["unread"] >= 2)
    count = await db(
        lambda: Notification.objects.filter(user=player, in_inbox=True, read_at=None).count()
    )()
    assert got["unread"] == count
    assert got["newest"]["kind"] in ("game_started", "phase_started")
    await sock.close()


async def test_a_reconnect_sends_the_current_count():
    me = await db(UserFactory)()
    sock, _, _ = await open_inbox(me)
    await sock.wait_for(is_inbox(fresh=False, unread=0))
    await sock.close()
    # Written while no socket was open (and never published): the next connect has it.
    await db(_note)(me, "One")
    second = await db(_note)(me, "Two")
    sock, _, _ = await open_inbox(me)
    got = await sock.wait_for(is_inbox(fresh=False))
    assert got["unread"] == 2 and got["newest"]["id"] == second.pk
    # Asking again (after a paused layer) answers the same, and marking read redraws it.
    await db(inbox_services.mark_read)(me, [second.pk])
    got = await sock.wait_for(is_inbox(fresh=True))
    assert got["unread"] == 1
    await sock.send({"type": "inbox"})
    await sock.wait_for(lambda i: is_inbox(fresh=False)(i) and i["unread"] == 1)
    await sock.close()


async def test_a_reminder_written_at_the_start_of_a_night_reaches_the_open_bell(make_game, host):
    # The sweep writes reminders in a game transaction that emits no event: its bells must
    # be pushed all the same (they were only pushed with a change's events).
    from notifications.models import NotificationPrefs
    from notifications.reminders import send_reminders
    from tests.conftest import slot_of

    game = await db(make_game)("forum-cop-doctor-nine")
    doctor = await db(lambda: slot_of(game, "doctor").user)()
    await db(NotificationPrefs.objects.create)(user=doctor, reminder_hours=48)
    await db(services.cut_deadline_now)(host, game.pk)  # the night starts
    sock, ok, _ = await open_socket(game.pk, doctor)
    assert ok
    await sock.wait_for(is_inbox(fresh=False))
    assert await db(send_reminders)() >= 1  # its first sweep: 12 hours of night < 48
    got = await sock.wait_for(
        lambda i: is_inbox(fresh=True)(i) and (i["newest"] or {}).get("kind") == "action_missing"
    )
    unread = await db(
        lambda: Notification.objects.filter(user=doctor, in_inbox=True, read_at=None).count()
    )()
    assert got["unread"] == unread
    assert got["newest"]["text"].startswith(f"Your night action in {game.title} is still missing")
    await sock.close()
