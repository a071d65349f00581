"""E-mail digests on real Celery workers and beat, into a real SMTP server (aiosmtpd):
each mail arrives once; a worker SIGKILLed mid-send and an SMTP server stopped and started
again lose none and double none.

The kill happens while the SMTP server holds the DATA command unanswered (the handler
stalls): the message is not accepted then, so the digest's lease runs out and a new worker
sends it again, once. (A kill *after* the server's 250 and before the worker's commit would
send it a second time with the same Message-ID: docs/operators/email.md.)
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from mafia_site.celery import app as celery_app
from notifications import mail
from notifications.models import DigestStatus, EmailDigest, NotificationPrefs
from tests.mail_support import smtp_server, verify_addresses

from .celery_support import (
    Beat,
    Worker,
    app_on_test_broker,
    make_running_game,
    purge_queue,
    wait_for,
)

pytestmark = [
    pytest.mark.celery,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]


def _players_with_mail(count: int) -> list[Any]:
    """A running game; its first ``count`` players have an address and a zero window."""
    # Day 1 lasts an hour: no phase change (and no new notification) during the test.
    _game, _host, players = make_running_game(day_length=timedelta(hours=1))
    User = get_user_model()
    chosen = players[:count]
    for user in chosen:
        User.objects.filter(pk=user.pk).update(email=f"{user.username}@example.com")
        NotificationPrefs.objects.update_or_create(user=user, defaults={"digest_minutes": 0})
    verify_addresses()
    return [User.objects.get(pk=u.pk) for u in chosen]


def _all_sent(users: list[Any]) -> bool:
    digests = EmailDigest.objects.filter(user__in=users)
    return digests.count() == len(users) and all(d.status == DigestStatus.SENT for d in digests)


def _once_each(messages: list[Any], users: list[Any]) -> None:
    counts = Counter(m["To"] for m in messages)
    assert counts == Counter({u.email: 1 for u in users}), counts
    ids = [m["Message-ID"] for m in messages]
    assert sorted(ids) == sorted(EmailDigest.objects.values_list("message_id", flat=True))


@pytest.fixture
def queue():
    name = f"digests-test-{uuid.uuid4().hex[:8]}"
    with app_on_test_broker(name):
        yield name
    purge_queue(name)


def test_a_worker_sends_each_due_digest_once(queue, tmp_path):
    with smtp_server() as smtp:
        users = _players_with_mail(3)
        worker = Worker(queue, name="mailer", **smtp.env())
        beat = Beat(queue, tmp_path, seconds=30, DIGEST_SCAN_SECONDS="1")
        try:
            wait_for(lambda: _all_sent(users), timeout=60, what="the digests to be sent")
            smtp.wait_for(len(users))
            # Several more sweeps go by (each a task the worker runs): nothing is sent again.
            sent = EmailDigest.objects.filter(user__in=users).values_list("sent_at", flat=True)
            last = max(sent)
            sweeps = worker.log().count("notifications.tasks.sweep_digests")
            wait_for(
                lambda: worker.log().count("notifications.tasks.sweep_digests") >= sweeps + 3,
                timeout=30,
                what="more sweeps",
            )
            assert max(sent) == last
        finally:
            beat.stop()
            worker.stop()
        _once_each(smtp.messages, users)
        for message in smtp.messages:
            assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            assert {p.get_content_type() for p in message.walk()} >= {"text/plain", "text/html"}


def test_a_worker_killed_mid_send_then_each_mail_arrives_once(queue, tmp_path):
    with smtp_server() as smtp:
        users = _players_with_mail(2)
        assert len(mail.build_due_digests()) >= 2
        smtp.handler.stall.set()  # hold every DATA unanswered
        doomed = Worker(
            queue, name="doomed", DIGEST_LEASE_SECONDS="3", EMAIL_TIMEOUT="120", **smtp.env()
        )
        try:
            celery_app.send_task("notifications.tasks.sweep_digests")
            wait_for(lambda: smtp.handler.stalled >= 1, timeout=30, what="a send to stall")
            doomed.kill()
        finally:
            doomed.stop()
        wait_for(
            lambda: smtp.handler.abandoned >= smtp.handler.stalled,
            timeout=30,
            what="the server to see the killed worker's connections close",
        )
        smtp.handler.stall.clear()
        assert smtp.messages == []
        assert EmailDigest.objects.filter(status=DigestStatus.SENDING).exists()

        fresh = Worker(queue, name="fresh", **smtp.env())
        beat = Beat(queue, tmp_path, seconds=30, DIGEST_SCAN_SECONDS="1")
        try:
            wait_for(lambda: _all_sent(users), timeout=60, what="the digests to be sent again")
            smtp.wait_for(len(users))
        finally:
            beat.stop()
            fresh.stop()
        _once_each(smtp.messages, users)
        retried = EmailDigest.objects.filter(user__in=users, attempts__gte=2)
        assert retried.count() >= smtp.handler.stalled  # each stalled one was sent again


def test_the_smtp_server_stopped_and_started_again_loses_none(queue, tmp_path):
    with smtp_server() as smtp:
        users = _players_with_mail(2)
        smtp.stop()
        worker = Worker(queue, name="mailer", DIGEST_RETRY_SECONDS="1", **smtp.env())
        beat = Beat(queue, tmp_path, seconds=30, DIGEST_SCAN_SECONDS="1")
        try:
            wait_for(
                lambda: (
                    EmailDigest.objects.filter(user__in=users, attempts__gte=2).count()
                    == len(users)
                ),
                timeout=60,
                what="the sends to fail and be retried",
            )
            assert all(d.last_error for d in EmailDigest.objects.filter(user__in=users))
            assert not EmailDigest.objects.filter(status=DigestStatus.SENT).exists()
            smtp.start()  # the same port: the server is back
            wait_for(lambda: _all_sent(users), timeout=60, what="the digests once it is back")
            smtp.wait_for(len(users))
        finally:
            beat.stop()
            worker.stop()
        _once_each(smtp.messages, users)
