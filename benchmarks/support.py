"""What the benchmark scripts share: the database, games, percentiles, a server, CPU clocks.

Not a test helper: the benchmarks run against their own database (``DATABASE_URL``, created
and migrated here) with ``DEBUG=0`` unless told otherwise.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def default_env(database: str) -> None:
    """The settings every benchmark runs with unless the environment says otherwise."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")
    os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # Production settings refuse to start without a key and redirect plain http.
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(64))
    os.environ.setdefault("HTTPS", "false")
    # Capacity is measured, not the limits: one address plays every client here.
    os.environ.setdefault("RATE_LIMITS", "off")


def django_setup() -> None:
    import django

    django.setup()


def freeze_as_the_server(client: Any, warm_path: str) -> None:
    """What the web process does once loaded (``mafia_site/asgi.py``): ``gc.freeze()``, so
    the collector's full passes skip the loaded code's objects (about 100 ms of CPU once in
    some 15 requests otherwise). One request first loads the templates and URL confs."""
    import gc

    client.get(warm_path)
    gc.freeze()


def add_gc_option(parser: Any) -> None:
    parser.add_argument(
        "--no-gc-freeze",
        dest="gc_freeze",
        action="store_false",
        help="leave the collector as a bare process has it (the web server freezes it once "
        "loaded: mafia_site/asgi.py)",
    )


def ensure_database() -> None:
    """Create the benchmark database if needed, set Django up and migrate."""
    from urllib.parse import urlsplit

    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    name = url.path.lstrip("/")
    admin = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_users(prefix: str, n: int, password: str | None = None) -> list[Any]:
    """``n`` users named ``<prefix>-<i>`` (made in one insert; reused when they exist)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    User = get_user_model()
    names = [f"{prefix}-{i}" for i in range(n)]
    have = {u.username: u for u in User.objects.filter(username__in=names)}
    # One hash for all: PBKDF2 costs ~0.3 s a user.
    hashed = make_password(password) if password else make_password(None)
    User.objects.bulk_create(
        [User(username=name, password=hashed) for name in names if name not in have]
    )
    by_name = {u.username: u for u in User.objects.filter(username__in=names)}
    return [by_name[name] for name in names]


def make_game(
    tag: str,
    players: int,
    *,
    vote_rule: str = "plurality",
    password: str | None = None,
    role_list: list[dict[str, Any]] | None = None,
    **options: Any,
) -> tuple[Any, Any, list[Any]]:
    """A started forum game made through the services: (game, host, players by seat)."""
    from games import services

    now = options.pop("now", None)
    host = make_users(f"{tag}-host", 1, password)[0]
    users = make_users(tag, players, password)
    if role_list is None:
        goons = max(1, players // 4)
        role_list = [
            {"role": "goon", "count": goons},
            {"role": "vanilla_townie", "count": players - goons},
        ]
    game = services.create_game(
        host,
        title=f"Benchmark {tag}",
        ruleset=options.pop("ruleset", "forum"),
        method=options.pop("method", "rar"),
        role_list=role_list,
        player_cap=players,
        vote_rule=vote_rule,
        starts_with=options.pop("starts_with", "day"),
        seed=options.pop("seed", 1),
        **options,
    )
    for user in users:
        services.join_game(user, game.pk)
    services.start_game(host, game.pk, now=now)
    game.refresh_from_db()
    seat_of = {s.user_id: s.seat for s in game.slots.all()}
    users.sort(key=lambda u: seat_of[u.pk])
    return game, host, users


# -- figures ----------------------------------------------------------------------------
def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p99 of 100 values is the 99th smallest)."""
    if not values:
        return float("nan")
    values = sorted(values)
    index = min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))
    return values[index]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def machine() -> str:
    """One line about the box: cores, model, memory, load average."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores ({model}), Python {sys.version.split()[0]}, load {load}"


def _proc_cpu_seconds(wanted: Callable[[str, list[str]], bool]) -> float:
    """CPU time (user + system) of the processes ``wanted(name, stat fields)`` picks."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat.rsplit(")", 1)[1].split()
        if wanted(name, fields):
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def group_cpu_seconds(pgid: int) -> float:
    """CPU time of every process in a process group (field 5 of stat: the group)."""
    return _proc_cpu_seconds(lambda name, fields: int(fields[2]) == pgid)


def postgres_cpu_seconds() -> float:
    """CPU time of every PostgreSQL process on the box (the server's share of a run)."""
    return _proc_cpu_seconds(lambda name, fields: name.startswith("postgres"))


# -- an ASGI server -----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    port: int,
    workers: int,
    env: dict[str, str] | None = None,
    app: str = "mafia_site.asgi:application",
) -> subprocess.Popen:
    """``uvicorn --workers W`` serving ``app`` from this checkout, in its own process group."""
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=dict(os.environ, **(env or {})), start_new_session=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                time.sleep(1.0 if workers > 1 else 0.2)  # let every worker start
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the ASGI server did not start")


def stop_process_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


# -- Celery -------------------------------------------------------------------------------
def celery(kind: str, log: Path, extra: list[str], env: dict[str, str]) -> subprocess.Popen:
    """``celery -A mafia_site <kind>`` from this checkout, in its own process group."""
    cmd = [sys.executable, "-m", "celery", "-A", "mafia_site", kind, "--loglevel=WARNING", *extra]
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def worker_and_beat(
    queue: str, tmp: Path, concurrency: int = 2
) -> tuple[subprocess.Popen, subprocess.Popen]:
    """A prefork worker on ``queue`` (``CELERY_QUEUE`` must name it for the senders too) and
    beat, as docker-compose runs them; logs and beat's schedule go to ``tmp``."""
    env = {"DB_CONN_MAX_AGE": "0", "PYTHONUNBUFFERED": "1", "CELERY_QUEUE": queue}
    worker = celery(
        "worker",
        tmp / "worker.log",
        [f"--concurrency={concurrency}", "-Q", queue, "-n", f"{queue}@%h",
         "--without-mingle", "--without-gossip"],
        env,
    )  # fmt: skip
    beat = celery("beat", tmp / "beat.log", ["-s", str(tmp / "schedule"), "--pidfile="], env)
    return worker, beat
