"""The Celery worker itself survives Redis outages: same process, consuming again.

A real worker started as production starts it (prefork pool, concurrency 2, mingle, gossip
and heartbeats on; docker-compose.yml, scripts/run.sh) and a real beat, on a Redis of the
test's own (``RedisServer``: its own port, never the machine's). Redis is killed for 20 s,
twice, each time while the worker holds a deadline's ETA task (unacknowledged, as every
short phase's deadline is held) that falls after the outage: the case that made kombu's
reconnection crash the worker. Each deadline still ends its phase once Redis is back, and
a deadline set after the last outage too, which only beat's scan through the broker and
this worker can do (no ETA task, no web watchdog here). The worker is the same process
throughout and never logged an "Unrecoverable error": ``scripts/run.sh``'s supervisor and
docker's restart policy are the second line, not what keeps deadlines alive.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import pytest
import redis as redis_lib
from django.utils import timezone

from games.models import DeadlineSweep, Phase
from games.scheduling import ADVANCE_PHASE_TASK
from tests.servers import RedisServer

from .celery_support import Beat, Worker, app_on_test_broker, make_running_game, phase_number
from .celery_support import wait_for as _wait_for

pytestmark = [pytest.mark.celery, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OUTAGE_SECONDS = 20
OUTAGES = 2


def _deadline_in(game, seconds: float, *, hook: bool = False) -> None:
    """Move the open phase's deadline. ``hook``: through the scheduling hook, which queues
    its ETA task; otherwise a bare update that only the scan can notice."""
    deadline = timezone.now() + timedelta(seconds=seconds)
    if not hook:
        Phase.objects.filter(game=game, number=phase_number(game)).update(deadline=deadline)
        return
    phase = Phase.objects.get(game=game, number=phase_number(game))
    phase.deadline = deadline
    phase.save(update_fields=["deadline"])


def _holds_deadline(url: str, game, phase: int) -> bool:
    """The deadline's task of that phase is delivered and not acknowledged (kombu keeps
    such messages in the Redis hash ``unacked``)."""
    client = redis_lib.Redis.from_url(url)
    try:
        held = client.hvals("unacked")
    finally:
        client.close()
    for raw in held:
        headers = json.loads(raw)[0]["headers"]
        if headers["task"] == ADVANCE_PHASE_TASK and headers["argsrepr"] == f"({game.pk}, {phase})":
            return True
    return False


@pytest.mark.timeout(400)
def test_worker_survives_two_redis_outages_and_consumes_again(tmp_path):
    redis = RedisServer(tmp_path)
    queue = f"survive-{uuid.uuid4().hex[:8]}"
    worker = beat = None

    def wait_for(predicate, *, timeout: float, what: str):
        """``wait_for`` that fails at once, with the worker's log, if the worker exited."""

        def check():
            if worker.proc.poll() is not None:
                raise AssertionError(
                    f"the worker exited ({worker.proc.returncode}) while waiting for {what}:\n"
                    f"{worker.log()[-6000:]}"
                )
            return predicate()

        return _wait_for(check, timeout=timeout, what=what)

    try:
        with app_on_test_broker(queue, url=redis.url):
            game, _, _ = make_running_game(
                day_length=timedelta(hours=1), night_length=timedelta(hours=1)
            )
            worker = Worker(
                queue,
                name="survivor",
                pool="prefork",
                concurrency=2,
                production=True,
                REDIS_URL=redis.url,
            )
            pid = worker.proc.pid
            beat = Beat(queue, tmp_path, seconds=1, REDIS_URL=redis.url)
            wait_for(
                lambda: DeadlineSweep.objects.filter(sweeper="celery").exists(),
                timeout=60,
                what="the first scan through Redis",
            )

            for outage in range(1, OUTAGES + 1):
                phase = phase_number(game)
                # The scheduling hook (what extend/cut do) queues the deadline's ETA task;
                # the worker receives it and holds it unacknowledged until it is due.
                _deadline_in(game, OUTAGE_SECONDS + 15, hook=True)
                wait_for(
                    lambda phase=phase: _holds_deadline(redis.url, game, phase),
                    timeout=30,
                    what="the worker to hold the deadline's ETA task",
                )
                redis.stop()
                time.sleep(OUTAGE_SECONDS)
                assert phase_number(game) == phase
                redis.start()
                wait_for(
                    lambda phase=phase: phase_number(game) == phase + 1,
                    timeout=120,
                    what=f"the deadline held through outage {outage} to end the phase",
                )
                assert worker.proc.pid == pid and worker.proc.poll() is None

            # Scheduled after the outages, with no ETA task: only the scan, through the
            # broker and this worker, can end it.
            phase = phase_number(game)
            _deadline_in(game, 2)
            wait_for(
                lambda: phase_number(game) == phase + 1,
                timeout=60,
                what="a deadline set after the outages to end the phase",
            )
            time.sleep(3)  # a worker dying on the way out of the reconnection shows by now

            log = worker.log()
            assert worker.proc.poll() is None, f"the worker exited:\n{log[-6000:]}"
            assert "Unrecoverable error" not in log, log[-6000:]
            # Both outages were seen (and survived) by this process.
            assert log.count("Connection to broker lost") >= OUTAGES, log[-6000:]
            assert beat.proc.poll() is None, beat.log_path.read_text()[-3000:]
    finally:
        if worker is not None:  # kept beside the test's other files for a failure's story
            (tmp_path / "worker.log").write_text(worker.log())
        for proc in (worker, beat):
            if proc is not None:
                proc.stop()
        redis.stop()
    assert phase_number(game) == 2 + OUTAGES
