"""The league app's Celery tasks (on beat, ``mafia_site.celery``): the matchmaking sweep
every ``LEAGUE_SWEEP_SECONDS``, and the baseline ladder's turn (``league.baseline.tick``)
every ``BASELINE_TICK_SECONDS``.

The sweep was ``games.tasks.match_league_queues`` before the league left the games core: a
message still queued under that name when a worker of the new code starts is refused as
unknown, and the next sweep (beat's, seconds later) does its work, which is idempotent."""

from __future__ import annotations

from celery import shared_task

from . import baseline, services


@shared_task(name="league.tasks.match_queues", ignore_result=True)
def match_queues() -> int:
    """Make the games every league queue has enough seats for (beat, every
    ``LEAGUE_SWEEP_SECONDS``): the queues are rows, so a restart loses nobody's place."""
    return len(services.sweep_queues())


@shared_task(name="league.tasks.play_baselines", ignore_result=True)
def play_baselines() -> int:
    """Each baseline seat acts once where its game waits on it; idle baselines queue."""
    return baseline.tick()
