"""``bash scripts/run.sh`` on embedded defaults: it migrates, starts the demo game, serves
HTTP 200 on / within a bounded time, and the bots' posts reach a websocket live (the
in-memory channel layer and the bots share the server's process); then it is stopped (its
whole process group)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP_LIMIT = 150  # seconds: migrations on a fresh SQLite file take most of it
LIVE_LIMIT = 60  # seconds for a bot's post to arrive on the socket (about one per 4 s)


def _demo_game_id(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT id FROM games_game WHERE setup = 'demo' AND status = 'running'"
        ).fetchall()
    assert len(rows) == 1, rows
    return rows[0][0]


async def _first_live_post(port: int, game_id: int, *, timeout: float) -> dict:
    """The first bot post pushed live to a spectator's socket (connected without ``since``,
    so the server replays nothing: every post item is a new one)."""
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/"
    async with websockets.connect(url, origin=f"http://127.0.0.1:{port}") as ws:
        async with asyncio.timeout(timeout):
            while True:
                items = json.loads(await ws.recv())
                for item in items if isinstance(items, list) else [items]:
                    if item.get("kind") == "post":
                        return item


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, ""


@pytest.mark.timeout(STARTUP_LIMIT + LIVE_LIMIT + 60)
def test_run_sh_serves_the_site_with_a_demo_game(tmp_path):
    port = _free_port()
    db = tmp_path / "db.sqlite3"
    env = {**os.environ, "PORT": str(port), "DATABASE_URL": f"sqlite:///{db}"}
    env.pop("REDIS_URL", None)  # embedded defaults: in-memory layer, in-process scanner
    log_path = tmp_path / "run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: we stop everything it started
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + STARTUP_LIMIT
        status = 0
        while time.monotonic() < deadline and proc.poll() is None:
            status, _ = _get(url)
            if status == 200:
                break
            time.sleep(0.5)
        output = log_path.read_text(errors="replace")
        assert status == 200, f"no HTTP 200 on {url} (got {status}):\n{output[-3000:]}"
        assert url in output and "demo / demo" in output
        assert "deadlines: in-process scanner" in output
        game_id = _demo_game_id(db)
        frame = asyncio.run(_first_live_post(port, game_id, timeout=LIVE_LIMIT))
        assert frame["kind"] == "post" and frame["thread"] == "public"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert _get(f"http://127.0.0.1:{port}/")[0] == 0


@pytest.mark.slow
@pytest.mark.timeout(STARTUP_LIMIT + 120)
def test_run_sh_supervises_the_celery_worker_and_beat(tmp_path):
    """On real services run.sh restarts a Celery process that dies (here: kill -9) and logs
    it; the web process keeps serving meanwhile."""
    import psycopg

    from tests.servers import RedisServer

    redis = RedisServer(tmp_path)
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mafia")
    name = f"mafia_runsh_{os.getpid()}"
    admin = base.rsplit("/", 1)[0].replace("postgres://", "postgresql://") + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    port = _free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "DATABASE_URL": base.rsplit("/", 1)[0] + f"/{name}",
        "REDIS_URL": redis.url,
    }
    log_path = tmp_path / "run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output() -> str:
        return log_path.read_text(errors="replace")

    def wait_log(predicate, what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not predicate(output()):
            assert proc.poll() is None, f"run.sh exited:\n{output()[-3000:]}"
            assert time.monotonic() < deadline, f"no {what}:\n{output()[-3000:]}"
            time.sleep(0.5)

    def worker_pids(text: str) -> list[int]:
        return [int(p) for p in re.findall(r"started celery worker \(pid (\d+)\)", text)]

    try:
        wait_log(lambda t: t.count(" ready.") >= 1, "worker ready", STARTUP_LIMIT)
        wait_log(lambda t: "beat: Starting" in t, "beat", 30)
        assert "watchdog as backstop" in output()
        first = worker_pids(output())[0]
        os.kill(first, signal.SIGKILL)
        wait_log(
            lambda t: f"celery worker (pid {first}) exited with status 137" in t,
            "supervisor notice",
            30,
        )
        wait_log(lambda t: len(worker_pids(t)) >= 2 and t.count(" ready.") >= 2, "restart", 60)
        assert worker_pids(output())[1] != first
        assert _get(f"http://127.0.0.1:{port}/healthz")[0] in (200, 503)
        assert _get(f"http://127.0.0.1:{port}/")[0] == 200
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        redis.stop()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
