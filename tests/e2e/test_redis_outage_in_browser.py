"""Redis stopped for 20 s under a running game, with pages open in a real browser.

The whole stack runs against a Redis of the test's own (``RedisServer``): uvicorn (channel
layer, live hub, rate limits, cache), a prefork Celery worker and beat (broker). While Redis
is away:

* posts, votes, a host's cut to night, a goon's night action and logins (API token and the
  HTML login form) are answered 2xx and stored: PostgreSQL commits first, Redis only
  carries the news;
* the open pages say "live updates paused" within a few seconds;

and once Redis is back the open pages, never reloaded, show the post and the night made
during the outage, and the worker, the same process as before, ends the night with the
kill sent during the outage.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone
from playwright.sync_api import expect, sync_playwright

from games.models import NightAction, Phase, Post, Vote
from tests.servers import AsgiServer, RedisServer

from ..live.celery_support import (
    Beat,
    Worker,
    app_on_test_broker,
    make_running_game,
    phase_number,
    purge_queue,
    wait_for,
)
from ..live.celery_support import test_database_url as db_url
from .conftest import CHROMIUM, CHROMIUM_ARGS, chromium_watchdog, require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

OUTAGE_SECONDS = 20
# The hub checks the channel layer's Redis every LIVE_HEALTH_SECONDS (2 s by default).
PAUSED_WITHIN_MS = 10_000
BACK_WITHIN_MS = 30_000
PASSWORD = "Outage-pw-42"


def _call(method: str, url: str, body: dict | None = None, token: str | None = None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _token(server: AsgiServer, username: str) -> str:
    status, body = _call(
        "POST",
        f"{server.url}/api/v1/auth/token/",
        {"username": username, "password": PASSWORD},
    )
    assert status == 200, body
    return body["token"]


def _open(browser: Any, url: str) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    # live.js tells its socket's state in "live:status" events (outage.js listens to them).
    page.add_init_script(
        "document.addEventListener('live:status', e =>"
        " document.documentElement.setAttribute('data-test-live', e.detail));"
    )
    page.goto(url)
    _wait_live(page)
    return page


def _wait_live(page: Any, timeout_ms: float = 15_000) -> None:
    expect(page.locator("html[data-test-live='live']")).to_have_count(1, timeout=timeout_ms)


@pytest.mark.timeout(300)
def test_redis_away_for_20_seconds_writes_count_and_pages_say_paused(
    tmp_path: Any, settings: Any, monkeypatch: Any
) -> None:
    require_chromium()
    # Playwright's sync API runs an event loop in this thread; the ORM calls between its
    # steps are plain blocking calls of the test's own.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # The server logs in with Django's default hasher; the tests' fast one stays for checks.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    redis = RedisServer(tmp_path)
    queue = f"outage-browser-{uuid.uuid4().hex[:8]}"
    server = worker = beat = None
    try:
        with app_on_test_broker(queue, url=redis.url):
            game, host, players = make_running_game(
                day_length=timedelta(hours=1), night_length=timedelta(hours=1)
            )
            for user in (host, *players):
                user.set_password(PASSWORD)
                user.save(update_fields=["password"])
            slots = list(game.slots.select_related("user").order_by("seat"))
            goon = next(s for s in slots if s.role == "goon")
            townies = [s for s in slots if s.role != "goon"]
            server = AsgiServer(
                {
                    "DATABASE_URL": db_url(),
                    "REDIS_URL": redis.url,
                    "CELERY_QUEUE": queue,
                    "CHANNEL_LAYER_PREFIX": f"outage{os.getpid()}",
                    "DEBUG": "1",  # static files from the source tree, as in tests/e2e
                    "DEADLINE_WATCHDOG_SECONDS": "0",  # only the worker ends phases
                },
                tmp_path / "asgi.log",
            )
            worker = Worker(queue, name="outage-browser", pool="prefork", REDIS_URL=redis.url)
            beat = Beat(queue, tmp_path, seconds=1, REDIS_URL=redis.url)
            worker_pid = worker.proc.pid
            api = f"{server.url}/api/v1/games/{game.pk}"
            host_token = _token(server, host.username)
            voter_token = _token(server, townies[0].user.username)

            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                try:
                    thread_url = f"{server.url}/games/{game.pk}/"
                    spectator = _open(browser, thread_url)
                    login = browser.new_context().new_page()

                    redis.stop()
                    went_down = time.monotonic()
                    paused = spectator.locator("#outage-banner[data-state='paused']")
                    expect(paused).to_be_visible(timeout=PAUSED_WITHIN_MS)
                    expect(paused).to_contain_text("Live updates paused")

                    # Logins: the API's token and the HTML form.
                    late_token = _token(server, townies[1].user.username)
                    login.goto(f"{server.url}/accounts/login/?next=/games/{game.pk}/")
                    login.fill("#id_username", townies[2].user.username)
                    login.fill("#id_password", PASSWORD)
                    login.get_by_role("button", name="Log in").click()
                    expect(login.locator(".site-nav .who")).to_have_text(townies[2].user.username)

                    status, body = _call(
                        "POST", f"{api}/posts/", {"body": "Posted while Redis is away"}, late_token
                    )
                    assert status == 201, body
                    status, body = _call(
                        "POST", f"{api}/vote/", {"target": townies[1].pk}, voter_token
                    )
                    assert status == 200, body
                    status, body = _call("POST", f"{api}/host/cut/", {}, host_token)
                    assert status == 200, body
                    assert phase_number(game) == 2  # the night has begun

                    goon_token = _token(server, goon.user.username)
                    status, pm = _call("GET", f"{api}/role/", token=goon_token)
                    assert status == 200, pm
                    ability = next(a for a in pm["abilities"] if a["choices"])
                    status, body = _call(
                        "POST",
                        f"{api}/actions/",
                        {"ability": ability["ability"], "targets": [townies[3].pk]},
                        goon_token,
                    )
                    assert status in (200, 201), body

                    # Everything answered 2xx is stored.
                    assert Post.objects.filter(
                        game=game, body="Posted while Redis is away"
                    ).exists()
                    assert Vote.objects.filter(
                        phase__game=game, voter=townies[0], target=townies[1]
                    ).exists()
                    assert NightAction.objects.filter(phase__game=game, actor=goon).exists()
                    expect(paused).to_be_visible()  # still cut off, and says so

                    time.sleep(max(OUTAGE_SECONDS - (time.monotonic() - went_down), 0))
                    redis.start()

                    # The page catches up by itself: no reload.
                    posts = spectator.locator("#posts .post", has_text="Posted while Redis")
                    expect(posts).to_have_count(1, timeout=BACK_WITHIN_MS)
                    expect(spectator.locator("#phase-banner")).to_have_class(
                        re.compile(r"\bnight\b"), timeout=BACK_WITHIN_MS
                    )
                    _wait_live(spectator, BACK_WITHIN_MS)
                    expect(spectator.locator("#outage-banner[data-state='paused']")).to_have_count(
                        0
                    )
                finally:
                    # The ORM calls made inside Playwright's block have a connection of
                    # their own; left open, it keeps the test database from being dropped.
                    connections.close_all()
                    with chromium_watchdog():
                        browser.close()

            # The worker rode the outage out: the same process ends the night (the web
            # watchdog is off), and the kill sent while Redis was away is carried out.
            Phase.objects.filter(game=game, number=2).update(
                deadline=timezone.now() + timedelta(seconds=1)
            )
            wait_for(
                lambda: phase_number(game) == 3, timeout=90, what="the worker to end the night"
            )
            victim = townies[3]
            victim.refresh_from_db()
            assert not victim.alive
            assert worker.proc.poll() is None, f"the worker died:\n{worker.log()[-3000:]}"
            assert worker.proc.pid == worker_pid
            assert "Unrecoverable error" not in worker.log(), worker.log()[-3000:]
            assert beat.proc.poll() is None
    finally:
        for proc in (worker, beat, server):
            if proc is not None:
                proc.stop()
        if redis.proc is not None:
            purge_queue(queue, url=redis.url)
        redis.stop()
