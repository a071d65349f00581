"""Agents in the league through the client library, against a real site: many agents join
a queue at the same moment and each is handed the game it is seated in.

Found before the fix: ten agents calling ``join_queue()`` then ``wait_for_game()`` at once
(the documented way) all hung: the join that fills the table starts the game at once,
before any of them had its inbox socket open, and ``wait_for_game`` took the games running
when its socket opened as known. ``join_queue`` now reads the queue's ``latest_game``
before the join and waits for it to change. With that fixed, ten joins at once still made
no game: each join's matcher skipped the people the others held and found "Waiting for 2
more" (a full queue until the sweep, which the tests' server does not run); matchers of a
setup now run one at a time (``league.services``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from mafia_client import Client, Game

from agents import services as agent_services
from games.models import GameStatus, Slot
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


def agents(site: Any, prefix: str, n: int) -> list[Client]:
    """``n`` agent accounts of one owner, each a client with its own agent token."""
    owner = UserFactory(username=f"{prefix}owner")
    clients = []
    for i in range(n):
        name = f"{prefix}{i}"
        agent_services.register_agent(owner, name)
        key = agent_services.create_token(owner, name).key
        clients.append(Client(site.url, key, username=name))
    return clients


def all_at_once(calls: list[Callable[[], Any]], timeout: float) -> list[Any]:
    """Each call in its own thread, released together; their answers (or exceptions)."""
    answers: list[Any] = [None] * len(calls)
    gate = threading.Barrier(len(calls))

    def run(i: int) -> None:
        gate.wait()
        try:
            answers[i] = calls[i]()
        except Exception as exc:  # kept: the assertion says which agent and why
            answers[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return answers


def seated_in(client: Client) -> set[int]:
    return set(
        Slot.objects.filter(user__username=client.username, game__status=GameStatus.RUNNING)
        .exclude(game__league_setup="")
        .values_list("game_id", flat=True)
    )


def test_ten_agents_joining_at_once_each_get_their_game(site):
    clients = agents(site, "tenjoin", 10)
    games = all_at_once([lambda c=c: c.join_queue("classic-ten", timeout=60) for c in clients], 90)
    assert all(isinstance(g, Game) for g in games), games
    (game_id,) = {g.id for g in games}
    assert all(g.status == "running" and g.league_setup == "classic-ten" for g in games)
    assert all(seated_in(c) == {game_id} for c in clients)


def test_fourteen_agents_fill_two_tables_and_each_gets_its_own(site):
    clients = agents(site, "twotables", 14)
    games = all_at_once(
        [lambda c=c: c.join_queue("forum-vanilla", timeout=60) for c in clients], 90
    )
    assert all(isinstance(g, Game) for g in games), games
    assert len({g.id for g in games}) == 2
    for client, game in zip(clients, games, strict=True):
        assert seated_in(client) == {game.id}, client.username


def test_join_queue_waits_for_the_join_that_fills_the_table(site):
    """Six wait with their sockets open; the seventh's join starts the game, and its own
    answer names it; all seven are handed that game."""
    clients = agents(site, "waiter", 7)
    seventh = clients.pop()
    found: list[Any] = []
    joins = [lambda c=c: c.join_queue("forum-vanilla", timeout=60) for c in clients]
    waiting = threading.Thread(target=lambda: found.extend(all_at_once(joins, 90)), daemon=True)
    waiting.start()
    deadline = time.monotonic() + 30
    while seventh.queue("forum-vanilla").waiting < 6:
        assert time.monotonic() < deadline, "the six never all queued"
        time.sleep(0.2)
    time.sleep(1)  # their inbox sockets are open: they wait on them now
    game = seventh.join_queue("forum-vanilla", timeout=60)
    waiting.join(90)
    assert [g.id if isinstance(g, Game) else g for g in found] == [game.id] * 6
    assert seated_in(seventh) == {game.id}
    # Joined again while seated: refused already_playing, and handed that game.
    assert seventh.join_queue("forum-vanilla", timeout=30).id == game.id


def test_a_wait_that_timed_out_is_taken_up_by_joining_again(site):
    """``join_queue`` that times out leaves the agent queued; calling it again (answered
    ``already_queued``) waits on, and the game made meanwhile or later is handed over."""
    clients = agents(site, "again", 7)
    first = clients.pop()
    with pytest.raises(TimeoutError):
        first.join_queue("forum-vanilla", timeout=1)
    assert first.queue("forum-vanilla").queued
    games = all_at_once(
        [lambda c=c: c.join_queue("forum-vanilla", timeout=60) for c in [first, *clients]], 90
    )
    assert all(isinstance(g, Game) for g in games), games
    assert len({g.id for g in games}) == 1 and seated_in(first) == {games[0].id}
