"""Deadlines on the real stack: Celery worker subprocesses on the Redis broker, PostgreSQL.

Two workers (two processes, two threads each) consume this session's queue, so "two
workers at once" is literal. Day 1 of each game is back-dated through the real
``start_game`` so its deadline is a few seconds away and the scheduling hook fires as in
production.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from games import inactivity, services
from games.models import GameEvent, Phase, Slot
from games.tasks import advance_due_phases, advance_phase_task

from .celery_support import (
    SESSION_QUEUE,
    Beat,
    Worker,
    app_on_test_broker,
    events_of,
    make_running_game,
    phase_number,
    purge_queue,
    wait_for,
)

pytestmark = [
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(90),
]


@pytest.fixture(scope="module")
def workers(django_db_setup, django_db_blocker):
    started = []
    try:
        with django_db_blocker.unblock():
            for i in range(2):
                started.append(Worker(SESSION_QUEUE, name=f"deadlines{i}"))
        yield started
    finally:
        for worker in started:
            worker.stop()
        purge_queue(SESSION_QUEUE)


@pytest.fixture(autouse=True)
def test_broker(workers):
    with app_on_test_broker():
        yield


def _past_due(game, seconds: float = 1.0) -> None:
    """Move the current deadline into the past without the scheduling hook (a bare UPDATE)."""
    Phase.objects.filter(game=game, number=game.phase_number).update(
        deadline=timezone.now() - timedelta(seconds=seconds)
    )


@pytest.mark.slow
def test_beat_scan_advances_a_due_phase(tmp_path):
    # A one-hour day: too far for an ETA task, so only the scan can end it.
    game, _, _ = make_running_game(day_length=timedelta(hours=1))
    other, _, _ = make_running_game(day_length=timedelta(hours=1))
    _past_due(game)
    beat = Beat(SESSION_QUEUE, tmp_path, seconds=1)
    try:
        wait_for(lambda: phase_number(game) == 2, timeout=30, what="the scan to end Day 1")
    finally:
        beat.stop()
    assert Phase.objects.get(game=game, number=1).resolved
    assert Phase.objects.get(game=game, number=2).kind == "night"
    assert len(events_of(game, "day_ended")) == 1
    assert phase_number(other) == 1  # not due: untouched


@pytest.mark.slow
def test_scan_task_skips_paused_and_future_phases():
    due, _, _ = make_running_game(day_length=timedelta(hours=1))
    paused, host, _ = make_running_game(day_length=timedelta(hours=1))
    _past_due(due)
    services.pause_game(host, paused.pk)
    advance_due_phases.delay()
    wait_for(lambda: phase_number(due) == 2, timeout=20, what="the due game to advance")
    time.sleep(1)
    assert phase_number(paused) == 1
    assert not Phase.objects.get(game=paused, number=1).resolved


def test_eta_task_ends_a_short_phase_on_time():
    game, _, _ = make_running_game(deadline_in=timedelta(seconds=3))
    opened = time.monotonic()
    wait_for(lambda: phase_number(game) == 2, timeout=15, what="the ETA task to end Day 1")
    # No scan runs in this test: the ETA task scheduled at the phase's opening did it.
    assert time.monotonic() - opened < 10
    # Not early, read from the record: under load, making the game can use up most of its
    # three seconds, so a check by the test's own clock would race the deadline.
    day = Phase.objects.get(game=game, number=1)
    assert day.ended_at is not None and day.deadline is not None
    assert day.ended_at >= day.deadline
    assert len(events_of(game, "day_ended")) == 1


@pytest.mark.slow
def test_double_fire_on_two_workers_advances_once():
    game, _, _ = make_running_game(day_length=timedelta(hours=1))
    _past_due(game)
    results = [advance_phase_task.delay(game.pk, 1) for _ in range(6)]
    outcomes = [r.get(timeout=30) for r in results]
    assert outcomes.count(True) == 1, outcomes
    assert phase_number(game) == 2
    assert len(events_of(game, "day_ended")) == 1
    assert Phase.objects.filter(game=game).count() == 2
    # Late fires of the old phase number change nothing either.
    assert advance_phase_task.delay(game.pk, 1).get(timeout=20) is False
    assert phase_number(game) == 2


def test_two_threads_calling_advance_phase_at_once_advance_once():
    game, _, _ = make_running_game(day_length=timedelta(hours=1))
    _past_due(game)
    barrier = threading.Barrier(4)
    outcomes: list[bool] = []

    def fire() -> None:
        try:
            barrier.wait()
            outcomes.append(services.advance_phase(game.pk, 1))
        finally:
            connection.close()

    threads = [threading.Thread(target=fire) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == [False, False, False, True]
    assert phase_number(game) == 2
    assert len(events_of(game, "day_ended")) == 1


def test_extend_moves_the_deadline_and_the_old_eta_does_nothing():
    game, host, _ = make_running_game(deadline_in=timedelta(seconds=2))
    services.extend_deadline(host, game.pk, by=timedelta(seconds=4))
    time.sleep(3.5)  # the first ETA task has fired by now
    assert phase_number(game) == 1
    wait_for(lambda: phase_number(game) == 2, timeout=15, what="the extended deadline")
    assert len(events_of(game, "day_ended")) == 1


def test_pause_stops_the_clock_and_resume_reschedules():
    game, host, _ = make_running_game(deadline_in=timedelta(seconds=2))
    services.pause_game(host, game.pk)
    time.sleep(3.5)  # the ETA task fired while paused
    assert phase_number(game) == 1
    phase = services.resume_game(host, game.pk)
    assert phase.deadline - timezone.now() < timedelta(seconds=3)
    wait_for(lambda: phase_number(game) == 2, timeout=15, what="the resumed deadline")
    assert len(events_of(game, "day_ended")) == 1


def test_cut_short_ends_now_and_the_stale_eta_leaves_the_next_phase_alone():
    # 8 s, not 2: under the whole suite's load a 2-s Day 1 once ended by its own deadline
    # before the cut, which then cut Night 1 (phase 3 where 2 was due).
    game, host, _ = make_running_game(deadline_in=timedelta(seconds=8))
    deadline = Phase.objects.get(game=game, number=1).deadline
    assert services.cut_deadline_now(host, game.pk) is True
    assert phase_number(game) == 2
    # Day 1's ETA task fires against Night 1 (number 2): ignored.
    time.sleep(max((deadline - timezone.now()).total_seconds(), 0) + 1.5)
    assert phase_number(game) == 2
    assert not Phase.objects.get(game=game, number=2).resolved


def test_hammer_ends_the_day_at_once_and_the_deadline_task_then_does_nothing():
    # Long enough for four posts under the whole suite's load (2 s was not, once: the
    # deadline's task ended the day before the hammer), short enough to wait out below.
    game, _, players = make_running_game(deadline_in=timedelta(seconds=8))
    deadline = Phase.objects.get(game=game, number=1).deadline
    target = Slot.objects.get(game=game, seat=1)
    # 7 alive: majority is 4. The fourth vote is the hammer.
    voters = [p for p in players if p.pk != target.user_id][:4]
    for i, voter in enumerate(voters):
        result = services.submit_post(voter, game.pk, body=f"[b]Vote: {target.display_name}[/b]")
        assert result.day_ended is (i == 3), result.vote_message
    assert phase_number(game) == 2
    assert events_of(game, "hammer")
    target.refresh_from_db()
    assert not target.alive and target.death_cause == "day"
    time.sleep(max((deadline - timezone.now()).total_seconds(), 0) + 1)  # its task has run
    assert phase_number(game) == 2
    assert len(events_of(game, "day_ended")) == 1


def _day_of_posts(game, players, *, silent: set[int]) -> None:
    for user in players:
        slot = Slot.objects.get(game=game, user=user)
        if slot.alive and user.pk not in silent:
            services.submit_post(user, game.pk, body="Scumhunting continues.")


def test_inactivity_prod_then_modkill_through_the_worker():
    game, _, players = make_running_game(
        day_length=timedelta(hours=1), min_posts_per_day=1, inactivity_action="modkill"
    )
    lurker = players[2]
    slot = Slot.objects.get(game=game, user=lurker)
    _day_of_posts(game, players, silent={lurker.pk})
    _past_due(game)
    assert advance_phase_task.delay(game.pk, 1).get(timeout=20) is True
    slot.refresh_from_db()
    assert slot.prods == 1 and slot.alive
    prods = GameEvent.objects.filter(game=game, kind="prod")
    assert {e.audience for e in prods} == {f"slot:{slot.pk}", "host"}
    assert all(e.payload["slot_id"] == slot.pk for e in prods)  # nobody else was prodded
    # Night 1 passes with no actions (missing actions simply do not happen), then Day 2.
    game.refresh_from_db()
    _past_due(game)
    assert advance_phase_task.delay(game.pk, 2).get(timeout=20) is True
    game.refresh_from_db()
    assert game.phase_number == 3 and slot.alive
    _day_of_posts(game, players, silent={lurker.pk})
    _past_due(game)
    assert advance_phase_task.delay(game.pk, 3).get(timeout=20) is True
    slot.refresh_from_db()
    assert slot.prods == 2
    assert not slot.alive and slot.death_cause == "modkill"
    assert events_of(game, "modkill")[0]["reason"] == "inactivity"


def test_inactivity_replacement_flags_the_slot_for_the_host():
    game, host, players = make_running_game(
        day_length=timedelta(hours=1), min_posts_per_day=2, inactivity_action="replace"
    )
    lurker = players[4]
    slot = Slot.objects.get(game=game, user=lurker)
    for day in (1, 3):
        game.refresh_from_db()
        assert game.phase_number == day
        services.submit_post(lurker, game.pk, body="one post only")
        for user in players:
            if user != lurker and Slot.objects.get(game=game, user=user).alive:
                for _ in range(2):
                    services.submit_post(user, game.pk, body="active")
        _past_due(game)
        assert advance_phase_task.delay(game.pk, day).get(timeout=20) is True
        game.refresh_from_db()
        _past_due(game)
        assert advance_phase_task.delay(game.pk, day + 1).get(timeout=20) is True
    slot.refresh_from_db()
    assert slot.prods == 2 and slot.alive
    flagged = GameEvent.objects.get(game=game, kind="replacement_needed")
    assert flagged.audience == "host" and flagged.payload["slot_id"] == slot.pk
    game.refresh_from_db()
    assert inactivity.slots_needing_replacement(game) == [slot]
    assert inactivity.needs_replacement(game, slot)
    fresh = get_user_model().objects.create_user("replacement", password="pw")
    services.replace_player(host, game.pk, slot.pk, fresh)
    slot.refresh_from_db()
    assert slot.user == fresh and slot.prods == 0
    assert inactivity.slots_needing_replacement(game) == []
