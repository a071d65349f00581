"""Real Celery workers for the deadline tests: subprocesses on the real Redis broker.

Each test session gets its own queue name, so concurrent test runs (or a developer's
worker) on the same Redis never take each other's tasks. The broker is a Redis database of
its own (``CELERY_TEST_BROKER_URL``, default: ``REDIS_URL``'s server, database 3). Workers
connect to the test database pytest-django created (``transaction=True`` tests commit, so a
worker sees their rows).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from games import services
from games.models import Game
from mafia_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
SESSION_QUEUE = f"deadlines-test-{uuid.uuid4().hex[:8]}"


def broker_url() -> str:
    explicit = os.environ.get("CELERY_TEST_BROKER_URL")
    if explicit:
        return explicit
    base = urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    return urlunsplit((base.scheme, base.netloc, "/3", "", ""))


def test_database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] or "postgres"
    if s.get("PASSWORD"):
        auth += f":{s['PASSWORD']}"
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _reset_app() -> None:
    """Forget the app's broker connections, router and result backend (built from conf)."""
    celery_app._pool = None
    celery_app.__dict__.pop("amqp", None)
    celery_app._backend_cache = None
    celery_app._local = threading.local()


@contextlib.contextmanager
def app_on_test_broker(queue: str = SESSION_QUEUE, url: str | None = None) -> Iterator[None]:
    """Point this process's Celery app (senders, results) at the test broker and queue."""
    keys = ("broker_url", "result_backend", "task_default_queue")
    saved = {k: celery_app.conf[k] for k in keys}
    url = url or broker_url()
    celery_app.conf.update(broker_url=url, result_backend=url)
    celery_app.conf.task_default_queue = queue
    _reset_app()
    try:
        yield
    finally:
        celery_app.conf.update(saved)
        _reset_app()


def purge_queue(queue: str, url: str | None = None) -> None:
    """Drop the queue (and its bindings) from the test broker (or the Redis at ``url``):
    stopped workers hand their unfinished ETA tasks back to it, and a per-test queue is
    never read again."""
    import redis

    client = redis.Redis.from_url(url or broker_url())
    try:
        keys = list(client.scan_iter(match=f"*{queue}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class Worker:
    """A ``celery worker`` subprocess; ``kill()`` is a real SIGKILL.

    ``production``: keep the consumer steps the production command line runs (mingle,
    gossip, heartbeats; docker-compose.yml, scripts/run.sh), which the other tests leave out
    to start faster.
    """

    def __init__(
        self,
        queue: str,
        *,
        name: str,
        pool: str = "threads",
        concurrency: int = 2,
        production: bool = False,
        **env: str,
    ) -> None:
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"{name}-{uuid.uuid4().hex}.log"
        full_env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "DB_CONN_MAX_AGE": "0",
            "REDIS_URL": broker_url(),
            "CELERY_QUEUE": queue,
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "mafia_site",
            "worker",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            "-Q",
            queue,
            "-n",
            f"{name}-{uuid.uuid4().hex[:6]}@%h",
            "--loglevel=INFO",
        ]
        if not production:
            cmd += ["--without-mingle", "--without-gossip"]
        if "WORKER_INCLUDE" in env:
            cmd += ["-I", env["WORKER_INCLUDE"]]
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=full_env, stdout=self._log, stderr=subprocess.STDOUT
        )
        wait_for(
            lambda: b" ready." in self.log_path.read_bytes() or self.proc.poll() is not None,
            timeout=60,
            what=f"worker {name} to start",
        )
        if self.proc.poll() is not None:
            raise RuntimeError(f"worker {name} died at start:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no cleanup, no acknowledgement, the DB connection just drops."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # warm shutdown
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()
        with contextlib.suppress(FileNotFoundError):
            self.log_path.unlink()


class Beat:
    """A ``celery beat`` subprocess scanning every ``seconds``."""

    def __init__(self, queue: str, tmp_path: Path, *, seconds: float = 1.0, **extra: str) -> None:
        self.log_path = tmp_path / "beat.log"
        env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "REDIS_URL": broker_url(),
            "CELERY_QUEUE": queue,
            "DEADLINE_SCAN_SECONDS": str(seconds),
            **extra,
        }
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "mafia_site",
            "beat",
            "--loglevel=INFO",
            "-s",
            str(tmp_path / "beat-schedule"),
            "--pidfile=",
        ]
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def wait_for(predicate: Callable[[], Any], *, timeout: float, what: str, step=0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(step)


# -- games ----------------------------------------------------------------------------
VANILLA_SEVEN = [{"role": "vanilla_townie", "count": 5}, {"role": "goon", "count": 2}]


def make_running_game(
    *,
    deadline_in: timedelta | None = None,
    day_length: timedelta = timedelta(minutes=3),
    night_length: timedelta = timedelta(minutes=1),
    role_list: list[dict[str, Any]] | None = None,
    **options: Any,
) -> tuple[Game, Any, list[Any]]:
    """A started forum game on Day 1: (game, host, players in seat order).

    ``deadline_in``: start the game back-dated so Day 1's deadline is that far from now
    (negative: already past), through the real ``start_game`` so the deadline hook fires.
    """
    User = get_user_model()
    tag = uuid.uuid4().hex[:6]
    host = User.objects.create_user(f"host-{tag}", password="pw")
    roles = role_list or VANILLA_SEVEN
    game = services.create_game(
        host,
        title=f"Deadline test {tag}",
        ruleset="forum",
        role_list=roles,
        day_length=day_length,
        night_length=night_length,
        seed=7,
        **options,
    )
    count = sum(r.get("count", 1) for r in roles)
    players = [User.objects.create_user(f"p{i}-{tag}", password="pw") for i in range(count)]
    for user in players:
        services.join_game(user, game.pk)
    now = timezone.now()
    start = now if deadline_in is None else now + deadline_in - day_length
    services.start_game(host, game.pk, now=start)
    game.refresh_from_db()
    return game, host, players


def phase_number(game: Game) -> int:
    return Game.objects.values_list("phase_number", flat=True).get(pk=game.pk)


def events_of(game: Game, kind: str) -> list[dict[str, Any]]:
    return list(game.events.filter(kind=kind).values_list("payload", flat=True))
