"""Deadlines in bulk: N games whose days end in the same minute, a real Celery worker and beat.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Deadlines in bulk").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_deadlinebench \\
    REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python benchmarks/deadlines_bulk.py --games 200 1000

For each N: N started 7-player forum games (made through the services, day 1 two days
long), then their day 1 deadlines are moved, in one update, to the same minute (spread
evenly over 60 s starting ``--lead`` seconds from now) and each gets the short-range ETA
task a deadline change queues (``games.scheduling.schedule_deadline``, what the phase
``post_save`` hook calls). A Celery worker (prefork, ``--concurrency`` as docker-compose's 2)
and beat (scan every 15 s, the default) run from this checkout on their own queue.

Figures: lateness of each transition (the phase's ``ended_at`` minus its deadline: p50,
p99, max), how many games advanced, and that each advanced exactly once (one
``day_ended`` event, phase 2 opened once), CPU of the worker and of PostgreSQL, load
average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_deadlinebench")
QUEUE = f"deadline-bench-{uuid.uuid4().hex[:8]}"
os.environ["CELERY_QUEUE"] = QUEUE  # senders (this process) and the worker share it


def make_games(n: int) -> list[int]:
    """``n`` started games, all played by the same seven people (a person may play many)."""
    from games import services

    tag = f"bulk{uuid.uuid4().hex[:6]}"
    host = support.make_users(f"{tag}-host", 1)[0]
    players = support.make_users(f"{tag}-p", 7)
    ids = []
    for i in range(n):
        game = services.create_game(
            host,
            title=f"Deadline bench {tag} {i}",
            ruleset="forum",
            role_list=[{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 5}],
            day_length=timedelta(days=2),
            night_length=timedelta(days=1),
            seed=i,
        )
        for user in players:
            services.join_game(user, game.pk)
        services.start_game(host, game.pk)
        ids.append(game.pk)
    return ids


def run(n: int, args: argparse.Namespace) -> dict[str, Any]:
    from django.db import connection
    from django.db.models import Count
    from django.utils import timezone

    from games import scheduling
    from games.models import Game, GameEvent, Phase

    t_make = time.monotonic()
    ids = make_games(n)
    make_s = time.monotonic() - t_make
    tmp = Path(tempfile.mkdtemp(prefix="deadline-bench-"))
    worker, beat = support.worker_and_beat(QUEUE, tmp, args.concurrency)
    time.sleep(8)  # both up and connected before the first deadline
    start = timezone.now() + timedelta(seconds=args.lead)
    deadlines = {}
    for i, game_id in enumerate(ids):
        deadlines[game_id] = start + timedelta(seconds=60 * i / n)
    phases = {p.game_id: p for p in Phase.objects.filter(game_id__in=ids, number=1)}
    for game_id, deadline in deadlines.items():
        phases[game_id].deadline = deadline
    Phase.objects.bulk_update(phases.values(), ["deadline"], batch_size=500)
    for game_id, deadline in deadlines.items():
        scheduling.schedule_deadline(game_id, 1, deadline)
    cpu_worker0 = support.group_cpu_seconds(worker.pid)
    cpu_pg0 = support.postgres_cpu_seconds()
    load0 = support.load_average()
    t0 = time.monotonic()
    give_up = t0 + args.lead + 60 + args.timeout
    while time.monotonic() < give_up:
        done = Game.objects.filter(pk__in=ids, phase_number__gte=2).count()
        if done == n:
            break
        time.sleep(1)
    wall = time.monotonic() - t0
    cpu_worker = support.group_cpu_seconds(worker.pid) - cpu_worker0
    cpu_pg = support.postgres_cpu_seconds() - cpu_pg0
    time.sleep(3)  # a duplicate would show up now
    for proc in (beat, worker):
        support.stop_process_group(proc)
    lateness = [
        (p.ended_at - p.deadline).total_seconds()
        for p in Phase.objects.filter(game_id__in=ids, number=1, ended_at__isnull=False)
    ]
    ended = dict(
        GameEvent.objects.filter(game_id__in=ids, kind="day_ended")
        .values_list("game_id")
        .annotate(c=Count("id"))
    )
    opened = dict(
        Phase.objects.filter(game_id__in=ids, number=2)
        .values_list("game_id")
        .annotate(c=Count("id"))
    )
    connection.close()
    return {
        "games": n,
        "make_games_s": round(make_s, 1),
        "advanced": len(lateness),
        "advanced_exactly_once": sum(1 for g in ids if ended.get(g) == 1 and opened.get(g) == 1),
        "lateness_s_p50": round(statistics.median(lateness), 3) if lateness else None,
        "lateness_s_p99": round(support.percentile(lateness, 99), 3) if lateness else None,
        "lateness_s_max": round(max(lateness), 3) if lateness else None,
        "worker_cpu_ms_per_game": round(cpu_worker / n * 1000, 1),
        # None when a PostgreSQL process (another client's) exited during the run
        "postgres_cpu_ms_per_game": round(cpu_pg / n * 1000, 1) if cpu_pg >= 0 else None,
        "run_s": round(wall, 1),
        "load_average_1m": f"{load0} -> {support.load_average()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
    parser.add_argument("--lead", type=float, default=20, help="seconds to the first deadline")
    parser.add_argument("--timeout", type=float, default=300, help="seconds after the minute")
    args = parser.parse_args()
    support.ensure_database()
    print(f"machine: {support.machine()}")
    for n in args.games:
        print(json.dumps(run(n, args), indent=2), flush=True)


if __name__ == "__main__":
    main()
