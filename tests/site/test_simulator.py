"""The balance simulator: random-but-legal bot games through the resolver, win rates with
Wilson intervals, and its pages (the task is run in-process here; with a real Celery worker
in tests/live/test_simulator_worker.py)."""

from __future__ import annotations

import random

import pytest

from games import simulator
from games.models import SimulationRun
from games.setups import SETUPS
from games.tasks import simulate_setup
from games.views.simulation import chart
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_wilson_interval():
    assert simulator.wilson(0, 0) == (0.0, 1.0)
    low, high = simulator.wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    low, high = simulator.wilson(0, 20)
    assert low == 0.0 and 0 < high < 0.17  # not the empty interval p ± z·se gives


@pytest.mark.parametrize("slug", [s for s, v in SETUPS.items() if v.ruleset == "forum"])
def test_every_forum_setup_plays_to_an_end(slug):
    setup = SETUPS[slug].game_kwargs()
    rng = random.Random(3)
    factions = set(setup_factions(setup)) | {"draw"}
    for _ in range(20):
        winners = simulator.play_one(setup, rng)
        assert winners and set(winners) <= factions, winners


def setup_factions(setup):
    from resolver.rulesets import get_ruleset

    rules = get_ruleset(setup["ruleset"])
    return {e.get("alignment") or rules.roles[e["role"]].alignment for e in setup["role_list"]}


def test_simulate_is_reproducible_and_reports_progress():
    setup = SETUPS["forum-third-party-ten"].game_kwargs()
    seen = []
    one = simulator.simulate(setup, 60, seed=5, progress=lambda d, w: seen.append(d), every=20)
    two = simulator.simulate(setup, 60, seed=5)
    assert one == two and seen == [20, 40, 60]
    assert sum(r.wins for r in one if r.faction != "survivor") <= 60
    assert all(r.low <= r.rate <= r.high for r in one)
    assert {"mafia", "town"} <= {r.faction for r in one}


def test_the_simulator_pages(client_for):
    user = UserFactory(username="sim")
    c = client_for(user)
    page = c.get("/setups/forum-third-party-ten/").content.decode()
    assert "Town 1-Shot Day Vigilante" in page and 'id="simulate-form"' in page
    assert c.post("/setups/forum-third-party-ten/simulate/", {"games": "0"}).status_code == 302
    assert c.post("/setups/forum-third-party-ten/simulate/", {"games": "x"}).status_code == 302
    assert not SimulationRun.objects.exists()
    assert c.get("/setups/no-such-setup/").status_code == 404
    run = SimulationRun.objects.create(setup="forum-third-party-ten", games=40, requested_by=user)
    running = c.get(f"/simulations/{run.pk}/").content.decode()
    assert 'http-equiv="refresh"' in running and "0 of 40" in running
    simulate_setup(run.pk)  # what the worker runs
    run.refresh_from_db()
    assert run.status == "done" and run.done == 40 and sum(run.wins.values()) >= 40
    page = c.get(f"/simulations/{run.pk}/").content.decode()
    assert "<svg" in page and 'http-equiv="refresh"' not in page and "Mafia" in page
    bars = chart(run)["bars"]
    assert all(b["low_x"] <= b["high_x"] for b in bars)
