"""The league through outages of the real services: nothing queued is lost, a game is made
once, its ratings land once.

* Redis (a server of the test's own, killed): the cache and the channel layer are away
  while the last seat joins and the game ends. PostgreSQL commits first: the game is made,
  seated and started, its seats are told in their inboxes, the rated ending writes its
  ratings; live delivery catches up when Redis is back.
* PostgreSQL: the matchmaker's own connection is terminated (``pg_terminate_backend``, what
  a restart does) in the middle of making the game. The whole attempt rolls back, everyone
  stays queued and the queue says why; the next sweep makes the game, once.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from games.live import publisher
from games.models import Game, GameStatus
from games.services.common import game_tx
from games.services.phases import finish
from league import services as league_services
from league.models import LeagueQueueEntry, LeagueQueueState
from notifications.models import Notification
from ratings.models import RatedGame, RatingChange
from tests.factories import UserFactory
from tests.servers import RedisServer

from .test_outages import _admin_url, _our_pid
from .ws_support import redis_layers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

VANILLA = "forum-vanilla"  # 7 seats


def _queue_up(users: list[Any]) -> None:
    for user in users:
        league_services.join_queue(user, VANILLA)  # the matchmaker runs on each commit


def test_redis_away_the_last_seat_still_makes_the_game_and_its_ratings_land_once(
    tmp_path: Any, settings: Any
) -> None:
    redis = RedisServer(tmp_path)
    settings.CACHES = {
        "default": {
            "BACKEND": "mafia_site.redis_cache.RedisCache",  # the site's
            "LOCATION": redis.url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.CHANNEL_LAYERS = redis_layers(url=redis.url)
    settings.LIVE_PUBLISH_IN_BACKGROUND = True  # as the web server publishes
    users = [UserFactory(username=f"rq{i}") for i in range(7)]
    try:
        _queue_up(users[:6])
        redis.stop()
        _queue_up(users[6:])

        game = Game.objects.get(league_setup=VANILLA)
        assert game.status == GameStatus.RUNNING and game.rated
        assert game.slots.count() == 7 and not LeagueQueueEntry.objects.exists()
        told = Notification.objects.filter(kind="game_started", user__in=users)
        assert told.count() == 7
        assert LeagueQueueState.objects.get(setup=VANILLA).last_game_id == game.pk

        with game_tx(game.pk) as tx:  # the game ends while Redis is still away
            finish(tx, "town", "The test says so.", [])
        game.refresh_from_db()
        assert game.is_finished
        assert RatedGame.objects.filter(game=game).count() == 1
        assert RatingChange.objects.filter(game=game).count() == 14  # overall + side, 7 seats

        redis.start()
        assert publisher.wait_until_published(30), "live delivery did not catch up"
    finally:
        redis.stop()


def test_postgres_cut_mid_match_keeps_everyone_queued_and_the_sweep_makes_the_game(
    monkeypatch: Any,
) -> None:
    users = [UserFactory(username=f"pq{i}") for i in range(7)]
    _queue_up(users[:6])
    real_start = league_services.start_game
    cuts: list[int] = []

    def start_after_a_cut(*args: Any, **kwargs: Any) -> Any:
        # Players joined, the game not yet started: our own session is cut, as by a restart.
        pid = _our_pid()
        with psycopg.connect(_admin_url(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        cuts.append(pid)
        return real_start(*args, **kwargs)

    monkeypatch.setattr(league_services, "start_game", start_after_a_cut)
    _queue_up(users[6:])
    assert cuts, "the matchmaker did not reach the game's start"

    # Nothing of the attempt stayed: no game, every entry queued, the queue says why.
    assert not Game.objects.filter(league_setup=VANILLA).exists()
    assert LeagueQueueEntry.objects.filter(setup=VANILLA).count() == 7
    assert "could not be made" in LeagueQueueState.objects.get(setup=VANILLA).problem

    monkeypatch.setattr(league_services, "start_game", real_start)
    league_services.sweep_queues()
    league_services.sweep_queues()  # a second sweep finds nobody waiting: no second game
    game = Game.objects.get(league_setup=VANILLA)
    assert game.status == GameStatus.RUNNING
    assert sorted(s.user_id for s in game.slots.all()) == sorted(u.pk for u in users)
    assert not LeagueQueueEntry.objects.exists()
    assert LeagueQueueState.objects.get(setup=VANILLA).last_game_id == game.pk
