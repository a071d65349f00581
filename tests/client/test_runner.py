"""The strategy runner plays a whole table game: nine library bots (the reference bot's
``Bot``, a ``mafia_client.Strategy``) each driven by ``mafia_client.play_async`` over its
own live stream, and the reference bot's stream-driven host cutting the nights."""

from __future__ import annotations

import asyncio
from typing import Any

import mafia_client
import pytest

from tests.bots import reference_bot
from tests.factories import UserFactory, person_key

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(420)]


@pytest.mark.slow
def test_library_bots_play_a_table_game_to_the_end(site):
    bots = reference_bot()

    def api(name: str) -> Any:
        user = UserFactory(username=name)
        return bots.Api(site.url, person_key(user), username=name)

    host = api("libhost")
    game = host.post(
        "games/",
        {"title": "Library bots", "setup": "power-nine", "turn_length_seconds": 30,
         "vote_length_seconds": 30},
    )  # fmt: skip
    players = [api(f"lib{i}") for i in range(game["player_cap"])]
    for p in players:
        p.post(f"games/{game['id']}/join/")
    host.post(f"games/{game['id']}/start/")
    strategies = [bots.Bot(p, game["id"], seed=i) for i, p in enumerate(players)]
    reads = count_turn_reads(players)

    async def table() -> list[Any]:
        seats = [
            mafia_client.play_async(p.client, game["id"], s, timeout=360)
            for p, s in zip(players, strategies, strict=True)
        ]
        return await asyncio.gather(bots.host(host, game["id"], 0), *seats)

    finished = asyncio.run(table())
    assert all(isinstance(g, mafia_client.Game) and g.over for g in finished)
    assert finished[0].status == "finished" and finished[0].winner
    # Each seat moved through its strategy, and the days were played, not timed out only.
    assert all(s.moves > 0 for s in strategies)
    days = [p for p in host.get(f"games/{game['id']}/host/")["phases"] if p["kind"] == "day"]
    assert days and all(p["resolved"] for p in days)
    # A seat reads the state when the stream says something may concern it (its turn, a
    # phase change), not after every speech at the table: before that rule, 11 reads a
    # move (3,979 for 353); now about 2.5.
    moves, phases = sum(s.moves for s in strategies), len(days) * 2 + 1
    assert sum(reads) <= 3 * moves + 2 * len(players) * phases, (reads, moves, phases)


def count_turn_reads(players: list[Any]) -> list[int]:
    """Each seat's ``turn/`` reads, counted as they happen."""
    counts = [0] * len(players)
    for i, p in enumerate(players):
        real = p.client.turn

        def counted(*args: Any, _i: int = i, _real: Any = real) -> Any:
            counts[_i] += 1
            return _real(*args)

        p.client.turn = counted
    return counts
