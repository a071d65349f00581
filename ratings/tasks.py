"""The ratings' Celery task: beat's sweep of rated games their end could not rate."""

from __future__ import annotations

from celery import shared_task

from . import missed


@shared_task(name="ratings.tasks.rate_missed_games", ignore_result=True)
def rate_missed_games() -> int:
    """Rate the finished rated games that have no ratings yet (beat, each minute)."""
    return len(missed.rate_missed_games())
