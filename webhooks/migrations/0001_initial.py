"""The webhooks app takes over the games app's webhook tables (``db_table``): nothing in
the database changes."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0029_webhooks_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="GameWebhook",
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
                        ("url", models.URLField(max_length=500)),
                        ("failure", models.CharField(blank=True, max_length=300)),
                        ("failed_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "game",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="webhook",
                                to="games.game",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_gamewebhook",
                    },
                ),
                migrations.CreateModel(
                    name="WebhookDelivery",
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
                        ("body", models.JSONField(help_text="The JSON posted to the webhook.")),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("sent", "Sent"),
                                    ("failed", "Failed"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        (
                            "next_attempt_at",
                            models.DateTimeField(default=django.utils.timezone.now),
                        ),
                        ("last_error", models.CharField(blank=True, max_length=300)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="webhook_deliveries",
                                to="games.game",
                            ),
                        ),
                        (
                            "post",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                to="games.post",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_webhookdelivery",
                        "ordering": ["game", "id"],
                        "indexes": [
                            models.Index(
                                condition=models.Q(("status", "pending")),
                                fields=["status", "next_attempt_at"],
                                name="webhook_pending",
                            ),
                            models.Index(
                                fields=["game", "status", "id"], name="webhook_game_queue"
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
