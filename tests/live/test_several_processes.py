"""Several processes stay right (issue 22): the site run as production runs it, twice over.

Two web processes (``python -m mafia_site.serve``, DEBUG off, each on its own port with its
own per-process caches, publisher, hub and deadline watchdog), two Celery workers (prefork,
the production command's consumer steps) and one beat, on the test database and a Redis
server of this module's own (``tests.servers.RedisServer``: broker, cache, channel layer).

* A post, a vote, a deadline extended, a player replaced and a phase change made through
  process A show at once on process B: its thread page (last page and an ISO view), its
  JSON answers and a spectator's socket connected to B equal a fresh read, after B's caches
  were warmed with the older state. The fresh read is this test process rendering the same
  URL with every ``ProcessLRU`` emptied first.
* The rate limits count across processes: half the posts through A, half through B, and
  the next one is refused by either.
* Each deadline fires once: games whose deadlines fall at one instant, with two workers
  taking the ETA tasks and beat's scans, and both web processes' watchdogs (grace 0 here, so
  they race the workers for every deadline): each phase advanced exactly once.
* A web process SIGKILLed under a client's socket (a small TCP proxy in front of it and B):
  the client reconnects to B, resumes from its positions, and has every event exactly once,
  none sent twice on the wire.

**Seen failing when a per-process cache ignores a write from another process.** Checked by
hand (nothing of it is committed): in a scratch copy of the tree, one cache at a time was
keyed without the version a write from another process moves, and the first test was run
from that copy (``-k show_at_once``; the servers and workers run the copy's code). Each failed
("... on B is stale") where said:

* ``fragments._COUNTS`` (vote counts), keyed ``(game.pk, phase.pk)``: ``#vote-count``, after
  the vote;
* ``fragments._COUNT_HTML`` (the vote count's HTML), ``(game.pk, phase_number,
  vc["phase"])``: ``#vote-count``, after the vote;
* ``fragments._PANELS`` (players panels), ``(game.pk, current.pk, user_id)``: ``#players``,
  after the replacement;
* ``reads.snapshot._SLOTS``, ``(game.pk, created_at)``: ``#iso``, after the replacement;
* ``reads.snapshot._PHASES``, ``(game.pk, created_at, phase_number)``: ``#phase-banner``,
  after the extension;
* ``reads.snapshot._LAST_NUMBERS``, ``(game.pk, created_at, thread)``: ``#iso``, after the
  post;
* ``reads.thread._PAGES`` (thread pages), the key without the page's ``end``: ``#posts``,
  after the post;
* ``reads.thread._COUNTS`` (ISO post counts), a held count returned whatever ``upto``:
  ``#iso``, after the post;
* ``live.numbering._EVENT_COUNTS`` (event counts), held counts returned whatever the floor:
  "positions of ... on B", after the post.

(The extension and the replacement are in the test for ``_PHASES``, ``_PANELS`` and
``_SLOTS``: a post, a vote and a phase change alone left them unseen.) The two other
``ProcessLRU``: ``fragments._RENDERED`` (a post's HTML) and ``models._PHASE_LABELS`` are keyed
by what they show (a post's every field, a phase's id and start), which no later write
changes. To check again: copy the tree (``git archive HEAD | tar -x -C /tmp/copy``), change
one key as above, run ``tests/live/test_several_processes.py -k show_at_once`` from the copy
with this venv's python, and see it fail.

**The ReferenceError of the first version.** Run alone it passed; in a full serial run its
first test failed in ``fresh`` with ``ReferenceError: weakly-referenced object no longer
exists``. ``forget_process_caches`` walked ``gc.get_objects()`` asking ``isinstance(obj,
ProcessLRU)``, and isinstance reads the object's ``__class__``, which a ``weakref.proxy``
forwards to its referent. A websockets client connection (``websockets.asyncio``: the
client library's ``EventStream`` and the socket tests) puts ``weakref.proxy(connection)`` in
its logger's ``extra``; once the connection is gone, that dead proxy stays in
``gc.get_objects()`` with the rest of its protocol's reference cycle until a collection of
the oldest generation, rare in a process that has run hundreds of tests. So any earlier test
of the session with a long-lived socket could throw the scan. Reproduced with a scratch
transactional test before this module that opens and closes one socket to a local
websockets server with a ``gc.collect()`` while it is open. The scan now asks
``type(obj)``, which runs no code of the object's, and
``test_a_socket_closed_in_this_process_...`` keeps it so (it fails with the old scan). Not
a product bug: nothing of the site scans the heap.

A second way a long run broke this module: running ``tests/live`` up to it, its clean-up's
``live_inbox.wait_until_pushed`` found this process's inbox thread dead. It had died in
``test_league_outages``, when Django's ``close_old_connections`` raised at it (a retried push
after the test, pytest-django refusing the database between tests). ``games.live.inbox``
and ``games.live.publisher`` now log such an exception and keep their thread.

**In parallel (pytest-xdist).** Everything is this module's own: the Redis server and the
web servers on spare ports, the TCP proxy on a port the system gives, a queue and a
channel-layer prefix with a random part, the workers' names and logs, beat's schedule in
this worker's temporary directory, and the test database of the xdist worker. Its tests
are one xdist group, so the cluster is started once.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html as html_lib
import json
import os
import re
import secrets
import signal
import time
import urllib.error
import urllib.request
import uuid
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client as DjangoClient
from django.utils import timezone
from mafia_client import Client as MafiaClient
from mafia_client import EventStream
from websockets.asyncio.client import connect

from games.live import inbox as live_inbox
from games.live import publisher
from games.live.kinds import STATE_KINDS
from games.lru import ProcessLRU
from games.models import GameEvent, Phase, Post, Slot, Vote
from tests.factories import person_key
from tests.servers import AsgiServer, LoopThread, RedisServer

from .celery_support import (
    Beat,
    Worker,
    app_on_test_broker,
    events_of,
    make_running_game,
    phase_number,
    wait_for,
)
from .celery_support import test_database_url as db_url
from .ws_support import redis_layers

pytestmark = [pytest.mark.slow, pytest.mark.celery, pytest.mark.django_db(transaction=True)]
# Under pytest-xdist the module runs whole on one worker (``runs_whole`` in
# tests/conftest.py), so its servers start once.

# Posts per person in the rate limit's window, for both web processes (the other tests
# post at most a few times per person).
POST_LIMIT, POST_WINDOW = 10, 600
# The parts of the thread page that follow the game, by element id.
PAGE_PARTS = ("game-nav", "phase-banner", "iso", "posts", "vote-count", "players")


# -- the cluster --------------------------------------------------------------------------------
@dataclass
class Cluster:
    redis: RedisServer
    env: dict[str, str]
    queue: str
    prefix: str
    a: AsgiServer
    b: AsgiServer
    workers: list[Worker]
    beat: Beat
    log_dir: Path

    def assert_running(self) -> None:
        procs = {"web A": self.a.proc, "web B": self.b.proc, "beat": self.beat.proc}
        procs.update({f"worker {i}": w.proc for i, w in enumerate(self.workers)})
        dead = {name: p.returncode for name, p in procs.items() if p.poll() is not None}
        assert not dead, f"processes exited: {dead}; logs in {self.log_dir}"


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Cluster]:
    log_dir = tmp_path_factory.mktemp("several")
    with django_db_blocker.unblock():
        database = db_url()
    redis = RedisServer(log_dir)
    queue = f"deadlines-test-several-{uuid.uuid4().hex[:8]}"
    prefix = f"several{uuid.uuid4().hex[:8]}"
    production = {
        "DEBUG": "0",
        # One key for every process, as in production (sessions, signed values).
        "SECRET_KEY": secrets.token_urlsafe(64),
        "HTTPS": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database,
        "REDIS_URL": redis.url,
        "CHANNEL_LAYER_PREFIX": prefix,
        "CELERY_QUEUE": queue,
    }
    env = {
        **production,
        "DB_POOL_SIZE": "4",  # the machine's PostgreSQL is shared
        "RATE_LIMITS": f"post={POST_LIMIT}/{POST_WINDOW}",
        # Each web process sweeps every second with no grace: both race the workers.
        "DEADLINE_WATCHDOG_SECONDS": "1",
        "DEADLINE_WATCHDOG_GRACE": "0",
    }
    started: list[Any] = []
    try:
        a = AsgiServer(env, log_dir / "web-a.log")
        started.append(a)
        b = AsgiServer(env, log_dir / "web-b.log")
        started.append(b)
        workers = []
        for i in range(2):
            worker = Worker(
                queue,
                name=f"several{i}",
                pool="prefork",
                concurrency=2,
                production=True,
                **production,
            )
            started.append(worker)
            workers.append(worker)
        beat = Beat(queue, log_dir, seconds=1, **production)
        started.append(beat)
        yield Cluster(redis, env, queue, prefix, a, b, workers, beat, log_dir)
    finally:
        for proc in reversed(started):
            with contextlib.suppress(Exception):
                proc.stop()
        redis.stop()  # takes the queue, the cache and the live cursors with it


@pytest.fixture(autouse=True)
def on_the_cluster(cluster: Cluster, settings: Any) -> Iterator[None]:
    """This process (games made, started and changed here) publishes and schedules where
    the cluster listens: its Redis, its channel-layer prefix, its queue."""
    settings.CHANNEL_LAYERS = redis_layers(cluster.prefix, url=cluster.redis.url)
    settings.LIVE_PUBLISH_IN_BACKGROUND = False
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
    with app_on_test_broker(cluster.queue, url=cluster.redis.url):
        yield
    assert live_inbox.wait_until_pushed(10)
    assert publisher.wait_until_published(10)
    cluster.assert_running()


# -- HTTP --------------------------------------------------------------------------------------
def token_of(user: Any) -> str:
    return person_key(user)


def call(
    server: AsgiServer | str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: dict[str, Any] | None = None,
) -> tuple[int, dict[str, str], str]:
    """(status, headers, text) of one request to ``server`` (a server or a base URL)."""
    base = server if isinstance(server, str) else server.url
    headers = {"Accept": "application/json" if path.startswith("/api/") else "text/html"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, _lower(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, _lower(exc.headers), exc.read().decode()


def _lower(headers: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def get_json(server: AsgiServer, path: str) -> Any:
    status, _, text = call(server, "GET", path)
    assert status == 200, (path, status, text[:500])
    return json.loads(text)


def get_page(server: AsgiServer, path: str) -> str:
    status, _, text = call(server, "GET", path)
    assert status == 200, (path, status, text[:500])
    return text


def forget_process_caches() -> int:
    """Empty every ``ProcessLRU`` of this process: the next read is a fresh one."""
    emptied = 0
    for obj in gc.get_objects():
        # ``type(obj)``, never ``isinstance(obj, ...)``: isinstance asks the object for its
        # ``__class__``, and that runs code of the object's own for proxies (see the module
        # docstring: a dead ``weakref.proxy`` raises ReferenceError, a lazy object runs its
        # set-up).
        if issubclass(type(obj), ProcessLRU):
            with obj._lock:
                obj._entries.clear()
            emptied += 1
    return emptied


def fresh(path: str, server: AsgiServer) -> str:
    """``path`` as a process that has kept nothing renders it (this one, caches emptied),
    under the same host name as ``server``."""
    assert forget_process_caches() >= 10  # every page cache of games.* is one
    accept = "application/json" if path.startswith("/api/") else "text/html"
    response = DjangoClient().get(path, HTTP_HOST=f"127.0.0.1:{server.port}", HTTP_ACCEPT=accept)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


# -- parts of a page -----------------------------------------------------------------------------
class _ElementFinder(HTMLParser):
    """Where the element with ``id`` starts and ends in the page's text."""

    VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"})

    def __init__(self, ident: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ident = ident
        self.tag = ""
        self.depth = 0
        self.start: tuple[int, int] | None = None
        self.end: tuple[int, int] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.end is not None:
            return
        if self.depth:
            if tag == self.tag:
                self.depth += 1
        elif dict(attrs).get("id") == self.ident and tag not in self.VOID:
            self.tag, self.depth, self.start = tag, 1, self.getpos()

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == self.tag:
            self.depth -= 1
            if not self.depth:
                self.end = self.getpos()


def part(page: str, ident: str) -> str:
    """The outer HTML of the element ``id=ident`` (whitespace runs folded to one space)."""
    finder = _ElementFinder(ident)
    finder.feed(page)
    assert finder.start and finder.end, f"no complete #{ident} in the page"
    lines = page.splitlines(keepends=True)
    offset = [0]
    for line in lines:
        offset.append(offset[-1] + len(line))
    start = offset[finder.start[0] - 1] + finder.start[1]
    end = offset[finder.end[0] - 1] + finder.end[1]
    end = page.index(">", end) + 1
    return squash(page[start:end])


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def live_positions(page: str) -> str:
    found = re.search(r'data-live-positions="([^"]*)"', page)
    assert found, "no data-live-positions on the page"
    return html_lib.unescape(found.group(1))


def assert_b_shows_what_a_fresh_read_shows(cluster: Cluster, path: str) -> str:
    """B's page at ``path`` (read once, right now) part by part against a fresh read."""
    on_b = get_page(cluster.b, path)
    reference = fresh(path, cluster.b)
    for ident in PAGE_PARTS:
        assert part(on_b, ident) == part(reference, ident), f"#{ident} of {path} on B is stale"
    assert live_positions(on_b) == live_positions(reference), f"positions of {path} on B"
    return on_b


def assert_b_answers_what_a_fresh_read_answers(cluster: Cluster, path: str) -> Any:
    on_b = get_json(cluster.b, path)
    assert on_b == json.loads(fresh(path, cluster.b)), f"{path} on B is stale"
    return on_b


# -- sockets in a background event loop --------------------------------------------------------
@contextlib.contextmanager
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    try:
        yield lt
    finally:
        lt.close()


@dataclass
class PageSocket:
    """A spectator's page socket, as the browser opens it: the page's positions, the
    page's Origin, no account."""

    items: list[dict[str, Any]] = field(default_factory=list)
    task: Any = None  # the ``follow`` running in the loop thread

    async def follow(self, server: AsgiServer, game_id: int, positions: str) -> None:
        url = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}/?positions={positions}"
        async with connect(url, origin=server.url, open_timeout=30) as ws:
            async for text in ws:
                batch = json.loads(text)
                self.items.extend(batch if isinstance(batch, list) else [batch])

    def wait_for(self, what: str, predicate: Callable[[dict[str, Any]], bool]) -> dict:
        def found() -> dict[str, Any] | None:
            if self.task is not None and self.task.done():
                raise AssertionError(f"the socket to B ended: {self.task.exception()!r}")
            return next((i for i in list(self.items) if predicate(i)), None)

        return wait_for(
            found,
            timeout=60,
            what=f"{what} on the socket connected to B",
            step=0.05,
        )


