"""Whether deadlines are being kept, and the web process's second line of defence.

Celery beat's scan is the first line (``games.tasks.advance_due_phases``). It dies with the
worker or beat, and both need Redis, so the web process runs a **watchdog** too: a daemon
thread (started by the ASGI lifespan, ``mafia_site.asgi``) that every few seconds ends any
phase overdue by more than a grace period longer than one scan. Normally it finds nothing;
with the worker dead or Redis down it ends the phase itself, so a game is delayed by
seconds, not forever. Both layers go through ``services.advance_phase``, which refuses a
phase that is not current, resolved or not due under the game's row lock: however many
sweepers fire, each deadline advances the game once. The watchdog lifts the post limits
overdue by its grace as well (``services.post_limit.lift``: once per day and deadline).

Every sweeper writes its ``DeadlineSweep`` row, read by ``/healthz`` and the host's
dashboard (``health``): the last sweep and the phases overdue right now.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from . import services
from .models import DeadlineSweep, GameStatus, Phase
from .services import post_limit

log = logging.getLogger(__name__)

# A phase this far past its deadline and still open counts as overdue: a deadline is "kept"
# when a sweeper ended it within a scan interval plus the watchdog's grace.
OVERDUE_AFTER = timedelta(seconds=60)
# A sweep older than this means nobody is sweeping (the slowest sweeper runs every 15 s).
SWEEP_STALE_AFTER = timedelta(seconds=90)


def record_sweep(sweeper: str, found: int, *, now: datetime | None = None) -> None:
    """Note that ``sweeper`` just looked for due phases; never raises (it is bookkeeping)."""
    try:
        DeadlineSweep.objects.bulk_create(
            [DeadlineSweep(sweeper=sweeper, swept_at=now or timezone.now(), found=found)],
            update_conflicts=True,
            unique_fields=["sweeper"],
            update_fields=["swept_at", "found"],
        )
    except Exception:
        log.warning("Could not record the %s deadline sweep", sweeper, exc_info=True)


def overdue_phases(now: datetime | None = None, *, after: timedelta = OVERDUE_AFTER) -> list:
    """(game id, phase number, deadline) of running phases open ``after`` past deadline."""
    now = now or timezone.now()
    return list(
        Phase.objects.filter(
            resolved=False, deadline__lte=now - after, game__status=GameStatus.RUNNING
        )
        .order_by("deadline")
        .values_list("game_id", "number", "deadline")
    )


def health(now: datetime | None = None) -> dict[str, Any]:
    """Whether deadlines are kept: the last sweep of each sweeper and the overdue phases."""
    now = now or timezone.now()
    sweeps = {s.sweeper: s.swept_at for s in DeadlineSweep.objects.all()}
    last = max(sweeps.values(), default=None)
    overdue = overdue_phases(now)
    age = (now - last).total_seconds() if last else None
    running = Phase.objects.filter(resolved=False, game__status=GameStatus.RUNNING).exists()
    stale = last is None or now - last > SWEEP_STALE_AFTER
    return {
        # No running game needs no sweep; otherwise a stale sweep or an overdue phase fails.
        "ok": not overdue and not (stale and running),
        "last_sweep": last.isoformat() if last else None,
        "seconds_since_sweep": round(age, 1) if age is not None else None,
        "sweepers": {
            name: round((now - at).total_seconds(), 1) for name, at in sorted(sweeps.items())
        },
        "overdue_phases": len(overdue),
        "oldest_overdue_seconds": (
            round((now - overdue[0][2]).total_seconds(), 1) if overdue else None
        ),
    }


def sweep_overdue(grace: timedelta, sweeper: str = "web") -> list[tuple[int, int]]:
    """End every phase more than ``grace`` past its deadline; returns those advanced.

    Each game is its own transaction and its own try, as in ``tasks.run_due_phases``.
    """
    now = timezone.now()
    due = services.due_phases(now - grace)
    advanced = []
    for game_id, number in due:
        try:
            if services.advance_phase(game_id, number):
                advanced.append((game_id, number))
                if grace:  # a backstop firing means the first line is late
                    log.warning(
                        "Watchdog ended phase %s of game %s, overdue by more than %s: "
                        "is the Celery worker or beat down?",
                        number,
                        game_id,
                        grace,
                    )
        except Exception:
            log.exception("Could not end phase %s of game %s (%s sweep)", number, game_id, sweeper)
    record_sweep(sweeper, len(due), now=now)
    return advanced


# -- the web process's watchdog thread -------------------------------------------------------
_watchdog_pid: int | None = None
_watchdog_guard = threading.Lock()


def watchdog_interval() -> float:
    return float(getattr(settings, "DEADLINE_WATCHDOG_SECONDS", 5.0))


def watchdog_grace() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "DEADLINE_WATCHDOG_GRACE", 25.0)))


def start_watchdog() -> bool:
    """Start this process's watchdog thread once; False if disabled or already running."""
    global _watchdog_pid
    interval = watchdog_interval()
    if interval <= 0:
        return False
    with _watchdog_guard:
        if _watchdog_pid == os.getpid():
            return False
        _watchdog_pid = os.getpid()
    thread = threading.Thread(
        target=_watch, args=(interval, watchdog_grace()), name="deadline-watchdog", daemon=True
    )
    thread.start()
    log.info(
        "Deadline watchdog: every %.0f s, phases overdue by more than %s",
        interval,
        watchdog_grace(),
    )
    return True


def _watch(interval: float, grace: timedelta) -> None:
    while True:
        time.sleep(interval)
        try:
            close_old_connections()  # PostgreSQL may have restarted since the last sweep
            sweep_overdue(grace)
            # The post limits' lifts are kept the same way (their announcement too).
            post_limit.lift_due(overdue_by=grace)
        except Exception:  # the database is down: try again next time
            log.warning(
                "Deadline watchdog sweep failed; retrying in %.0f s", interval, exc_info=True
            )
        finally:
            close_old_connections()
