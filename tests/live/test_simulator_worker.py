"""The balance simulator on a real Celery worker: the run's progress is saved as it goes
and the win rates land in the database."""

from __future__ import annotations

import pytest

from games.models import SimulationRun
from games.tasks import simulate_setup

from .celery_support import SESSION_QUEUE, Worker, app_on_test_broker, purge_queue, wait_for

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True), pytest.mark.timeout(90)]


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        started = Worker(SESSION_QUEUE, name="simulator")
    try:
        yield started
    finally:
        started.stop()
        purge_queue(SESSION_QUEUE)


def test_a_worker_plays_the_simulation(worker):
    run = SimulationRun.objects.create(setup="forum-third-party-ten", games=300)
    with app_on_test_broker():
        simulate_setup.delay(run.pk)

    def finished() -> bool:
        run.refresh_from_db()
        return run.status == "done"

    wait_for(finished, timeout=60, what="the simulation to finish")
    assert run.done == 300 and {"mafia", "town"} <= set(run.wins)
