"""Behaviour metrics (analytics.metrics): the pure computations over plain day records.

Only the pure layer exists so far; pages, API and record reading are still to come."""

from __future__ import annotations

import pytest

from analytics.metrics import METRIC_KEYS, Day, SeatDays, combine, game_seat_days, seat_metrics
from games import services
from games.models import Post, Slot
from tests.conftest import slot_of, slots_of


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


@pytest.mark.django_db
def test_a_finished_games_seats_are_read_from_its_record(make_game, host) -> None:
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
    assert game.is_finished
    by_seat = {s.seat: seat_metrics(s) for s in game_seat_days(game)}
    first = by_seat[town[0].seat]
    assert first["wagons_mafia"] == (1, 1)
    assert first["eliminations_mafia"] == (1, 1)
    assert first["survival"] == (0, 1)  # killed on night 1
    mover = by_seat[town[1].seat]
    assert mover["wagons_mafia"] == (1, 2)  # town[0] on day 1, goon B on day 2
    assert mover["other_side"] == (2, 2)  # day-end votes: goon A, goon B
    assert by_seat[goon_a.seat]["survival"] == (0, 1)
