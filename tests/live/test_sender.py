"""The retrying background sender (``games.live.sender``) on its own.

Its pushes here write to a real Redis of the test's own (``tests.servers.RedisServer``),
stopped and started as the outage tests do, so "Redis away" is the connection error the
site's pushes meet. Pauses are short (``first``/``most``) to keep the tests quick; the
publisher and the bells use the module's defaults.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from games.live.sender import Sender, went_out
from tests.servers import RedisServer

FIRST, MOST = 0.05, 0.2


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def _client(server: RedisServer) -> redis.Redis:
    """No retries of redis-py's own (ten by default): one refused connection, one failure."""
    return redis.Redis.from_url(
        server.url, socket_connect_timeout=0.5, socket_timeout=0.5, retry=Retry(NoBackoff(), 0)
    )


class Pushes:
    """A push as the publisher's: ``game -> first event`` written to a Redis list, each
    attempt's time kept (to see the pauses)."""

    def __init__(self, server: RedisServer) -> None:
        self.client = _client(server)
        self.attempts: list[float] = []
        self.threads: set[str] = set()

    def push(self, jobs: dict[int, int]) -> dict[int, int]:
        self.attempts.append(time.monotonic())
        self.threads.add(threading.current_thread().name)
        failed = {}
        for game, seq in jobs.items():
            if not went_out(lambda g=game, s=seq: self.client.rpush("out", f"{g}:{s}"), "push"):
                failed[game] = seq
        return failed

    def out(self) -> list[str]:
        return [item.decode() for item in self.client.lrange("out", 0, -1)]


def _sender(pushes: Pushes, *, in_order: bool = True, name: str = "test-sender") -> Sender:
    return Sender(name, pushes.push, min, in_order=in_order, first=FIRST, most=MOST)


def _until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _fails_once(server: RedisServer, pushes: Pushes, sender: Sender, jobs: dict) -> None:
    """The jobs' first push meets Redis away; Redis is back before its retry."""
    server.stop()
    sender.deliver(jobs, background=True)
    assert _until(lambda: len(pushes.attempts) == 1)
    server.start()


def test_retried_with_a_growing_pause_until_redis_is_back_then_nothing_is_lost(server):
    pushes = Pushes(server)
    sender = _sender(pushes)
    sender.deliver({1: 1}, background=True)
    assert sender.wait_idle(5)  # the flush waits for what is queued
    assert pushes.out() == ["1:1"]

    server.stop()
    sender.deliver({1: 2, 2: 5}, background=True)
    time.sleep(1.0)
    assert sender.waiting() == {1, 2}  # still away: nothing dropped
    # The pause doubles up to ``most``: many attempts, never faster than ``first``.
    gaps = [b - a for a, b in zip(pushes.attempts[1:], pushes.attempts[2:], strict=False)]
    assert len(gaps) >= 3
    assert min(gaps) >= FIRST * 0.9
    assert max(gaps) >= MOST * 0.9
    assert sender._thread is not None and sender._thread.pause == MOST  # capped there

    server.start()  # an empty Redis, as after a restart
    assert _until(lambda: sender.waiting() == set())
    assert sorted(pushes.out()) == ["1:2", "2:5"]
    # Back to the first pause: the next outage is retried as quickly as the first was.
    # (Its state, not the seconds between attempts: a loaded machine stretches those.)
    assert _until(lambda: sender._thread is not None and sender._thread.pause == FIRST, 5)
    server.stop()
    before = len(pushes.attempts)
    sender.deliver({3: 1}, background=True)
    assert _until(lambda: len(pushes.attempts) >= before + 2, 5)
    sender.forget_retries()


