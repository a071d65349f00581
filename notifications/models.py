"""The notifications' records: each person's notifications (the inbox), their settings per
kind, and the e-mail digests.

The tables were made by the games app before notifications became an app of its own: the
models keep their names (``db_table``), and migration 0001 only takes them over.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Game

from .kinds import CHANNELS, NOTIFICATION_KINDS
from .kinds import KIND_CHOICES as NOTIFICATION_KIND_CHOICES


class MailState(models.TextChoices):
    NONE = "", "Not by e-mail"
    PENDING = "pending", "Waiting for the next digest"
    QUEUED = "queued", "In a digest being sent"
    SENT = "sent", "Sent in a digest"
    SKIPPED = "skipped", "Not mailed (seen on the site first, or unsubscribed)"


class Notification(models.Model):
    """One thing a person should know, written in the same transaction as the change it is
    about (``notifications``), so a notification exists exactly when its change does.

    ``key`` groups repeats: a batched kind updates the one unread notification with its key
    (``count`` grows), and a once-only kind (a reminder, L-1) is not written twice."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=30, choices=NOTIFICATION_KIND_CHOICES)
    text = models.CharField(max_length=500)
    link = models.CharField(max_length=300)  # a path on this site
    key = models.CharField(max_length=120, blank=True, default="")
    count = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    in_inbox = models.BooleanField(default=True)
    mail = models.CharField(max_length=10, choices=MailState.choices, default="", blank=True)
    # The e-mail digest it went out in (``notifications.mail``).
    digest = models.ForeignKey(
        "EmailDigest",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notifications",
    )

    class Meta:
        db_table = "games_notification"
        ordering = ["-updated_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "-updated_at"], name="notification_inbox"),
            models.Index(
                fields=["updated_at"],
                condition=models.Q(mail="pending"),
                name="notification_mail_pending",
            ),
        ]
        constraints = [
            # One unread notification per key: a batched kind adds to it.
            models.UniqueConstraint(
                fields=["user", "key"],
                condition=models.Q(read_at__isnull=True) & ~models.Q(key=""),
                name="notification_one_unread_per_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind}: {self.text}"


class NotificationPrefs(models.Model):
    """A person's notification settings: a channel per kind (``notifications.kinds``;
    a kind missing here has its default), the reminder's lead time, the digest's window and
    desktop notifications."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="notification_prefs",
    )
    channels = models.JSONField(default=dict, blank=True)
    # "Your vote or night action is still missing N hours before the deadline" (0: never).
    reminder_hours = models.PositiveSmallIntegerField(default=2)
    # E-mail gathers what happened in this many minutes into one digest.
    digest_minutes = models.PositiveSmallIntegerField(default=15)
    desktop = models.BooleanField(default=False)

    class Meta:
        db_table = "games_notificationprefs"

    def __str__(self) -> str:
        return f"notification settings of {self.user_id}"

    def channel(self, kind: str) -> str:
        chosen = self.channels.get(kind)
        if NOTIFICATION_KINDS[kind].fixed:
            return NOTIFICATION_KINDS[kind].default
        return chosen if chosen in CHANNELS else NOTIFICATION_KINDS[kind].default


class DigestStatus(models.TextChoices):
    PENDING = "pending", "Waiting to be sent"
    SENDING = "sending", "Being sent (leased to a worker)"
    SENT = "sent", "Sent"
    FAILED = "failed", "Given up after repeated errors"
    SKIPPED = "skipped", "Not sent"


class EmailDigest(models.Model):
    """One e-mail gathering a person's pending notifications (``notifications.mail``).

    Its subject and bodies are written once, when it is built, so every attempt sends the
    same message with the same ``message_id``. A worker claims it for ``lease_until``
    (status ``sending``); a lease that expired means the worker died, and the sweep sends it
    again. While ``pending`` after an error, ``lease_until`` is the earliest next try."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_digests"
    )
    to = models.EmailField(max_length=254)
    subject = models.CharField(max_length=300)
    text = models.TextField()
    html = models.TextField()
    message_id = models.CharField(max_length=200, unique=True)
    status = models.CharField(
        max_length=10, choices=DigestStatus.choices, default=DigestStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_emaildigest"
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["lease_until"],
                condition=models.Q(status__in=["pending", "sending"]),
                name="digest_to_send",
            ),
        ]

    def __str__(self) -> str:
        return f"digest {self.pk} to {self.user_id}: {self.subject} ({self.status})"


class PushDevice(models.Model):
    """One browser that asked for Web Push (``notifications.push``): where its push service
    takes messages for it (``endpoint``) and the keys they are encrypted to (RFC 8291).

    A person may have several (a phone, a laptop). The endpoint is the browser's: if another
    person subscribes from the same browser, the device becomes theirs. Removed when the
    person turns push off on it, and when its push service says it is gone (404 or 410)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's public key, base64url
    auth = models.CharField(max_length=40)  # the shared auth secret, base64url
    # The browser's User-Agent when it subscribed: the settings page names devices by it.
    agent = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"push device {self.pk} of {self.user_id}"
