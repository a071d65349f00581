"""The ratings' records: a rating per player, rule set and side, its history, and the marker
that a game was rated.

The tables were made by the games app before ratings became an app of its own: the models
keep their names (``db_table``), and migration 0001 only takes them over.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game, Ruleset, Slot


class RatingSide(models.TextChoices):
    """Which figure a rating is: every game, or only the games played on one side."""

    OVERALL = "overall", _("Overall")
    TOWN = "town", _("Town side")
    MAFIA = "mafia", _("Mafia side")


class Rating(models.Model):
    """A player's (person's or agent's) Weng-Lin rating in one rule set, on one side.

    ``ordinal`` (mu - 3 sigma, the shown figure) is stored so the leaderboard can sort and
    page in the database; ``ratings.compute`` writes it with mu and sigma."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    ruleset = models.CharField(max_length=20, choices=Ruleset.choices)
    side = models.CharField(max_length=10, choices=RatingSide.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    class Meta:
        db_table = "games_rating"
        constraints = [
            models.UniqueConstraint(fields=["user", "ruleset", "side"], name="rating_once"),
        ]
        indexes = [
            models.Index(fields=["ruleset", "side", "-ordinal"], name="rating_board"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.ruleset}/{self.side}: {self.ordinal:.2f}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating on one side: written once, when the
    game ends (unique per game, player and side), and kept as the rating's history."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    ruleset = models.CharField(max_length=20, choices=Ruleset.choices)
    side = models.CharField(max_length=10, choices=RatingSide.choices)
    slot = models.ForeignKey(Slot, null=True, on_delete=models.SET_NULL, related_name="+")
    role = models.CharField(max_length=40, blank=True)
    alignment = models.CharField(max_length=20, blank=True)
    won = models.BooleanField()
    modkilled = models.BooleanField(default=False)
    share = models.FloatField(default=1.0, help_text="The share of the game's phases held.")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        db_table = "games_ratingchange"
        ordering = ["at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "side"], name="rating_change_once"),
        ]
        indexes = [
            models.Index(fields=["user", "ruleset", "side", "at"], name="rating_history"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in game {self.game_id} ({self.side})"


class RatedGame(models.Model):
    """The marker that a game's ratings were applied: one row per game, so they change
    exactly once, however often the end is replayed."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="ratings_applied"
    )
    applied_at = models.DateTimeField()

    class Meta:
        db_table = "games_ratedgame"

    def __str__(self) -> str:
        return f"ratings of game {self.game_id}"
