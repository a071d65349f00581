"""Events become notifications in the same transaction, for the people they concern only."""

from __future__ import annotations

import pytest

from games import services
from notifications.models import MailState, Notification, NotificationPrefs
from tests.conftest import current_phase
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _notes(user, kind=None):
    rows = Notification.objects.filter(user=user)
    if kind:
        rows = rows.filter(kind=kind)
    return list(rows)


def test_a_start_tells_every_player_and_the_last_signup_tells_the_host(make_game, host):
    game = make_game("forum-vanilla", start=False)
    (full,) = _notes(host, "signups_full")
    assert full.link == f"/games/{game.pk}/host/"
    assert "are full" in full.text
    services.start_game(host, game.pk)
    players = [s.user for s in game.slots.all()]
    for user in players:
        (started,) = _notes(user, "game_started")
        assert started.link == f"/games/{game.pk}/role/"
        (day,) = _notes(user, "phase_started")
        assert day.text.startswith(f"Day 1 has started in {game.title}. Deadline: ")
        assert day.text.endswith(" UTC.")
        assert day.mail == MailState.PENDING  # both inbox and e-mail by default
    assert not _notes(host, "game_started")


def test_a_person_who_turned_a_kind_off_is_not_told_and_email_only_skips_the_inbox(make_game, host):
    game = make_game("forum-vanilla", start=False)
    first, second = [s.user for s in game.slots.order_by("seat")[:2]]
    NotificationPrefs.objects.create(user=first, channels={"phase_started": "off"})
    NotificationPrefs.objects.create(user=second, channels={"phase_started": "email"})
    services.start_game(host, game.pk)
    assert not _notes(first, "phase_started")
    (mailed,) = _notes(second, "phase_started")
    assert not mailed.in_inbox and mailed.mail == MailState.PENDING


def test_a_prod_tells_only_its_player(make_game):
    game = make_game("forum-vanilla", min_posts_per_day=3, inactivity_action="replace")
    day = current_phase(game)
    services.advance_phase(game.pk, day.number, force=True)
    prodded = Notification.objects.filter(kind="prodded")
    assert {n.user_id for n in prodded} == {s.user_id for s in game.slots.all()}
    assert all("0 of the 3 posts" in n.text for n in prodded)


def test_replacement_tells_both_people_and_a_modkill_its_player(make_game, host):
    game = make_game("forum-vanilla")
    slot, other = game.slots.order_by("seat")[:2]
    old_user = slot.user
    newcomer = UserFactory(username="newcomer")
    services.replace_player(host, game.pk, slot.pk, newcomer)
    (gone,) = _notes(old_user, "replaced")
    assert gone.text == f"newcomer replaced you in {game.title}."
    (arrived,) = _notes(newcomer, "replaced")
    assert arrived.text.startswith(f"You replaced {old_user.username} in {game.title}")
    services.modkill(host, game.pk, other.pk, reason="spam")
    (killed,) = _notes(other.user, "modkilled")
    assert killed.text == f"The host modkilled you in {game.title} (spam)."


def test_the_end_tells_players_and_host(make_game, host):
    game = make_game("forum-vanilla")
    for slot in game.slots.filter(alignment="town"):
        services.modkill(host, game.pk, slot.pk)
        game.refresh_from_db()
        if game.is_finished:
            break
    assert game.is_finished
    told = set(Notification.objects.filter(kind="game_finished").values_list("user_id", flat=True))
    assert told == {*game.slots.values_list("user_id", flat=True), host.pk}
    (end,) = _notes(host, "game_finished")
    assert "Mafia" in end.text


def test_a_rolled_back_change_notifies_nobody(make_game, host):
    game = make_game("forum-vanilla", start=False)
    before = Notification.objects.count()
    with pytest.raises(Exception):  # noqa: B017 - the host cannot join: the whole change fails
        services.join_game(host, game.pk)
    assert Notification.objects.count() == before
