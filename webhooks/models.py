"""The chat webhook's records: the host's URL per game and the outbox of its posts.

The tables were made by the games app, before webhooks became an app of its own: the
models keep their names (``db_table``), and migration 0001 only takes them over.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from games.models import Game, Post

# A webhook address: Discord's are ~120 characters, Slack's ~80; room to spare, no more.
MAX_WEBHOOK_URL_LENGTH = 500


class GameWebhook(models.Model):
    """The host's chat webhook for a game (Discord or Slack): the site's public
    announcements are posted to it (``games.webhooks``).

    A row of its own rather than a column on ``Game``: the URL is the host's secret, and
    nothing that reads or serializes a game can carry it by accident."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=MAX_WEBHOOK_URL_LENGTH)
    # The last delivery that gave up (shown on the host's dashboard); cleared by a success.
    failure = models.CharField(max_length=300, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_gamewebhook"  # made in the games app before webhooks had its own

    def __str__(self) -> str:
        return f"webhook of game {self.game_id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class WebhookDelivery(models.Model):
    """One announcement to post to the game's webhook: an outbox row, written in the
    transaction of the announcement, sent after the commit by a worker (in order per game,
    retried with backoff; a sweep picks up rows whose task was lost)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="webhook_deliveries")
    post = models.ForeignKey(Post, null=True, blank=True, on_delete=models.CASCADE)
    body = models.JSONField(help_text="The JSON posted to the webhook.")
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_webhookdelivery"
        ordering = ["game", "id"]
        indexes = [
            models.Index(
                fields=["status", "next_attempt_at"],
                name="webhook_pending",
                condition=models.Q(status="pending"),
            ),
            models.Index(fields=["game", "status", "id"], name="webhook_game_queue"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} of game {self.game_id} ({self.status})"
