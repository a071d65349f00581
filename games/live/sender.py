"""One retrying background sender: what a commit hands the live layer goes out after it.

The live publisher (game events, ``publisher``) and the bells and signals (``inbox``) share
this: a commit never waits on, or fails because of, Redis. Their work is a mapping of keys
to marks (a game -> the first event not yet out; a bell or a signal -> nothing), and their
``push(jobs)`` sends a batch and answers the jobs that did not go out. This module says
once what they do with it:

- **Queueing.** In the web server (``background``) the caller only queues the jobs for
  this process's sender thread; jobs of one key that pile up while a push runs are merged
  (``merge``: the publisher keeps the lowest first event), so they go out together.
  Elsewhere (Celery, commands, tests) the push runs in the calling thread.
- **Retry.** A push that fails (Redis away or restarting) is logged in one line and
  retried by the thread with a growing pause (``first`` doubling up to ``most``), until
  Redis answers; the pause is back to ``first`` once a push goes out with nothing left
  waiting. Nothing is ever given up: what a retry sends is read afresh from the database.
- **Order.** With ``in_order`` (the publisher: events of a game go out in seq order) a key
  that is waiting for its retry is held back with it, never pushed ahead of it. Without
  (the bells: each frame is the whole state, read when sent) new jobs go out at once.
- **Flush.** ``wait_idle`` (tests, benchmarks) blocks until everything queued is pushed
  and the thread's database connection closed; the thread also gives its connection back
  after a second without work.
- **Survival.** The thread never ends: an exception of a push, or of Django's
  ``close_old_connections`` (pytest-django refusing the database between tests did), is
  logged and the jobs are retried. A forked process starts its own thread on first need.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

RETRY_FIRST, RETRY_MAX = 0.5, 5.0  # seconds between retries of a failed push
IDLE_CLOSE = 1.0  # seconds without work before the thread's database connection is closed

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def went_out(push: Callable[[], object], what: str, logger: logging.Logger = log) -> bool:
    """Run one push: True if it went out (or had nothing to send), never raises.

    Redis away (an outage error, or a lock or send that timed out) is one warning line per
    push, not a traceback per commit: the retry catches up. Anything else is logged with
    its traceback."""
    from ..outage import is_outage

    try:
        push()
    except Exception as exc:
        if is_outage(exc) or isinstance(exc, TimeoutError):
            logger.warning("%s failed: %r; will retry", what, exc)
        else:
            logger.exception("%s failed", what)
        return False
    return True


class Sender(Generic[K, V]):
    """The sender of one kind of push (see the module's docstring); one per module.

    ``push(jobs)`` answers the jobs that did not go out (all of them, or some keys) and
    should not raise (``went_out``); if it does, the whole batch is retried."""

    def __init__(
        self,
        name: str,
        push: Callable[[dict[K, V]], Mapping[K, V]],
        merge: Callable[[V, V], V],
        *,
        in_order: bool,
        first: float = RETRY_FIRST,
        most: float = RETRY_MAX,
    ) -> None:
        self.name = name
        self.push = push
        self.merge = merge
        self.in_order = in_order
        self.first, self.most = first, most
        self._thread: _Thread[K, V] | None = None
        self._guard = threading.Lock()

    def deliver(self, jobs: Mapping[K, V], *, background: bool) -> None:
        """Queue the jobs for the thread (``background``), or push them now and hand the
        thread what failed. Never raises, never waits on Redis beyond one push's timeouts."""
        if not jobs:
            return
        if background:
            self._worker().submit(jobs)
            return
        failed = self._push_now(dict(jobs))
        if failed:
            self._worker().retry_later(failed)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until this process's thread has nothing left (tests); False on timeout,
        e.g. while a push keeps failing. True at once if it has no thread."""
        thread = self._thread
        if thread is None or thread.pid != os.getpid():
            return True
        return thread.wait_idle(timeout)

    def waiting(self) -> set[K]:
        """The keys queued, being pushed or waiting for a retry in this process (tests)."""
        thread = self._thread
        if thread is None or thread.pid != os.getpid():
            return set()
        with thread.cond:
            busy = set(thread.in_flight) if thread.busy else set()
            return set(thread.pending) | set(thread.failed) | busy

    def forget_retries(self) -> None:
        """Drop what waits for a retry (a test whose rows are rolled back: nothing to send)."""
        thread = self._thread
        if thread is not None and thread.pid == os.getpid():
            with thread.cond:
                thread.failed.clear()

    def _worker(self) -> _Thread[K, V]:
        with self._guard:
            # Threads do not survive a fork: a child process starts its own.
            if self._thread is None or self._thread.pid != os.getpid():
                self._thread = _Thread(self)
            return self._thread

    def _push_now(self, jobs: dict[K, V]) -> dict[K, V]:
        """Push; the jobs that did not go out."""
        if not jobs:  # every key of the batch held back for its retry
            return {}
        try:
            return dict(self.push(jobs))
        except Exception:
            log.exception("%s: a push raised; it will be retried", self.name)
            return jobs


class _Thread(Generic[K, V]):
    """One thread per process and sender: pushes what commits hand it, retries what failed."""

    def __init__(self, sender: Sender[K, V]) -> None:
        self.sender = sender
        self.pid = os.getpid()
        self.pending: dict[K, V] = {}
        # Failed pushes: key -> its mark, retried from ``retry_at``.
        self.failed: dict[K, V] = {}
        self.in_flight: dict[K, V] = {}
        self.retry_at = 0.0
        self.pause = sender.first
        self.busy = False
        self.close_requested = False
        self.cond = threading.Condition()
        threading.Thread(target=self._run, name=sender.name, daemon=True).start()

    def submit(self, jobs: Mapping[K, V]) -> None:
        with self.cond:
            _merge_into(self.pending, jobs, self.sender.merge)
            self.cond.notify()

    def retry_later(self, jobs: Mapping[K, V]) -> None:
        with self.cond:
            self._failed(jobs)
            self.cond.notify()

    def _failed(self, jobs: Mapping[K, V]) -> None:
        if not self.failed:  # the first failure since all went out: its pause starts now
            self.retry_at = time.monotonic() + self.pause
            self.pause = min(self.pause * 2, self.sender.most)
        _merge_into(self.failed, jobs, self.sender.merge)

    def _due_retries(self) -> dict[K, V]:
        """The failed pushes whose pause is over (taken out of ``failed``)."""
        if not self.failed or time.monotonic() < self.retry_at:
            return {}
        due, self.failed = self.failed, {}
        return due

    def wait_idle(self, timeout: float) -> bool:
        """Until everything submitted is pushed and the connection closed."""
        deadline = time.monotonic() + timeout
        with self.cond:
            self.close_requested = True
            self.cond.notify_all()
            while self.pending or self.busy or self.close_requested:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def _take(self) -> dict[K, V]:
        """Wait for work (holding ``cond``): the next batch to push."""
        from django.db import connection

        while True:
            retries = self._due_retries()
            if self.pending or retries:
                break
            if self.close_requested:
                connection.close()
                self.close_requested = False
                self.cond.notify_all()
            wait = IDLE_CLOSE
            if self.failed:
                wait = min(wait, max(self.retry_at - time.monotonic(), 0.01))
            if not self.cond.wait(timeout=wait) and not self.failed:
                connection.close()  # idle: give the connection back
        jobs, self.pending = self.pending, {}
        _merge_into(jobs, retries, self.sender.merge)
        if self.sender.in_order:
            # A key with a push still failing waits for its retry: in order.
            held = {key: jobs.pop(key) for key in [k for k in jobs if k in self.failed]}
            _merge_into(self.failed, held, self.sender.merge)
        return jobs

    def _run(self) -> None:
        from django.db import close_old_connections

        while True:
            with self.cond:
                jobs = self._take()
                self.in_flight, self.busy = jobs, True
            failed = jobs  # if anything below escapes, the whole batch is retried
            try:
                # An exception out of here would end this thread for good, and every later
                # push of the process with it: log it; the push finds out if the database
                # answers.
                try:
                    close_old_connections()
                except Exception:
                    log.exception("%s: closing old database connections failed", self.sender.name)
                failed = self.sender._push_now(jobs)
            finally:
                with self.cond:
                    self.busy, self.in_flight = False, {}
                    if failed:
                        self._failed(failed)
                    elif not self.failed:
                        self.pause = self.sender.first
                    self.cond.notify_all()


def _merge_into(into: dict[K, V], jobs: Mapping[K, V], merge: Callable[[V, V], V]) -> None:
    for key, mark in jobs.items():
        into[key] = merge(into[key], mark) if key in into else mark
