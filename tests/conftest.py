"""Shared fixtures: users, and games created, filled and started through the services."""

from __future__ import annotations

import functools
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.factories import UserFactory


def pytest_configure(config: Any) -> None:
    # WhiteNoise warns about a missing STATIC_ROOT until collectstatic has run.
    config.addinivalue_line("filterwarnings", "ignore:No directory at:UserWarning")
    config.pluginmanager.register(_LongModulesFirst(), "long-modules-first")


def _in_browser(item: Any) -> bool:
    return item.nodeid.startswith("tests/e2e/")


def _runs_long(item: Any) -> bool:
    return item.get_closest_marker("slow") is not None


# A module whose tests share a module-scoped fixture (servers, workers, a built manual, the
# in-process proof's games played once) runs whole on one worker, which sets it up once.
# Spread test by test, every worker that drew one of its tests set it up again: the socket
# caps' SQLite site took 65-72 s of setup on each of four workers. Read from the module's
# text: a fixture declared with ``scope="module"``, or the proof's ``play_fixture`` (its
# halves make theirs with it, tests/site/test_live_in_process.py).
MODULE_FIXTURE = re.compile(r'scope="module"|\bplay_fixture\(')
ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def runs_whole(module: str) -> bool:
    """Whether the test module ``module`` (a path from the checkout's root) shares a
    module-scoped fixture among its tests."""
    try:
        return MODULE_FIXTURE.search((ROOT / module).read_text()) is not None
    except OSError:
        return False


# Browser lanes: at most this many workers drive Chromium at once, each lane one worker
# with its stack and one browser. Two on two cores: four browsers at once starved each
# other and the servers they drive.
BROWSER_LANES = int(os.environ.get("TEST_BROWSER_LANES", "2"))


def _browser_lanes(nodeids: list[str]) -> dict[str, int]:
    """Each browser module's lane, balancing an estimate of their lengths (longest first
    into the lightest lane): a module plays its story (about a minute), then about two
    seconds per test case."""
    tests: dict[str, int] = {}
    for nodeid in nodeids:
        if nodeid.startswith("tests/e2e/"):
            module = nodeid.split("::", 1)[0]
            tests[module] = tests.get(module, 0) + 1
    load = [0] * max(BROWSER_LANES, 1)
    lanes: dict[str, int] = {}
    for module in sorted(tests, key=lambda m: (-tests[m], m)):
        lane = load.index(min(load))
        lanes[module] = lane
        load[lane] += 60 + 2 * tests[module]
    return lanes


