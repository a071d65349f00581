"""The site-wide load test (issue 22): N forum games with their readers, Locust, the real stack.

    .venv/bin/python benchmarks/site_load/run.py --games 50 [--web 2] [--workers 1]
        [--seconds 240] [--spawn-rate 50] [--json var/site_load/n50.json]
        [--phase-model busiest-hour|storm|compressed] [--storm-share 1.0]
        [--deadlines scan|eta]

Every process it starts (prepare, the site, Celery, Locust) runs on this script's own
interpreter (``sys.executable``): run it with the Python of a virtualenv that has the
site and the ``load`` extra installed (``pip install -e '.[load]' -e client``).

1. Prepares (``prepare.py``) the template database ``load_tpl_<N>`` unless it exists
   (``--prepare`` makes it afresh), then copies it to ``load_run`` (``CREATE DATABASE ...
   TEMPLATE``: seconds) and empties Redis database 9.
2. Starts the site as in production (``DEBUG=0``, a random ``SECRET_KEY``, ``HTTPS=false``,
   rate limits on with the site's defaults): ``python -m mafia_site.serve --workers W``
   (``DB_POOL_SIZE=10`` a process, as docker-compose), ``celery -A mafia_site worker`` with
   ``--concurrency K`` and one beat, on Redis database 9 with a channel-layer prefix and a
   Celery queue of this run's own. One client address plays every user, and signed-in spectators
   share a few accounts, so the websocket caps are raised (``LIVE_SOCKETS_PER_PERSON``,
   ``LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS``).
3. Arms the games as the phase model says (``model.py``): ``busiest-hour`` (the default)
   keeps real 48 h days and 24 h nights and puts every forum game's day 1 deadline in the
   real hour that begins with the measured window (evenly: about N*S/3600 in a window of
   S seconds); ``storm`` puts ``--storm-share`` of them in one minute of the window and
   reports it apart; ``compressed`` (the old model) makes days ``day_seconds`` and nights
   ``night_seconds`` long with day 1 deadlines over ``spread_seconds``. Deadlines are
   ended as ``--deadlines`` says (``scan``: no ETA task, as for any day-long phase on the
   site; ``eta``: an ETA task each; compressed: ETA tasks, as the site queues for short
   phases). The table games start.
4. Runs Locust headless (``locustfile.py``; one process) with the model's users
   (``model.users``), ramped at ``--spawn-rate`` a second, statistics reset when all have
   spawned, then ``--seconds`` of measurement. Meanwhile every 2 s it samples the CPU of
   the web processes, the worker, beat, Locust, PostgreSQL (this run's backends, and the
   whole server) and Redis, PostgreSQL's connections and lock waits, and the load average.
5. Checks, from the database: every deadline of the window ended its phase (lateness:
   ``ended_at - deadline``) exactly once (one ``day_ended``/``night_ended`` per phase);
   every accepted post and vote is stored (each post carries a nonce), nothing refused or
   failed is; every socket received every public post made while it was open; and
   reports the figures against the targets: page p95 <= 100 ms, vote/post p95 <= 200 ms,
   live delivery p99 <= 1 s, every deadline within 2 s, nothing lost. It prints the row
   of BENCHMARKS.md's capacity table (and, for a storm, of the storm table), and warns
   when Locust used most of its one core (the generator, not the site, set the figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import prepare  # noqa: E402
import support  # noqa: E402
from model import PHASE_MODELS, Model, storm_games  # noqa: E402

RUN_DB = "load_run"
REDIS = "redis://127.0.0.1:6379/9"
ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"


# ======================================================================================
# Databases and the stack
# ======================================================================================
def database_exists(name: str) -> bool:
    import psycopg

    with psycopg.connect(ADMIN, autocommit=True) as conn:
        return bool(conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone())


def clone(template: str, name: str) -> None:
    import psycopg

    prepare.check_name(template)
    prepare.check_name(name)
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


def stack_env(tag: str, tmp: Path, secret_key: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "mafia_site.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{RUN_DB}",
        "REDIS_URL": REDIS,
        "CHANNEL_LAYER_PREFIX": f"load{tag}",
        "CELERY_QUEUE": f"load-{tag}",
        "DEBUG": "0",
        "SECRET_KEY": secret_key,  # the plan's: its sessions are signed with it
        "HTTPS": "false",
        "RATE_LIMITS": "",  # on, the site's own limits
        "DB_POOL_SIZE": "10",
        "LIVE_SOCKETS_PER_PERSON": "100000",
        "LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS": "100000",
        "MAIL_DIR": str(tmp / "mail"),
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


def start_stack(
    port: int, web: int, workers: int, tmp: Path
) -> tuple[subprocess.Popen, subprocess.Popen, subprocess.Popen]:
    import socket

    cmd = [sys.executable, "-m", "mafia_site.serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--workers", str(web), "--no-access-log"]
    site = subprocess.Popen(
        cmd,
        cwd=support.ROOT,
        env=dict(os.environ),
        stdout=(tmp / "site.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    worker, beat = support.worker_and_beat(os.environ["CELERY_QUEUE"], tmp, concurrency=workers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                time.sleep(2.0 + web)  # every web process up
                return site, worker, beat
        except OSError:
            time.sleep(0.3)
    for proc in (site, worker, beat):
        support.stop_process_group(proc)
    raise SystemExit(f"the site did not start; see {tmp / 'site.log'}")


# ======================================================================================
# Arming the games
# ======================================================================================
def arm(
    plan: dict[str, Any],
    model: Model,
    first: float,
    seconds: float,
    rng: random.Random,
    phase_model: str,
    deadlines: str,
    storm_share: float | None,
) -> dict[str, Any]:
    """The phase model's day and night lengths from now on, each forum game's day 1
    deadline where the model puts it (``first`` is the measured window's start), the ETA
    tasks the deadline path asks for, the tables started; returns each game's schedule
    (epoch seconds)."""
    from datetime import UTC, datetime

    from django.contrib.auth import get_user_model

    from games import scheduling, services
    from games.models import Game, Phase

    ids = [g["id"] for g in plan["games"]]
    day, night = model.phase_lengths(phase_model)
    Game.objects.filter(pk__in=ids).update(
        day_length=timedelta(seconds=day), night_length=timedelta(seconds=night)
    )
    phases = {p.game_id: p for p in Phase.objects.filter(game_id__in=ids, number=1)}
    offsets = model.deadline_offsets(phase_model, len(ids), seconds, rng, storm_share)
    schedule = {}
    for gid, offset in zip(ids, offsets, strict=True):
        at = first + offset
        phases[gid].deadline = datetime.fromtimestamp(at, UTC)
        if phase_model != "compressed":
            # A real day: it opened its whole length before its deadline. (The scan queues
            # ETA tasks only for phases longer than the short range, which got none when
            # they opened; a day "opened" at the template's making would look short.)
            phases[gid].started_at = phases[gid].deadline - timedelta(seconds=day)
        schedule[str(gid)] = {"kind": "day", "number": 1, "deadline": at}
    # bulk_update sends no post_save: the deadline path below is the only scheduling.
    Phase.objects.bulk_update(list(phases.values()), ["deadline", "started_at"], batch_size=500)
    if phase_model == "compressed":
        for gid in ids:
            scheduling.schedule_deadline(gid, 1, phases[gid].deadline)
    elif deadlines == "eta":
        # The deadlines the run can see (a minute's margin): one past the window never
        # fires in it, and an ETA an hour away would outlive the broker's visibility timeout.
        horizon = datetime.fromtimestamp(first + seconds + 60, UTC)
        for gid in ids:
            if phases[gid].deadline <= horizon:
                scheduling.celery_app.send_task(
                    scheduling.ADVANCE_PHASE_TASK,
                    args=(gid, 1),
                    eta=phases[gid].deadline,
                    expires=phases[gid].deadline + scheduling.ETA_EXPIRES_AFTER,
                    retry=False,
                )
    hosts = {t["host_id"] for t in plan["tables"]}
    host_of = get_user_model().objects.in_bulk(hosts)
    for table in plan["tables"]:
        services.start_game(host_of[table["host_id"]], table["id"])
    return schedule


def wait_for_due(game_ids: list[int], until: float, limit: float) -> float:
    """After the load: wait (at most ``limit`` s) until every phase due by ``until`` has
    ended, so that a deadline the scan ends a little after the window is counted late,
    not missed. Returns the seconds waited."""
    from datetime import UTC, datetime

    from django.db import connection

    from games import services

    began = time.monotonic()
    wanted = set(game_ids)
    while time.monotonic() - began < limit:
        due = [g for g, _n in services.due_phases(datetime.fromtimestamp(until, UTC))]
        if not wanted.intersection(due):
            break
        time.sleep(1.0)
    connection.close()
    return round(time.monotonic() - began, 1)


def choose_users(
    plan: dict[str, Any], model: Model, rng: random.Random
) -> tuple[list, dict, list, list]:
    online_seats, per_game = [], {}
    for g in plan["games"]:
        seats = [s["seat"] for s in g["slots"]]
        chosen = rng.sample(seats, model.online(len(seats)))
        per_game[str(g["id"])] = len(chosen)
        online_seats += [[g["id"], seat] for seat in chosen]
    rng.shuffle(online_seats)
    people, bots = [], []
    for t in plan["tables"]:
        for s in t["seats"]:
            (bots if s["bot"] else people).append([t["id"], s["user_id"]])
    return online_seats, per_game, people, bots


# ======================================================================================
# Sampling CPU, connections and locks while Locust runs
# ======================================================================================
class Sampler(threading.Thread):
    def __init__(self, groups: dict[str, int], interval: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.groups = groups  # name -> process group id
        self.interval = interval
        self.stop = threading.Event()
        self.samples: list[dict[str, Any]] = []

    def run(self) -> None:
        import psutil
        import psycopg

        last: dict[tuple[str, int], float] = {}
        last_t = time.time()
        conn = psycopg.connect(ADMIN, autocommit=True)
        while not self.stop.wait(self.interval):
            now = time.time()
            ours = {
                r[0]
                for r in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s", [RUN_DB]
                ).fetchall()
            }
            cpu: dict[str, float] = defaultdict(float)
            seen: dict[tuple[str, int], float] = {}
            for proc in psutil.process_iter(["pid", "name", "cpu_times", "create_time"]):
                info = proc.info
                times = info["cpu_times"]
                if times is None:
                    continue
                total = times.user + times.system
                kinds = []
                try:
                    pgid = os.getpgid(info["pid"])
                except OSError:
                    continue
                for name, group in self.groups.items():
                    if pgid == group:
                        kinds.append(name)
                pname = info["name"] or ""
                if pname.startswith("postgres"):
                    kinds.append("postgres (all)")
                    if info["pid"] in ours:
                        kinds.append("postgres (this run)")
                if pname.startswith("redis-server"):
                    kinds.append("redis")
                for kind in kinds:
                    key = (kind, info["pid"])
                    seen[key] = total
                    before = last.get(key)
                    if before is None:
                        before = 0.0 if (info["create_time"] or 0) > last_t else total
                    cpu[kind] += max(0.0, total - before)
            last = seen
            span = now - last_t
            last_t = now
            rows = conn.execute(
                "SELECT state, wait_event_type, count(*) FROM pg_stat_activity "
                "WHERE datname = %s GROUP BY 1, 2",
                [RUN_DB],
            ).fetchall()
            waits = conn.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE NOT l.granted AND a.datname = %s",
                [RUN_DB],
            ).fetchone()[0]
            server = conn.execute("SELECT count(*) FROM pg_stat_activity").fetchone()[0]
            self.samples.append(
                {
                    "t": now,
                    "cores": {k: v / span for k, v in cpu.items()},
                    "pg_connections": sum(r[2] for r in rows),
                    "pg_active": sum(r[2] for r in rows if r[0] == "active"),
                    "pg_idle_in_tx": sum(r[2] for r in rows if r[0] == "idle in transaction"),
                    "pg_waiting_on_lock": sum(r[2] for r in rows if r[1] == "Lock"),
                    "pg_lock_waits": waits,
                    "pg_server_connections": server,
                    "load": os.getloadavg()[0],
                }
            )
        conn.close()


# ======================================================================================
# Checks and figures
# ======================================================================================
def pct(values: list[float], p: float) -> float | None:
    return round(support.percentile(values, p), 1) if values else None


def spread(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": pct(values, 50),
        "p95": pct(values, 95),
        "p99": pct(values, 99),
        "max": round(max(values), 1) if values else None,
    }


def request_figures(
    records: dict[str, Any], since: float, until: float = math.inf
) -> dict[str, Any]:
    by_name: dict[str, list[float]] = defaultdict(list)
    failures: Counter[str] = Counter()
    for name, start, ms, failed in records["requests"]:
        if not since <= start < until:
            continue
        by_name[name].append(ms)
        failures[name] += failed
    names = {name: {**spread(v), "failures": failures[name]} for name, v in by_name.items()}

    def group(test) -> dict[str, Any]:
        values = [ms for name, v in by_name.items() if test(name) for ms in v]
        return {**spread(values), "failures": sum(failures[n] for n in by_name if test(n))}

    return {
        "pages": group(lambda n: n.startswith("page:")),
        "votes_posts": group(
            lambda n: n.startswith("form: post") or n in ("api: vote", "api: unvote")
        ),
        "table_moves": group(
            lambda n: n.startswith("table api:") and not n.endswith(("turn", "role", "games"))
        ),
        "logins": group(lambda n: n == "login: post"),
        "socket_delivery_online": group(lambda n: n == "live: post on a socket"),
        "by_name": dict(sorted(names.items())),
    }


def check_writes(records: dict[str, Any], game_ids: list[int]) -> dict[str, Any]:
    """Every accepted post and vote is stored, nothing refused or failed is."""
    import re

    from games.models import NightAction, Post, Vote

    mark = re.compile(r"ltmark-\d+-([0-9a-f]+)")
    stored: dict[str, tuple[int, str, int]] = {}
    for game_id, thread, number, body in Post.objects.filter(
        game_id__in=game_ids, body__contains="ltmark-"
    ).values_list("game_id", "thread", "number", "body"):
        found = mark.search(body)
        if found:
            stored[found.group(1)] = (game_id, thread, number)
    out: Counter[str] = Counter()
    problems: list[str] = []
    vote_posts = set(
        Vote.objects.filter(phase__game_id__in=game_ids, post__isnull=False).values_list(
            "phase__game_id", "post__number"
        )
    )
    # Every public post's author seat: a vote the site answered must be its voter's post (a
    # vote for the target one already votes for posts again, and the standing vote stays
    # linked to the post that first cast it: no new vote row).
    authors = {
        (g, n): slot
        for g, n, slot in Post.objects.filter(game_id__in=game_ids, thread="public").values_list(
            "game_id", "number", "slot_id"
        )
    }
    actions = set(
        NightAction.objects.filter(phase__game_id__in=game_ids).values_list("actor_id", "ability")
    )
    for w in records["writes"]:
        kind = w["kind"]
        if "nonce" in w:
            have = stored.get(w["nonce"])
            if w["ok"]:
                out[f"{kind}: accepted"] += 1
                if have is None or have[2] != w.get("number"):
                    out["LOST (accepted, not stored as answered)"] += 1
                    problems.append(f"{kind} {w['nonce']} game {w['game']}: {have}")
            elif w.get("refused"):
                out[f"{kind}: refused"] += 1
                if have is not None:
                    out["refused but stored"] += 1
                    problems.append(f"{kind} {w['nonce']} refused but stored as {have}")
            else:
                out[f"{kind}: failed (HTTP {w['status']})"] += 1
                if have is not None:
                    out["failed but stored"] += 1
        elif kind in ("vote", "unvote"):
            if w["ok"]:
                out[f"{kind}: accepted"] += 1
                if authors.get((w["game"], w["number"])) != w.get("slot"):
                    out["LOST (accepted, not stored as answered)"] += 1
                    problems.append(f"{kind} game {w['game']} post {w['number']} not the voter's")
                elif (w["game"], w["number"]) not in vote_posts:
                    out[f"{kind}: accepted, the same vote again (no new vote row)"] += 1
            else:
                out[f"{kind}: refused or failed (HTTP {w['status']})"] += 1
        elif kind == "night action":
            if w["ok"]:
                out["night action: accepted"] += 1
                if (w["slot"], w["ability"]) not in actions:
                    out["LOST (accepted, not stored as answered)"] += 1
                    problems.append(f"night action {w['slot']} {w['ability']} missing")
            else:
                out[f"night action: refused or failed (HTTP {w['status']})"] += 1
    return {
        "counts": dict(sorted(out.items())),
        "lost": out["LOST (accepted, not stored as answered)"],
        "untrue": out["refused but stored"] + out["failed but stored"],
        "problems": problems[:20],
    }


def check_delivery(
    records: dict[str, Any], game_ids: list[int], since: float, until: float = math.inf
) -> dict[str, Any]:
    """Every socket got every public post committed while it was open (2 s margins); the
    delay from each write's start (and its answer) to each socket that shows it."""
    from games.models import Post

    rows = Post.objects.filter(
        game_id__in=game_ids, thread="public", created_at__isnull=False
    ).values_list("game_id", "number", "created_at")
    posts: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for game_id, number, created in rows:
        posts[game_id].append((created.timestamp(), number))
    sent = {
        (w["game"], w["number"]): (w["t0"], w["t1"])
        for w in records["writes"]
        if w.get("ok") and w.get("thread") == "public" and w.get("number")
    }
    expected = missing = 0
    examples: list[str] = []
    from_start: list[float] = []
    from_answer: list[float] = []
    resumes = reloads = dropped = refused_busy = 0
    for s in records["sockets"]:
        got = {int(k): v for k, v in s["posts"].items() if str(k).isdigit()}
        resumes += s.get("resumes", 0)
        reloads += s.get("reloads", 0)
        dropped += str(s.get("close_reason", "")).startswith("dropped")
        refused_busy += s.get("close_reason") == "refused: busy"
        lo, hi = s["opened"] + 2, s["closed"] - 2
        for created, number in posts.get(s["game"], []):
            if lo <= created <= hi:
                expected += 1
                if number not in got:
                    missing += 1
                    if len(examples) < 10:
                        examples.append(f"game {s['game']} post {number} socket {s['id']}")
        for number, arrived in got.items():
            if (s["game"], number) not in sent:
                continue
            t0, t1 = sent[(s["game"], number)]
            if not since <= t0 < until or arrived < since:
                continue
            from_start.append((arrived - t0) * 1000)
            from_answer.append((arrived - t1) * 1000)
    return {
        "sockets": len(records["sockets"]),
        "posts_expected": expected,
        "posts_missing": missing,
        "missing_examples": examples,
        "resumes": resumes,
        "reloads": reloads,
        "dropped": dropped,
        "refused_busy": refused_busy,
        "write_start_to_socket_ms": spread(from_start),
        "answer_to_socket_ms": spread(from_answer),
    }


def check_deadlines(game_ids: list[int], lo_epoch: float, hi_epoch: float) -> dict[str, Any]:
    """Every phase whose deadline fell in [lo, hi]: ended, how late, and ended once."""
    from datetime import UTC, datetime

    from games.models import GameEvent, Phase

    lo, hi = datetime.fromtimestamp(lo_epoch, UTC), datetime.fromtimestamp(hi_epoch, UTC)
    late: list[float] = []
    missed, early = [], 0
    for p in Phase.objects.filter(game_id__in=game_ids, deadline__gte=lo, deadline__lte=hi):
        if p.ended_at is None:
            missed.append(f"game {p.game_id} phase {p.number} ({p.kind})")
        elif (p.ended_at - p.deadline).total_seconds() < -0.5:
            early += 1  # a hammer, or every action in: ended before its deadline
        else:
            late.append((p.ended_at - p.deadline).total_seconds())
    ends: Counter[tuple[int, str, Any]] = Counter()
    for game_id, kind, payload in GameEvent.objects.filter(
        game_id__in=game_ids, kind__in=["day_ended", "night_ended"]
    ).values_list("game_id", "kind", "payload"):
        ends[(game_id, kind, (payload or {}).get("number"))] += 1
    twice = [f"game {g} {k} {n} x{c}" for (g, k, n), c in ends.items() if c > 1]
    return {
        "deadlines": len(late),
        "ended_early": early,
        "missed": len(missed),
        "missed_examples": missed[:10],
        "lateness_s": lateness(late),
        "ended_twice": twice[:10],
    }


# Upper bounds (seconds) of the lateness histogram's buckets: the 2 s target, the ETA
# path's usual second, the scan's 15 s interval, the watchdog's 25 s grace.
LATENESS_BUCKETS = (0.5, 1.0, 2.0, 5.0, 15.0, 30.0)


def lateness(late: list[float]) -> dict[str, Any]:
    def p(q: float) -> float | None:
        return round(support.percentile(late, q), 3) if late else None

    buckets: Counter[str] = Counter()
    for x in late:
        edge = next((b for b in LATENESS_BUCKETS if x <= b), None)
        buckets[f"<= {edge} s" if edge is not None else f"> {LATENESS_BUCKETS[-1]} s"] += 1
    order = [f"<= {b} s" for b in LATENESS_BUCKETS] + [f"> {LATENESS_BUCKETS[-1]} s"]
    return {
        "p50": p(50),
        "p90": p(90),
        "p95": p(95),
        "p99": p(99),
        "max": round(max(late), 3) if late else None,
        "over_2s": sum(1 for x in late if x > 2),
        "histogram": {k: buckets[k] for k in order if buckets[k]},
    }


def storm_figures(
    records: dict[str, Any],
    game_ids: list[int],
    since: float,
    begin: float,
    minute: float,
    settle: float,
) -> dict[str, Any]:
    """The storm minute on its own: its deadlines' lateness, and pages, writes and live
    delivery during it (from its first deadline to ``settle`` s after its last, when the
    own parts and the transitions' fan-out have settled) against the window's part before
    it."""
    end = begin + minute + settle
    figures = {
        "from_s": round(begin - since, 1),
        "minute_s": round(minute, 1),
        "to_s": round(end - since, 1),
        "deadlines": check_deadlines(game_ids, begin, begin + minute),
        "before": request_figures(records, since, begin),
        "during": request_figures(records, begin, end),
        "delivery_during": check_delivery(records, game_ids, begin, end)[
            "write_start_to_socket_ms"
        ],
    }
    for part in ("before", "during"):
        figures[part].pop("by_name")
    return figures


def usage(samples: list[dict[str, Any]], since: float, until: float) -> dict[str, Any]:
    window = [s for s in samples if since <= s["t"] <= until] or samples
    kinds = sorted({k for s in window for k in s["cores"]})
    cores = {
        k: {
            "mean": round(sum(s["cores"].get(k, 0) for s in window) / len(window), 2),
            "max": round(max(s["cores"].get(k, 0) for s in window), 2),
        }
        for k in kinds
    }

    def stat(key: str) -> dict[str, float]:
        values = [s[key] for s in window]
        return {"mean": round(sum(values) / len(values), 1), "max": max(values)}

    return {
        "samples": len(window),
        "cores": cores,
        **{
            k: stat(k)
            for k in (
                "pg_connections",
                "pg_active",
                "pg_idle_in_tx",
                "pg_waiting_on_lock",
                "pg_lock_waits",
                "pg_server_connections",
                "load",
            )
        },
    }


def verdict(report: dict[str, Any]) -> dict[str, bool]:
    r, d, w = report["requests"], report["delivery"], report["writes"]
    deadlines = [report["deadlines"], report.get("table_deadlines")]
    dls = [dl for dl in deadlines if dl]
    delivery_p99 = d["write_start_to_socket_ms"]["p99"]
    return {
        "page p95 <= 100 ms": (r["pages"]["p95"] or 0) <= 100,
        "vote/post p95 <= 200 ms": (r["votes_posts"]["p95"] or 0) <= 200,
        "live delivery p99 <= 1 s": delivery_p99 is not None and delivery_p99 <= 1000,
        "every deadline within 2 s": all(
            dl["missed"] == 0 and dl["lateness_s"]["over_2s"] == 0 for dl in dls
        ),
        "nothing lost": w["lost"] == 0
        and w["untrue"] == 0
        and d["posts_missing"] == 0
        and not any(dl["ended_twice"] for dl in dls),
    }


def capacity_row(rep: dict[str, Any]) -> str:
    """The row of BENCHMARKS.md's capacity table (issue 30) for this run."""
    r, d, dl, u = rep["requests"], rep["delivery"], rep["deadlines"], rep["usage"]
    c = u["cores"]
    late = dl["lateness_s"]

    def core(k: str) -> str:
        return f"{c[k]['mean']:.2f}" if k in c else "-"

    lost = rep["writes"]["lost"] + d["posts_missing"] + len(dl["ended_twice"]) + dl["missed"]
    expected = rep["deadlines_expected"]
    return (
        f"| {rep['games']} | {rep['web']} | {rep['users_total']} | {rep['requests_per_second']} | "
        f"{r['pages']['p95']} | {r['votes_posts']['p95']} ({r['votes_posts']['n']}) | "
        f"{d['write_start_to_socket_ms']['p99']} | "
        f"{dl['deadlines']} ({'-' if expected is None else round(expected)}) | "
        f"{late['p50']} / {late['p99']} / {late['max']} | {lost} | "
        f"{core('web')} / {core('worker')} / {core('postgres (this run)')} / {core('locust')} | "
        f"{u['load']['mean']} |"
    )


def storm_row(rep: dict[str, Any]) -> str:
    """The row of BENCHMARKS.md's storm table for this run."""
    st = rep["storm"]
    dl, late = st["deadlines"], st["deadlines"]["lateness_s"]
    return (
        f"| {rep['games']} | {rep['web']} | {rep['storm_share']} | {rep['deadline_path']} | "
        f"{dl['deadlines']} (missed {dl['missed']}) | "
        f"{late['p50']} / {late['p95']} / {late['p99']} / {late['max']} | {late['over_2s']} | "
        f"{st['before']['pages']['p95']} / {st['during']['pages']['p95']} | "
        f"{st['before']['votes_posts']['p95']} / {st['during']['votes_posts']['p95']} | "
        f"{st['delivery_during']['p99']} |"
    )


def table_row(rep: dict[str, Any]) -> str:
    r, d, dl, u = rep["requests"], rep["delivery"], rep["deadlines"], rep["usage"]
    c = u["cores"]

    def core(k: str) -> str:
        return f"{c[k]['mean']:.2f}" if k in c else "-"

    lost = rep["writes"]["lost"] + d["posts_missing"] + len(dl["ended_twice"])
    return (
        f"| {rep['games']} | {rep['web']} | {rep['workers']} | {rep['users_total']} | "
        f"{rep['requests_per_second']} | "
        f"{r['pages']['p50']} / {r['pages']['p95']} / {r['pages']['p99']} | "
        f"{r['votes_posts']['p50']} / {r['votes_posts']['p95']} ({r['votes_posts']['n']}) | "
        f"{d['write_start_to_socket_ms']['p50']} / {d['write_start_to_socket_ms']['p99']} | "
        f"{dl['deadlines']}: {dl['lateness_s']['p50']} / {dl['lateness_s']['max']} s"
        f"{' , missed ' + str(dl['missed']) if dl['missed'] else ''} | {lost} | "
        f"{core('web')} / {core('worker')} / {core('postgres (this run)')} / {core('redis')} / "
        f"{core('locust')} | {u['pg_connections']['max']} / {u['pg_waiting_on_lock']['max']} | "
        f"{u['load']['mean']} ({u['load']['max']}) |"
    )


# ======================================================================================
def raise_file_limit(users: int) -> None:
    """Each user holds an HTTP connection and a socket in Locust and again in the site (a
    web process, W=1, holds them all): lift the soft limit on open files to the hard one,
    which the children inherit, and say so when even that is short."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * users + 1000
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard != resource.RLIM_INFINITY and hard < need:
        print(f"WARNING: {hard} open files allowed, about {need} needed", flush=True)


# A Locust process is one core at most (gevent, one thread): past this mean share of a
# core its own timings grow, and the run measures the generator, not the site.
LOCUST_SATURATED = 0.8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--web", type=int, default=2, help="web processes")
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes")
    parser.add_argument("--seconds", type=int, default=240, help="measured, after the ramp")
    parser.add_argument("--spawn-rate", type=float, default=50.0)
    parser.add_argument(
        "--phase-model",
        choices=PHASE_MODELS,
        default="busiest-hour",
        help="busiest-hour: every deadline within one real hour (model.py); storm: a share "
        "of them in one minute, reported on its own; compressed: the old 180 s days",
    )
    parser.add_argument(
        "--storm-share", type=float, help="storm: the share of games in the minute (model's)"
    )
    parser.add_argument(
        "--deadlines",
        choices=("scan", "eta"),
        help="busiest-hour and storm: how deadlines are ended (model.deadline_path)",
    )
    parser.add_argument("--prepare", action="store_true", help="make the template afresh")
    parser.add_argument("--template", help="default: load_tpl_<games>")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--keep", action="store_true", help="keep the logs' temp dir")
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args()

    template = args.template or f"load_tpl_{args.games}"
    plan_path = prepare.PLANS / f"{template}.json"
    if args.prepare or not database_exists(template) or not plan_path.exists():
        subprocess.run(
            [
                *(sys.executable, str(HERE / "prepare.py"), "--games", str(args.games)),
                *("--database", template, "--plan", str(plan_path)),
            ],
            check=True,
        )
    plan = json.loads(plan_path.read_text())
    if len(plan["games"]) != args.games:
        raise SystemExit(f"{template} holds {len(plan['games'])} games, not {args.games}")
    # The plan's model gave the database its games; the phases are this run's (the
    # parameters a template made before them had are filled in from model.py).
    model = Model.from_dict(plan["model"])
    phase_model = args.phase_model
    deadline_path = "eta" if phase_model == "compressed" else args.deadlines or model.deadline_path
    storm_share = model.storm_share if args.storm_share is None else args.storm_share
    if phase_model == "storm":
        storm_games(args.games, storm_share)  # refuses a share outside [0, 1]
        need = model.storm_lead_seconds + model.storm_seconds + model.storm_settle_seconds
        if args.seconds < need:
            print(
                f"--seconds {args.seconds} < {need}: the storm's lead, minute and settle "
                "are shrunk in proportion (a smoke, not the model's storm)",
                flush=True,
            )
    rng = random.Random(args.seed)
    clone(template, RUN_DB)
    import redis

    redis.Redis.from_url(REDIS).flushdb()

    tag = uuid.uuid4().hex[:8]
    tmp = Path(tempfile.mkdtemp(prefix="site-load-"))
    os.environ.update(stack_env(tag, tmp, plan["secret_key"]))
    support.django_setup()
    port = support.free_port()
    base = f"http://127.0.0.1:{port}"
    online_seats, per_game, people, bots = choose_users(plan, model, rng)
    users = model.users(args.games, len(online_seats), len(people), len(bots))
    total_users = sum(users.values())
    ramp = math.ceil(total_users / args.spawn_rate)
    raise_file_limit(total_users)
    print(support.machine(), flush=True)
    print(
        f"{phase_model} (deadlines: {deadline_path}), users {users} ({total_users}), "
        f"ramp {ramp} s, logs {tmp}",
        flush=True,
    )
    site, worker, beat = start_stack(port, args.web, args.workers, tmp)
    from django.db import connection

    try:
        armed = time.time()
        first = armed + ramp + 10  # the measured window's start: every user spawned
        schedule = arm(
            plan, model, first, args.seconds, rng, phase_model, deadline_path, storm_share
        )
        connection.close()
        run_facts = {
            "base": base,
            "phase_model": phase_model,
            "rush_window": model.rush_window(phase_model),
            "schedule": schedule,
            "users": users,
            "online_seats": online_seats,
            "online_per_game": per_game,
            "table_people": people,
            "table_bots": bots,
            "login_pacing": model.login_pacing(args.games, users["Login"]),
            "seed": args.seed,
        }
        (tmp / "run.json").write_text(json.dumps(run_facts))
        out = tmp / "out"
        # Locust runs the ramp and then the whole window the deadlines were armed for.
        run_time = math.ceil(first - time.time()) + args.seconds
        cmd = [sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless"]
        cmd += ["-u", str(total_users), "-r", str(args.spawn_rate), "-t", f"{run_time}s"]
        cmd += ["--host", base, "--csv", str(out / "locust"), "--reset-stats"]
        cmd += ["--only-summary", "--stop-timeout", "5", "--loglevel", "WARNING"]
        out.mkdir(parents=True, exist_ok=True)
        locust = subprocess.Popen(
            cmd,
            cwd=support.ROOT,
            env={
                **os.environ,
                "LOAD_PLAN": str(plan_path),
                "LOAD_RUN": str(tmp / "run.json"),
                "LOAD_OUT": str(out),
            },
            stdout=(tmp / "locust.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        sampler = Sampler(
            {"web": site.pid, "worker": worker.pid, "beat": beat.pid, "locust": locust.pid}
        )
        sampler.start()
        try:
            locust.wait(timeout=run_time + 180)
        finally:
            if locust.poll() is None:
                support.stop_process_group(locust)
            sampler.stop.set()
            sampler.join(timeout=10)
        time.sleep(5)  # writes in flight, the last deadlines
        records = json.loads((out / "records.json").read_text())
        extra = records["extra"]
        until = extra.get("stopped_at") or time.time()
        forum_ids = [g["id"] for g in plan["games"]]
        # A deadline due before the end is ended by the scan up to one interval later (or
        # the watchdog after its grace): wait for it rather than count it missed.
        waited = wait_for_due(forum_ids, until, limit=60.0)
    finally:
        for proc in (beat, worker, site):
            support.stop_process_group(proc)
    since = extra.get("spawned_at") or armed
    game_ids = [g["id"] for g in plan["games"]] + [t["id"] for t in plan["tables"]]
    measured = [r for r in records["requests"] if since <= r[1] < until]
    armed_seconds = max(0.0, until - first)  # the part of the armed window Locust covered
    report = {
        "games": args.games,
        "tables": len(plan["tables"]),
        "web": args.web,
        "workers": args.workers,
        "phase_model": phase_model,
        "deadline_path": deadline_path,
        "storm_share": storm_share if phase_model == "storm" else None,
        "users": users,
        "users_total": total_users,
        "ramp_seconds": ramp,
        "measured_seconds": round(until - since, 1),
        "requests_per_second": round(
            sum(1 for r in measured if not r[0].startswith(("live:", "ws:"))) / (until - since), 1
        ),
        "machine": support.machine(),
        "requests": request_figures(records, since, until),
        "writes": check_writes(records, game_ids),
        "delivery": check_delivery(records, game_ids, since),
        # The forum games' deadlines (the phase model's); the tables' turns and nights
        # (20-60 s, ETA tasks) apart.
        "deadlines": check_deadlines(forum_ids, armed, until),
        "table_deadlines": check_deadlines([t["id"] for t in plan["tables"]], armed, until),
        "deadlines_expected": model.expected_deadlines(
            phase_model, args.games, armed_seconds, storm_share
        ),
        "waited_for_due_seconds": waited,
        "usage": usage(sampler.samples, since, until),
        "locust_errors": dict(Counter(extra["errors"]).most_common(15)),
        "model": model.as_dict(),
        "logs": str(tmp),
    }
    if phase_model == "storm":
        start, length = model.storm_span(args.seconds)
        settle = min(float(model.storm_settle_seconds), args.seconds - start - length)
        report["storm"] = storm_figures(
            records, forum_ids, since, first + start, length, max(settle, 0.0)
        )
    locust_core = report["usage"]["cores"].get("locust", {}).get("mean", 0.0)
    report["locust_saturated"] = locust_core > LOCUST_SATURATED
    report["targets"] = verdict(report)
    report["row"] = table_row(report)
    report["capacity_row"] = capacity_row(report)
    if phase_model == "storm":
        report["storm_row"] = storm_row(report)
    print(json.dumps({k: v for k, v in report.items() if k != "model"}, indent=2))
    print(report["capacity_row"])
    if phase_model == "storm":
        print(report["storm_row"])
    if report["locust_saturated"]:
        print(
            f"WARNING: Locust used {locust_core} of its one core: the generator, not the "
            "site, set these figures (void; run Locust on another host)",
            flush=True,
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    connection.close()


if __name__ == "__main__":
    main()
