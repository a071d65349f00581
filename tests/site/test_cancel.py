"""A host cancels a game in sign-ups: it leaves the lobby, the thread keeps the
announcement to those who signed up, its page says it was cancelled, and nothing more can
happen in it. Refused to anyone but the host, and once the game has started."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.errors import NotAllowed, WrongPhase
from games.models import GameEvent, GameStatus, Post
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_host_cancels_from_the_dashboard(make_game, host):
    game = make_game("forum-vanilla", start=False)
    signed_up = [s.user.username for s in game.slots.order_by("seat")]
    assert f"/games/{game.pk}/" in Client().get("/").content.decode()  # in the lobby
    dashboard = _client(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "Cancel the game" in dashboard and "data-confirm" in dashboard
    answer = _client(host).post(
        f"/games/{game.pk}/host/cancel/", {"reason": "Not enough time this month"}, follow=True
    )
    assert [str(m) for m in answer.context["messages"]] == [
        "The game is cancelled; the thread says so to everyone who signed up."
    ]
    game.refresh_from_db()
    assert game.status == GameStatus.CANCELLED
    # the announcement stays in the thread, naming everyone who had signed up
    post = Post.objects.filter(game=game, is_auto=True).get()
    assert post.is_host and "cancelled this game" in post.body
    assert "Not enough time this month" in post.body
    assert all(name in post.body for name in signed_up)
    assert GameEvent.objects.filter(game=game, kind="game_cancelled").count() == 1
    # out of the lobby; its page still loads and says so
    assert f"/games/{game.pk}/" not in Client().get("/").content.decode()
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert "the host cancelled this game during sign-ups" in page
    assert "cancelled this game" in page  # the post


def test_nothing_more_happens_in_a_cancelled_game(make_game, host):
    game = make_game("forum-vanilla", start=False)
    player = game.slots.first().user
    services.cancel_game(host, game.pk)
    late = UserFactory(username="late")
    for refused in (
        lambda: services.join_game(late, game.pk),
        lambda: services.start_game(host, game.pk),
        lambda: services.submit_post(player, game.pk, body="so no game?"),
        lambda: services.cancel_game(host, game.pk),
        lambda: services.join_queue(late, game.pk),
    ):
        with pytest.raises(WrongPhase):
            refused()


def test_only_the_host_and_only_in_sign_ups(make_game, host):
    waiting = make_game("forum-vanilla", start=False)
    with pytest.raises(NotAllowed, match="Only the host"):
        services.cancel_game(waiting.slots.first().user, waiting.pk)
    running = make_game("forum-vanilla")
    with pytest.raises(WrongPhase, match="Only a game in sign-ups"):
        services.cancel_game(host, running.pk)
    running.refresh_from_db()
    assert running.status == GameStatus.RUNNING


def test_the_api_cancels_and_refuses_with_codes(make_game, host):
    game = make_game("forum-vanilla", start=False)
    url = f"/api/v1/games/{game.pk}/host/cancel/"
    player = _client(game.slots.first().user)
    refused = player.post(url, {}, "application/json")
    assert refused.status_code == 403 and refused.json()["code"] == "not_host"
    done = _client(host).post(url, {"reason": "host away"}, "application/json")
    assert done.status_code == 200, done.json()
    assert done.json()["game"]["status"] == "cancelled"
    again = _client(host).post(url, {}, "application/json")
    assert again.status_code == 409 and again.json()["code"] == "cancelled"
    running = make_game("forum-vanilla")
    started = _client(host).post(f"/api/v1/games/{running.pk}/host/cancel/", {}, "application/json")
    assert started.status_code == 409 and started.json()["code"] == "signups_closed"
    listed = Client().get("/api/v1/games/", {"status": "signups"}).json()
    assert game.pk not in [g["id"] for g in listed]
