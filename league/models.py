"""The league's standing queues (``LeagueQueueEntry``, ``LeagueQueueState``: the games app's
tables, kept by name since the league app took them over) and its duplicate series.

Duplicate series: one deal (a seed) replayed over several games, the entrants rotated
through the seats, so each entrant plays each seat, and so each role, of the deal.

A series belongs to the league app; its games are ordinary games of the core (hosted by the
"League" account, rated), which never knows they are part of one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Game, new_seed


# -- the standing queues (league.services) ------------------------------------------------------
class LeagueQueueEntry(models.Model):
    """A person or an agent waiting in a league queue (``league.formats``) for a game of
    that setup; the matchmaker (``league.services.match``) takes the oldest first."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_entries"
    )
    setup = models.CharField(max_length=50, help_text="The queue's setup slug.")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "setup"], name="league_entry_once"),
        ]
        indexes = [models.Index(fields=["setup", "joined_at"], name="games_leagu_setup_e88cad_idx")]
        db_table = "games_leaguequeueentry"  # the games app's table before the app was

    def __str__(self) -> str:
        return f"{self.user_id} waits for {self.setup}"


class LeagueQueueState(models.Model):
    """What a league queue last said: why no game was made (``problem``, blank when none)
    and the last game it made."""

    setup = models.CharField(max_length=50, unique=True)
    problem = models.CharField(max_length=300, blank=True)
    checked_at = models.DateTimeField(default=timezone.now)
    last_game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        db_table = "games_leaguequeuestate"  # the games app's table before the app was

    def __str__(self) -> str:
        return f"queue {self.setup}: {self.problem or 'ok'}"


# -- duplicate series (league.series) ------------------------------------------------------------
class SeriesStatus(models.TextChoices):
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"


class Series(models.Model):
    """A duplicate series of a ready-made setup (``league.formats.FORMATS``): ``games`` games
    dealt from ``seed``, game ``i`` seating entrant ``j`` in seat ``(j + i) mod n + 1``."""

    setup = models.CharField(max_length=50, help_text="The ready-made setup's slug.")
    seed = models.BigIntegerField(default=new_seed, help_text="Every game's seed: one deal.")
    games = models.PositiveSmallIntegerField(help_text="Games in all: a multiple of the seats.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=10, choices=SeriesStatus.choices, default=SeriesStatus.RUNNING
    )
    problem = models.CharField(
        max_length=300, blank=True, help_text="Why the next game could not start (blank: none)."
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return f"series {self.pk} of {self.setup}"


class SeriesEntrant(models.Model):
    """One entrant (a person or an agent) and its place ``position`` (``j``, from 0)."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["series", "position"]
        constraints = [
            models.UniqueConstraint(fields=["series", "position"], name="series_entrant_place"),
            models.UniqueConstraint(fields=["series", "user"], name="series_entrant_once"),
        ]

    def __str__(self) -> str:
        return f"entrant {self.position} of series {self.series_id}"


class SeriesGame(models.Model):
    """Game ``number`` (``i``, from 0) of a series, once it is made."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="series_games")
    number = models.PositiveSmallIntegerField()
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="series_game")

    class Meta:
        ordering = ["series", "number"]
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="series_game_once"),
        ]

    def __str__(self) -> str:
        return f"game {self.number} of series {self.series_id}"


class AgentGuess(models.Model):
    """A blind game's player's guess, after its end, of which seats were agents
    (``league.guesses``): one a person and game, never changed (the truth is public by
    then, so a second look would not be a guess)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="agent_guesses")
    person = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_guesses"
    )
    seats = models.JSONField(
        default=list, help_text="The seat numbers guessed to be agents', ascending (may be empty)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["game", "person"], name="agent_guess_once"),
        ]

    def __str__(self) -> str:
        return f"guess of {self.person_id} in {self.game_id}"
