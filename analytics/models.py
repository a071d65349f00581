"""Belief probes (issue 34, part 5): once a day a living player may say, for each other
living player, how likely they think it is that the player is mafia.

A probe is hidden like a thought (``games.models.Thought``): nobody reads another's, not the
host nor the team, until the game ends; then everyone does, in the review and the open data,
and each seat gets a Brier score (``analytics.probes``). It is never an event.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Game, Phase, Slot


class Probe(models.Model):
    """One seat's probability, on one day, that one other seat is mafia. Submitting again
    the same day replaces that day's probes (``analytics.probes.submit_probes``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="+")
    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, related_name="+", help_text="The day it was sent on."
    )
    target = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="+")
    # A double: the number sent is kept as sent (0.8137 stays 0.8137), in [0, 1].
    probability = models.FloatField()
    # Who held the seat when it was sent: a replacement's probes are their own record.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["phase__number", "slot__seat", "target__seat"]
        constraints = [
            models.UniqueConstraint(fields=["slot", "phase", "target"], name="probe_once_a_day"),
            models.CheckConstraint(
                condition=models.Q(probability__gte=0, probability__lte=1),
                name="probe_probability_in_0_1",
            ),
        ]
        indexes = [models.Index(fields=["game", "phase"]), models.Index(fields=["user"])]

    def __str__(self) -> str:
        return f"seat {self.slot_id} -> {self.target_id}: {self.probability}"
