"""Duplicate series (``league.series``): one deal replayed with the entrants rotated through
the seats, the next game started by the previous one's end, scores per entrant, and the
pages and API that show them without anything a game's own pages hide."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from games import services
from games.errors import ErrorCode, GameRuleError
from games.models import Agent, Game, GameStatus, Slot
from league import series as series_services
from league import services as league_services
from league.models import Series, SeriesGame, SeriesStatus
from league.reads import series_detail
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

VANILLA = "forum-vanilla"  # 7 seats: two goons, five vanilla townies


@pytest.fixture
def staff() -> Any:
    return UserFactory(username="organiser", is_staff=True)


@pytest.fixture
def entrants() -> list[Any]:
    """Seven entrants, the last two agents (a person's)."""
    people = [UserFactory(username=f"entrant{i}") for i in range(5)]
    owner = UserFactory(username="botmaker")
    for i in (5, 6):
        bot = UserFactory(username=f"entrant{i}")
        Agent.objects.create(user=bot, owner=owner)
        people.append(bot)
    return people


def _names(users: list[Any]) -> list[str]:
    return [u.username for u in users]


def _games(series: Series) -> list[Game]:
    return [sg.game for sg in SeriesGame.objects.filter(series=series).order_by("number")]


def _end_with_town_win(game: Game, capture: Any) -> None:
    """The League host modkills both goons: the town wins; the end's commit is heard."""
    host = game.host
    for goon in game.slots.filter(alignment="mafia"):
        with capture(execute=True):
            services.modkill(host, game.pk, goon.pk)


def _deal(game: Game) -> dict[int, str]:
    return dict(Slot.objects.filter(game=game).values_list("seat", "role"))


def test_the_rotation_seats_each_entrant_in_each_seat_once() -> None:
    seats = 7
    for j in range(seats):
        held = [series_services.seat_of(j, i, seats) for i in range(seats)]
        assert sorted(held) == list(range(1, seats + 1))
    for i in range(seats):
        in_game = [series_services.seat_of(j, i, seats) for j in range(seats)]
        assert sorted(in_game) == list(range(1, seats + 1))
        for j in range(seats):
            assert series_services.entrant_at(series_services.seat_of(j, i, seats), i, seats) == j
    assert series_services.seat_of(0, 0, 7) == 1
    assert series_services.seat_of(6, 1, 7) == 1  # (6 + 1) mod 7 = 0: the first seat
    assert series_services.seat_of(2, 3, 7) == 6


def test_a_series_replays_one_deal_rotating_the_entrants_and_scores_them(
    staff: Any, entrants: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    series = series_services.create_series(
        staff, setup=VANILLA, entrants=_names(entrants), seed=1234
    )
    [first] = _games(series)
    assert first.status == GameStatus.RUNNING and first.seed == 1234
    assert first.rated and first.league_setup == VANILLA
    deal = _deal(first)
    assert sorted(deal.values()) == ["goon"] * 2 + ["vanilla_townie"] * 5
    for number in range(7):
        games = _games(series)
        assert len(games) == number + 1  # one game at a time
        game = games[number]
        assert game.status == GameStatus.RUNNING
        assert _deal(game) == deal  # the same role in the same seat
        seated = dict(Slot.objects.filter(game=game).values_list("seat", "user_id"))
        for j, entrant in enumerate(entrants):
            assert seated[series_services.seat_of(j, number, 7)] == entrant.pk
        _end_with_town_win(game, django_capture_on_commit_callbacks)
    series.refresh_from_db()
    assert series.status == SeriesStatus.FINISHED and series.problem == ""
    assert len(_games(series)) == 7
    assert all(g.status == GameStatus.FINISHED for g in _games(series))

    detail = series_detail(series.pk)
    assert detail["finished"] == 7 and detail["seed"] == 1234
    # Each entrant held each seat once: both goon seats (lost), the five town seats (won).
    for score in detail["scores"]:
        assert score["games"] == 7 and score["wins"] == 5, score
        assert score["sides"] == [
            {"side": "mafia", "games": 2, "wins": 0},
            {"side": "town", "games": 5, "wins": 5},
        ]
        assert score["rating_change"] is not None
    by_name = {s["name"]: s for s in detail["scores"]}
    assert by_name["entrant5"]["agent"] and not by_name["entrant0"]["agent"]
    for row in detail["games"]:
        assert row["winner"] == "town"
        assert {seat["seat"]: seat["role"] for seat in row["seats"]} == deal


def test_a_running_game_shows_seats_but_no_roles_and_the_seed_stays_hidden(
    staff: Any, entrants: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    series = series_services.create_series(staff, setup=VANILLA, entrants=_names(entrants))
    [first] = _games(series)
    _end_with_town_win(first, django_capture_on_commit_callbacks)
    detail = series_detail(series.pk)
    assert detail["seed"] is None and detail["status"] == SeriesStatus.RUNNING
    over, running = detail["games"]
    assert {s["role"] for s in over["seats"]} == {"goon", "vanilla_townie"}
    assert running["status"] == GameStatus.RUNNING and running["winner"] == ""
    assert all(s["role"] == s["alignment"] == "" and s["won"] is None for s in running["seats"])
    # Only the game over is scored.
    assert all(score["games"] == 1 for score in detail["scores"])

    client = Client()
    page = client.get(f"/league/series/{series.pk}/").content.decode()
    answer = client.get(f"/api/v1/series/{series.pk}/").json()
    assert answer["games"][1]["seats"][0]["role"] == ""
    second = Game.objects.get(pk=running["game_id"])
    # The running game's seats are named, but no role name is drawn for them.
    assert page.count("vanilla_townie") == 5 and page.count("goon") == 2
    assert str(series.seed) not in page and str(series.seed) not in json.dumps(answer)
    assert second.title in page


def test_making_a_series_is_for_staff_and_checks_its_entrants_and_games(
    staff: Any, entrants: list[Any]
) -> None:
    names = _names(entrants)
    cases: list[tuple[Any, dict[str, Any], ErrorCode]] = [
        (entrants[0], {"entrants": names}, ErrorCode.NOT_ALLOWED),
        (staff, {"entrants": names, "setup": "no-such-setup"}, ErrorCode.UNKNOWN_SETUP),
        (staff, {"entrants": names[:6]}, ErrorCode.ENTRANTS),
        (staff, {"entrants": [*names[:6], names[0].upper()]}, ErrorCode.ENTRANTS),
        (staff, {"entrants": [*names[:6], "nobody-here"]}, ErrorCode.NO_USER),
        (staff, {"entrants": [*names[:6], "League"]}, ErrorCode.ENTRANTS),
        (staff, {"entrants": names, "games": 10}, ErrorCode.SERIES_GAMES),
        (staff, {"entrants": names, "games": 7 * 5}, ErrorCode.SERIES_GAMES),
        (staff, {"entrants": names, "games": 0}, ErrorCode.SERIES_GAMES),
    ]
    series_services.league_host()  # the League account exists (it hosts the games)
    for user, kwargs, code in cases:
        with pytest.raises(GameRuleError) as exc:
            series_services.create_series(user, **{"setup": VANILLA, **kwargs})
        assert exc.value.code == code, (kwargs, exc.value.message)
    assert not Series.objects.exists() and not Game.objects.filter(rated=True).exists()
    two = series_services.create_series(staff, setup=VANILLA, entrants=names, games=14)
    assert two.games == 14


def test_a_failed_start_is_recorded_and_staff_may_try_again(
    staff: Any, entrants: list[Any], django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    series = series_services.create_series(staff, setup=VANILLA, entrants=_names(entrants))
    [first] = _games(series)
    real = series_services.start_game

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise GameRuleError("The table is broken.")

    monkeypatch.setattr(series_services, "start_game", refused)
    _end_with_town_win(first, django_capture_on_commit_callbacks)
    series.refresh_from_db()
    assert series.problem == "The next game could not start: The table is broken."
    assert len(_games(series)) == 1  # all or nothing: no game in sign-ups is left behind
    monkeypatch.setattr(series_services, "start_game", real)
    client = Client()
    client.force_login(entrants[0])
    assert client.post(f"/league/series/{series.pk}/next/").status_code == 403
    client.force_login(staff)
    response = client.post(f"/league/series/{series.pk}/next/")
    assert response.status_code == 302
    series.refresh_from_db()
    assert series.problem == "" and len(_games(series)) == 2
    # Nothing is due while a game runs: a second try starts nothing.
    assert series_services.start_next(series.pk) is None
    assert len(_games(series)) == 2


def test_the_pages_the_form_and_the_api(staff: Any, entrants: list[Any]) -> None:
    client = Client()
    listing = client.get("/league/series/")
    assert listing.status_code == 200
    assert "Make a series" not in listing.content.decode()  # staff only
    assert client.post("/league/series/new/").status_code == 302  # log in first
    client.force_login(entrants[0])
    assert client.post("/league/series/new/", {"setup": VANILLA}).status_code == 403
    client.force_login(staff)
    assert "Make a series" in client.get("/league/series/").content.decode()
    bad = client.post(
        "/league/series/new/", {"setup": VANILLA, "entrants": "entrant0\nentrant1", "games": ""}
    )
    assert bad.status_code == 400
    assert "Name 7 entrants, one per seat (2 named)." in bad.content.decode()
    assert client.post("/league/series/new/", {"setup": "nope"}).status_code == 400
    made = client.post(
        "/league/series/new/",
        {"setup": VANILLA, "entrants": "\n".join(_names(entrants)), "games": "7"},
    )
    series = Series.objects.get()
    assert made.status_code == 302 and made["Location"] == f"/league/series/{series.pk}/"
    page = Client().get(made["Location"])
    assert page.status_code == 200 and "entrant6" in page.content.decode()
    league = Client().get("/league/").content.decode()
    assert f'href="/league/series/{series.pk}/"' in league
    assert 'href="/league/series/"' in league
    listed = Client().get("/api/v1/series/").json()
    assert [s["id"] for s in listed] == [series.pk]
    assert listed[0]["entrants"] == _names(entrants) and listed[0]["finished"] == 0
    answer = Client().get(f"/api/v1/series/{series.pk}/").json()
    assert answer["game_count"] == 7 and len(answer["games"]) == 1
    missing = Client().get("/api/v1/series/999999/")
    assert missing.status_code == 404 and missing.json()["code"] == "no_series"
    assert Client().get("/league/series/999999/").status_code == 404


def test_the_answers_are_the_documented_shapes(
    staff: Any, entrants: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    from tests.site.test_review import _conforms

    series = series_services.create_series(staff, setup=VANILLA, entrants=_names(entrants))
    _end_with_town_win(_games(series)[0], django_capture_on_commit_callbacks)
    client = Client()
    document = client.get("/api/v1/openapi.json").json()
    components = document["components"]["schemas"]
    for path, url in [
        ("/api/v1/series/", "/api/v1/series/"),
        ("/api/v1/series/{series_id}/", f"/api/v1/series/{series.pk}/"),
    ]:
        operation = document["paths"][path]["get"]
        assert "404" in operation["responses"]
        schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        answer = client.get(url).json()
        _conforms(answer, schema, components, url)
    detail = client.get(f"/api/v1/series/{series.pk}/").json()
    assert detail["games"][0]["winner"] == "town" and detail["scores"][0]["rating_change"]


def test_entrants_play_one_league_game_at_a_time(
    staff: Any, entrants: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    from league.models import LeagueQueueEntry

    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(entrants[3], "forum-cop-nine")
    series = series_services.create_series(staff, setup=VANILLA, entrants=_names(entrants))
    assert not LeagueQueueEntry.objects.filter(user=entrants[3]).exists()  # taken out
    [running] = _games(series)
    # Seated in that running league game, they cannot be named for another series.
    with pytest.raises(GameRuleError) as exc:
        series_services.create_series(staff, setup=VANILLA, entrants=_names(entrants))
    assert exc.value.code == ErrorCode.ALREADY_PLAYING
    assert f"entrant0 is playing league game {running.pk}" in exc.value.message
