"""A moved deadline corrects the notifications that state it (issue 30, part 4): the bell
and the notifications page never show the old deadline as current, and a digest not yet
sent says the new one. Mail already sent stays as it was."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services
from notifications import mail
from notifications.models import DigestStatus, EmailDigest, MailState, Notification
from notifications.reminders import send_reminders
from tests.conftest import current_phase
from tests.mail_support import verify_addresses

pytestmark = pytest.mark.django_db

LATER = timedelta(minutes=16)  # past the default 15-minute digest window


def utc(moment: datetime) -> str:
    """How the notifications write a deadline, spelt out here on purpose."""
    moment = moment.astimezone(UTC)
    return f"{moment:%a} {moment.day} {moment:%b}, {moment:%H:%M} UTC"


def _day_notes(game: Any) -> list[Notification]:
    return list(Notification.objects.filter(game=game, kind="phase_started").order_by("pk"))


def test_extend_pause_and_resume_retell_the_days_notifications_read_or_not(make_game, host):
    game = make_game("forum-vanilla")
    other = make_game("forum-vanilla")  # its deadline is not moved
    day = current_phase(game)
    notes = _day_notes(game)
    assert notes and all(n.text.endswith(f" Deadline: {utc(day.deadline)}.") for n in notes)
    read_at = timezone.now()
    Notification.objects.filter(pk=notes[0].pk).update(read_at=read_at)
    everything = Notification.objects.count()
    stamps = {n.pk: n.updated_at for n in notes}

    services.extend_deadline(host, game.pk, by=timedelta(hours=2))
    new = day.deadline + timedelta(hours=2)
    for note in _day_notes(game):
        assert note.text == f"Day 1 has started in {game.title}. Deadline: {utc(new)}."
        assert note.updated_at == stamps[note.pk]  # corrected, not news: it does not move up
    assert Notification.objects.get(pk=notes[0].pk).read_at == read_at  # still read
    assert Notification.objects.count() == everything  # nothing new rings the bell
    other_day = current_phase(other)
    assert all(n.text.endswith(f" Deadline: {utc(other_day.deadline)}.") for n in _day_notes(other))

    services.pause_game(host, game.pk)
    assert {n.text for n in _day_notes(game)} == {
        f"Day 1 has started in {game.title}. Deadline: none while the game is paused."
    }
    services.extend_deadline(host, game.pk, by=timedelta(hours=1))  # still paused
    assert {n.text for n in _day_notes(game)} == {
        f"Day 1 has started in {game.title}. Deadline: none while the game is paused."
    }
    services.resume_game(host, game.pk)
    resumed = current_phase(game).deadline
    assert {n.text for n in _day_notes(game)} == {
        f"Day 1 has started in {game.title}. Deadline: {utc(resumed)}."
    }


def test_only_the_current_phases_notifications_are_retold(make_game, host):
    game = make_game("forum-vanilla")
    day = current_phase(game)
    services.cut_deadline_now(host, game.pk)
    night = current_phase(game)
    day_texts = {n.pk: n.text for n in _day_notes(game) if "Day 1" in n.text}
    services.extend_deadline(host, game.pk, by=timedelta(hours=3))
    night_notes = [n for n in _day_notes(game) if n.pk not in day_texts]
    assert night_notes
    new = night.deadline + timedelta(hours=3)
    assert all(n.text.endswith(f" Deadline: {utc(new)}.") for n in night_notes)
    assert {n.pk: n.text for n in _day_notes(game) if n.pk in day_texts} == day_texts
    assert all(utc(day.deadline) in text for text in day_texts.values())


def test_a_reminder_says_the_new_end(make_game, host):
    game = make_game("forum-vanilla")
    day = current_phase(game)
    assert send_reminders(day.deadline - timedelta(hours=1))
    reminders = list(Notification.objects.filter(game=game, kind="action_missing"))
    assert reminders
    services.extend_deadline(host, game.pk, by=timedelta(hours=12))
    new = day.deadline + timedelta(hours=12)
    for note in Notification.objects.filter(game=game, kind="action_missing"):
        assert note.text == f"Your vote in {game.title} is still missing: Day 1 ends {utc(new)}."
    services.pause_game(host, game.pk)
    for note in Notification.objects.filter(game=game, kind="action_missing"):
        assert note.text == f"Your vote in {game.title} is still missing: Day 1 is paused."


def test_a_digest_not_yet_sent_says_the_new_deadline_and_a_sent_one_is_left(make_game, host):
    game = make_game("forum-vanilla")
    verify_addresses()
    day = current_phase(game)
    old, new = utc(day.deadline), utc(day.deadline + timedelta(hours=2))
    people = [s.user for s in game.slots.order_by("seat").select_related("user")]
    built, tried, waiting = people[:3]
    # One digest built and never tried, one a worker tried (it may be in the inbox), and
    # the third person's notifications still waiting for their digest.
    first = mail.build_digest(built.pk, timezone.now() + LATER)
    second = mail.build_digest(tried.pk, timezone.now() + LATER)
    assert first is not None and second is not None and old in first.text
    EmailDigest.objects.filter(pk=second.pk).update(attempts=1)
    message_id = first.message_id

    services.extend_deadline(host, game.pk, by=timedelta(hours=2))

    first.refresh_from_db()
    assert new in first.text and new in first.html and old not in first.text
    assert first.message_id == message_id and first.status == DigestStatus.PENDING
    second.refresh_from_db()
    assert old in second.text and new not in second.text
    assert Notification.objects.filter(user=waiting, mail=MailState.PENDING).exists()
    third = mail.build_digest(waiting.pk, timezone.now() + LATER)
    assert third is not None and new in third.text and old not in third.text
