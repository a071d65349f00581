"""The behaviour leaderboard (analytics.behaviour_board, ``/leaderboard/<ruleset>/behaviour/``):
one row per person with enough finished games on a side, a column per metric, sorted by
the server on any column (bad sort values: the default, never an error), paged; the same
figures as each person's own page; nothing of a running game."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest
from django.test import Client

from analytics import behaviour_board as board_module
from analytics import stats as stats_module
from analytics.behaviour_board import behaviour_board
from analytics.stats import player_stats
from games.models import Game, Vote
from tests.conftest import slots_of
from tests.site.test_metrics import _play_the_finished_game, _vote

URL = "/leaderboard/forum/behaviour/"


@pytest.fixture
def played(make_game: Any, host: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The finished game of test_metrics (its figures hand-checked there), every player
    ranked from one game on."""
    monkeypatch.setattr(board_module, "MIN_GAMES", 1)
    result = _play_the_finished_game(make_game, host)
    game: Game = result["game"]
    assert game.ruleset == "forum"
    town, cop = result["town"], result["cop"]
    doctor = game.slots.get(role="doctor")
    result["names"] = {
        "t0": town[0].user.username,
        "t1": town[1].user.username,
        "t2": town[2].user.username,
        "t3": town[3].user.username,
        "t4": town[4].user.username,
        "cop": cop.user.username,
        "doctor": doctor.user.username,
    }
    return result


def _rows(client: Client, query: str = "") -> list[str]:
    """The player names of the page's rows, in order."""
    response = client.get(URL + query)
    assert response.status_code == 200, query
    body = response.content.decode()
    table = body[body.index('id="behaviour-board"') : body.index("</table>")]
    return re.findall(r'<td><a href="/players/([^/]+)/stats/">', table)


def _by_name(names: dict[str, str], *keys: str) -> list[str]:
    return sorted((names[k] for k in keys), key=str.lower)


@pytest.mark.django_db
def test_sorted_by_votes_after_posts_both_ways(played: dict[str, Any], client: Client) -> None:
    n = played["names"]
    # Rates (test_metrics): t0 1/1, t2 2/2, t3 2/2, t1 2/3, the cop 0/2; t4 and the
    # doctor never posted on a wagon (nothing to count: last either way). Ties by name.
    ones = _by_name(n, "t0", "t2", "t3")
    nothing = _by_name(n, "t4", "doctor")
    assert _rows(client, "?sort=votes_after_posts&order=desc") == [
        *ones,
        n["t1"],
        n["cop"],
        *nothing,
    ]
    assert _rows(client, "?sort=votes_after_posts&order=asc") == [
        n["cop"],
        n["t1"],
        *ones,
        *nothing,
    ]
    # L-1: only town[3] placed a wagon at L-1 (on mafia: 0 of 2); the rest count nothing.
    assert _rows(client, "?sort=town_l1_on_town&order=asc")[0] == n["t3"]
    assert _rows(client, "?sort=town_l1_on_town&order=desc")[0] == n["t3"]
    everyone = _by_name(n, *n)
    assert _rows(client, "?sort=name&order=asc") == everyone
    assert _rows(client, "?sort=name&order=desc") == everyone[::-1]


@pytest.mark.django_db
def test_headers_are_links_and_the_sorted_one_says_so(
    played: dict[str, Any], client: Client
) -> None:
    body = html_lib.unescape(client.get(URL + "?sort=survival&order=asc").content.decode())
    sorted_headers = re.findall(r'<th scope="col" aria-sort="(\w+)"><a href="([^"]+)"', body)
    # The sorted column's link reverses it; the others sort descending first.
    assert sorted_headers == [("ascending", "?side=town&sort=survival&order=desc")]
    assert 'href="?side=town&sort=votes_after_posts&order=desc"' in body
    assert "Town voting town to L-1" in body
    assert "<script" not in body.split('id="behaviour-board"')[1].split("</table>")[0]
    # The mafia side: the goons alone, and no town-only column.
    mafia = html_lib.unescape(client.get(URL + "?side=mafia").content.decode())
    goons = [s.user.username for s in played["goons"]]
    assert _rows(client, "?side=mafia") == sorted(goons, key=str.lower)
    assert "Town voting town to L-1" not in mafia
    assert 'aria-sort="descending"><a href="?side=mafia&sort=games&order=asc"' in mafia


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "?sort=nope&order=sideways",
        "?sort=&order=",
        "?sort=%00&order=asc%00",
        "?side=nobody&sort=__class__",
        "?side=mafia&sort=town_l1_on_town",  # a town-only column, asked of mafia
        "?page=zz&sort=survival&sort=games",
        "?page=-3",
    ],
)
def test_bad_sort_values_give_the_default(
    played: dict[str, Any], client: Client, query: str
) -> None:
    response = client.get(URL + query)
    assert response.status_code == 200
    body = html_lib.unescape(response.content.decode())
    side = "mafia" if "side=mafia" in query else "town"
    assert f'aria-sort="descending"><a href="?side={side}&sort=games&order=asc"' in body
    if side == "town" and "sort=games" not in query:
        # The default: most games first (all one here), then by name.
        assert _rows(client, query) == _by_name(played["names"], *played["names"])


