"""The ratings app takes over the games app's rating tables (``db_table``): nothing in the
database changes."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0031_ratings_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="RatedGame",
                    fields=[
                        (
                            "game",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="ratings_applied",
                                serialize=False,
                                to="games.game",
                            ),
                        ),
                        ("applied_at", models.DateTimeField()),
                    ],
                    options={
                        "db_table": "games_ratedgame",
                    },
                ),
                migrations.CreateModel(
                    name="Rating",
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
                            "ruleset",
                            models.CharField(
                                choices=[
                                    ("city", "City mafia"),
                                    ("classic", "Classic ten-player"),
                                    ("power", "Power roles"),
                                    ("forum", "Forum (mafiascum-style)"),
                                ],
                                max_length=20,
                            ),
                        ),
                        (
                            "side",
                            models.CharField(
                                choices=[
                                    ("overall", "Overall"),
                                    ("town", "Town side"),
                                    ("mafia", "Mafia side"),
                                ],
                                max_length=10,
                            ),
                        ),
                        ("mu", models.FloatField()),
                        ("sigma", models.FloatField()),
                        ("ordinal", models.FloatField()),
                        ("games", models.PositiveIntegerField(default=0)),
                        ("wins", models.PositiveIntegerField(default=0)),
                        ("updated_at", models.DateTimeField()),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ratings",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_rating",
                        "indexes": [
                            models.Index(
                                fields=["ruleset", "side", "-ordinal"], name="rating_board"
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "ruleset", "side"), name="rating_once"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="RatingChange",
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
                            "ruleset",
                            models.CharField(
                                choices=[
                                    ("city", "City mafia"),
                                    ("classic", "Classic ten-player"),
                                    ("power", "Power roles"),
                                    ("forum", "Forum (mafiascum-style)"),
                                ],
                                max_length=20,
                            ),
                        ),
                        (
                            "side",
                            models.CharField(
                                choices=[
                                    ("overall", "Overall"),
                                    ("town", "Town side"),
                                    ("mafia", "Mafia side"),
                                ],
                                max_length=10,
                            ),
                        ),
                        ("role", models.CharField(blank=True, max_length=40)),
                        ("alignment", models.CharField(blank=True, max_length=20)),
                        ("won", models.BooleanField()),
                        ("modkilled", models.BooleanField(default=False)),
                        (
                            "share",
                            models.FloatField(
                                default=1.0, help_text="The share of the game's phases held."
                            ),
                        ),
                        ("mu_before", models.FloatField()),
                        ("sigma_before", models.FloatField()),
                        ("mu_after", models.FloatField()),
                        ("sigma_after", models.FloatField()),
                        ("at", models.DateTimeField()),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_changes",
                                to="games.game",
                            ),
                        ),
                        (
                            "slot",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="games.slot",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_changes",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_ratingchange",
                        "ordering": ["at", "id"],
                        "indexes": [
                            models.Index(
                                fields=["user", "ruleset", "side", "at"], name="rating_history"
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("game", "user", "side"), name="rating_change_once"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
