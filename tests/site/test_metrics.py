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


# -- read from a real finished game --------------------------------------------------------


def test_every_definition_is_in_the_readme_word_for_word() -> None:
    # The README wraps its lines: the words, not the line breaks, must be the same.
    readme = " ".join((Path(settings.BASE_DIR) / "README.md").read_text().split())
    for metric in METRICS:
        assert " ".join(metric.definition.split()) in readme, metric.key
        assert f"**{metric.label}**" in readme, metric.key


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
    assert Vote.objects.filter(phase__game=running).count() == 2
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


def _vote_out(game: Game, target: Slot) -> None:
    """Every other living player votes ``target`` (the hammer ends the day)."""
    game.refresh_from_db()
    day = game.phase_number
    for slot in game.slots.filter(alive=True).select_related("user").order_by("seat"):
        if slot.pk != target.pk:
            services.cast_vote(slot.user, game.pk, target.pk)
            game.refresh_from_db()
            if game.phase_number != day or game.is_finished:
                return


@pytest.mark.django_db
def test_a_replaced_seats_days_count_for_whoever_held_it(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")
    goons = slots_of(game, "goon")
    seat = slot_of(game, "vanilla_townie")
    old = seat.user
    services.cast_vote(old, game.pk, goons[0].pk)  # day 1: a wagon on mafia
    _vote_out(game, goons[0])
    services.cut_deadline_now(game.host, game.pk)  # night 1
    newcomer = UserFactory(username="newcomer")
    services.replace_player(game.host, game.pk, seat.pk, newcomer)  # day 2
    townie = slots_of(game, "vanilla_townie")[1]
    services.cast_vote(newcomer, game.pk, townie.pk)  # day 2: a wagon on town, then mafia
    services.cast_vote(newcomer, game.pk, goons[1].pk)
    _vote_out(game, goons[1])
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
    }
    assert figures("newcomer") == {
        "other_side": (1, 1),
        "wagons_mafia": (1, 2),
        "eliminations_mafia": (1, 1),
        "survival": (1, 1),
    }
