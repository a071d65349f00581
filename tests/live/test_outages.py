"""Outages mid-game: the game keeps its clock.

* Redis (the broker) stopped for 5 s, 20 s and 2 minutes while a real prefork worker and a
  real beat run against it, with the deadline falling inside the outage: once Redis is
  back the phase ends, exactly once, with the votes cast before and during the outage
  counted, and the worker and beat are the same processes (the pinned Celery/kombu with
  ``mafia_site.redis_broker`` survive a broker loss; ``scripts/run.sh`` would restart them
  otherwise, see ``test_run_sh_supervises``).
* PostgreSQL connections terminated (``pg_terminate_backend``, what a restart does to every
  client) during a vote made through the real HTTP stack, and during a night resolution in
  the worker: the vote is refused with a 503 and a message, never half-written; the night
  is rolled back whole and resolved once by the next scan.
* PostgreSQL connections terminated between views of a thread page whose process keeps
  what it read per game change: the page recovers by itself and shows the votes and posts
  made meanwhile, nothing kept from before.
* The web process's watchdog ends an overdue phase with no Celery at all.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django import db as django_db
from django.db import connection
from django.utils import timezone

from games import services
from games.models import DeadlineSweep, GameEvent, NightAction, Phase, PrivateResult, Slot, Vote
from games.tasks import advance_due_phases, advance_phase_task
from tests.factories import person_key
from tests.servers import AsgiServer, LoopThread, RedisServer

from .celery_support import (
    Beat,
    Worker,
    app_on_test_broker,
    events_of,
    make_running_game,
    phase_number,
    purge_queue,
    wait_for,
)
from .celery_support import (
    test_database_url as db_url,
)

# Slow: outages last 5 s to 2 minutes by design.
pytestmark = [pytest.mark.slow, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def _deadline_in(game, seconds: float) -> None:
    """Move the open phase's deadline without the scheduling hook (no ETA task): only the
    scan, hence beat and the broker, can end it."""
    Phase.objects.filter(game=game, number=phase_number(game)).update(
        deadline=timezone.now() + timedelta(seconds=seconds)
    )


def _vote(game, voter, target) -> None:
    services.cast_vote(voter, game.pk, target.pk)


def _slots(game) -> list[Slot]:
    return list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))


# -- Redis ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "outage",
    [
        pytest.param(5, id="5s", marks=pytest.mark.timeout(300)),
        pytest.param(20, id="20s", marks=pytest.mark.timeout(300)),
        # Two real minutes of outage (the point of the case) and the worker's start: about
        # 150 s, alone or in the parallel suite, so it has the suite's 600 s, not 300 (a test
        # is to stay within a third of its timeout). A timeout mark on the function would
        # win over the parameters' own (pytest-timeout takes the closest: the function's).
        pytest.param(120, id="2min", marks=[pytest.mark.slow, pytest.mark.timeout(600)]),
    ],
)
def test_redis_outage_the_deadline_fires_once_when_redis_is_back(tmp_path, outage):
    redis = RedisServer(tmp_path)
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    worker = beat = None
    try:
        with app_on_test_broker(queue, url=redis.url):
            # Plurality: the day ends only at its deadline, with the most-voted eliminated.
            game, _, _ = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
            slots = _slots(game)
            target = slots[0]
            worker = Worker(
                queue, name="outage", pool="prefork", concurrency=1, REDIS_URL=redis.url
            )
            beat = Beat(queue, tmp_path, seconds=1, REDIS_URL=redis.url)
            wait_for(
                lambda: DeadlineSweep.objects.filter(sweeper="celery").exists(),
                timeout=30,
                what="the first scan through Redis",
            )
            for slot in slots[1:3]:
                _vote(game, slot.user, target)

            _deadline_in(game, 2)
            redis.stop()
            went_down = time.monotonic()
            # The database is up: votes still count (only their live push waits for Redis).
            _vote(game, slots[3].user, target)
            _vote(game, slots[4].user, slots[1])
            time.sleep(max(outage - (time.monotonic() - went_down), 0))
            assert phase_number(game) == 1, "nothing can end the day while Redis is away"
            redis.start()
            back = time.monotonic()

            wait_for(lambda: phase_number(game) == 2, timeout=60, what="the day to end")
            delay = time.monotonic() - back
            # Kombu reconnects with a growing pause (2, 4, 6 ... s): "seconds", not minutes.
            assert delay < 40, f"the deadline fired {delay:.0f} s after Redis came back"
            print(f"\n{outage}s Redis outage: day ended {delay:.1f} s after Redis came back")
            time.sleep(3)  # a duplicate (redelivery, a second scan) would show by now

            assert worker.proc.poll() is None, f"the worker died:\n{worker.log()[-3000:]}"
            assert beat.proc.poll() is None, f"beat died:\n{beat.log_path.read_text()[-3000:]}"
            assert "Unrecoverable error" not in worker.log()
    finally:
        for proc in (worker, beat):
            if proc is not None:
                proc.stop()
        if redis.proc is not None:
            purge_queue(queue, url=redis.url)
        redis.stop()

    assert len(events_of(game, "day_ended")) == 1
    assert Phase.objects.filter(game=game).count() == 2
    day = Phase.objects.get(game=game, number=1)
    assert day.resolved
    # Three votes on the target (two before the outage, one during it): it is eliminated.
    target.refresh_from_db()
    assert not target.alive and target.died_in_phase == 1
    assert Slot.objects.filter(game=game, alive=False).count() == 1
    assert Vote.objects.filter(phase=day).count() == 4


@pytest.mark.parametrize("watchdog", [True, False], ids=["web-watchdog", "celery-only"])
@pytest.mark.timeout(300)
def test_redis_outage_the_post_limit_lifts_once_when_redis_is_back(tmp_path, settings, watchdog):
    """The post limit's lift (``post_limit_lifted`` before the deadline) falls while Redis is
    away: PostgreSQL is the record, so a player at the limit may post again from its moment
    on, and an open socket (the client library's stream on a real web server) learns of the
    lift, once, when Redis is back, without a reload.

    ``web-watchdog`` (as production runs): the web process's watchdog, the backstop that
    keeps the clock without Celery, lifts it in PostgreSQL while Redis is away (its grace
    after the moment); its publisher delivers the event once Redis is back, and the scan
    that resumes finds it announced. ``celery-only``: nothing can lift it while Redis is
    away (a worker's ETA task is dropped with its broker connection); the first scan after
    the outage does. Either way it is announced once."""
    from mafia_client import Client as MafiaClient
    from mafia_client import EventStream

    from games.reads import post_limit

    from .ws_support import redis_layers

    redis = RedisServer(tmp_path)
    queue = f"lift-outage-{uuid.uuid4().hex[:8]}"
    prefix = f"liftoutage{uuid.uuid4().hex[:8]}"
    # This process publishes where the web server listens: the test's Redis, its prefix.
    settings.CHANNEL_LAYERS = redis_layers(prefix, url=redis.url)
    settings.LIVE_PUBLISH_IN_BACKGROUND = False
    env = {"REDIS_URL": redis.url, "CHANNEL_LAYER_PREFIX": prefix}
    worker = beat = server = loop = None
    taken: list[Any] = []
    try:
        with app_on_test_broker(queue, url=redis.url):
            game, _, _ = make_running_game(
                day_length=timedelta(hours=24),
                vote_rule="plurality",
                post_limit=1,
                post_limit_lifted=timedelta(hours=1),
            )
            slot = _slots(game)[0]
            services.submit_post(slot.user, game.pk, body="My one post today.")
            assert post_limit.allowance(game, slot, game.current_phase()).reached
            worker = Worker(queue, name="lift", pool="prefork", concurrency=1, **env)
            beat = Beat(queue, tmp_path, seconds=1, **env)
            # The web process's watchdog every second, 2 s of grace; or none (then only the
            # scan, through beat and the broker, may lift).
            sweeps = {"DEADLINE_WATCHDOG_SECONDS": "1" if watchdog else "0"}
            sweeps["DEADLINE_WATCHDOG_GRACE"] = "2"
            server = AsgiServer({**env, **sweeps, "DATABASE_URL": db_url()}, tmp_path / "asgi.log")
            wait_for(
                lambda: DeadlineSweep.objects.filter(sweeper="celery").exists(),
                timeout=30,
                what="the first scan through Redis",
            )
            loop = LoopThread()
            stream = EventStream(MafiaClient(server.url, person_key(slot.user)), game.pk)

            async def follow() -> None:
                async for event in stream:
                    taken.append(event)

            loop.spawn(follow())
            wait_for(
                lambda: any(e.type == "replay" for e in list(taken)),
                timeout=30,
                what="the open socket",
            )

            # The lift 4 s from now, Redis away from now on (the deadline an hour after it).
            lifts = timezone.now() + timedelta(seconds=4)
            Phase.objects.filter(game=game, number=1).update(deadline=lifts + timedelta(hours=1))
            redis.stop()
            time.sleep(max((lifts - timezone.now()).total_seconds(), 0) + 6)
            # The watchdog recorded it in PostgreSQL (once); without it nothing could.
            assert len(events_of(game, "post_limit_lifted")) == int(watchdog)
            # The database is up and the moment has passed: the limit no longer holds.
            made = services.submit_post(slot.user, game.pk, body="Lifted while Redis was away.")
            redis.start()
            back = time.monotonic()

            wait_for(lambda: events_of(game, "post_limit_lifted"), timeout=60, what="the lift")
            wait_for(
                lambda: [e for e in list(taken) if e.kind == "post_limit_lifted"],
                timeout=60,
                what="the open socket to learn the lift",
            )
            delay = time.monotonic() - back
            assert delay < 40, f"the lift reached the socket {delay:.0f} s after Redis came back"
            time.sleep(3)  # a second announcement (another scan, a redelivery) would show now
            assert worker.proc.poll() is None, f"the worker died:\n{worker.log()[-3000:]}"
            lifted = [e for e in list(taken) if e.kind == "post_limit_lifted"]
            said = [e.number for e in list(taken) if e.kind == "post"]
            loop.run(stream.close())
    finally:
        if loop is not None:
            loop.close()
        for proc in (worker, beat, server):
            if proc is not None:
                proc.stop()
        if redis.proc is not None:
            purge_queue(queue, url=redis.url)
        redis.stop()

    (event,) = events_of(game, "post_limit_lifted")
    assert event["number"] == 1
    assert len(lifted) == 1 and lifted[0].data["number"] == 1
    # The post made while Redis was away reached the open socket too.
    assert made.post.number in said, said


# -- PostgreSQL -------------------------------------------------------------------------------
def _terminate_backends(*, keep: set[int]) -> int:
    """``pg_terminate_backend`` every session on the test database but ``keep``: what a
    PostgreSQL restart does to every client (the machine's server itself stays up)."""
    with psycopg.connect(_admin_url(), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [connection.settings_dict["NAME"]],
        ).fetchall()
        pids = [pid for (pid,) in rows if pid not in keep]
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    return len(pids)


def _admin_url() -> str:
    return db_url().rsplit("/", 1)[0].replace("postgres://", "postgresql://") + "/postgres"


def _our_pid() -> int:
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _post_json(url: str, token: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _connection_lost_at_commit(monkeypatch: Any, *, committed: bool) -> None:
    """The next COMMIT of this process reaches PostgreSQL (``committed``) or not, and then
    the connection dies before the answer arrives: its session is terminated and the
    client sees what psycopg raises for a dropped connection."""
    wrapper = connection._connections[connection._alias]
    real_commit, real_rollback = wrapper._commit, wrapper._rollback

    def commit_then_drop() -> None:
        monkeypatch.setattr(wrapper, "_commit", real_commit)  # once
        (real_commit if committed else real_rollback)()
        pid = _our_pid()
        with psycopg.connect(_admin_url(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        raise django_db.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(wrapper, "_commit", commit_then_drop)


@pytest.mark.parametrize("committed", [True, False], ids=["committed", "rolled-back"])
def test_connection_lost_at_commit_the_answer_says_what_happened(monkeypatch, committed):
    game, _, _ = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
    slots = _slots(game)
    voter, target = slots[1], slots[2]
    _connection_lost_at_commit(monkeypatch, committed=committed)
    if committed:
        # The vote is in: the service reports it done (the page or API answers 2xx).
        result = services.cast_vote(voter.user, game.pk, target.pk)
        assert result is not None
    else:
        with pytest.raises(django_db.OperationalError):  # answered 503: nothing changed
            services.cast_vote(voter.user, game.pk, target.pk)
    stored = Vote.objects.filter(phase__game=game, voter=voter, target=target).exists()
    assert stored is committed
    assert any(e["voter"]["slot_id"] == voter.pk for e in events_of(game, "vote")) is committed


@pytest.mark.timeout(180)
def test_postgres_connections_terminated_during_a_vote(tmp_path):
    queue = f"pg-vote-{uuid.uuid4().hex[:8]}"
    game, _, _ = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
    slots = _slots(game)
    voter, target = slots[1], slots[0]
    token = person_key(voter.user)
    server = AsgiServer(
        {"DATABASE_URL": db_url(), "DB_CONN_MAX_AGE": "60"},
        tmp_path / "asgi.log",
        lifespan="off",
    )
    worker = beat = None
    try:
        with app_on_test_broker(queue):
            worker = Worker(queue, name="pg-vote", DB_CONN_MAX_AGE="60")
            beat = Beat(queue, tmp_path, seconds=1)
            vote_url = f"{server.url}/api/v1/games/{game.pk}/vote/"
            assert _post_json(vote_url, token, {"target": slots[2].pk})[0] == 200

            # A vote stuck behind the game's row lock (held by a session of ours) when
            # every connection is cut, the request's among them.
            with psycopg.connect(db_url().replace("postgres://", "postgresql://")) as lock:
                lock.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
                locker = lock.info.backend_pid
                result: dict = {}
                call = threading.Thread(
                    target=lambda: result.update(
                        r=_post_json(vote_url, token, {"target": target.pk})
                    )
                )
                call.start()
                wait_for(
                    lambda: _waiting_on_lock(), timeout=20, what="the vote to wait for the lock"
                )
                assert _terminate_backends(keep={locker, _our_pid()}) >= 1
                call.join(timeout=30)
                lock.rollback()
            status, body = result["r"]
            assert status == 503, body
            assert body["code"] == "service_unavailable" and "try again" in body["error"]
            # Nothing of it was written: the standing vote is still the first one.
            assert list(
                Vote.objects.filter(phase__game=game, voter=voter).values_list("target", flat=True)
            ) == [slots[2].pk]

            # The server reconnects by itself; the same vote now counts.
            status, body = _post_json(vote_url, token, {"target": target.pk})
            assert status == 200, body
            # The worker's and beat's connections were cut too: the deadline still fires.
            _deadline_in(game, 1)
            wait_for(lambda: phase_number(game) == 2, timeout=40, what="the day to end")
            time.sleep(2)
    finally:
        for proc in (worker, beat):
            if proc is not None:
                proc.stop()
        server.stop()
        purge_queue(queue)
    assert len(events_of(game, "day_ended")) == 1
    target.refresh_from_db()
    assert not target.alive  # the one standing vote, cast after the reconnection


def test_postgres_connections_terminated_under_pages_that_keep_what_they_read(tmp_path):
    """The thread page keeps the slots, phase, vote count, panels and pages of posts per
    game change in the web process. Every connection cut (a PostgreSQL restart) between
    views: the page comes back by itself and still follows the game exactly, never a
    count or a post list kept from before the outage."""
    import re

    game, _, players = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
    slots = _slots(game)
    server = AsgiServer(
        {"DATABASE_URL": db_url(), "DB_CONN_MAX_AGE": "60"},
        tmp_path / "asgi.log",
        lifespan="off",
    )

    def page() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"{server.url}/games/{game.pk}/", timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def wagon(html: str, slot: Slot) -> int | None:
        found = re.search(rf'data-slot="{slot.pk}">\s*<span class="target">[^<]*</span>'
                          r'\s*<span class="count"[^>]*>\((\d+)\)', html)  # fmt: skip
        return int(found.group(1)) if found else None

    try:
        services.cast_vote(slots[1].user, game.pk, slots[0].pk)
        for _ in range(2):  # the second view is served from what the process keeps
            status, html = page()
            assert status == 200 and wagon(html, slots[0]) == 1
        for change in range(2):
            assert _terminate_backends(keep={_our_pid()}) >= 1
            connection.close()  # ours was kept; the game changes while the server is cut off
            services.cast_vote(slots[2 + change].user, game.pk, slots[0].pk)
            services.submit_post(players[4], game.pk, body=f"Said during outage {change}.")
            status, html = page()
            assert status == 200, html[:500]
            assert wagon(html, slots[0]) == 2 + change
            assert f"Said during outage {change}." in html
    finally:
        server.stop()
    assert "Traceback" not in server.log()


def _waiting_on_lock() -> bool:
    with psycopg.connect(_admin_url(), autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
            [connection.settings_dict["NAME"]],
        ).fetchone()
    return row[0] > 0


@pytest.mark.timeout(180)
def test_postgres_connections_terminated_during_a_night_resolution(tmp_path):
    queue = f"pg-night-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "in-transition"
    game, host, _ = make_running_game(
        day_length=timedelta(hours=1), night_length=timedelta(hours=1)
    )
    services.cut_deadline_now(host, game.pk)  # Day 1 ends with no votes: Night 2
    game.refresh_from_db()
    assert game.phase_number == 2
    slots = _slots(game)
    goon = next(s for s in slots if s.role == "goon")
    victim = next(s for s in slots if s.alignment != "mafia")
    options = services.night_options(game, goon)
    kill = next(o for o in options if victim.pk in o["choices"])
    services.submit_night_action(goon.user, game.pk, ability=kill["ability"], targets=[victim.pk])
    Phase.objects.filter(game=game, number=2).update(deadline=timezone.now() - timedelta(seconds=1))

    with app_on_test_broker(queue):
        slow = Worker(
            queue,
            name="pg-night",
            WORKER_INCLUDE="tests.live.slow_transition",
            SLOW_TRANSITION_MARKER=str(marker),
            SLOW_TRANSITION_SECONDS="4",
        )
        try:
            advance_phase_task.delay(game.pk, 2)
            wait_for(marker.exists, timeout=30, what="the worker to be mid-resolution")
            # Every session but ours cut while the night's whole resolution is written and
            # not committed: PostgreSQL rolls it back.
            assert _terminate_backends(keep={_our_pid()}) >= 1
            marker.unlink()
            time.sleep(5)  # the worker wakes up to a dead connection: its task fails
            assert phase_number(game) == 2
            victim.refresh_from_db()
            assert victim.alive
            assert not GameEvent.objects.filter(game=game, kind="night_ended").exists()
            assert not PrivateResult.objects.filter(phase__game=game).exists()
            assert NightAction.objects.filter(phase__game=game, phase__number=2).count() == 1

            # The next scan: the same worker (reconnected) resolves the night, once.
            advance_due_phases.delay()
            wait_for(lambda: phase_number(game) == 3, timeout=40, what="the next scan")
            time.sleep(2)
            assert slow.proc.poll() is None
        finally:
            slow.stop()
            purge_queue(queue)

    assert len(events_of(game, "night_ended")) == 1
    victim.refresh_from_db()
    assert not victim.alive and victim.died_in_phase == 2
    assert Slot.objects.filter(game=game, alive=False).count() == 1
    assert Phase.objects.filter(game=game).count() == 3


# -- the web process's watchdog ----------------------------------------------------------------
@pytest.mark.timeout(120)
def test_web_watchdog_ends_an_overdue_phase_without_celery(tmp_path):
    """No worker, no beat: the web process alone ends a phase overdue past its grace, and
    /healthz shows the sweep."""
    game, _, _ = make_running_game(day_length=timedelta(hours=1))
    Phase.objects.filter(game=game, number=1).update(deadline=timezone.now() - timedelta(seconds=3))
    server = AsgiServer(
        {
            "DATABASE_URL": db_url(),
            "DEADLINE_WATCHDOG_SECONDS": "1",
            "DEADLINE_WATCHDOG_GRACE": "2",
        },
        tmp_path / "asgi.log",
    )
    try:
        # The sweep is recorded after the phases it ended commit: wait for both, or /healthz
        # may be read in between (no sweep on record yet, a game running: "late").
        wait_for(
            lambda: (
                phase_number(game) == 2 and DeadlineSweep.objects.filter(sweeper="web").exists()
            ),
            timeout=30,
            what="the watchdog",
        )
        with urllib.request.urlopen(f"{server.url}/healthz", timeout=10) as response:
            health = json.loads(response.read())
        assert response.status == 200
        assert health["deadlines"]["overdue_phases"] == 0
        assert "web" in health["deadlines"]["sweepers"]
        assert health["deadlines"]["seconds_since_sweep"] < 10
    finally:
        server.stop()
    assert len(events_of(game, "day_ended")) == 1
    assert "Watchdog ended phase 1" in Path(tmp_path / "asgi.log").read_text()


@pytest.mark.timeout(120)
def test_database_down_answers_503_with_a_message_everywhere(tmp_path):
    """A web process whose PostgreSQL is unreachable (nothing listens on its port): pages,
    the API and /healthz answer 503 with a message, never Django's bare 500."""
    from tests.servers import free_port

    dead = f"postgres://postgres@127.0.0.1:{free_port()}/nowhere"
    server = AsgiServer(
        {"DATABASE_URL": dead, "DEADLINE_WATCHDOG_SECONDS": "0"}, tmp_path / "a.log"
    )

    def fetch(path: str, data: bytes | None = None, cookie: str = "") -> tuple[int, Any, str]:
        request = urllib.request.Request(server.url + path, data=data)
        if cookie:
            request.add_header("Cookie", cookie)
        if data is not None:
            request.add_header("Content-Type", "application/json")
            request.add_header("Authorization", "Token 0123456789abcdef")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read().decode()

    try:
        status, headers, html = fetch("/games/1/")
        assert status == 503 and headers["Retry-After"]
        assert 'id="outage-banner"' in html and "nothing was changed" in html
        status, _, html = fetch("/")  # the lobby reads the session and the games
        assert status == 503 and "try again" in html
        # A signed-in person's session cannot be read either: still the 503 (and kept
        # private, as their answers are), not a second error on the way out.
        status, headers, html = fetch("/games/1/", cookie="sessionid=abcdefghijklmnop")
        assert status == 503 and "try again" in html and "no-store" in headers["Cache-Control"]
        status, _, text = fetch("/api/v1/games/1/vote/", data=b'{"target": 1}')
        assert status == 503
        assert json.loads(text)["code"] == "service_unavailable"
        status, _, text = fetch("/healthz")
        assert status == 503
        assert json.loads(text)["database"] == "down"
    finally:
        server.stop()
    assert "Traceback" not in server.log()