@pytest.mark.django_db
def test_the_figures_are_each_persons_own_pages(played: dict[str, Any]) -> None:
    board = behaviour_board("forum", side="town")
    assert board.pages.count == 7
    for row in board.rows:
        [mine] = [r for r in player_stats(row.name).behaviour if r.side == "town"]
        own = {f.key: (f.n, f.d) for f in mine.figures}
        assert {f.key: (f.n, f.d) for f in row.figures} == own, row.name
        assert row.games == mine.games == 1
    t1 = next(r for r in board.rows if r.name == played["names"]["t1"])
    assert {f.key: (f.n, f.d) for f in t1.figures}["votes_after_posts"] == (2, 3)


@pytest.mark.django_db
def test_paged_and_at_least_min_games(
    played: dict[str, Any], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_module, "PER_PAGE", 3)
    everyone = _by_name(played["names"], *played["names"])
    assert _rows(client, "?sort=name&order=asc&page=2") == everyone[3:6]
    assert _rows(client, "?sort=name&order=asc&page=last") == everyone[6:]
    body = client.get(URL + "?sort=name&order=asc&page=2").content.decode()
    # Paging keeps the side and the sort.
    assert "?page=3&side=town&sort=name&order=asc" in html_lib.unescape(body)
    monkeypatch.setattr(board_module, "MIN_GAMES", 2)  # one game each: nobody ranked
    body = client.get(URL).content.decode()
    assert 'id="behaviour-board"' not in body and "Nobody has 2 finished games" in body


@pytest.mark.django_db
def test_a_running_game_moves_nothing(
    played: dict[str, Any], make_game: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def everything() -> list[Any]:
        return [behaviour_board("forum", side=side).rows for side in ("town", "mafia", "other")]

    before = everything()
    pages = {q: client.get(URL + q).content for q in ("", "?side=mafia", "?side=other")}
    # The same people, running: votes on a goon and a townie to L-1, with posts.
    running = make_game("forum-cop-doctor-nine", starts_with="day", seed=8)
    goon = slots_of(running, "goon")[0]
    townie = slots_of(running, "vanilla_townie")[0]
    voters = list(running.slots.exclude(pk__in=[goon.pk, townie.pk]).select_related("user"))
    _vote(voters[0], goon)
    for voter in voters[1:5]:
        _vote(voter, townie)
    assert Vote.objects.filter(phase__game=running).count() == 5
    # Counted afresh (the cache keeps a rule set's answer until a game of it ends).
    monkeypatch.setattr(stats_module, "METRICS_DIGEST", "counted-afresh")
    assert everything() == before
    assert {q: client.get(URL + q).content for q in pages} == pages


@pytest.mark.django_db
def test_an_unknown_rule_set_is_a_404_and_the_leaderboard_links_here(
    played: dict[str, Any], client: Client
) -> None:
    assert client.get("/leaderboard/nope/behaviour/").status_code == 404
    body = client.get("/leaderboard/forum/").content.decode()
    assert f'href="{URL}"' in body


@pytest.mark.django_db
def test_the_figures_are_cached_until_a_game_ends(
    played: dict[str, Any], make_game: Any, django_assert_num_queries: Any
) -> None:
    first = behaviour_board("forum", side="town")
    with django_assert_num_queries(3):  # the stamp, the names, the agents: figures cached
        assert behaviour_board("forum", side="town").rows == first.rows
    # Another game of the rule set ends: counted in at once (a new key).
    again = _play_the_finished_game(make_game, played["game"].host)
    assert again["game"].ruleset == "forum"
    rows = {r.name: r.games for r in behaviour_board("forum", side="town").rows}
    assert rows, rows
    assert all(games >= 1 for games in rows.values()) and sum(rows.values()) > 7
