"""The site-wide load test (issue 22): N forum games with their readers, Locust, the real stack.

    .venv/bin/python benchmarks/site_load/run.py --games 50 [--web 2] [--workers 1]
        [--seconds 240] [--spawn-rate 50] [--json var/site_load/n50.json]

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
3. Arms the games: each forum game's day lasts ``day_seconds`` and night ``night_seconds``
   from now on, and its day 1 deadline is moved to a random moment of the measured window
   (``spread_seconds`` after the ramp), with the ETA task a deadline change queues; the
   table games start.
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
   live delivery p99 <= 1 s, every deadline within 2 s, nothing lost.
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
from model import Model  # noqa: E402

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
def arm(plan: dict[str, Any], model: Model, first: float, rng: random.Random) -> dict[str, Any]:
    """Short phases from now on, day 1 deadlines spread over the measured window, the
    tables started; returns each game's schedule (epoch seconds)."""
    from datetime import UTC, datetime

    from django.contrib.auth import get_user_model

    from games import scheduling, services
    from games.models import Game, Phase

    ids = [g["id"] for g in plan["games"]]
    Game.objects.filter(pk__in=ids).update(
        day_length=timedelta(seconds=model.day_seconds),
        night_length=timedelta(seconds=model.night_seconds),
    )
    phases = {p.game_id: p for p in Phase.objects.filter(game_id__in=ids, number=1)}
    schedule = {}
    for gid in ids:
        at = first + rng.uniform(0, model.spread_seconds)
        phases[gid].deadline = datetime.fromtimestamp(at, UTC)
        schedule[str(gid)] = {"kind": "day", "number": 1, "deadline": at}
    Phase.objects.bulk_update(list(phases.values()), ["deadline"], batch_size=500)
    for gid in ids:
        scheduling.schedule_deadline(gid, 1, phases[gid].deadline)
    hosts = {t["host_id"] for t in plan["tables"]}
    host_of = get_user_model().objects.in_bulk(hosts)
    for table in plan["tables"]:
        services.start_game(host_of[table["host_id"]], table["id"])
    return schedule


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


def request_figures(records: dict[str, Any], since: float) -> dict[str, Any]:
    by_name: dict[str, list[float]] = defaultdict(list)
    failures: Counter[str] = Counter()
    for name, start, ms, failed in records["requests"]:
        if start < since:
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


def check_delivery(records: dict[str, Any], game_ids: list[int], since: float) -> dict[str, Any]:
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
    resumes = reloads = dropped = 0
    for s in records["sockets"]:
        got = {int(k): v for k, v in s["posts"].items() if str(k).isdigit()}
        resumes += s.get("resumes", 0)
        reloads += s.get("reloads", 0)
        dropped += str(s.get("close_reason", "")).startswith("dropped")
        lo, hi = s["opened"] + 2, s["closed"] - 2
        for created, number in posts.get(s["game"], []):
            if lo <= created <= hi:
                expected += 1
                if number not in got:
                    missing += 1
                    if len(examples) < 10:
                        examples.append(f"game {s['game']} post {number} socket {s['id']}")
        for number, arrived in got.items():
            if arrived < since or (s["game"], number) not in sent:
                continue
            t0, t1 = sent[(s["game"], number)]
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
        "write_start_to_socket_ms": spread(from_start),
        "answer_to_socket_ms": spread(from_answer),
    }


def check_deadlines(game_ids: list[int], armed: float, until: float) -> dict[str, Any]:
    from datetime import UTC, datetime

    from games.models import GameEvent, Phase

    lo, hi = datetime.fromtimestamp(armed, UTC), datetime.fromtimestamp(until, UTC)
    late: list[float] = []
    missed, early, paused = [], 0, 0
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
        "lateness_s": {
            "p50": round(support.percentile(late, 50), 3) if late else None,
            "p99": round(support.percentile(late, 99), 3) if late else None,
            "max": round(max(late), 3) if late else None,
            "over_2s": sum(1 for x in late if x > 2),
        },
        "ended_twice": twice[:10],
        "paused": paused,
    }


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
    r, d, w, dl = report["requests"], report["delivery"], report["writes"], report["deadlines"]
    delivery_p99 = d["write_start_to_socket_ms"]["p99"]
    return {
        "page p95 <= 100 ms": (r["pages"]["p95"] or 0) <= 100,
        "vote/post p95 <= 200 ms": (r["votes_posts"]["p95"] or 0) <= 200,
        "live delivery p99 <= 1 s": delivery_p99 is not None and delivery_p99 <= 1000,
        "every deadline within 2 s": dl["missed"] == 0 and dl["lateness_s"]["over_2s"] == 0,
        "nothing lost": w["lost"] == 0
        and w["untrue"] == 0
        and d["posts_missing"] == 0
        and not dl["ended_twice"],
    }


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
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--web", type=int, default=2, help="web processes")
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes")
    parser.add_argument("--seconds", type=int, default=240, help="measured, after the ramp")
    parser.add_argument("--spawn-rate", type=float, default=50.0)
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
    model = Model.from_dict(plan["model"])
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
    print(support.machine(), flush=True)
    print(f"users {users} ({total_users}), ramp {ramp} s, logs {tmp}", flush=True)
    site, worker, beat = start_stack(port, args.web, args.workers, tmp)
    from django.db import connection

    try:
        armed = time.time()
        first = armed + ramp + 10
        schedule = arm(plan, model, first, rng)
        connection.close()
        run_facts = {
            "base": base,
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
        run_time = ramp + args.seconds
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
    finally:
        for proc in (beat, worker, site):
            support.stop_process_group(proc)
    records = json.loads((out / "records.json").read_text())
    extra = records["extra"]
    since = extra.get("spawned_at") or armed
    until = extra.get("stopped_at") or time.time()
    game_ids = [g["id"] for g in plan["games"]] + [t["id"] for t in plan["tables"]]
    measured = [r for r in records["requests"] if r[1] >= since]
    report = {
        "games": args.games,
        "tables": len(plan["tables"]),
        "web": args.web,
        "workers": args.workers,
        "users": users,
        "users_total": total_users,
        "ramp_seconds": ramp,
        "measured_seconds": round(until - since, 1),
        "requests_per_second": round(
            sum(1 for r in measured if not r[0].startswith(("live:", "ws:"))) / (until - since), 1
        ),
        "machine": support.machine(),
        "requests": request_figures(records, since),
        "writes": check_writes(records, game_ids),
        "delivery": check_delivery(records, game_ids, since),
        "deadlines": check_deadlines(game_ids, armed, until - 5),
        "usage": usage(sampler.samples, since, until),
        "locust_errors": dict(Counter(extra["errors"]).most_common(15)),
        "model": plan["model"],
        "logs": str(tmp),
    }
    report["targets"] = verdict(report)
    report["row"] = table_row(report)
    print(json.dumps({k: v for k, v in report.items() if k != "model"}, indent=2))
    print(report["row"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    connection.close()


if __name__ == "__main__":
    main()
