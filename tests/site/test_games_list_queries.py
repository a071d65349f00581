"""``GET /api/v1/games/`` reads its games' slots and phases once, not once per game.

Found by the site load test (issue 22, BENCHMARKS.md "Site capacity"): the list of the
newest 100 games cost 493 queries (per game: the current phase, a count of the slots, and
a query for each private thread whether the game has it), 2.8 s on a loaded box. The list
must answer exactly what each game's own read answers, with queries that do not grow with
the number of games.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from games.api import serializers as s
from games.models import Game
from games.reads.access import Viewer


def _games(make_game: Any, count: int) -> None:
    """Games of every shape the list shows: running (with a mafia chat, with masons), at
    sign-ups, and finished."""
    setups = ["forum-vanilla", "power-nine", "forum-cop-doctor-nine", "forum-newbie-seven"]
    for i in range(count):
        make_game(setups[i % len(setups)], start=i % 5 != 4, seed=i)


def _list(client: Client) -> tuple[list[dict[str, Any]], int]:
    with CaptureQueriesContext(connection) as queries:
        answer = client.get("/api/v1/games/")
    assert answer.status_code == 200
    return answer.json(), len(queries.captured_queries)


def test_the_games_list_costs_the_same_queries_for_few_and_many_games(
    make_game: Any, client_for: Any
) -> None:
    client = client_for(None)
    _games(make_game, 3)
    few, few_queries = _list(client)
    _games(make_game, 9)
    many, many_queries = _list(client)
    assert (len(few), len(many)) == (3, 12)
    assert many_queries == few_queries, (few_queries, many_queries)
    assert many_queries <= 6


def test_the_games_list_answers_what_each_game_reads_alone(
    make_game: Any, client_for: Any, host: Any
) -> None:
    _games(make_game, 10)
    finished = Game.objects.filter(status="signups").first()
    finished.status = "finished"
    finished.save(update_fields=["status"])
    for user in (None, host, Game.objects.first().slots.first().user):
        listed, _queries = _list(client_for(user))
        request_user = user if user is not None else _anonymous()
        for item in listed:
            game = Game.objects.select_related("host").get(pk=item["id"])
            alone = s.game_data(game, Viewer(game, request_user, None), players=False)
            assert item == json.loads(JSONRenderer().render(alone)), item["id"]


def _anonymous() -> Any:
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()
