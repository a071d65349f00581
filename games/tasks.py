"""Celery tasks that run the games' deadlines (the design is in ``games.scheduling``).

* ``advance_due_phases`` (beat, every ``DEADLINE_SCAN_SECONDS``): one small
  ``advance_phase_task`` per due game, so one game that fails to resolve cannot hold up
  the others.
* ``advance_phase_task(game_id, phase_number)``: ends that phase through
  ``services.advance_phase``, which is idempotent under the game's row lock: it does
  nothing unless that phase is current, unresolved, unpaused and due. The whole transition
  (votes counted or the night resolved, deaths, results, win check, next phase) is one
  database transaction, so a worker killed in the middle leaves nothing behind; the task is
  acknowledged late (``acks_late``), so the broker hands it out again, and the next scan
  finds the phase still due in any case.

The embedded setup (no Redis) runs ``run_due_phases`` in a thread instead of a worker.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from . import services
from .errors import NotFound
from .models import Phase

log = logging.getLogger(__name__)

# An ETA task that runs this close before its deadline (clock skew between hosts) tries
# again just after it instead of waiting for the next scan.
EARLY_RETRY_WINDOW = timedelta(seconds=10)


@shared_task(name="games.tasks.advance_due_phases", ignore_result=True)
def advance_due_phases() -> int:
    """Queue the transition of every due phase; returns how many were queued."""
    due = services.due_phases()
    for game_id, number in due:
        advance_phase_task.delay(game_id, number)
    if due:
        log.info("Deadline scan: %d due phase(s): %s", len(due), due)
    return len(due)


@shared_task(
    name="games.tasks.advance_phase_task",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=False,
)
def advance_phase_task(self, game_id: int, phase_number: int) -> bool:
    """End phase ``phase_number`` of the game if it is due; True if this call advanced it."""
    try:
        advanced = services.advance_phase(game_id, phase_number)
    except NotFound:
        return False  # the game was deleted
    if not advanced:
        _retry_if_early(game_id, phase_number)
    return advanced


def _retry_if_early(game_id: int, phase_number: int) -> None:
    """The task ran a moment before the deadline (another clock): queue it again after."""
    from .scheduling import schedule_deadline

    phase = (
        Phase.objects.filter(
            game_id=game_id,
            number=phase_number,
            resolved=False,
            game__phase_number=phase_number,
            deadline__isnull=False,
        )
        .only("deadline")
        .first()
    )
    if phase is None:
        return
    remaining = phase.deadline - timezone.now()
    if timedelta(0) < remaining <= EARLY_RETRY_WINDOW:
        schedule_deadline(game_id, phase_number, phase.deadline + timedelta(milliseconds=200))


def run_due_phases() -> list[tuple[int, int]]:
    """Advance every due phase in this process (the embedded worker); returns those advanced.

    Each game is its own transaction and its own try: a failing game is logged and retried
    on the next scan while the others go on.
    """
    advanced = []
    for game_id, number in services.due_phases():
        try:
            if services.advance_phase(game_id, number):
                advanced.append((game_id, number))
        except Exception:
            log.exception("Could not end phase %s of game %s", number, game_id)
    return advanced