def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """The parallel run's scheduler (scripts/test.sh): pytest-xdist's scope scheduling
    with a browser module's tests kept together in its lane, a module with a module fixture
    whole (``runs_whole``), every other test on its own.

    A browser module plays one story (a game through its states, looked at from every
    seat) in a module-scoped fixture and its tests run in order, so a module must run
    whole on one worker; and lanes bound how many Chromiums run at once. (xdist's own
    ``xdist_group`` marks are not seen under pytest 9: the nodeid suffix it relies on is
    gone, so the grouping is done here, in the controller.)
    """
    from xdist.scheduler import LoadScopeScheduling

    class BrowserLanes(LoadScopeScheduling):
        lanes: dict[str, int] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.lanes is None:
                self.lanes = _browser_lanes(list(self.collection or []))
            module = nodeid.split("::", 1)[0]
            lane = self.lanes.get(module)
            if lane is not None:
                return f"browser-lane-{lane}"
            return module if runs_whole(module) else nodeid

    return BrowserLanes(config, log)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` reads the marks
def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    """Browser tests are ``slow``: ``-m "not slow"`` is the quick loop without them."""
    for item in items:
        if _in_browser(item):
            item.add_marker(pytest.mark.slow)


class _LongModulesFirst:
    @pytest.hookimpl(trylast=True)  # after pytest-django's own ordering
    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        """Modules with long tests (browser, then other slow ones) go first, whole and in
        their own order: the longest work starts at once and the short tests fill the
        workers around it, so the run ends when the last long test does, not with one long
        test after all the short ones. (pytest-django puts plain database tests before
        transactional ones, as Django does for migrations' data; ours make no rows.)"""
        rank: dict[str, int] = {}
        for item in items:  # 0: browser modules (the longest), 1: other slow ones, 2: rest
            mine = 0 if _in_browser(item) else 1 if _runs_long(item) else 2
            name = item.module.__name__
            rank[name] = min(rank.get(name, 2), mine)
        items.sort(key=lambda item: rank[item.module.__name__])


def _xdist_worker(session: Any) -> bool:
    return hasattr(session.config, "workerinput")


def pytest_sessionstart(session: Any) -> None:
    from tests import redis_cleanup

    # Under pytest-xdist the controller takes the snapshot before any worker starts and
    # cleans after all have ended: a worker that cleaned at its own end would delete keys
    # another worker's running test still uses.
    if not _xdist_worker(session):
        session.config._redis_before = redis_cleanup.snapshot()


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Leave nothing in Redis: delete the session's keys, and fail the run if any stay."""
    from tests import redis_cleanup

    if _xdist_worker(session):
        return
    before = getattr(session.config, "_redis_before", None)
    if not before:
        return
    left = redis_cleanup.clean(before)
    if any(left.values()):
        session.config._redis_left = left
        session.exitstatus = 1
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"Redis keys left behind by the tests: {left}", red=True)


def _other_sessions_busy() -> int:
    """Sessions on this test database, other than ours, in a query or a transaction."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            " AND state IN ('active', 'idle in transaction')"
        )
        return int(cursor.fetchone()[0])


def _flush_after_the_workers(handle: Callable[..., Any]) -> Callable[..., Any]:
    """A transactional test's flush (TRUNCATE of every table) first waits, a few seconds at
    most, for the Celery workers and servers the test started to finish what they were
    doing on the database, and is tried once more if it still failed: a task holding row
    locks while it waits for another table deadlocks with the TRUNCATE, and PostgreSQL then
    cancels the flush ("couldn't be flushed", once in a whole run)."""
    import time

    from django.core.management.base import CommandError
    from django.db import connection

    def wait_quiet() -> None:
        if connection.vendor != "postgresql":
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if not _other_sessions_busy():
                    return
            except Exception:  # our own session was cut (the outage tests): a new one
                connection.close()
            time.sleep(0.1)

    def flush(*args: Any, **options: Any) -> Any:
        wait_quiet()
        try:
            return handle(*args, **options)
        except CommandError:
            connection.close()
            wait_quiet()
            return handle(*args, **options)

    return flush


@pytest.fixture(autouse=True, scope="session")
def _flush_waits_for_the_workers() -> Any:
    from django.core.management.commands import flush

    handle = flush.Command.handle
    flush.Command.handle = _flush_after_the_workers(handle)  # type: ignore[method-assign]
    yield
    flush.Command.handle = handle  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def django_db_setup(
    request: Any,
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_modify_db_settings: None,
) -> Any:
    """pytest-django's, but the worker's test database is a copy of one migrated once
    (``tests.db_template``) rather than migrated afresh."""
    from django.test.utils import setup_databases, teardown_databases

    from tests.db_template import copy_of_the_template

    verbosity = request.config.option.verbose
    with django_db_blocker.unblock():
        copied = copy_of_the_template()
        # keepdb: the copy is the database; Django only checks it is migrated (it is).
        # (No test rolls back to serialized contents: none are made, as pytest-django.)
        made = setup_databases(
            verbosity=verbosity, interactive=False, keepdb=copied, serialized_aliases=set()
        )
    yield
    with django_db_blocker.unblock():
        teardown_databases(made, verbosity=verbosity)


@pytest.fixture(autouse=True)
def _empty_process_caches() -> None:
    # Each test starts with the process's caches empty: on SQLite (the embedded lane) a
    # rolled-back test gives its ids back, and the next test's game 1 would meet the
    # counts and pages kept for the last one's.
    from games.lru import ProcessLRU

    ProcessLRU.clear_all()


@pytest.fixture(autouse=True)
def _site_language() -> Any:
    # Each test starts and ends in the site's language: a request leaves its reader's
    # language active on the thread (LocaleMiddleware activates, nothing deactivates), and a
    # later test's service call made outside a request would speak it.
    from django.conf import settings as site_settings
    from django.utils import translation

    translation.activate(site_settings.LANGUAGE_CODE)
    yield
    translation.activate(site_settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    # The default PBKDF2 hasher costs ~0.3 s a user; tests make hundreds of users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_rate_limits(settings: Any) -> None:
    # Tests post, vote and log in far faster than people; tests/site/test_rate_limits.py
    # turns the limits on. Each test counts under a namespace of its own: a test that
    # turns them on never meets the counts of an earlier one (same user id or address).
    settings.RATE_LIMITS_ENABLED = False
    settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex


@pytest.fixture(autouse=True)
def _event_payloads_match_their_kinds() -> Any:
    """Every event a test's flow emits has a payload valid for its kind
    (``games.event_kinds``), as Zulip's test_events.py checks event_types.py: a service
    that adds, drops or retypes a payload key fails the test that emitted it."""
    from django.db.models.signals import post_save

    from games.event_kinds import check_payload
    from games.models import GameEvent

    errors: list[str] = []

    def check(sender: Any, instance: GameEvent, created: bool, **kwargs: Any) -> None:
        if created:
            errors.extend(check_payload(instance.kind, instance.payload))

    post_save.connect(check, sender=GameEvent, weak=False)
    try:
        yield
    finally:
        post_save.disconnect(check, sender=GameEvent)
    assert not errors, f"event payloads that do not match their kind: {errors[:10]}"


@pytest.fixture
def host(db: Any) -> Any:
    return UserFactory(username="host")


@pytest.fixture
def make_users(db: Any) -> Callable[..., list[Any]]:
    def make(n: int, prefix: str = "player") -> list[Any]:
        return [UserFactory(username=f"{prefix}{i}") for i in range(1, n + 1)]

    return make


@pytest.fixture
def make_game(db: Any, host: Any, make_users: Callable[..., list[Any]]) -> Callable[..., Any]:
    """``make_game("forum-vanilla", start=True, **overrides)``: a game from a ready-made
    setup, every seat filled by player1..playerN, started if asked. City, classic and
    power setups play their days as a thread unless ``table=True`` (their day scripts)."""
    from games import services
    from games.setups import SETUPS

    def make(
        setup: str = "forum-vanilla",
        *,
        start: bool = True,
        seed: int = 7,
        table: bool = False,
        **overrides: Any,
    ):
        kwargs = SETUPS[setup].game_kwargs()
        if kwargs["turn_based"] and not table:
            # The host's other choice: the rule set's day as a free thread (the tests of
            # votes, nominations and revotes in a thread use it); ``table=True`` for turns.
            kwargs.update(turn_based=False, starts_with="day")
        kwargs.update(overrides)
        game = services.create_game(host, title=f"Test {setup}", seed=seed, **kwargs)
        for user in make_users(game.player_cap):
            services.join_game(user, game.pk)
        if start:
            services.start_game(host, game.pk)
        game.refresh_from_db()
        return game

    return make


def slot_of(game: Any, role: str, n: int = 0) -> Any:
    """The n-th slot (by seat) dealt ``role``."""
    return list(game.slots.filter(role=role).order_by("seat").select_related("user"))[n]


def slots_of(game: Any, role: str) -> list[Any]:
    return list(game.slots.filter(role=role).order_by("seat").select_related("user"))


def api(user: Any = None, key: str | None = None) -> Any:
    """A DRF test client signed in as ``user`` (forced) and/or with the token ``key``."""
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    if key is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def current_phase(game: Any) -> Any:
    game.refresh_from_db()
    return game.current_phase()
