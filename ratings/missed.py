"""Ratings left behind: a rated game whose end could not apply them.

A game is rated in its ending transaction (``games.hooks.on_game_ending``), but inside a
savepoint, so a fault in the ratings never keeps the game from ending. Such a game has no
``RatedGame`` marker; a sweep (beat's, and the embedded run's loop) rates it here later,
once the fault is gone;
a game whose fault stays is tried again after the others (``Game.ratings_tried_at``).
"""

from __future__ import annotations

import logging

from django.db.models import F
from django.utils import timezone

from games.models import Game, GameStatus
from games.services.common import game_tx

from . import compute

log = logging.getLogger(__name__)

BATCH = 50  # games a sweep tries: a fault that stays is logged, not retried in a loop


def rate_missed_games() -> list[int]:
    """Apply the ratings of finished rated games that have none; the ids rated now."""
    # Never tried first, then the least recently failed: fifty games whose fault stays
    # were tried again and again, oldest first, and no newer game was ever rated.
    missed = (
        Game.objects.filter(rated=True, status=GameStatus.FINISHED, ratings_applied__isnull=True)
        .order_by(F("ratings_tried_at").asc(nulls_first=True), "pk")
        .values_list("pk", flat=True)[:BATCH]
    )
    rated = []
    for game_id in list(missed):
        try:
            with game_tx(game_id) as tx:  # the game's lock, as its end had it
                if compute.apply_game(tx.game, tx.now):
                    rated.append(game_id)
        except Exception:
            log.exception("game %s: its ratings still cannot be applied", game_id)
            Game.objects.filter(pk=game_id).update(ratings_tried_at=timezone.now())
    return rated