# -- 1. caches ---------------------------------------------------------------------------------
def dead_proxies() -> int:
    """Dead ``weakref`` proxies ``gc.get_objects()`` holds now (no collection first)."""
    dead = 0
    for obj in gc.get_objects():
        if type(obj) in (weakref.ProxyType, weakref.CallableProxyType):
            try:
                obj.__class__  # noqa: B018 (a dead proxy raises here)
            except ReferenceError:
                dead += 1
    return dead


def test_a_socket_closed_in_this_process_does_not_throw_the_fresh_read(cluster):
    """What a websockets client connection leaves behind until a full collection (a dead
    ``weakref.proxy`` to it: see the module docstring) is in the heap the fresh read scans,
    as it was when an earlier test of a long run had a socket: the scan still works."""
    game, _, _ = make_running_game(day_length=timedelta(hours=1))
    thread = f"/games/{game.pk}/?page=last"
    positions = live_positions(get_page(cluster.b, thread))

    async def a_while_on_the_socket() -> None:
        url = f"ws://127.0.0.1:{cluster.b.port}/ws/games/{game.pk}/?positions={positions}"
        async with connect(url, origin=cluster.b.url, open_timeout=30) as ws:
            assert "replay" in await ws.recv()
            gc.collect()  # the socket lived long enough for its objects to be the oldest

    asyncio.run(a_while_on_the_socket())
    # What the first version of ``fresh`` tripped on. (Counted after: the collection above
    # took any left by earlier tests.)
    assert dead_proxies() >= 1
    assert_b_shows_what_a_fresh_read_shows(cluster, thread)


