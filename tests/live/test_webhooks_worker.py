"""Webhook deliveries through a real Celery worker on the real Redis broker, to a real HTTP
receiver: in order after the commit, retried after a 500, failed (and shown to the host)
when the receiver is down while the game goes on, and picked up by the sweep when the task
was lost."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from games import services
from games.models import Post
from tests.servers import free_port
from tests.webhook_receiver import webhook_receiver
from webhooks import delivery as webhooks
from webhooks import services as webhook_services
from webhooks.models import DeliveryStatus, GameWebhook, WebhookDelivery
from webhooks.tasks import sweep_webhooks

from .celery_support import (
    Worker,
    app_on_test_broker,
    make_running_game,
    phase_number,
    purge_queue,
    wait_for,
)

pytestmark = [
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(120),
]

QUEUE = f"webhooks-{free_port()}"
RETRY = "0.3,0.3,0.3,0.3"  # the worker's backoff: five attempts in about a second


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        started = Worker(
            QUEUE,
            name="webhooks",
            WEBHOOK_RETRY_SECONDS=RETRY,
            WEBHOOK_ALLOW_PRIVATE="true",
            WEBHOOK_TIMEOUT="2",
        )
    try:
        yield started
    finally:
        started.stop()
        purge_queue(QUEUE)


@pytest.fixture(autouse=True)
def test_broker(worker, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.SITE_URL = "https://mafia.example"  # the body is made with the announcement
    with app_on_test_broker(QUEUE):
        yield


def _game_with_webhook(url: str):
    game, host, players = make_running_game(day_length=timedelta(hours=1))
    webhook_services.set_webhook(host, game.pk, url)
    return game, host, players


def _announcements(game) -> list[str]:
    return list(
        Post.objects.filter(game=game, thread="public", is_auto=True)
        .order_by("number")
        .values_list("body", flat=True)
    )


def test_announcements_arrive_in_order_through_the_worker():
    with webhook_receiver() as receiver:
        game, host, _ = _game_with_webhook(receiver.url)
        for _ in range(3):  # day 1 ends, night 1 ends, day 2 ends
            services.cut_deadline_now(host, game.pk)
        expected = _announcements(game)[1:]  # Day 1's start was before the webhook
        wait_for(lambda: len(receiver.delivered()) >= len(expected), timeout=30, what="the posts")
        got = receiver.delivered()
    assert len(got) == len(expected) >= 5
    for body, text in zip(got, expected, strict=True):
        assert text in body["content"] and body["username"] == "Forum Mafia"
        assert "https://mafia.example/games/" in body["text"]
    sent = WebhookDelivery.objects.filter(game=game, status=DeliveryStatus.SENT).count()
    assert sent == len(expected)


def test_a_500_then_200_is_delivered_once_after_a_retry():
    with webhook_receiver(fail_first=2) as receiver:
        game, host, _ = _game_with_webhook(receiver.url)
        services.cut_deadline_now(host, game.pk)
        wait_for(lambda: len(receiver.delivered()) >= 2, timeout=30, what="the retried posts")
        statuses = [r.status for r in receiver.requests]
        got = receiver.delivered()
    assert statuses[:3] == [500, 500, 204]
    assert len(got) == 2 and len({b["content"] for b in got}) == 2  # each once
    first = WebhookDelivery.objects.filter(game=game).order_by("id").first()
    assert (first.status, first.attempts) == (DeliveryStatus.SENT, 3)


def test_receiver_down_fails_without_holding_up_the_game():
    down = f"http://127.0.0.1:{free_port()}/hook/secret-hook-token"
    game, host, _ = _game_with_webhook(down)
    services.cut_deadline_now(host, game.pk)  # day 1 ends: two announcements
    services.cut_deadline_now(host, game.pk)  # the night ends while the webhook fails
    assert phase_number(game) == 3
    wait_for(lambda: GameWebhook.objects.get(game=game).failure, timeout=30, what="the failure")
    assert not WebhookDelivery.objects.filter(game=game, status=DeliveryStatus.PENDING).exists()
    client = Client()
    client.force_login(host)
    page = client.get(f"/games/{game.pk}/host/").content.decode()
    assert "The webhook failed: the chat server did not take the post" in page
    assert "Retry the failed posts" in page
    # The host fixes the receiver and retries: everything that failed goes out, in order.
    with webhook_receiver() as receiver:
        webhook_services.set_webhook(host, game.pk, receiver.url)
        client.post(f"/games/{game.pk}/host/webhook-retry/")
        count = WebhookDelivery.objects.filter(game=game).count()
        wait_for(lambda: len(receiver.delivered()) >= count, timeout=30, what="the resend")
        assert [b["content"] for b in receiver.delivered()] == [
            d.body["content"] for d in WebhookDelivery.objects.filter(game=game).order_by("id")
        ]
    assert "The webhook failed" not in client.get(f"/games/{game.pk}/host/").content.decode()


def test_the_sweep_sends_a_post_whose_task_was_lost():
    with webhook_receiver() as receiver:
        game, _, _ = _game_with_webhook(receiver.url)
        # An outbox row as a crashed process leaves it: committed, its task never queued.
        post = Post.objects.filter(game=game, is_auto=True).first()
        WebhookDelivery.objects.create(game=game, post=post, body=webhooks.payload(game, post))
        assert sweep_webhooks() == 1  # what beat runs
        wait_for(lambda: receiver.delivered(), timeout=30, what="the swept post")
    assert WebhookDelivery.objects.get(game=game).status == DeliveryStatus.SENT
