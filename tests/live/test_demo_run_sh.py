"""``bash scripts/run.sh`` on embedded defaults: it migrates, starts the demo game, serves
HTTP 200 on / within a bounded time, and the bots' posts reach a websocket live (the
in-memory channel layer and the bots share the server's process); every link in the mails it
sends (a newcomer's account mail, an e-mail digest) points at the address it serves; then it
is stopped (its whole process group)."""

from __future__ import annotations

import asyncio
import email
import email.policy
import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP_LIMIT = 150  # seconds: migrations on a fresh SQLite file take most of it
LIVE_LIMIT = 60  # seconds for a bot's post to arrive on the socket (about one per 4 s)
# The embedded run sweeps the e-mail digests once a minute (notifications' embedded job).
DIGEST_LIMIT = 150
LINK = re.compile(r"https?://[^\s\"'<>)\]]+")


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


def _get_page(url: str) -> tuple[int, str]:
    """Status and body, an error page's body included."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def _mails(mail_dir: Path) -> list[str]:
    """The text of every mail the file backend wrote (each file holds one or more messages,
    a line of dashes between them), decoded: quoted-printable would break the links."""
    texts = []
    for path in sorted(mail_dir.glob("*.log")):
        for chunk in path.read_bytes().split(b"-" * 79 + b"\n"):
            if not chunk.strip():
                continue
            message = email.message_from_bytes(chunk, policy=email.policy.default)
            parts = message.walk() if message.is_multipart() else [message]
            for part in parts:
                if part.get_content_maintype() == "text":
                    head = f"To: {message['to']}\nSubject: {message['subject']}"
                    texts.append(f"{head}\n{part.get_content()}")
    return texts


def _wait_for_mail(mail_dir: Path, needle: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [m for m in _mails(mail_dir) if needle in m]
        if found:
            return "\n".join(found)
        time.sleep(1)
    raise AssertionError(f"no mail with {needle!r} in {timeout} s: {_mails(mail_dir)!r}")


def _sign_up(port: int, name: str) -> None:
    """A newcomer signs up through the form, as a browser would (its CSRF cookie)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    url = f"http://127.0.0.1:{port}/accounts/signup/"
    opener.open(url, timeout=10).read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    form = {
        "csrfmiddlewaretoken": token,
        "username": name,
        "email": f"{name}@example.com",
        "password1": "a long enough pass 42",
        "password2": "a long enough pass 42",
    }
    request = urllib.request.Request(
        url, data=urllib.parse.urlencode(form).encode(), headers={"Referer": url}
    )
    with opener.open(request, timeout=20) as response:
        assert response.status == 200, response.status


def _plant_a_due_notification(env: dict[str, str], name: str, game_id: int) -> None:
    """What the digest sweep mails: a pending notification an hour old, to a verified
    address (written through the site's models, in a process of its own on the same file)."""
    script = f"""
from datetime import timedelta
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.utils import timezone
from notifications.models import Notification
user = get_user_model().objects.get(username={name!r})
EmailAddress.objects.filter(user=user).update(verified=True, primary=True)
hour_ago = timezone.now() - timedelta(hours=1)
Notification.objects.create(
    user=user, game_id={game_id}, kind="phase_started", text="Day 2 has started.",
    link="/games/{game_id}/", mail="pending", created_at=hour_ago, updated_at=hour_ago,
)
"""
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env={**env, "DEBUG": "true"},  # a shell of our own: it needs no secret key
        check=True,
        timeout=60,
        capture_output=True,
    )


def _links_point_at(mail: str, site: str) -> None:
    links = LINK.findall(mail)
    assert links, mail
    elsewhere = [link for link in links if link != site and not link.startswith(f"{site}/")]
    assert not elsewhere, (elsewhere, mail)


@pytest.mark.timeout(STARTUP_LIMIT + LIVE_LIMIT + DIGEST_LIMIT + 60)
def test_run_sh_serves_the_site_with_a_demo_game(tmp_path):
    port = _free_port()
    db = tmp_path / "db.sqlite3"
    mail_dir = tmp_path / "mail"
    env = {**os.environ, "PORT": str(port), "DATABASE_URL": f"sqlite:///{db}"}
    env["MAIL_DIR"] = str(mail_dir)
    env.pop("REDIS_URL", None)  # embedded defaults: in-memory layer, in-process scanner
    env.pop("SITE_URL", None)  # run.sh says where it serves
    # What a newcomer has: no DEBUG, no SECRET_KEY (run.sh makes and keeps one).
    for name in ("DEBUG", "SECRET_KEY", "HTTPS"):
        env.pop(name, None)
    env["SECRET_KEY_FILE"] = str(tmp_path / "secret-key")
    env["WEBPUSH_KEY_FILE"] = str(tmp_path / "webpush-vapid.json")
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
        # DEBUG is off: a wrong address gets the site's own page, never Django's technical
        # one (with its settings and URL patterns); the static files are served collected.
        missing, page = _get_page(f"{url}no/such/page/")
        assert missing == 404 and "Page not found" in page, (missing, page[:500])
        assert "URLconf" not in page and "DEBUG = True" not in page, page[:2000]
        assert _get(f"{url}static/css/site.css")[0] == 200
        assert len((tmp_path / "secret-key").read_text().strip()) == 64
        game_id = _demo_game_id(db)
        frame = asyncio.run(_first_live_post(port, game_id, timeout=LIVE_LIMIT))
        assert frame["kind"] == "post" and frame["thread"] == "public"
        # Every link in the mails points here, not at the default port: the newcomer's
        # account mail (the address to confirm), then their e-mail digest (the
        # notification's link, the settings, the one-click unsubscribe).
        site = f"http://127.0.0.1:{port}"
        _sign_up(port, "newcomer")
        _links_point_at(_wait_for_mail(mail_dir, "newcomer@example.com", 30), site)
        _plant_a_due_notification(env, "newcomer", game_id)
        digest = _wait_for_mail(mail_dir, "Day 2 has started.", DIGEST_LIMIT)
        assert f"{site}/games/{game_id}/" in digest and "/unsubscribe/" in digest, digest
        _links_point_at(digest, site)
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
