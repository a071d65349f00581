"""The one place that decides what to schedule when a phase's deadline is set or moves.

Two layers end a phase on time (see ``mafia_site/celery.py`` for why):

1. **The scan** (``games.tasks.advance_due_phases``, Celery beat every ~15 s; in the embedded
   setup a thread of ``manage.py runsite`` every few seconds) finds every running phase past
   its deadline. It alone is enough for correctness, and it is the only layer for phases
   whose deadline is far away.
2. **A short-range ETA task** (``games.tasks.advance_phase_task``) is sent when a phase opens
   or its deadline changes (revote, extend, cut, resume) and the deadline is within
   ``SHORT_RANGE``: short phases then end on the second rather than up to one scan late.

Neither layer needs to be exact or unique: the transition (``services.advance_phase``) is
keyed by (game, phase number), runs under the game's row lock and refuses a phase that is
not current, already resolved, paused or not yet due. So a stale ETA task left behind by an
extension, a duplicate from a redelivery, or the scan and the ETA task racing each other all
end with the game advanced exactly once.

How it is wired: a ``post_save`` receiver on ``Phase`` (connected in ``GamesConfig.ready``)
notices a phase being created or its ``deadline``/``paused_remaining`` saved, and asks for
``schedule_deadline`` after the transaction commits, so a rolled-back change schedules
nothing and the task never runs before the phase row is visible to the worker. Services need
no scheduling code of their own, and a future service that moves a deadline is covered too.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from mafia_site.celery import app as celery_app

log = logging.getLogger(__name__)

# ETA tasks only for deadlines this close; far below the broker's visibility timeout (1 h).
SHORT_RANGE = timedelta(minutes=10)
# A stale message (the worker was down past the deadline) is dropped after this long:
# the scan has ended the phase by then.
ETA_EXPIRES_AFTER = timedelta(minutes=5)

_DEADLINE_FIELDS = {"deadline", "paused_remaining", "turn_seq"}
ADVANCE_PHASE_TASK = "games.tasks.advance_phase_task"
LIFT_POST_LIMIT_TASK = "games.tasks.lift_post_limit_task"


def eta_tasks_enabled() -> bool:
    """ETA tasks need a real broker; the embedded setup's scanner thread polls instead."""
    return not getattr(settings, "EMBEDDED_SERVICES", False)


def wants_eta(deadline: datetime | None, *, now: datetime | None = None) -> bool:
    """True if a deadline is set (not paused) and close enough for an ETA task."""
    if deadline is None:
        return False
    now = now or timezone.now()
    return deadline - now <= SHORT_RANGE


def schedule_deadline(
    game_id: int, phase_number: int, deadline: datetime | None, turn_seq: int | None = None
) -> bool:
    """Queue the ETA task for this deadline if it is near; True if one was sent.

    Never raises: the scan ends the phase anyway, so a broker hiccup must not turn into an
    error for the host who just extended a deadline.
    """
    if not eta_tasks_enabled() or deadline is None or not wants_eta(deadline):
        return False
    try:
        # By name: ``games.tasks`` imports this module, and this one must not import it back.
        celery_app.send_task(
            ADVANCE_PHASE_TASK,
            # A table day's turn timer is keyed by its turn too: it fires for that turn only.
            args=(game_id, phase_number) if turn_seq is None else (game_id, phase_number, turn_seq),
            eta=deadline,
            expires=deadline + ETA_EXPIRES_AFTER,
            retry=False,
        )
    except Exception:  # the broker is down: the scan will catch the deadline
        log.warning(
            "Could not queue the deadline of game %s phase %s; the scan will end it.",
            game_id,
            phase_number,
            exc_info=True,
        )
        return False
    return True


def schedule_lift(game_id: int, phase_number: int, lifts_at: datetime | None) -> bool:
    """Queue the post limit's lift (``services.post_limit.lift``) at its moment if it is
    near, as a deadline's; True if one was sent. A stale one (the deadline moved) does
    nothing: the lift checks the day under the game's lock. Never raises: the scan lifts."""
    if not eta_tasks_enabled() or lifts_at is None or not wants_eta(lifts_at):
        return False
    try:
        celery_app.send_task(
            LIFT_POST_LIMIT_TASK,
            args=(game_id, phase_number),
            eta=lifts_at,
            expires=lifts_at + ETA_EXPIRES_AFTER,
            retry=False,
        )
    except Exception:  # the broker is down: the scan will lift it
        log.warning(
            "Could not queue the post limit's lift in game %s day %s; the scan will.",
            game_id,
            phase_number,
            exc_info=True,
        )
        return False
    return True


def phase_saved(sender: Any, instance: Any, created: bool, update_fields: Any, **kwargs) -> None:
    """``post_save`` receiver on Phase: a new or moved deadline is scheduled after commit."""
    if kwargs.get("raw"):
        return  # loaddata
    if not created and (update_fields is None or not _DEADLINE_FIELDS & set(update_fields)):
        return
    if instance.resolved or getattr(instance, "_deadline_hook_pending", False):
        return  # one hook per phase per transaction: it reads the final deadline
    instance._deadline_hook_pending = True
    transaction.on_commit(
        partial(_after_commit, instance.game_id, instance.number, instance),
        using=kwargs.get("using"),
    )


def _after_commit(game_id: int, phase_number: int, phase: Any) -> None:
    # Read the deadline at commit time: a later save in the same transaction may have moved it.
    phase._deadline_hook_pending = False
    if phase.resolved:
        return
    turn_seq = phase.turn_seq if phase.day_state is not None else None
    schedule_deadline(game_id, phase_number, phase.deadline, turn_seq)
    if phase.is_day and phase.deadline is not None:
        _schedule_lift_of(game_id, phase_number, phase.deadline)


def _schedule_lift_of(game_id: int, phase_number: int, deadline: datetime) -> None:
    """A day's deadline moves its post limit's lift (``reads.post_limit``) with it."""
    from .models import Game

    limit = (
        Game.objects.filter(pk=game_id, post_limit__isnull=False, turn_based=False)
        .values_list("post_limit_lifted", flat=True)
        .first()
    )
    if limit is not None:
        schedule_lift(game_id, phase_number, deadline - limit)


def connect() -> None:
    """Called from ``GamesConfig.ready``."""
    from django.db.models.signals import post_save

    from .models import Phase

    post_save.connect(phase_saved, sender=Phase, dispatch_uid="games.scheduling.phase_saved")