def test_a_post_a_vote_and_a_phase_change_through_a_show_at_once_on_b(cluster):
    game, host, _ = make_running_game(day_length=timedelta(hours=1))
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    poster, voter, target, replaced = slots[0], slots[1], slots[2], slots[3]
    thread, iso = f"/games/{game.pk}/?page=last", f"/games/{game.pk}/?iso={poster.seat}"
    api = f"/api/v1/games/{game.pk}"
    reads = [thread, iso, f"{api}/", f"{api}/vote-count/", f"{api}/posts/?page=last"]

    # Both processes have read (and kept) the game as it is: twice, the second from caches.
    for server in (cluster.b, cluster.a, cluster.b):
        for path in reads:
            call(server, "GET", path)
    assert_b_shows_what_a_fresh_read_shows(cluster, thread)
    before = get_page(cluster.b, thread)
    with loop_thread() as lt:
        socket = PageSocket()
        socket.task = lt.spawn(socket.follow(cluster.b, game.pk, live_positions(before)))
        socket.wait_for("the replay", lambda i: i.get("type") == "replay")

        # A post through A.
        body = f"Said through A, read through B {uuid.uuid4().hex[:6]}."
        status, _, text = call(
            cluster.a, "POST", f"{api}/posts/", token=token_of(poster.user), body={"body": body}
        )
        assert status == 201, text
        number = json.loads(text)["post"]["number"]
        page = assert_b_shows_what_a_fresh_read_shows(cluster, thread)
        assert body in part(page, "posts")
        iso_bar = part(assert_b_shows_what_a_fresh_read_shows(cluster, iso), "iso")
        assert re.search(rf'data-seat="{poster.seat}">[^<]*<span class="count">\(1\)', iso_bar)
        assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/")
        posts = assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/posts/?page=last")
        assert body in json.dumps(posts)
        item = socket.wait_for("the post", lambda i: i.get("number") == number)
        assert squash(item["html"]) == part(page, f"post-public-{number}")

        # A vote through A.
        status, _, text = call(
            cluster.a, "POST", f"{api}/vote/", token=token_of(voter.user),
            body={"target": target.pk},
        )  # fmt: skip
        assert status == 200, text
        page = assert_b_shows_what_a_fresh_read_shows(cluster, thread)
        assert re.search(rf'data-slot="{target.pk}">.*?\(1\)', part(page, "vote-count"))
        count = assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/vote-count/")
        assert [w["target"]["slot_id"] for w in count["wagons"] if w["target"]] == [target.pk]
        item = socket.wait_for("the vote count", lambda i: i.get("kind") == "vote_count")
        assert squash(item["html"]) == part(page, "vote-count")

        # The day extended by the host through A: the same phase (same number) with a new
        # deadline, so B's kept phase row must go.
        status, _, text = call(
            cluster.a, "POST", f"{api}/host/extend/", token=token_of(host), body={"minutes": 30}
        )
        assert status == 200, text
        deadline = Phase.objects.get(game=game, number=1).deadline
        page = assert_b_shows_what_a_fresh_read_shows(cluster, thread)
        assert f'datetime="{deadline.isoformat()}"' in part(page, "phase-banner")
        state = assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/")
        assert state["phase"]["number"] == 1, state["phase"]

        # A player replaced by the host through A: the same slot, another person, so B's
        # kept slots and players panels must go.
        newcomer = get_user_model().objects.create_user(
            f"newcomer-{uuid.uuid4().hex[:6]}", password="pw"
        )
        status, _, text = call(
            cluster.a, "POST", f"{api}/host/replace/", token=token_of(host),
            body={"slot_id": replaced.pk, "username": newcomer.username},
        )  # fmt: skip
        assert status == 200, text
        page = assert_b_shows_what_a_fresh_read_shows(cluster, thread)
        assert newcomer.username in part(page, "players")
        iso_page = assert_b_shows_what_a_fresh_read_shows(cluster, iso)
        assert newcomer.username in part(iso_page, "iso")
        assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/")
        assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/vote-count/")

        # The day ended by the host through A: night.
        status, _, text = call(cluster.a, "POST", f"{api}/host/cut/", token=token_of(host))
        assert status == 200, text
        assert phase_number(game) == 2
        page = assert_b_shows_what_a_fresh_read_shows(cluster, thread)
        assert "<strong>Night 1</strong>" in part(page, "phase-banner")
        state = assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/")
        assert state["phase"]["number"] == 2, state["phase"]
        assert_b_answers_what_a_fresh_read_answers(cluster, f"{api}/vote-count/")
        assert_b_shows_what_a_fresh_read_shows(cluster, iso)
        item = socket.wait_for(
            "the night",
            lambda i: i.get("kind") == "phase_started" and "Night 1" in i.get("banner", ""),
        )
        assert squash(item["banner"]) == part(page, "phase-banner")
        socket.wait_for("the day's end", lambda i: i.get("kind") == "day_ended")
    # Nothing twice on the socket.
    numbered = [
        (i["aud"], i["n"]) for i in socket.items if "n" in i and i["kind"] not in STATE_KINDS
    ]
    assert len(numbered) == len(set(numbered)), numbered


