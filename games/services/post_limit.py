"""The post limit (the ``post_limit`` variant; the rule is read in ``reads.post_limit``):
refusing a post past it, telling the poster what is left, and announcing its lift.

The lift is a moment nobody asks the site about (``deadline - post_limit_lifted``), so an
open reply box saying "You have used your 5 posts today" would stay wrong until a reload.
It is an event of its own, ``post_limit_lifted``, announced once per day and deadline by
the deadline machinery: the scan (``tasks.advance_due_phases``; the embedded runner's
``tasks.run_due_phases``), a short-range ETA task (``scheduling.schedule_lift``) and, as
for a deadline, the web process's watchdog once the lift is overdue by its grace
(``deadlines``: Celery and Redis may be down; the lift still happens, on time to within the
grace, and its event reaches the open pages when Redis is back).
A deadline moved after the lift (an extension) makes a new lift moment, announced again.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db.models import DateTimeField, ExpressionWrapper, F, QuerySet, Value
from django.utils import timezone

from ..errors import ErrorCode, WrongPhase
from ..models import GameEvent, GameStatus, Phase, PhaseKind, Slot, Thread
from ..reads import post_limit
from .common import Tx, emit, game_tx

log = logging.getLogger(__name__)


def check_post(tx: Tx, slot: Slot, thread: str, body: str) -> None:
    """Refuse a player's game-thread post past the day's limit (a vote line alone is a
    vote: it may be made). The host and private threads are never limited."""
    if thread != Thread.PUBLIC:
        return
    found = post_limit.allowance(tx.game, slot, tx.phase, slots=tx.slots, at=tx.now)
    if found is None or not found.reached or post_limit.is_vote_line(body, tx.slots):
        return
    raise WrongPhase(found.refusal(), ErrorCode.POST_LIMIT_REACHED, "body")


def after_post(tx: Tx, slot: Slot, thread: str, body: str) -> None:
    """Tell the poster's own pages what is left today (their reply box; a vote line
    changes nothing there)."""
    if thread != Thread.PUBLIC or post_limit.is_vote_line(body, tx.slots):
        return
    found = post_limit.allowance(tx.game, slot, tx.phase, slots=tx.slots, at=tx.now)
    if found is None or found.lifted:
        return
    emit(tx, "posts_left", {"left": found.left, "limit": found.limit}, f"slot:{slot.pk}")


def lift(game_id: int, phase_number: int, *, now: datetime | None = None) -> bool:
    """Announce that the post limit of the game's day ``phase_number`` is lifted, if it
    is now and was not announced for this deadline; True if announced. Idempotent, like
    ``advance_phase``: the scan and the ETA task may both come."""
    deadline = (
        Phase.objects.filter(game_id=game_id, number=phase_number)
        .values_list("deadline", flat=True)
        .first()
    )
    if deadline is None or _announced(game_id, phase_number, deadline):
        return False  # the scan's usual answer inside a window, without the game's lock
    with game_tx(game_id, now) as tx:
        tx.only_posts = True  # the game's state is as it was: only the reply boxes change
        game, phase = tx.game, tx.phase
        if phase is None or phase.number != phase_number or phase.deadline is None:
            return False
        if not post_limit.applies(game, phase) or not post_limit.is_lifted(game, phase, tx.now):
            return False
        if _announced(game_id, phase.number, phase.deadline):
            return False
        emit(
            tx,
            "post_limit_lifted",
            {"number": phase.number, "deadline": phase.deadline.isoformat()},
        )
        return True


def _announced(game_id: int, number: int, deadline: datetime) -> bool:
    """The lift of this day with this deadline is in the game's log already."""
    return GameEvent.objects.filter(
        game_id=game_id,
        kind="post_limit_lifted",
        payload__number=number,
        payload__deadline=deadline.isoformat(),
    ).exists()


def _limited_days() -> QuerySet[Phase]:
    """The running forum days whose game has a post limit that lifts."""
    return Phase.objects.filter(
        resolved=False,
        kind=PhaseKind.DAY,
        deadline__isnull=False,
        game__status=GameStatus.RUNNING,
        game__turn_based=False,
        game__post_limit__isnull=False,
        game__post_limit_lifted__isnull=False,
    )


def _plus_lift(moment: datetime) -> ExpressionWrapper:
    """``moment + post_limit_lifted`` in SQL: a deadline before it has its lift before
    ``moment``."""
    return ExpressionWrapper(
        Value(moment) + F("game__post_limit_lifted"), output_field=DateTimeField()
    )


def due_lifts(now: datetime, *, overdue_by: timedelta = timedelta(0)) -> list[tuple[int, int]]:
    """(game id, day number) of the limited days inside their lift window now, their lift
    at least ``overdue_by`` ago (the lift may already be announced: ``lift`` says so)."""
    rows = _limited_days().filter(deadline__gt=now, deadline__lte=_plus_lift(now - overdue_by))
    return list(rows.values_list("game_id", "number"))


def nearing_lifts(now: datetime, within: timedelta) -> list[tuple[int, int, datetime]]:
    """(game id, day number, lift moment) of the lifts in ``(now, now + within]``."""
    rows = _limited_days().filter(
        deadline__gt=_plus_lift(now), deadline__lte=_plus_lift(now + within)
    )
    return [
        (game_id, number, deadline - lifted)
        for game_id, number, deadline, lifted in rows.values_list(
            "game_id", "number", "deadline", "game__post_limit_lifted"
        )
        if deadline is not None and lifted is not None  # (the filter's: narrows the types)
    ]


def lift_due(
    now: datetime | None = None, *, overdue_by: timedelta = timedelta(0)
) -> list[tuple[int, int]]:
    """Announce every lift due now (the scan's and the embedded runner's), or due for
    ``overdue_by`` already (the web process's watchdog, ``deadlines``: the backstop when
    Celery or Redis is down); those announced. Each game is its own transaction and its own
    try. PostgreSQL alone decides and records it: with Redis down the event waits in the
    log, and the publisher and the sockets' resume deliver it once Redis is back."""
    now = now or timezone.now()
    announced = []
    for game_id, number in due_lifts(now, overdue_by=overdue_by):
        try:
            if lift(game_id, number, now=now):
                announced.append((game_id, number))
        except Exception:
            log.exception("Could not lift the post limit of game %s day %s", game_id, number)
    return announced
