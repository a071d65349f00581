"""What a vote does while it holds the game's row lock: no query it can do without.

Votes of one game queue on that row (``games.locks``), so every query inside the
transaction is paid by every voter waiting behind it (BENCHMARKS.md, votes under
contention). These guard the two savings: the game's ``event_seq`` is written once per
transaction, and the standing votes are read once (kept up to date after the write).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Game, GameEvent
from games.reads.vote_count import current_votes
from games.services.ballots import standing_votes
from games.services.common import game_tx
from games.services.votes import do_unvote, do_vote
from tests.conftest import slots_of

pytestmark = pytest.mark.django_db


def _queries(sql: list[str], start: str, table: str) -> int:
    return sum(1 for q in sql if q.startswith(start) and f'"{table}"' in q.split("WHERE")[0])


def test_a_vote_writes_the_event_seq_once_and_reads_the_standing_votes_once(make_game):
    game = make_game("forum-cop-doctor-nine")  # majority with lock: the vote is checked too
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    services.cast_vote(a.user, game.pk, b.pk)  # a standing vote to move
    with CaptureQueriesContext(connection) as ctx:
        services.cast_vote(a.user, game.pk, c.pk)
    sql = [q["sql"] for q in ctx.captured_queries]
    # post, vote and vote count: three events, one write of the game's event_seq
    events = _queries(sql, "INSERT", "games_gameevent")
    assert events == 3
    assert _queries(sql, "UPDATE", "games_game") == 1
    assert _queries(sql, "SELECT", "games_vote") == 1
    game.refresh_from_db()
    assert game.event_seq == GameEvent.objects.filter(game=game).order_by("-seq").first().seq


def test_the_standing_votes_kept_after_a_write_equal_a_fresh_read(make_game):
    game = make_game("forum-cop-doctor-nine")
    a, b, c, d = slots_of(game, "vanilla_townie")[:4]
    services.cast_vote(a.user, game.pk, b.pk)
    services.cast_vote(b.user, game.pk, c.pk)
    steps = [(a, d), (c, a), (b, None), (a, b), (d, b)]  # None: unvote
    with game_tx(game.pk) as tx:
        for voter, target in steps:
            voter = tx.locked.slot(voter.pk)
            standing_votes(tx)  # read, then written: the kept copy must follow
            if target is None:
                do_unvote(tx, voter, None)
            else:
                do_vote(tx, voter, tx.locked.slot(target.pk), None)
            kept = standing_votes(tx)
            fresh = current_votes(tx.phase)
            assert list(kept) == list(fresh)  # the same voters in the order cast
            assert {k: v.pk for k, v in kept.items()} == {k: v.pk for k, v in fresh.items()}
    assert Game.objects.get(pk=game.pk).event_seq == tx.game.event_seq