# -- 2. rate limits ------------------------------------------------------------------------------
def test_rate_limits_count_across_processes(cluster):
    game, _, players = make_running_game(day_length=timedelta(hours=1))
    api = f"/api/v1/games/{game.pk}"
    for person in players[:3]:  # another person if a window ended in the middle
        token = token_of(person)
        window = int(time.time() // POST_WINDOW)
        answers = []
        for i in range(POST_LIMIT):
            server = cluster.a if i % 2 == 0 else cluster.b
            answers.append(
                call(server, "POST", f"{api}/posts/", token=token, body={"body": f"{i}"})
            )
        over = [
            call(server, "POST", f"{api}/posts/", token=token, body={"body": "one too many"})
            for server in (cluster.a, cluster.b)
        ]
        # A vote counts against the post limit too, in whichever process it lands.
        target = Slot.objects.filter(game=game).exclude(user=person).first()
        vote = call(cluster.b, "POST", f"{api}/vote/", token=token, body={"target": target.pk})
        if int(time.time() // POST_WINDOW) == window:
            break
    else:
        pytest.fail("three rate-limit windows ended during the test")
    assert [status for status, _, _ in answers] == [201] * POST_LIMIT, answers
    for status, headers, text in [*over, vote]:
        assert status == 429, text
        assert json.loads(text)["code"] == "throttled"
        assert int(headers["retry-after"]) > 0
    assert Post.objects.filter(game=game, author=person).count() == POST_LIMIT
    assert not Vote.objects.filter(phase__game=game, voter__user=person).exists()


# -- 3. deadlines ----------------------------------------------------------------------------
def test_each_deadline_fires_once_with_two_workers_beat_and_two_watchdogs(cluster):
    # Every Day 1 ends at one instant: its ETA task (either worker), beat's scan and both
    # web processes' watchdogs all find it due. (Made slowly, a game's deadline has passed
    # already when it starts: then the same sweepers find it due at once.)
    at = timezone.now() + timedelta(seconds=25)
    games = [make_running_game(deadline_in=at - timezone.now())[0] for _ in range(6)]
    wait_for(
        lambda: all(phase_number(g) == 2 for g in games),
        timeout=90,
        what="every Day 1 to end",
    )
    # Every Night 1 too, by the scans alone (the ETA task of the night is for later).
    at = timezone.now() + timedelta(seconds=3)
    Phase.objects.filter(game__in=games, number=2).update(deadline=at)
    wait_for(
        lambda: all(phase_number(g) == 3 for g in games),
        timeout=90,
        what="every Night 1 to end",
    )
    time.sleep(5)  # a second transition (a redelivery, a late sweep) would show by now
    for game in games:
        assert phase_number(game) == 3
        assert Phase.objects.filter(game=game).count() == 3
        assert len(events_of(game, "day_ended")) == 1
        assert len(events_of(game, "night_ended")) == 1
        assert len(events_of(game, "phase_started")) == 3
        assert Phase.objects.filter(game=game, resolved=True).count() == 2
    advanced = [len(re.findall(r"advance_phase_task\[.*\] succeeded in .*: True", w.log()))
                for w in cluster.workers]  # fmt: skip
    print(f"\nphases ended by the workers: {advanced}; the rest by the web watchdogs")
    cluster.assert_running()


# -- 4. a web process killed under a socket ---------------------------------------------------
class Proxy:
    """A TCP proxy: each new connection goes to the first backend that accepts it;
    ``hold()`` keeps new connections waiting (not refused) until ``release()``."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.routes: list[int] = []
        self._open = asyncio.Event()
        self._open.set()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def hold(self) -> None:
        self._open.clear()

    async def release(self) -> None:
        self._open.set()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._open.wait()
        for port in self.ports:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            self.routes.append(port)
            break
        else:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()

        pipes = [asyncio.create_task(pipe(reader, up_writer)),
                 asyncio.create_task(pipe(up_reader, writer))]  # fmt: skip
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pipes:
                task.cancel()
            for w in (writer, up_writer):
                w.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


class RecordingStream(EventStream):
    """The client library's stream, also keeping every item as it came off the wire (before
    the client drops repeats), with the number of the connection it came on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wire: list[tuple[int, dict[str, Any]]] = []
        self.taken: list[Any] = []

    async def _apply(self, batch: list[Any]) -> None:
        self.wire.extend((self.connects, event.raw) for event in batch)
        await super()._apply(batch)

    async def run(self) -> None:
        async for event in self:
            self.taken.append(event)


def server_positions(game: Any, keys: list[str]) -> dict[str, int]:
    """What the event log says a client that has everything holds, per numbering."""
    numbers = {}
    for key in keys:
        rows = GameEvent.objects.filter(game=game)
        if key.startswith("~"):
            numbers[key] = rows.filter(kind=key[1:]).count()
        else:
            numbers[key] = rows.filter(audience=key).exclude(kind__in=STATE_KINDS).count()
    return numbers


def test_a_web_process_killed_under_a_socket_the_client_resumes_on_the_other(cluster):
    game, _, _ = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    tokens = [token_of(s.user) for s in slots]
    api = f"/api/v1/games/{game.pk}"
    doomed = AsgiServer(cluster.env, cluster.log_dir / "web-doomed.log")
    posted: list[int] = []

    def post_through_b(i: int) -> None:
        body = {"body": f"Post {i} while the socket moves."}
        status, _, text = call(cluster.b, "POST", f"{api}/posts/", token=tokens[i % 6], body=body)
        assert status == 201, text
        posted.append(json.loads(text)["post"]["number"])

    try:
        with loop_thread() as lt:
            proxy = Proxy([doomed.port, cluster.b.port])
            lt.run(proxy.start())
            client = MafiaClient(f"http://127.0.0.1:{proxy.port}", tokens[6])
            stream = RecordingStream(client, game.pk, ping_seconds=3)
            lt.spawn(stream.run())
            first = wait_for(
                lambda: next((e for e in list(stream.taken) if e.type == "replay"), None),
                timeout=60,
                what="the socket through the proxy",
            )
            start = dict(first.data["positions"])
            assert proxy.routes == [doomed.port]

            for i in range(4):  # live through the doomed process
                post_through_b(i)
            wait_for(
                lambda: sum(e.kind == "post" for e in list(stream.taken)) >= 4,
                timeout=60,
                what="the first posts through the doomed process",
            )
            post_through_b(4)
            post_through_b(5)  # in flight when it dies
            lt.run(proxy.hold())
            os.killpg(doomed.proc.pid, signal.SIGKILL)
            doomed.proc.wait(timeout=10)
            for i in range(6, 10):  # while the client is cut off
                post_through_b(i)
            lt.run(proxy.release())
            for i in range(10, 12):
                post_through_b(i)
            status, _, text = call(cluster.b, "POST", f"{api}/vote/", token=tokens[7 % 6],
                                   body={"target": slots[0].pk})  # fmt: skip
            assert status == 200, text

            async def positions() -> dict[str, int]:
                return dict(stream.positions)

            keys = sorted(start)
            wait_for(
                lambda: lt.run(positions()) == server_positions(game, keys),
                timeout=90,
                what="the client to hold every event the server has",
            )
            time.sleep(1)  # anything sent twice would have arrived by now
            held = lt.run(positions())
            lt.run(stream.close())
            lt.run(proxy.close())
    finally:
        doomed.stop()

    assert proxy.routes[0] == doomed.port and cluster.b.port in proxy.routes[1:], proxy.routes
    assert stream.connects >= 2
    assert held == server_positions(game, keys)
    # What the client took: each audience's numbers from where it started, none missed,
    # none twice, in order.
    for key in keys:
        if key.startswith("~"):
            continue
        taken = [
            e.n
            for e in stream.taken
            if e.is_item and e.kind not in STATE_KINDS and (e.audience or "public") == key
        ]
        assert taken == list(range(start[key] + 1, held[key] + 1)), (key, taken)
    # What came off the wire: no item twice (the server resumed exactly where the client
    # was), and the posts are the ones made.
    wire = [(raw["aud"], raw["n"]) for _, raw in stream.wire
            if "n" in raw and raw.get("kind") not in STATE_KINDS]  # fmt: skip
    assert not [k for k, c in Counter(wire).items() if c > 1], stream.wire
    numbers = {raw["number"] for _, raw in stream.wire if raw.get("kind") == "post"}
    assert numbers == set(Post.objects.filter(game=game, number__gt=min(posted) - 1)
                          .values_list("number", flat=True))  # fmt: skip
    # The posts made while the client was cut off came in B's replay after the reconnect.
    resumed = [raw for n, raw in stream.wire if n >= 2 and raw.get("kind") == "post"]
    assert len(resumed) >= 4
