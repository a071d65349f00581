"""The league app's Celery task: the baseline ladder's turn (``league.baseline.tick``), on
beat every ``BASELINE_TICK_SECONDS`` (``mafia_site.celery``)."""

from __future__ import annotations

from celery import shared_task

from . import baseline


@shared_task(name="league.tasks.play_baselines", ignore_result=True)
def play_baselines() -> int:
    """Each baseline seat acts once where its game waits on it; idle baselines queue."""
    return baseline.tick()
