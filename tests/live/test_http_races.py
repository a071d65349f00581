"""Races through the real HTTP stack: uvicorn serving the ASGI app on the test database,
players as token-authenticated API clients in threads, nothing mocked.

* 50 players voting and unvoting at once, three rounds: the final count is exactly the
  replay, in commit order (the posts' numbers), of the requests that were accepted.
* Two hammers at the same instant: one elimination, the other vote refused with a message.
* A night action sent at the instant the deadline fires: either counted in the night's
  resolution or refused with a message, never stored and ignored.

(Two workers firing one deadline: ``test_deadlines.test_double_fire_on_two_workers_...``.)
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.models import NightAction, Phase, Slot
from tests.factories import person_key
from tests.servers import AsgiServer

from .celery_support import events_of, make_running_game, phase_number
from .celery_support import test_database_url as db_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

FIFTY = [{"role": "vanilla_townie", "count": 45}, {"role": "goon", "count": 5}]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[AsgiServer]:
    with django_db_blocker.unblock():
        url = db_url()
    # No watchdog (lifespan off): the tests decide when deadlines fire.
    srv = AsgiServer(
        {"DATABASE_URL": url, "DB_POOL_SIZE": "8", "DEADLINE_WATCHDOG_SECONDS": "0"},
        tmp_path_factory.mktemp("asgi") / "asgi.log",
        lifespan="off",
    )
    try:
        yield srv
    finally:
        srv.stop()


class Client:
    """One player's keep-alive HTTP connection with their API token."""

    def __init__(self, server: AsgiServer, user: Any) -> None:
        self.token = person_key(user)
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)

    def post(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        self.conn.request(
            "POST",
            path,
            body=json.dumps(body or {}),
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def get(self, path: str) -> tuple[int, dict]:
        self.conn.request("GET", path, headers={"Authorization": f"Token {self.token}"})
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def close(self) -> None:
        self.conn.close()


def _all_at_once(jobs: list) -> list:
    """Run each job in its own thread, released together by a barrier."""
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = jobs[i]()
        except Exception as exc:  # reported by the assertions, not lost in a thread
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    return results


def _standing(count: dict) -> dict[int, int | None]:
    """voter slot id -> target slot id (None: no elimination), from the API's vote count."""
    standing = {}
    for wagon in count["wagons"]:
        target = wagon["target"]["slot_id"] if wagon["target"] else None
        for voter in wagon["voters"]:
            standing[voter["slot_id"]] = target
    return standing


def test_fifty_players_voting_and_unvoting_at_once_count_exactly(server):
    game, _, _ = make_running_game(
        role_list=FIFTY, vote_rule="plurality", day_length=timedelta(hours=1)
    )
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    clients = {s.pk: Client(server, s.user) for s in slots}
    ids = [s.pk for s in slots]
    base = f"/api/v1/games/{game.pk}"
    rng = random.Random(11)
    try:
        for round_no in range(3):
            # Eight wagons, no elimination, and unvotes (self-votes are not allowed).
            plans = {
                pk: [
                    rng.choice([*(t for t in ids[:8] if t != pk), None, "unvote"]) for _ in range(4)
                ]
                for pk in ids
            }

            def player(pk: int, plan: list) -> list[tuple[int, Any, int, dict]]:
                done = []
                for choice in plan:
                    if choice == "unvote":
                        status, body = clients[pk].post(f"{base}/unvote/")
                    else:
                        status, body = clients[pk].post(f"{base}/vote/", {"target": choice})
                    done.append((pk, choice, status, body))
                return done

            results = _all_at_once([lambda pk=pk, p=plans[pk]: player(pk, p) for pk in ids])
            errors = [r for r in results if isinstance(r, Exception)]
            assert not errors, errors
            accepted, refused = [], []
            for per_player in results:
                for pk, choice, status, body in per_player:
                    if status == 200:
                        accepted.append((body["post"]["number"], pk, choice))
                    else:
                        assert 400 <= status < 500 and body.get("error"), (status, body)
                        refused.append((pk, choice, body["code"]))
            assert accepted, "no request was accepted"
            # Every refusal is an unvote with no standing vote (nothing else can fail here).
            assert {r[1] for r in refused} <= {"unvote"}, refused[:5]

            for c in clients.values():
                c.close()  # idle past uvicorn's keep-alive from here: reconnect when next used
            # Replay the accepted requests in commit order: each is one post, numbered in
            # the order the game's row lock let them through.
            numbers = [n for n, _, _ in accepted]
            assert len(set(numbers)) == len(numbers), "two accepted votes share a post"
            replay: dict[int, int | None] = {}
            for _, pk, choice in sorted(accepted):
                if choice == "unvote":
                    replay.pop(pk, None)
                else:
                    replay[pk] = choice
            status, count = clients[ids[0]].get(f"{base}/vote-count/")
            assert status == 200
            assert _standing(count) == replay, f"round {round_no}"
            assert sum(w["count"] for w in count["wagons"]) == len(replay)
    finally:
        for c in clients.values():
            c.close()
    assert phase_number(game) == 1  # plurality: nothing ended the day


def test_two_simultaneous_hammers_eliminate_once(server):
    for _ in range(3):
        _hammer_race(server)


def _hammer_race(server: AsgiServer) -> None:
    game, _, _ = make_running_game(vote_rule="majority_hammer", day_length=timedelta(hours=1))
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    target, first, second = slots[0], slots[-1], slots[-2]
    for voter in slots[1:4]:  # 3 of 7: one more is majority
        services.cast_vote(voter.user, game.pk, target.pk)
    a, b = Client(server, first.user), Client(server, second.user)
    path = f"/api/v1/games/{game.pk}/vote/"
    try:
        results = _all_at_once(
            [
                lambda: a.post(path, {"target": target.pk}),
                lambda: b.post(path, {"target": target.pk}),
            ]
        )
    finally:
        a.close()
        b.close()
    statuses = sorted(r[0] for r in results)
    assert statuses[0] == 200 and 400 <= statuses[1] < 500, results
    hammers = [body for status, body in results if status == 200 and body["day_ended"]]
    assert len(hammers) == 1, results
    refused = next(body for status, body in results if status != 200)
    assert refused["error"], refused  # refused with a message: the day is over
    assert len(events_of(game, "day_ended")) == 1
    assert Slot.objects.filter(game=game, alive=False).count() == 1
    target.refresh_from_db()
    assert not target.alive
    assert phase_number(game) == 2


def test_night_action_at_the_instant_the_deadline_fires(server):
    # The request leaves from a little before to a little after the deadline fires.
    outcomes = [_night_action_race(server, lag) for lag in (-0.1, -0.02, 0, 0.01, 0.03, 0.3)]
    print(f"\nnight action at the deadline: {outcomes}")


def _night_action_race(server: AsgiServer, lag: float) -> str:
    game, host, _ = make_running_game(night_length=timedelta(hours=1))
    services.cut_deadline_now(host, game.pk)  # to Night 2
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    goon = next(s for s in slots if s.role == "goon")
    victim = next(s for s in slots if s.alignment != "mafia")
    ability = next(
        o["ability"] for o in services.night_options(game, goon) if victim.pk in o["choices"]
    )
    # Due a moment from now: the resolution and the request race for the row lock.
    due = timezone.now() + timedelta(milliseconds=150)
    Phase.objects.filter(game=game, number=2).update(deadline=due)
    client = Client(server, goon.user)
    path = f"/api/v1/games/{game.pk}/actions/"

    def fire() -> bool:
        time.sleep(max((due - timezone.now()).total_seconds(), 0))
        try:
            return services.advance_phase(game.pk, 2)
        finally:
            connection.close()  # this thread's own connection

    def send() -> tuple[int, dict]:
        time.sleep(max((due - timezone.now()).total_seconds() + lag, 0))
        return client.post(path, {"ability": ability, "targets": [victim.pk]})

    try:
        (status, body), advanced = _all_at_once([send, fire])
    finally:
        client.close()
    assert advanced is True, advanced
    victim.refresh_from_db()
    night = Phase.objects.get(game=game, number=2)
    assert night.resolved and len(events_of(game, "night_ended")) == 1
    if status in (200, 201):
        # Accepted: it was in before the resolution, and the resolution counted it.
        assert NightAction.objects.filter(phase=night, actor=goon).exists()
        assert not victim.alive
        return "counted"
    # Refused because the night is over, saying so: not for any other reason.
    # (``turn_ended`` when it arrives past the deadline before the resolution has run).
    assert status == 409 and body["code"] in ("not_night", "turn_ended") and body["error"], (
        status,
        body,
    )
    assert not NightAction.objects.filter(phase=night, actor=goon).exists()
    assert victim.alive
    return "refused"
