"""League queues under concurrent requests, through the real HTTP stack on PostgreSQL
(uvicorn, token-authenticated API clients in threads released together, nothing mocked).

Found by a probe and reproduced here before the fix (``league.services``):

* three joins of one person at once left them in two or three queues (18 of 25 trials);
* two joins at once, each filling a queue, seated one person in two running games;
* a leave that answered 200 while the matchmaker was seating its queue was seated anyway
  (3 of 5 trials).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.models import GameStatus, Slot
from league.models import LeagueQueueEntry
from tests.factories import UserFactory

from .test_http_races import Client, _all_at_once, server  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

SEVEN = ("forum-vanilla", "forum-newbie-seven")  # 7 seats each
TRIALS = 5


def _people(prefix: str, n: int) -> list[Any]:
    return [UserFactory(username=f"{prefix}{i}") for i in range(n)]


def _join(client: Client, setup: str) -> tuple[int, dict]:
    return client.post(f"/api/v1/queues/{setup}/join/")


def _joins_at_once(clients: list[Client], setups: tuple[str, ...]) -> list:
    pairs = zip(clients, setups, strict=True)
    return _all_at_once([lambda c=c, s=s: _join(c, s) for c, s in pairs])


def _running_league_seats(user: Any) -> list[int]:
    return list(
        Slot.objects.filter(user=user, game__status=GameStatus.RUNNING)
        .exclude(game__league_setup="")
        .values_list("game_id", flat=True)
    )


def test_one_persons_joins_at_once_leave_them_in_one_queue(server):  # noqa: F811
    setups = ("forum-vanilla", "forum-newbie-seven", "forum-cop-nine")
    for trial in range(TRIALS):
        (person,) = _people(f"joiner{trial}-", 1)
        clients = [Client(server, person) for _ in setups]
        try:
            answers = _joins_at_once(clients, setups)
        finally:
            for client in clients:
                client.close()
        assert all(status == 200 for status, _ in answers), answers
        queues = list(LeagueQueueEntry.objects.filter(user=person).values_list("setup", flat=True))
        assert len(queues) == 1, (trial, queues)


def test_two_joins_that_each_fill_a_queue_seat_a_person_once(server):  # noqa: F811
    for trial in range(TRIALS):
        for setup in SEVEN:  # six wait in each queue: the next join fills it
            for user in _people(f"wait{trial}{setup[-5:]}-", 6):
                waiting = Client(server, user)
                assert _join(waiting, setup)[0] == 200
                waiting.close()
        (person,) = _people(f"both{trial}-", 1)
        clients = [Client(server, person) for _ in SEVEN]
        try:
            _joins_at_once(clients, SEVEN)
        finally:
            for client in clients:
                client.close()
        seats = _running_league_seats(person)
        queued = LeagueQueueEntry.objects.filter(user=person).count()
        assert len(seats) + queued == 1, (trial, seats, queued)
        LeagueQueueEntry.objects.all().delete()  # the next trial starts from empty queues


def test_a_leave_that_answers_200_is_never_seated(server):  # noqa: F811
    setup = SEVEN[0]
    for trial in range(TRIALS):
        five = _people(f"five{trial}-", 5)
        leaver, last = _people(f"leaver{trial}-", 1)[0], _people(f"last{trial}-", 1)[0]
        for user in [*five, leaver]:
            client = Client(server, user)
            assert _join(client, setup)[0] == 200
            client.close()
        leaving, joining = Client(server, leaver), Client(server, last)
        try:
            (left, _), (joined, _) = _all_at_once(
                [
                    lambda c=leaving: c.post(f"/api/v1/queues/{setup}/leave/"),
                    lambda c=joining: _join(c, setup),
                ]
            )
        finally:
            leaving.close()
            joining.close()
        assert joined == 200
        seated = bool(_running_league_seats(leaver))
        if left == 200:
            assert not seated, f"trial {trial}: the leave answered {left} and was seated"
        else:
            assert left == 422 and seated, (trial, left, seated)
        LeagueQueueEntry.objects.all().delete()