def test_a_key_waiting_for_its_retry_holds_its_later_jobs_back_in_order(server):
    """The publisher's order: a game whose push failed is not pushed again ahead of its
    retry; the commits piled up meanwhile go out with it, from the lowest first event."""
    pushes = Pushes(server)
    # A 5-s pause: game 8 goes out long before 7's retry, even on a loaded machine.
    sender = Sender("test-in-order", pushes.push, min, in_order=True, first=5.0, most=5.0)
    _fails_once(server, pushes, sender, {7: 3})
    # Submitted while 7 waits for its retry: merged into it, not pushed ahead of it.
    sender.deliver({7: 4}, background=True)
    sender.deliver({7: 2}, background=True)
    sender.deliver({8: 1}, background=True)  # another game is not held back
    assert _until(lambda: pushes.out() == ["8:1"], 4)
    assert _until(lambda: pushes.out() == ["8:1", "7:2"], 15)
    assert len(pushes.attempts) == 3  # the failure, game 8, the retry


def test_without_order_a_new_job_goes_out_at_once_and_its_retry_after(server):
    """The bells: each push is the whole state, so a new one never waits for a retry."""
    pushes = Pushes(server)
    # A minute's pause: the retry cannot come during the test, even with Redis slow to
    # start again on a loaded machine (a 5-s pause did come, in CI).
    sender = Sender("test-bells", pushes.push, min, in_order=False, first=60.0, most=60.0)
    _fails_once(server, pushes, sender, {9: 1})
    sender.deliver({9: 2}, background=True)
    assert _until(lambda: pushes.out() == ["9:2"], 10)  # long before the retry
    assert sender.waiting() == {9}  # which still comes
    sender.forget_retries()
    assert sender.waiting() == set()


def test_the_flush_waits_for_a_push_in_flight_and_gives_up_at_its_timeout(server):
    pushes = Pushes(server)
    release = threading.Event()

    def slow(jobs: dict[int, int]) -> dict[int, int]:
        release.wait(10)
        return pushes.push(jobs)

    sender = Sender("test-flush", slow, min, in_order=True, first=FIRST, most=MOST)
    sender.deliver({5: 1}, background=True)
    assert not sender.wait_idle(0.3)
    assert sender.waiting() == {5}
    release.set()
    assert sender.wait_idle(5)
    assert pushes.out() == ["5:1"]


def test_in_the_calling_thread_unless_background_and_a_failure_goes_to_the_thread(server):
    pushes = Pushes(server)
    sender = _sender(pushes, name="test-sender-sync")
    sender.deliver({3: 1}, background=False)
    assert pushes.threads == {threading.current_thread().name}
    assert sender.wait_idle(1)  # no thread was needed
    assert pushes.out() == ["3:1"]

    server.stop()
    sender.deliver({3: 2}, background=False)  # returns: the failure is the thread's now
    assert sender.waiting() == {3}
    server.start()
    assert _until(lambda: pushes.out() == ["3:2"])  # (a restarted Redis is empty)
    assert "test-sender-sync" in pushes.threads


def test_a_push_that_raises_keeps_the_thread_and_its_jobs(server, caplog):
    """Not an outage: logged with its traceback, the batch retried, the thread alive."""
    pushes = Pushes(server)
    broken = [True]

    def push(jobs: dict[int, int]) -> dict[int, int]:
        if broken[0]:
            broken[0] = False
            raise RuntimeError("a bug in a push")
        return pushes.push(jobs)

    sender = Sender("test-sender-raises", push, min, in_order=True, first=FIRST, most=MOST)
    with caplog.at_level(logging.ERROR, logger="games.live.sender"):
        sender.deliver({4: 1}, background=True)
        assert _until(lambda: pushes.out() == ["4:1"])
    assert "a push raised" in caplog.text
    sender.deliver({4: 2}, background=True)
    assert sender.wait_idle(10)
    assert pushes.out() == ["4:1", "4:2"]


def test_went_out_says_an_outage_in_one_line_and_anything_else_with_its_traceback(server, caplog):
    client = _client(server)
    server.stop()
    with caplog.at_level(logging.WARNING):
        assert not went_out(client.ping, "Ping")
        assert not went_out(lambda: 1 / 0, "Division")
        assert went_out(lambda: None, "Nothing")
    away, bug = caplog.records
    assert away.levelno == logging.WARNING and away.exc_info is None
    assert "Ping failed" in away.getMessage() and "will retry" in away.getMessage()
    assert bug.levelno == logging.ERROR and bug.exc_info is not None
