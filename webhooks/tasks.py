"""The webhook's Celery tasks: a game's deliveries, and beat's sweep for lost ones."""

from __future__ import annotations

from celery import shared_task

from . import delivery


@shared_task(name=delivery.DELIVER_TASK, ignore_result=True)
def deliver_webhooks(game_id: int) -> int:
    """Post the game's due webhook deliveries, in order; returns how many were sent."""
    return delivery.deliver_game(game_id)


@shared_task(name="webhooks.tasks.sweep_webhooks", ignore_result=True)
def sweep_webhooks() -> int:
    """Queue the deliveries of every game with a webhook post due (beat, every 30 s)."""
    return len(delivery.sweep())
