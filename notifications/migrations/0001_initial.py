"""The notifications app takes over the games app's notification and digest tables
(``db_table``): nothing in the database changes."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("games", "0032_notifications_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="NotificationPrefs",
                    fields=[
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="notification_prefs",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        ("channels", models.JSONField(blank=True, default=dict)),
                        ("reminder_hours", models.PositiveSmallIntegerField(default=2)),
                        ("digest_minutes", models.PositiveSmallIntegerField(default=15)),
                        ("desktop", models.BooleanField(default=False)),
                    ],
                    options={
                        "db_table": "games_notificationprefs",
                    },
                ),
                migrations.CreateModel(
                    name="EmailDigest",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("to", models.EmailField(max_length=254)),
                        ("subject", models.CharField(max_length=300)),
                        ("text", models.TextField()),
                        ("html", models.TextField()),
                        ("message_id", models.CharField(max_length=200, unique=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Waiting to be sent"),
                                    ("sending", "Being sent (leased to a worker)"),
                                    ("sent", "Sent"),
                                    ("failed", "Given up after repeated errors"),
                                    ("skipped", "Not sent"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("lease_until", models.DateTimeField(blank=True, null=True)),
                        ("last_error", models.CharField(blank=True, default="", max_length=500)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="email_digests",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_emaildigest",
                        "ordering": ["-created_at", "-pk"],
                    },
                ),
                migrations.CreateModel(
                    name="Notification",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("game_started", "A game you joined starts"),
                                    ("phase_started", "A day or night starts"),
                                    ("game_finished", "A game you play ends"),
                                    ("your_turn", "It is your turn at a table"),
                                    ("vote_opened", "The table's vote opens"),
                                    ("near_elimination", "You are at L-1 or L-0"),
                                    (
                                        "action_missing",
                                        "Your vote or night action is still missing",
                                    ),
                                    ("prodded", "You were prodded"),
                                    ("replaced", "You were replaced"),
                                    ("modkilled", "You were modkilled"),
                                    ("partner_posted", "A partner posted in a private thread"),
                                    ("mentioned", "You are quoted or mentioned (@name)"),
                                    ("whispered", "A player whispered to you"),
                                    (
                                        "replacement_wanted",
                                        "A replacement is wanted in a game you queued for",
                                    ),
                                    ("signups_full", "Sign-ups are full"),
                                    ("night_actions_in", "All night actions are in"),
                                    ("absence_asked", "A player asked for V/LA"),
                                    (
                                        "made_host",
                                        "You are made a co-host or backup host, or handed a game",
                                    ),
                                    ("moderation", "A moderator acted on your account"),
                                ],
                                max_length=30,
                            ),
                        ),
                        ("text", models.CharField(max_length=500)),
                        ("link", models.CharField(max_length=300)),
                        ("key", models.CharField(blank=True, default="", max_length=120)),
                        ("count", models.PositiveIntegerField(default=1)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("read_at", models.DateTimeField(blank=True, null=True)),
                        ("in_inbox", models.BooleanField(default=True)),
                        (
                            "mail",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("", "Not by e-mail"),
                                    ("pending", "Waiting for the next digest"),
                                    ("queued", "In a digest being sent"),
                                    ("sent", "Sent in a digest"),
                                    (
                                        "skipped",
                                        "Not mailed (seen on the site first, or unsubscribed)",
                                    ),
                                ],
                                default="",
                                max_length=10,
                            ),
                        ),
                        (
                            "digest",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="notifications",
                                to="notifications.emaildigest",
                            ),
                        ),
                        (
                            "game",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to="games.game",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_notification",
                        "ordering": ["-updated_at", "-pk"],
                    },
                ),
                migrations.AddIndex(
                    model_name="emaildigest",
                    index=models.Index(
                        condition=models.Q(("status__in", ["pending", "sending"])),
                        fields=["lease_until"],
                        name="digest_to_send",
                    ),
                ),
                migrations.AddIndex(
                    model_name="notification",
                    index=models.Index(fields=["user", "-updated_at"], name="notification_inbox"),
                ),
                migrations.AddIndex(
                    model_name="notification",
                    index=models.Index(
                        condition=models.Q(("mail", "pending")),
                        fields=["updated_at"],
                        name="notification_mail_pending",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="notification",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(
                            ("read_at__isnull", True), models.Q(("key", ""), _negated=True)
                        ),
                        fields=("user", "key"),
                        name="notification_one_unread_per_key",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
