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
    bars = chart(run, "forum")["bars"]
    assert all(b["low_x"] <= b["high_x"] for b in bars)
    # Each bar's figures stand right of its whisker, not on it (issue 19).
    assert all(b["end_x"] > b["high_x"] for b in bars)
    assert {b["label"] for b in bars} <= {"Town", "Mafia", "Serial Killer", "Survivor"}
    # The page links back to its setup.
    assert 'href="/setups/forum-third-party-ten/"' in page


def test_a_saved_setup_and_its_simulations_are_its_owners_alone(client_for, client):
    from games import services
    from games.models import SavedSetup

    owner, stranger = UserFactory(username="owner"), UserFactory(username="stranger")
    saved = services.save_setup(
        owner, "My secret setup", {**SETUPS["forum-vanilla"].game_kwargs(), "title": "x"}
    )
    assert isinstance(saved, SavedSetup)
    mine, theirs = client_for(owner), client_for(stranger)
    assert "My secret setup" in mine.get(f"/setups/saved/{saved.pk}/").content.decode()
    assert mine.post(f"/setups/saved/{saved.pk}/simulate/", {"games": "10"}).status_code == 302
    run = SimulationRun.objects.get(saved_setup=saved)
    assert mine.get(f"/simulations/{run.pk}/").status_code == 200

    for who in (theirs, client):  # another user, and a visitor who is not logged in
        assert who.get(f"/setups/saved/{saved.pk}/").status_code == 404
        assert who.get(f"/simulations/{run.pk}/").status_code == 404
    refused = theirs.post(f"/setups/saved/{saved.pk}/simulate/", {"games": "10"})
    assert refused.status_code == 404
    assert SimulationRun.objects.count() == 1  # the stranger started nothing
    # Nor is it offered on the stranger's create page.
    assert "My secret setup" not in theirs.get("/games/new/").content.decode()
    assert theirs.get(f"/games/new/?saved={saved.pk}").status_code in (200, 302)
    assert "My secret setup" not in theirs.get(f"/games/new/?saved={saved.pk}").content.decode()
