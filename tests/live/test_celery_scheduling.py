"""What gets scheduled when a phase opens or its deadline moves (no worker: the send is
recorded). The real-worker behaviour is in test_deadlines.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import scheduling, services
from games.models import Phase

from .celery_support import make_running_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sent(monkeypatch):
    """Every ETA task the scheduler sends: (game id, phase number, eta)."""
    calls: list[tuple[int, int, object]] = []

    def fake_send_task(name, args, eta, expires, retry):
        assert name == "games.tasks.advance_phase_task"
        assert expires > eta and retry is False
        calls.append((*args, eta))

    monkeypatch.setattr(scheduling.celery_app, "send_task", fake_send_task)
    monkeypatch.setattr(scheduling, "eta_tasks_enabled", lambda: True)
    return calls


def _deadline(game, number):
    return Phase.objects.get(game=game, number=number).deadline


def test_short_phase_opening_schedules_its_deadline(sent):
    game, _, _ = make_running_game(day_length=timedelta(minutes=3))
    assert sent == [(game.pk, 1, _deadline(game, 1))]


def test_long_phase_is_left_to_the_scan(sent):
    make_running_game(day_length=timedelta(hours=24))
    assert sent == []


def test_next_phase_is_scheduled_when_the_day_ends(sent):
    game, host, _ = make_running_game(day_length=timedelta(hours=24))
    services.cut_deadline_now(host, game.pk)
    assert sent == [(game.pk, 2, _deadline(game, 2))]  # the one-minute night


def test_extend_reschedules_only_when_the_new_deadline_is_near(sent):
    game, host, _ = make_running_game(day_length=timedelta(minutes=3))
    services.extend_deadline(host, game.pk, by=timedelta(minutes=2))
    assert sent[-1] == (game.pk, 1, _deadline(game, 1))
    assert len(sent) == 2
    services.extend_deadline(host, game.pk, by=timedelta(hours=2))
    assert len(sent) == 2  # now far away: the scan's job


def test_pause_schedules_nothing_and_resume_schedules_the_rest(sent):
    game, host, _ = make_running_game(day_length=timedelta(minutes=3))
    services.pause_game(host, game.pk)
    assert len(sent) == 1
    services.resume_game(host, game.pk)
    assert len(sent) == 2 and sent[-1] == (game.pk, 1, _deadline(game, 1))


def test_rolled_back_change_schedules_nothing(sent):
    from django.db import transaction

    game, _, _ = make_running_game(day_length=timedelta(hours=24))
    with pytest.raises(RuntimeError), transaction.atomic():
        Phase.objects.get(game=game, number=1).save(update_fields=["deadline"])
        phase = Phase.objects.get(game=game, number=1)
        phase.deadline = timezone.now() + timedelta(minutes=1)
        phase.save(update_fields=["deadline"])
        raise RuntimeError
    assert sent == []


def test_one_send_per_phase_per_transaction(sent):
    from django.db import transaction

    game, _, _ = make_running_game(day_length=timedelta(hours=24))
    with transaction.atomic():
        phase = Phase.objects.get(game=game, number=1)
        for minutes in (1, 2, 3):
            phase.deadline = timezone.now() + timedelta(minutes=minutes)
            phase.save(update_fields=["deadline"])
    assert sent == [(game.pk, 1, phase.deadline)]  # the last one


def test_embedded_setup_sends_nothing(settings, monkeypatch):
    settings.EMBEDDED_SERVICES = True
    assert scheduling.eta_tasks_enabled() is False
    assert scheduling.schedule_deadline(1, 1, timezone.now()) is False


def test_wants_eta_window():
    now = timezone.now()
    assert scheduling.wants_eta(now + timedelta(minutes=9), now=now)
    assert not scheduling.wants_eta(now + timedelta(minutes=11), now=now)
    assert not scheduling.wants_eta(None, now=now)  # paused


def test_broker_down_is_logged_not_raised(monkeypatch, caplog):
    def boom(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(scheduling.celery_app, "send_task", boom)
    monkeypatch.setattr(scheduling, "eta_tasks_enabled", lambda: True)
    assert scheduling.schedule_deadline(1, 1, timezone.now()) is False
    assert "scan will end it" in caplog.text


def test_the_scan_queues_the_eta_task_of_a_long_phase_as_its_deadline_nears(sent):
    """A day of 24 hours gets no ETA task when it opens (the broker would hold it a day);
    the scan queues one when the deadline comes within two scans, so it ends on the
    second, not up to a scan late. A deadline further out is left for a later scan."""
    from games import tasks

    game, _, _ = make_running_game(day_length=timedelta(hours=24))
    assert sent == []
    tasks.advance_due_phases()
    assert sent == []  # a day away
    soon = timezone.now() + timedelta(seconds=tasks.DEADLINE_SCAN_SECONDS)
    # (no save hook); the day opened a day ago, so it got no ETA task when it opened
    Phase.objects.filter(game=game, number=1).update(
        deadline=soon, started_at=timezone.now() - timedelta(days=1)
    )
    tasks.advance_due_phases()
    assert sent == [(game.pk, 1, soon)]
    later = timezone.now() + timedelta(seconds=3 * tasks.DEADLINE_SCAN_SECONDS)
    Phase.objects.filter(game=game, number=1).update(deadline=later)
    tasks.advance_due_phases()
    assert len(sent) == 1  # the next scans' job
