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

The post limit's lift (``services.post_limit``) is scheduled the same way: the scan lifts
those due and queues ``lift_post_limit_task`` for those near; the embedded run lifts them
on its scan.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.utils import timezone

from mafia_site.celery import DEADLINE_SCAN_SECONDS

from . import services
from .deadlines import record_sweep, sweep_overdue
from .errors import NotFound
from .models import Phase
from .scheduling import ADVANCE_PHASE_TASK, LIFT_POST_LIMIT_TASK, schedule_deadline, schedule_lift
from .services import post_limit
from .services.moderation import lift_ended

log = logging.getLogger(__name__)

# An ETA task that runs this close before its deadline (clock skew between hosts) tries
# again just after it instead of waiting for the next scan.
EARLY_RETRY_WINDOW = timedelta(seconds=10)


@shared_task(name="games.tasks.advance_due_phases", ignore_result=True)
def advance_due_phases() -> int:
    """Queue the transition of every due phase; returns how many were queued.

    It also queues the ETA task of every deadline due before the scan after next: a phase
    opened days ahead got none when it opened (``scheduling.SHORT_RANGE``), and without one
    it would end up to a whole scan late. Two scans cover each deadline; the transition is
    idempotent, so the second task does nothing."""
    now = timezone.now()
    due = services.due_phases(now)
    for game_id, number in due:
        advance_phase_task.delay(game_id, number)
    ahead = timedelta(seconds=2 * DEADLINE_SCAN_SECONDS)
    for game_id, number, deadline, turn_seq in services.nearing_phases(now, ahead):
        schedule_deadline(game_id, number, deadline, turn_seq)
    # The post limits' lifts ride on the same scan: those due now, and an ETA task for
    # those before the scan after next (``services.post_limit``).
    post_limit.lift_due(now)
    for game_id, number, lifts_at in post_limit.nearing_lifts(now, ahead):
        schedule_lift(game_id, number, lifts_at)
    record_sweep("celery", len(due), now=now)
    if due:
        log.info("Deadline scan: %d due phase(s): %s", len(due), due)
    return len(due)


@shared_task(
    name=ADVANCE_PHASE_TASK,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=False,
)
def advance_phase_task(self, game_id: int, phase_number: int, turn_seq: int | None = None) -> bool:
    """End phase ``phase_number`` of the game (or that turn of a table day) if it is due;
    True if this call advanced it."""
    try:
        advanced = services.advance_phase(game_id, phase_number, turn_seq=turn_seq)
    except NotFound:
        return False  # the game was deleted
    if not advanced:
        _retry_if_early(game_id, phase_number, turn_seq)
    return advanced


@shared_task(name=LIFT_POST_LIMIT_TASK, ignore_result=True)
def lift_post_limit_task(game_id: int, phase_number: int) -> bool:
    """Lift the post limit of that day of the game if it is due (``post_limit.lift``: once
    per day and deadline); True if this call lifted it."""
    try:
        return post_limit.lift(game_id, phase_number)
    except NotFound:
        return False  # the game was deleted


@shared_task(name="games.tasks.post_scheduled_vote_counts", ignore_result=True)
def post_scheduled_vote_counts() -> int:
    """Post the numbered vote count of every game whose schedule is due (beat, each minute)."""
    return len(services.post_scheduled_counts())


@shared_task(name="games.tasks.lift_ended_sanctions", ignore_result=True)
def lift_ended_sanctions() -> int:
    """End the mutes and suspensions whose time is up (beat, each minute): the account
    comes back and its person is told; how many ended."""
    return lift_ended()


def _retry_if_early(game_id: int, phase_number: int, turn_seq: int | None = None) -> None:
    """The task ran a moment before the deadline (another clock): queue it again after."""
    phase = (
        Phase.objects.filter(
            game_id=game_id,
            number=phase_number,
            resolved=False,
            game__phase_number=phase_number,
            deadline__isnull=False,
        )
        .only("deadline", "turn_seq")
        .first()
    )
    if phase is None or (turn_seq is not None and phase.turn_seq != turn_seq):
        return
    deadline = phase.deadline
    assert deadline is not None  # deadline__isnull=False above
    remaining = deadline - timezone.now()
    if timedelta(0) < remaining <= EARLY_RETRY_WINDOW:
        schedule_deadline(game_id, phase_number, deadline + timedelta(milliseconds=200), turn_seq)


def run_due_phases() -> list[tuple[int, int]]:
    """Advance every due phase in this process (the embedded worker); returns those advanced.

    Each game is its own transaction and its own try: a failing game is logged and retried
    on the next scan while the others go on.
    """
    advanced = sweep_overdue(timedelta(0), sweeper="embedded")
    post_limit.lift_due()  # and the post limits' lifts (no ETA tasks here: the scan polls)
    return advanced


@shared_task(name="games.tasks.simulate_setup", ignore_result=True)
def simulate_setup(run_id: int) -> None:
    """Play a ``SimulationRun``'s games, saving the progress every few games."""
    from . import simulator
    from .models import SimulationRun

    run = SimulationRun.objects.filter(pk=run_id).select_related("saved_setup").first()
    if run is None or run.status == "done":
        return
    setup = simulation_setup(run)
    SimulationRun.objects.filter(pk=run_id).update(status="running", done=0, wins={})

    def progress(done: int, wins: dict[str, int]) -> None:
        SimulationRun.objects.filter(pk=run_id).update(done=done, wins=wins)

    try:
        simulator.simulate(setup, run.games, seed=run.seed, progress=progress, every=25)
    except Exception as exc:  # a setup the bots cannot play: say so on the page
        log.exception("Simulation %s failed", run_id)
        SimulationRun.objects.filter(pk=run_id).update(status="failed", error=str(exc)[:500])
        return
    SimulationRun.objects.filter(pk=run_id).update(status="done")


def simulation_setup(run: Any) -> dict[str, Any]:
    """The ``create_game`` keyword arguments of the run's setup."""
    from .setups import SETUPS

    if run.saved_setup is not None:
        return services.saved_setup_kwargs(run.saved_setup)
    return SETUPS[run.setup].game_kwargs()
