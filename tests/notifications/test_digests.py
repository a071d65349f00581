"""E-mail digests against a real SMTP server (aiosmtpd): one mail per window, text and HTML,
one-click unsubscribe, nothing about a game the person has open, retries when the server
is away. The sends run in this process (``mail.sweep(mail.send_digest)``, as the embedded
run does); tests/live/test_email_delivery.py runs them on a real Celery worker."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from channels.db import database_sync_to_async
from django.core import signing
from django.db import connections
from django.test import Client
from django.utils import timezone

from games import services, socket_db
from games.models import GamePresence
from notifications import mail
from notifications.models import (
    DigestStatus,
    EmailDigest,
    MailState,
    Notification,
    NotificationPrefs,
)
from tests.mail_support import SmtpServer, parts, smtp_server, verify_addresses

pytestmark = pytest.mark.django_db

LATER = timedelta(minutes=16)  # past the default 15-minute window


@pytest.fixture
def smtp(settings):
    with smtp_server() as server:
        settings.MAILERS = server.mailers()
        settings.SITE_URL = "https://mafia.example"
        yield server


@pytest.fixture
def make_game(make_game):
    """Games whose people have verified addresses (mail goes to nobody else)."""

    def make(*args, **kwargs):
        game = make_game(*args, **kwargs)
        verify_addresses()
        return game

    return make


def to(messages, address: str):
    return [m for m in messages if m["To"] == address]


def players(game):
    return [s.user for s in game.slots.order_by("seat").select_related("user")]


def test_several_notifications_make_one_mail_after_the_window(smtp, make_game):
    game = make_game("forum-vanilla")
    first = players(game)[0]
    mine = list(Notification.objects.filter(user=first, mail=MailState.PENDING))
    assert len(mine) >= 2  # the game started, Day 1 started

    assert mail.sweep(mail.send_digest) == 0  # the window is not over: nothing yet
    assert smtp.messages == []
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)

    (message,) = to(smtp.messages, first.email)
    digest = EmailDigest.objects.get(user=first)
    assert digest.status == DigestStatus.SENT and digest.attempts == 1
    assert message["Subject"] == f"{len(mine)} updates: {game.title}"
    assert message["Message-ID"] == digest.message_id
    body = parts(message)
    assert set(body) == {"text/plain", "text/html"}
    for n in mine:
        url = f"https://mafia.example{n.link}"
        assert n.text in body["text/plain"] and url in body["text/plain"]
        assert url in body["text/html"]
    assert body["text/html"].count(f"<h2>{game.title}</h2>") == 1  # grouped by game
    assert "Stop e-mails about:" in body["text/plain"]
    assert (
        "- A day or night starts: https://mafia.example/notifications/unsubscribe/"
        in (body["text/plain"])
    )
    unsubscribe = re.fullmatch(r"<(https://mafia\.example/notifications/unsubscribe/.+/)>",
                               message["List-Unsubscribe"])  # fmt: skip
    assert unsubscribe
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # On the wire as a plain URL, not folded into encoded words a mail client cannot read.
    raw = smtp.handler.raw[smtp.messages.index(message)]
    assert f"List-Unsubscribe: <{unsubscribe.group(1)}>".encode() in raw
    assert all(
        n.mail == MailState.SENT and n.digest_id == digest.pk
        for n in Notification.objects.filter(pk__in=[n.pk for n in mine])
    )
    # Every player got exactly one mail, and another sweep sends nothing again.
    count = len(smtp.messages)
    assert sorted(m["To"] for m in smtp.messages) == sorted({m["To"] for m in smtp.messages})
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    assert len(smtp.messages) == count

    # The header's one-click link: a page saying what it stops, then the POST a mail client
    # sends, without session or CSRF cookie.
    path = unsubscribe.group(1).removeprefix("https://mafia.example")
    client = Client(enforce_csrf_checks=True)
    page = client.get(path)
    assert page.status_code == 200
    assert b"all notifications" in page.content and b"<button" in page.content
    done = client.post(path, data="List-Unsubscribe=One-Click",
                       content_type="application/x-www-form-urlencoded")  # fmt: skip
    assert done.status_code == 200 and b"E-mails stopped" in done.content
    prefs = NotificationPrefs.objects.get(user=first)
    assert prefs.channel("phase_started") == "inbox"  # both -> inbox
    assert prefs.channel("partner_posted") == "inbox"  # had no e-mail part: unchanged
    assert all(prefs.channel(k) in ("inbox", "off") for k in mail.SETTABLE_KINDS)
    # Except a moderator's notice about the account, which always goes out by mail.
    assert prefs.channel("moderation") == "both"


def test_a_kind_link_stops_only_that_kind_and_email_only_goes_off(smtp, make_game):
    game = make_game("forum-vanilla", start=False)
    first = players(game)[0]
    NotificationPrefs.objects.create(user=first, channels={"game_started": "email"})
    services.start_game(game.host, game.pk)
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    text = parts(to(smtp.messages, first.email)[0])["text/plain"]
    links = dict(re.findall(r"^- (.+): (https://\S+/notifications/unsubscribe/\S+/)$", text, re.M))
    assert set(links) == {"A game you joined starts", "A day or night starts", "all notifications"}
    client = Client(enforce_csrf_checks=True)
    for label in ("A game you joined starts", "A day or night starts"):
        path = links[label].removeprefix("https://mafia.example")
        assert label.encode() in client.get(path).content
        assert client.post(path).status_code == 200
    prefs = NotificationPrefs.objects.get(user=first)
    assert prefs.channel("game_started") == "off"  # e-mail only -> off
    assert prefs.channel("phase_started") == "inbox"
    assert prefs.channel("game_finished") == "both"  # not touched


@pytest.mark.parametrize(
    "token",
    [
        "nonsense",
        "WzEsImFsbCJd:1tamper:XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        signing.dumps([1, "no_such_kind"], salt="games.notifications.unsubscribe"),
        signing.dumps([1, "all"], salt="another.salt"),
        signing.dumps(["1", "all"], salt="games.notifications.unsubscribe"),
        signing.dumps([999999, "all"], salt="games.notifications.unsubscribe"),  # no such user
    ],
    # Signed tokens carry the time: ids that do not, so parallel workers collect one list.
    ids=["nonsense", "tampered", "no-such-kind", "other-salt", "string-id", "no-such-user"],
)
def test_a_bad_unsubscribe_link_is_a_clear_error(db, token):
    client = Client(enforce_csrf_checks=True)
    for response in (
        client.get(f"/notifications/unsubscribe/{token}/"),
        client.post(f"/notifications/unsubscribe/{token}/"),
    ):
        assert response.status_code == 400
        assert b"This unsubscribe link is not valid" in response.content


def test_a_tampered_token_of_a_real_user_does_not_work(host):
    token = mail.unsubscribe_token(host.pk, "all")
    signature = token.rpartition(":")[2]
    forged = signing.dumps([host.pk + 1, "all"], salt="x").rpartition(":")[0] + ":" + signature
    assert Client().post(f"/notifications/unsubscribe/{forged}/").status_code == 400
    assert Client().post(f"/notifications/unsubscribe/{token}/").status_code == 200


@pytest.mark.parametrize("address", ["none", "unverified"])
def test_no_verified_address_no_mail_and_its_notifications_are_skipped(smtp, make_game, address):
    game = make_game("forum-vanilla")
    first = players(game)[0]
    addresses = EmailAddress.objects.filter(user=first)
    addresses.delete() if address == "none" else addresses.update(verified=False)
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    assert not to(smtp.messages, first.email)
    assert not EmailDigest.objects.filter(user=first).exists()
    assert set(Notification.objects.filter(user=first).values_list("mail", flat=True)) == {
        MailState.SKIPPED
    }


def test_the_window_is_the_persons_own(smtp, make_game):
    game = make_game("forum-vanilla", start=False)
    first, second = players(game)[:2]
    NotificationPrefs.objects.create(user=first, digest_minutes=0)
    NotificationPrefs.objects.create(user=second, digest_minutes=60)
    services.start_game(game.host, game.pk)
    mail.sweep(mail.send_digest, now=timezone.now() + timedelta(seconds=1))
    assert [m["To"] for m in smtp.messages] == [first.email]
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    assert not to(smtp.messages, second.email)
    mail.sweep(mail.send_digest, now=timezone.now() + timedelta(minutes=61))
    assert len(to(smtp.messages, second.email)) == 1


def test_an_unreachable_server_is_retried_with_a_wait_then_given_up(settings, make_game, caplog):
    server = SmtpServer()  # not started: connection refused
    settings.MAILERS = server.mailers(timeout=2)
    settings.DIGEST_MAX_ATTEMPTS = 3
    game = make_game("forum-vanilla")
    first = players(game)[0]
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    digest = EmailDigest.objects.get(user=first)
    assert digest.status == DigestStatus.PENDING and digest.attempts == 1
    assert "Connection" in digest.last_error and digest.lease_until > timezone.now()
    assert mail.send_digest(digest.pk) == "not due"  # it waits before the next try

    server.start()  # the server is back: the next due try delivers
    try:
        EmailDigest.objects.update(lease_until=timezone.now())  # the wait is over
        mail.sweep(mail.send_digest)
        assert len(to(server.messages, first.email)) == 1
    finally:
        server.stop()
    digest.refresh_from_db()
    assert digest.status == DigestStatus.SENT and digest.attempts == 2

    # Down for good: after DIGEST_MAX_ATTEMPTS it is failed, with its error, and logged.
    other = players(game)[1]
    pending = EmailDigest.objects.get(user=other)
    EmailDigest.objects.filter(pk=pending.pk).update(status="pending", attempts=0, sent_at=None)
    for hours in (3, 4, 5):
        mail.send_digest(pending.pk, now=timezone.now() + timedelta(hours=hours))
    pending.refresh_from_db()
    assert pending.status == DigestStatus.FAILED and pending.attempts == 3
    assert pending.last_error
    assert any("failed after 3 attempt(s)" in r.getMessage() for r in caplog.records)


def test_a_refusing_server_s_answer_is_kept(smtp, make_game):
    smtp.handler.refuse = "550 no such mailbox"
    game = make_game("forum-vanilla")
    first = players(game)[0]
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    digest = EmailDigest.objects.get(user=first)
    # Refused at DATA: retried like any other error (a refused recipient fails at once).
    assert digest.status in (DigestStatus.PENDING, DigestStatus.FAILED)
    assert "550" in digest.last_error


def test_a_mail_escapes_what_a_host_typed(smtp, make_game):
    game = make_game("forum-vanilla", start=False)
    type(game).objects.filter(pk=game.pk).update(title="<b>Bold</b> & co")
    services.start_game(game.host, game.pk)
    first = players(game)[0]
    mail.sweep(mail.send_digest, now=timezone.now() + LATER)
    (message,) = to(smtp.messages, first.email)
    assert "<b>Bold</b>" not in parts(message)["text/html"]
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; co" in parts(message)["text/html"]
    assert "<b>Bold</b> & co" in parts(message)["text/plain"]


@pytest.mark.django_db(transaction=True)
def test_two_sweepers_at_once_build_one_digest(smtp, make_game):
    game = make_game("forum-vanilla")
    first = players(game)[0]
    later = timezone.now() + LATER
    barrier = threading.Barrier(4)
    built = []

    def build():
        try:
            barrier.wait()
            built.extend(mail.build_due_digests(later))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert built and len(built) == len(set(built)) == EmailDigest.objects.count()
    assert EmailDigest.objects.filter(user=first).count() == 1
    assert len(set(EmailDigest.objects.values_list("user_id", flat=True))) == len(built)


# -- presence: nothing about a game the person has open --------------------------------------
db = database_sync_to_async


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(60)
async def test_nothing_is_mailed_while_the_game_is_open_and_mailed_once_closed(
    smtp, make_game, host, settings
):
    from games.live import publisher
    from tests.live.ws_support import open_socket, redis_layers

    settings.CHANNEL_LAYERS = redis_layers()
    game = await db(make_game)("forum-vanilla", start=False)
    first, second = (await db(players)(game))[:2]
    for user in (first, second):
        await db(NotificationPrefs.objects.create)(user=user, digest_minutes=0)

    socket, ok, _ = await open_socket(game.pk, first)
    assert ok
    row = await db(GamePresence.objects.get)(user=first, game=game)
    assert row.open
    await socket.send({"type": "ping"})  # the heartbeat
    await socket.wait_for(lambda i: i.get("type") == "pong")
    assert (await db(GamePresence.objects.get)(pk=row.pk)).last_seen >= row.last_seen

    await db(services.start_game)(host, game.pk)
    await db(mail.sweep)(mail.send_digest, timezone.now() + timedelta(seconds=1))
    assert to(smtp.messages, second.email) and not to(smtp.messages, first.email)
    states = Notification.objects.filter(user=first).values_list("mail", flat=True)
    assert set(await db(list)(states)) == {MailState.SKIPPED}

    await socket.close()
    closed = await db(GamePresence.objects.get)(pk=row.pk)
    assert not closed.open
    await db(services.cut_deadline_now)(host, game.pk)  # Night 1 starts
    await db(mail.sweep)(mail.send_digest, timezone.now() + timedelta(seconds=1))
    (message,) = to(smtp.messages, first.email)
    text = parts(message)["text/plain"]
    assert "Night 1" in text and "Day 1" not in text  # what happened after they left
    assert await asyncio.to_thread(publisher.wait_until_published, 10)
    await db(connections.close_all)()
    await asyncio.to_thread(socket_db.close_connections)  # the sockets' threads' too


def test_presence_counts_open_only_while_seen(db, make_game):
    from games import presence

    game = make_game("forum-vanilla", start=False)
    first = players(game)[0]
    now = timezone.now()
    assert presence.seen(first.pk, game.pk, open=True, now=now - timedelta(minutes=5))
    assert presence.last_seen(first.pk, now)[game.pk] == (now - timedelta(minutes=5), False)
    assert presence.seen(first.pk, game.pk, open=True, now=now)
    assert presence.last_seen(first.pk, now)[game.pk] == (now, True)
