"""A worker SIGKILLed in the middle of a phase transition leaves nothing half-done, and the
next run completes it exactly once.

The killed worker runs with ``tests.live.slow_transition``: it writes the whole transition
(day ended, next phase opened, events) and then sleeps inside the still-open transaction.
We kill -9 it there. PostgreSQL rolls the transaction back when the connection drops; the
task was never acknowledged (``acks_late``), so Redis redelivers it after the visibility
timeout (shortened for the test), and the scan would find the phase still due anyway.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import OperationalError, transaction
from django.utils import timezone

from games.models import Game, GameEvent, Phase
from games.tasks import advance_due_phases, advance_phase_task

from .celery_support import (
    Worker,
    app_on_test_broker,
    make_running_game,
    phase_number,
    purge_queue,
    wait_for,
)

pytestmark = [
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(120),
]


@pytest.mark.slow
def test_worker_killed_mid_transition_then_next_run_completes_once(tmp_path):
    queue = f"deadlines-killed-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "in-transition"
    with app_on_test_broker(queue):
        game, _, _ = make_running_game(day_length=timedelta(hours=1))
        Phase.objects.filter(game=game, number=1).update(
            deadline=timezone.now() - timedelta(seconds=1)
        )
        seq_before = Game.objects.get(pk=game.pk).event_seq

        slow = Worker(
            queue,
            name="slow",
            pool="solo",
            concurrency=1,
            WORKER_INCLUDE="tests.live.slow_transition",
            SLOW_TRANSITION_MARKER=str(marker),
            SLOW_TRANSITION_SECONDS="60",
        )
        try:
            first = advance_phase_task.delay(game.pk, 1)
            wait_for(marker.exists, timeout=30, what="the worker to be mid-transition")
            assert marker.read_text() == f"{game.pk}:2"  # it had written Night 1 already
            slow.kill()
        finally:
            slow.stop()

        # Nothing of the transition survived the kill.
        game.refresh_from_db()
        assert game.phase_number == 1 and game.event_seq == seq_before
        assert not Phase.objects.get(game=game, number=1).resolved
        assert not Phase.objects.filter(game=game, number=2).exists()
        assert not GameEvent.objects.filter(game=game, kind="day_ended").exists()
        # And no lock was left behind: PostgreSQL ends the killed worker's session (and its
        # row lock) once it sees the connection closed, which can take a moment under load.
        wait_for(lambda: _lock_free(game.pk), timeout=15, what="the killed worker's lock")

        # The next run: a fresh worker, and the scan finds the phase still due and ends it.
        fresh = Worker(queue, name="fresh")
        try:
            advance_due_phases.delay()
            wait_for(lambda: phase_number(game) == 2, timeout=30, what="the next run")
        finally:
            fresh.stop()

        # The killed task was never acknowledged: Redis hands it out again after the
        # visibility timeout (shortened here), and running it now changes nothing.
        again = Worker(queue, name="redelivery", CELERY_VISIBILITY_TIMEOUT="2")
        try:
            assert first.get(timeout=60) is False
        finally:
            again.stop()
            purge_queue(queue)

    assert GameEvent.objects.filter(game=game, kind="day_ended").count() == 1
    assert GameEvent.objects.filter(game=game, kind="phase_started").count() == 2
    assert Phase.objects.filter(game=game).count() == 2


def _lock_free(game_id: int) -> bool:
    try:
        with transaction.atomic():
            Game.objects.select_for_update(nowait=True).get(pk=game_id)
    except OperationalError:
        return False
    return True
