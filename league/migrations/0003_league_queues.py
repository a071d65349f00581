"""The league app takes over the games app's queue tables (``db_table``): nothing in the
database changes."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0033_league_app"),
        ("league", "0002_agent_guess"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LeagueQueueState",
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
                        ("setup", models.CharField(max_length=50, unique=True)),
                        ("problem", models.CharField(blank=True, max_length=300)),
                        ("checked_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "last_game",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="games.game",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_leaguequeuestate",
                    },
                ),
                migrations.CreateModel(
                    name="LeagueQueueEntry",
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
                            "setup",
                            models.CharField(help_text="The queue's setup slug.", max_length=50),
                        ),
                        ("joined_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="league_entries",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_leaguequeueentry",
                        "ordering": ["joined_at", "id"],
                        "indexes": [
                            models.Index(
                                fields=["setup", "joined_at"],
                                name="games_leagu_setup_e88cad_idx",
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "setup"), name="league_entry_once"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
