"""Behaviour metrics (analytics.metrics, issue 34 part 3): the pure computations over
plain day records, their reading from real games played through the services, and the
player's page, panel and API that show them added up per rule set and side. Only finished
games may count: nothing of a running game shows."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from analytics import stats
from analytics.metrics import (
    METRIC_KEYS,
    METRICS,
    POST,
    UNVOTE,
    VOTE,
    Day,
    SeatDays,
    combine,
    game_seat_days,
    read_seat_days,
    seat_metrics,
    standing_votes,
)
from games import services
from games.models import Agent, Game, Phase, PhaseKind, Post, Slot, Vote
from games.reads.vote_count import current_votes
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory


def _vote(slot: Slot, target: Slot) -> Post:
    return services.submit_post(
        slot.user, slot.game_id, body=f"**Vote: {target.display_name}**"
    ).post


SIDES = {1: "town", 2: "town", 3: "mafia", 4: "town"}


def seat(seat_no: int, days: list[Day], survived: bool = True) -> SeatDays:
    return SeatDays(seat_no, SIDES[seat_no], SIDES, days, survived)


def test_day_end_votes_on_the_other_side_count_standing_votes_only() -> None:
    # Seat 1 voted mafia (3) first, then moved to town (2): only the standing vote counts.
    day1 = Day(standing={1: 2, 2: 3}, log=[(1, 3), (2, 3), (1, 2)], eliminated=None)
    day2 = Day(standing={1: 3}, log=[(1, 3)], eliminated=3)
    day3 = Day(standing={1: None}, log=[(1, None)], eliminated=None)  # no elimination
    figures = seat_metrics(seat(1, [day1, day2, day3]))
    assert figures["other_side"] == (1, 2)
    assert figures["eliminations_mafia"] == (1, 1)


def test_wagons_started_are_first_votes_on_a_player() -> None:
    day = Day(standing={1: 2, 2: 3, 4: 2}, log=[(2, 3), (1, 3), (1, 2), (4, 2)], eliminated=2)
    assert seat_metrics(seat(1, [day]))["wagons_mafia"] == (0, 1)  # started only on 2
    assert seat_metrics(seat(2, [day]))["wagons_mafia"] == (1, 1)  # started on mafia 3
    assert seat_metrics(seat(4, [day]))["eliminations_mafia"] == (0, 1)  # town eliminated


def test_combine_adds_ratios_not_averages() -> None:
    won = seat_metrics(seat(1, [], survived=True))
    lost = seat_metrics(seat(1, [], survived=False))
    total = combine([won, lost, lost])
    assert total["survival"] == (1, 3)
    assert set(total) == METRIC_KEYS


def test_votes_after_posts_credit_the_last_advocate_per_post() -> None:
    timeline = [
        (VOTE, 1, 3),  # 0: a vote before any post credits nobody
        (POST, 1, None),  # 1: seat 1's post on the wagon on 3
        (POST, 2, None),  # 2: seat 2 votes nobody: not a post on a wagon
        (VOTE, 2, 3),  # 3: moves onto 3 after seat 1's post: seat 1's credit
        (POST, 2, None),  # 4: seat 2's post on 3, the latest now
        (VOTE, 4, 3),  # 5: seat 2's credit (its post is later than seat 1's)
        (VOTE, 4, 3),  # 6: no move (already on 3): nobody's credit
        (POST, 1, None),  # 7: seat 1's second post on 3
        (UNVOTE, 1, None),  # 8: seat 1 leaves the wagon: its posts no longer advocate it
        (VOTE, 4, None),  # 9: no elimination: nobody's credit
        (POST, 4, None),  # 10: seat 4 votes no elimination: not a post on a wagon
        (VOTE, 4, 3),  # 11: back onto 3: seat 2's (seat 1's later post is off the wagon)
        (VOTE, 1, 2),  # 12: onto 2, on which nobody posted: nobody's credit
    ]
    day = Day(standing={}, log=[], eliminated=None, timeline=timeline)
    got = {n: seat_metrics(seat(n, [day]))["votes_after_posts"] for n in SIDES}
    assert got == {1: (1, 2), 2: (2, 1), 3: (0, 0), 4: (0, 0)}
    figure = stats.MetricFigure.added(
        next(m for m in METRICS if m.key == "votes_after_posts"), got[2]
    )
    assert figure.text == "2 votes after 1 post (2.00 a post)"  # a rate, not a share


TEN = {1: "town", 2: "town", 3: "mafia", 4: "town", 5: "town"}


def test_town_to_l_minus_1_counts_town_votes_that_leave_a_wagon_one_short() -> None:
    timeline = [
        (VOTE, 1, 2),  # wagon on 2: 1 vote (L-2 of 3)
        (POST, 2, None),
        (VOTE, 4, 2),  # 2 votes: L-1 on a townie, by seat 4
        (VOTE, 1, 3),  # seat 1 moves to the mafia player: 1 vote there, 1 left on 2
        (VOTE, 2, 3),  # L-1 on mafia, by seat 2
        (VOTE, 2, 3),  # no move: not counted again
        (UNVOTE, 4, None),  # the wagon on 2 is empty again
        (VOTE, 3, 2),  # mafia's vote: not counted (town seats only)
        (VOTE, 5, 2),  # L-1 on a townie, by seat 5
        (VOTE, 1, 2),  # seat 1: the hammer (3 of 3), not L-1
    ]

    def got(threshold: int | None) -> dict[int, tuple[int, int]]:
        day = Day(standing={}, log=[], eliminated=2, timeline=timeline, threshold=threshold)
        return {
            n: seat_metrics(SeatDays(n, side, TEN, [day], True))["town_l1_on_town"]
            for n, side in TEN.items()
        }

    assert got(3) == {1: (0, 0), 2: (0, 1), 3: (0, 0), 4: (1, 1), 5: (1, 1)}
    assert got(None) == dict.fromkeys(TEN, (0, 0))  # no threshold (plurality...): nothing


# -- read from a real finished game --------------------------------------------------------


def test_every_definition_is_in_the_manual_word_for_word() -> None:
    # The manual's statistics page (once the README's) wraps its lines: the words, not the
    # line breaks, must be the same.
    page = Path(settings.BASE_DIR) / "docs" / "players" / "statistics.md"
    manual = " ".join(page.read_text().split())
    for metric in METRICS:
        assert " ".join(metric.definition.split()) in manual, metric.key
        assert f"**{metric.label}**" in manual, metric.key


def test_a_standing_vote_is_the_latest_row_unless_an_unvote() -> None:
    log = [(1, 10, 12, "vote"), (2, 11, 12, "vote"), (3, 10, None, "unvote"), (4, 11, None, "vote")]
    assert standing_votes(log) == {11: None}  # 10 unvoted; 11 stands on no elimination


def _play_the_finished_game(make_game: Any, host: Any) -> dict[str, Any]:
    """forum-cop-doctor-nine played to its end: goon A hammered on day 1 (town[1] having
    started a wagon on town[0] first), town[0] killed at night, goon B voted out on day 2."""
    game = make_game("forum-cop-doctor-nine", starts_with="day", vote_rule="majority_hammer")
    goon_a, goon_b = slots_of(game, "goon")
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    town = slots_of(game, "vanilla_townie")
    _vote(town[1], town[0])  # town[1] starts a wagon on a townie, then moves
    _vote(town[0], goon_a)
    assert game_seat_days(game) == []  # running: nothing (its sides are hidden)
    _vote(town[1], goon_a)
    for voter in (town[2], town[3], cop):
        _vote(voter, goon_a)  # the fifth vote hammers goon A
    services.submit_night_action(goon_b.user, game.pk, ability="kill", targets=[town[0].pk])
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[cop.pk])
    services.cut_deadline_now(host, game.pk)
    for voter in (town[1], town[2], town[3], cop):
        _vote(voter, goon_b)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    return {"game": game, "town": town, "goons": (goon_a, goon_b), "cop": cop}


@pytest.mark.django_db
def test_a_finished_games_seats_are_read_from_its_record(make_game, host) -> None:
    played = _play_the_finished_game(make_game, host)
    game, town, (goon_a, _) = played["game"], played["town"], played["goons"]
    by_seat = {s.seat: seat_metrics(s) for s in game_seat_days(game)}
    first = by_seat[town[0].seat]
    assert first["wagons_mafia"] == (1, 1)
    assert first["eliminations_mafia"] == (1, 1)
    assert first["survival"] == (0, 1)  # killed on night 1
    mover = by_seat[town[1].seat]
    assert mover["wagons_mafia"] == (1, 2)  # town[0] on day 1, goon B on day 2
    assert mover["other_side"] == (2, 2)  # day-end votes: goon A, goon B
    assert by_seat[goon_a.seat]["survival"] == (0, 1)
    # Persuasion (each vote post comes just after its vote): day 1 goes town[1] (onto
    # town[0]), town[0], town[1], town[2], town[3], the cop (hammer) onto goon A, each
    # mover crediting the voter before them on the wagon; day 2 town[1], town[2],
    # town[3], the cop onto goon B (the first vote credits nobody).
    persuasion = {
        town[0].seat: (1, 1),  # town[1]'s move onto goon A; one post on a wagon
        town[1].seat: (2, 3),  # town[2]'s moves on both days; three vote posts
        town[2].seat: (2, 2),
        town[3].seat: (2, 2),
        played["cop"].seat: (0, 2),  # the hammer both days: nobody moved after its posts
    }
    for seat_no, expected in persuasion.items():
        assert by_seat[seat_no]["votes_after_posts"] == expected, seat_no
    # L-1: 9 alive on day 1 (5 eliminate; town[3]'s vote was the fourth on goon A), 7 on
    # day 2 (4; town[3]'s the third on goon B): a town seat, but on mafia both times.
    assert by_seat[town[3].seat]["town_l1_on_town"] == (0, 2)
    assert all(
        figures["town_l1_on_town"] == (0, 0) for n, figures in by_seat.items() if n != town[3].seat
    )


@pytest.mark.django_db
def test_the_standing_read_at_once_is_current_votes(make_game, host) -> None:
    """``standing_votes`` over every vote read at once and ``current_votes`` day by day
    (which owns what "standing" means) give one answer."""
    game = _play_the_finished_game(make_game, host)["game"]
    seat_of = dict(game.slots.values_list("pk", "seat"))
    days = game_seat_days(game)[0].days
    phases = list(game.phases.filter(kind=PhaseKind.DAY).order_by("number"))
    assert [d.number for d in days] == [p.number for p in phases] and len(days) == 2
    for day, phase in zip(days, phases, strict=True):
        expected = {
            seat_of[voter]: seat_of[row.target_id] if row.target_id else None
            for voter, row in current_votes(phase, revote=False).items()
        }
        assert dict(day.standing) == expected
        assert day.log and len(day.log) == Vote.objects.filter(phase=phase, kind="vote").count()


def _text(response: Any) -> str:
    assert response.status_code == 200
    return html_lib.unescape(response.content.decode())


def _behaviour(client: Client, name: str) -> list[dict[str, Any]]:
    answer = client.get(f"/api/v1/players/{name}/stats/")
    assert answer.status_code == 200
    return answer.json()["behaviour"]


# town[1] of the played game: votes on town[0], then goon A (day 1, hammered), goon B (day 2).
MOVER = {
    "other_side": (2, 2, "2 of 2 (100%)"),
    "wagons_mafia": (1, 2, "1 of 2 (50%)"),
    "eliminations_mafia": (2, 2, "2 of 2 (100%)"),
    "survival": (1, 1, "1 of 1 (100%)"),
    "votes_after_posts": (2, 3, "2 votes after 3 posts (0.67 a post)"),
    "town_l1_on_town": (0, 0, '<span class="muted">none</span>'),
}


def _assert_the_movers_figures(client: Client, name: str, game: Game) -> None:
    [row] = _behaviour(client, name)
    assert (row["ruleset"], row["side"], row["games"]) == (game.ruleset, "town", 1)
    assert [m["metric"] for m in row["metrics"]] == [m.key for m in METRICS]
    assert {m["metric"]: (m["n"], m["d"]) for m in row["metrics"]} == {
        key: (n, d) for key, (n, d, _) in MOVER.items()
    }
    label = stats.BehaviourRow(game.ruleset, "town", "Town", 1, []).ruleset_label
    for url in (f"/players/{name}/", f"/players/{name}/stats/"):
        page = _text(client.get(url))
        table = page[
            page.index('class="stats-behaviour"') : page.index(
                "</table>", page.index('class="stats-behaviour"')
            )
        ]
        assert "<caption>" in table and '<th scope="row">' in table, url
        cells = re.findall(r"<td>(.*?)</td>", table)
        assert cells == ["1", *(text for _, _, text in MOVER.values())], url
        assert f'<th scope="row">{label}, town</th>' in table, url
        headers = re.findall(
            r'<th scope="col">(?:<abbr title="[^"]*">)?(.*?)(?:</abbr>)?</th>', table
        )
        assert headers == ["Rule set and side", "Games", *(m.label for m in METRICS)], url


@pytest.mark.django_db
def test_the_player_page_panel_and_api_show_a_finished_games_figures(
    make_game, host, client: Client
) -> None:
    played = _play_the_finished_game(make_game, host)
    game, mover = played["game"], played["town"][1]
    name = mover.user.username
    _assert_the_movers_figures(client, name, game)  # anonymous
    anonymous = client.get(f"/api/v1/players/{name}/stats/").json()
    for viewer in (mover.user, UserFactory(username="onlooker"), host):
        client.force_login(viewer)
        assert client.get(f"/api/v1/players/{name}/stats/").json() == anonymous, viewer
        _assert_the_movers_figures(client, name, game)
    # An agent's page shows the same panel.
    Agent.objects.create(user=mover.user, owner=UserFactory(username="maker"))
    page = _text(client.get(f"/agents/{name}/"))
    assert 'class="stats-behaviour"' in page and MOVER["wagons_mafia"][2] in page


@pytest.mark.django_db
def test_a_running_game_adds_nothing(make_game, host, client: Client) -> None:
    played = _play_the_finished_game(make_game, host)
    game, mover = played["game"], played["town"][1]
    before = _behaviour(client, mover.user.username)
    # The same people in a second game, running: the mover starts a wagon on a goon.
    running = make_game("forum-cop-doctor-nine", starts_with="day", seed=8)
    seat = running.slots.get(user=mover.user)
    goon = next(s for s in slots_of(running, "goon") if s.pk != seat.pk)
    _vote(seat, goon)
    _vote(running.slots.exclude(pk__in=[seat.pk, goon.pk]).select_related("user").first(), seat)
    # Then three others and the mover put a townie at L-1 (4 of the 5 that eliminate),
    # the mover's post on the wagon followed by nobody yet.
    townie = next(s for s in slots_of(running, "vanilla_townie") if s.pk != seat.pk)
    followers = running.slots.exclude(pk__in=[seat.pk, townie.pk]).exclude(role="goon")
    for voter in [*followers.select_related("user").order_by("seat")[:3], seat]:
        _vote(voter, townie)
    assert Vote.objects.filter(phase__game=running).count() == 6
    running.refresh_from_db()
    assert not running.is_finished and running.current_phase().number == 1
    assert _behaviour(client, mover.user.username) == before
    _assert_the_movers_figures(client, mover.user.username, game)
    assert read_seat_days(Game.objects.filter(pk=running.pk).values("pk")) == {}


@pytest.mark.django_db
def test_a_running_game_alone_shows_no_behaviour(make_game, client: Client) -> None:
    game = make_game("forum-cop-doctor-nine", starts_with="day")
    goon = slot_of(game, "goon")
    voter = slots_of(game, "vanilla_townie")[0]
    _vote(voter, goon)
    assert _behaviour(client, voter.user.username) == []
    for url in (f"/players/{voter.user.username}/", f"/players/{voter.user.username}/stats/"):
        assert 'class="stats-behaviour"' not in _text(client.get(url)), url


@pytest.mark.django_db
def test_a_replaced_seats_days_count_for_whoever_held_it(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")  # 7 alive: 4 eliminate
    goons = slots_of(game, "goon")
    seat, townie, *others = slots_of(game, "vanilla_townie")
    old = seat.user

    def vote(slot: Slot, target: Slot, user: Any = None) -> None:
        services.cast_vote(user or slot.user, game.pk, target.pk)

    vote(seat, goons[0])  # day 1: old starts a wagon on mafia (and posts on it)
    for other in others:  # the three others: L-1 by the second, hammer by the third
        vote(other, goons[0])
    services.cut_deadline_now(game.host, game.pk)  # night 1 (nobody killed)
    newcomer = UserFactory(username="newcomer")
    services.replace_player(game.host, game.pk, seat.pk, newcomer)  # day 2: 6 alive
    vote(others[0], townie)
    vote(others[1], townie)
    vote(seat, townie, newcomer)  # the third on a townie: L-1 (4 eliminate)
    vote(seat, goons[1], newcomer)  # a wagon started on mafia, then the others follow
    for other in others:
        vote(other, goons[1])
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    assert Phase.objects.filter(game=game, kind=PhaseKind.DAY).count() == 2

    def figures(name: str) -> dict[str, tuple[int, int]]:
        [row] = stats.player_stats(name).behaviour
        return {f.key: (f.n, f.d) for f in row.figures}

    # Each counts only their own day; the seat's survival counts for both, as its result.
    assert figures(old.username) == {
        "other_side": (1, 1),
        "wagons_mafia": (1, 1),
        "eliminations_mafia": (1, 1),
        "survival": (1, 1),
        "votes_after_posts": (1, 1),  # others[0] followed its one post on goon 0
        "town_l1_on_town": (0, 0),
    }
    assert figures("newcomer") == {
        "other_side": (1, 1),
        "wagons_mafia": (1, 1),
        "eliminations_mafia": (1, 1),
        "survival": (1, 1),
        # Its posts on the townie (nobody followed) and on goon 1 (others[0] did).
        "votes_after_posts": (1, 2),
        "town_l1_on_town": (1, 1),  # the townie to L-1
    }
