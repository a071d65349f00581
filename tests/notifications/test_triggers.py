"""The triggers that are not a plain event: L-1/L-0, deadline reminders, mentions and
quotes, partners' posts, all night actions in. Each tells only whom it concerns."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import services
from notifications.mentions import mentioned, read_post
from notifications.models import Notification, NotificationPrefs
from notifications.reminders import send_reminders
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db


def _notes(user: Any, kind: str) -> list[Notification]:
    return list(Notification.objects.filter(user=user, kind=kind).order_by("pk"))


def _told(kind: str) -> set[int]:
    return set(Notification.objects.filter(kind=kind).values_list("user_id", flat=True))


def _seats(game: Any) -> list[Any]:
    return list(game.slots.select_related("user").order_by("seat"))


# -- L-1 / L-0 ---------------------------------------------------------------------------
def test_l1_tells_the_target_once_with_only_the_public_count(make_game):
    game = make_game("forum-vanilla")  # 7 alive: 4 eliminate (hammer)
    target, a, b, c, d = _seats(game)[:5]
    services.cast_vote(a.user, game.pk, target.pk)
    services.cast_vote(b.user, game.pk, target.pk)
    assert not _told("near_elimination")  # L-2
    services.cast_vote(c.user, game.pk, target.pk)
    (note,) = _notes(target.user, "near_elimination")
    assert (
        note.text == f"You are at L-1 in {game.title}: 3 of the 4 votes that eliminate are on you."
    )
    assert note.link == f"/games/{game.pk}/"
    assert _told("near_elimination") == {target.user_id}  # nobody else, not the voters
    # Off L-1 and back again the same day: still one.
    services.unvote(c.user, game.pk)
    services.cast_vote(c.user, game.pk, target.pk)
    services.cast_vote(d.user, game.pk, a.pk)
    assert len(_notes(target.user, "near_elimination")) == 1


def test_l0_under_the_lock_rule_and_nothing_under_plurality(make_game):
    game = make_game("forum-cop-doctor-nine")  # majority lock: 9 alive, 5 eliminate
    target, *voters = _seats(game)
    for voter in voters[:5]:
        services.cast_vote(voter.user, game.pk, target.pk)
    texts = [n.text for n in _notes(target.user, "near_elimination")]
    assert texts == [
        f"You are at L-1 in {game.title}: 4 of the 5 votes that eliminate are on you.",
        f"You are at L-0 in {game.title}: the wagon on you has reached 5 votes.",
    ]
    other = make_game("forum-vanilla", vote_rule="plurality")
    target, *voters = _seats(other)
    for voter in voters[:3]:
        services.cast_vote(voter.user, other.pk, target.pk)
    assert not _told("near_elimination") - {target.user_id}
    assert not Notification.objects.filter(
        game=other, kind="near_elimination"
    )  # a plurality count has no L-n


def test_l1_keeps_hidden_vote_modifiers_hidden(make_game):
    # A loved cop (hidden: the table's modifiers are not public) needs 5, the count says 4.
    roles = [
        {"role": "cop", "count": 1, "modifiers": ["loved"]},
        {"role": "goon", "count": 2},
        {"role": "vanilla_townie", "count": 4},
    ]
    game = make_game("forum-vanilla", role_list=roles)
    loved = slot_of(game, "cop")
    voters = [s for s in _seats(game) if s.pk != loved.pk]
    for voter in voters[:4]:
        services.cast_vote(voter.user, game.pk, loved.pk)
    assert current_phase(game).is_day  # the fourth vote did not hammer
    texts = [n.text for n in _notes(loved.user, "near_elimination")]
    assert texts == [
        f"You are at L-1 in {game.title}: 3 of the 4 votes that eliminate are on you.",
        f"You are at L-0 in {game.title}: the wagon on you has reached 4 votes.",
    ]  # what the public count shows, word for word: nothing about being loved
    assert _told("near_elimination") == {loved.user_id}


# -- deadline reminders ------------------------------------------------------------------
def test_a_missing_vote_is_reminded_once_even_if_the_sweep_runs_twice(make_game):
    game = make_game("forum-vanilla")
    day = current_phase(game)
    voter, late, choosy, never = _seats(game)[:4]
    NotificationPrefs.objects.create(user=choosy.user, reminder_hours=6)
    NotificationPrefs.objects.create(user=never.user, reminder_hours=0)
    services.cast_vote(voter.user, game.pk, late.pk)
    five_hours_before = day.deadline - timedelta(hours=5)
    assert send_reminders(five_hours_before) == 1  # only the one who asked for 6 hours
    assert [n.user_id for n in Notification.objects.filter(kind="action_missing")] == [
        choosy.user_id
    ]
    an_hour_before = day.deadline - timedelta(hours=1)
    send_reminders(an_hour_before)
    send_reminders(an_hour_before + timedelta(minutes=1))  # the next sweep, or a restart
    told = _told("action_missing")
    assert voter.user_id not in told and never.user_id not in told  # voted; chose never
    assert late.user_id in told and choosy.user_id in told
    assert all(len(_notes(s.user, "action_missing")) <= 1 for s in _seats(game))
    (note,) = _notes(late.user, "action_missing")
    assert note.text.startswith(f"Your vote in {game.title} is still missing: Day 1 ends ")
    assert note.key == f"missing:{day.pk}:{late.pk}"


def test_no_reminder_in_a_paused_game_or_before_the_lead_time(make_game, host):
    game = make_game("forum-vanilla")
    day = current_phase(game)
    assert send_reminders(day.deadline - timedelta(hours=3)) == 0  # 2 hours by default
    services.pause_game(host, game.pk)
    assert send_reminders(day.deadline - timedelta(minutes=30)) == 0
    assert not _told("action_missing")


def test_a_night_reminds_only_those_whose_action_is_missing(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    night = current_phase(game)
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    goons = slots_of(game, "goon")
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[doctor.pk])
    services.submit_night_action(goons[0].user, game.pk, ability="kill", targets=[doctor.pk])
    send_reminders(night.deadline - timedelta(minutes=10))
    assert _told("action_missing") == {doctor.user_id}  # the faction's kill is in for both
    (note,) = _notes(doctor.user, "action_missing")
    assert "Your night action" in note.text and note.link == f"/games/{game.pk}/role/"


# -- mentions and quotes -----------------------------------------------------------------
def test_reading_mentions_and_quotes_from_a_posts_html():
    html = (
        '<blockquote><p><span class="quote-author">Zoë Smith wrote:</span></p><p>hi @carl</p>'
        '<blockquote><p><span class="quote-author">dan wrote:</span></p></blockquote>'
        "</blockquote><p>@ZOE SMITH, @ben. mail ann@ben.org @benjamin</p>"
    )
    authors, text = read_post(html)
    assert authors == ["Zoë Smith"]  # the quote inside the quote is not this post's
    assert mentioned(text, ["zoesmith", "ben", "carl", "benjamin", "zoe"]) == {
        "zoesmith",
        "ben",
        "benjamin",
    }


def test_a_mention_and_a_quote_tell_those_people_but_never_the_author(make_game, host):
    game = make_game("forum-vanilla")
    author, named, quoted, bystander = _seats(game)[:4]
    services.submit_post(
        author.user,
        game.pk,
        body=f"[quote={quoted.user.username}]I am town[/quote]\n\n"
        f"@{named.user.username.upper()} and @{author.user.username} and @{host.username}?",
    )
    (note,) = _notes(named.user, "mentioned")
    assert note.text == f"{author.user.username} mentioned you in the game thread of {game.title}."
    assert note.link.startswith(f"/games/{game.pk}/posts/")
    (note,) = _notes(quoted.user, "mentioned")
    assert note.text.startswith(f"{author.user.username} quoted you in the game thread")
    assert _notes(host, "mentioned")
    assert not _notes(author.user, "mentioned") and not _notes(bystander.user, "mentioned")


def test_a_mention_in_the_mafia_chat_tells_no_town_player(make_game):
    game = make_game("forum-vanilla")
    goon, partner = slots_of(game, "goon")
    townie = slot_of(game, "vanilla_townie")
    services.submit_post(
        goon.user,
        game.pk,
        body=f"@{townie.user.username} is town; @{partner.user.username} kill them?",
        thread="mafia",
    )
    assert _told("mentioned") == {partner.user_id}


# -- a partner posted --------------------------------------------------------------------
def test_a_mafia_chat_post_tells_only_the_other_living_mafia_batched(make_game, host):
    game = make_game("forum-vanilla")
    goon, partner = slots_of(game, "goon")
    for body in ("hello", "who do we kill", "the cop?"):
        services.submit_post(goon.user, game.pk, body=body, thread="mafia")
    assert _told("partner_posted") == {partner.user_id}  # not the town, not the host
    (note,) = _notes(partner.user, "partner_posted")
    assert note.count == 3
    assert note.text == f"3 new posts in the mafia chat of {game.title}."
    assert note.link.startswith(f"/games/{game.pk}/t/mafia/")
    services.submit_post(partner.user, game.pk, body="agreed", thread="mafia")
    (back,) = _notes(goon.user, "partner_posted")
    assert back.text == f"{partner.user.username} posted in the mafia chat of {game.title}."
    services.submit_post(goon.user, game.pk, body="public talk")
    assert _told("partner_posted") == {partner.user_id, goon.user_id}
    assert not _notes(host, "partner_posted")


def test_a_masons_post_tells_the_other_mason(make_game):
    game = make_game("power-nine")
    first, second = slots_of(game, "mason")
    services.submit_post(first.user, game.pk, body="we are masons", thread="masons")
    assert _told("partner_posted") == {second.user_id}
    (note,) = _notes(second.user, "partner_posted")
    assert note.text == f"{first.user.username} posted in the masons' thread of {game.title}."


# -- all night actions in (host) ---------------------------------------------------------
def test_the_host_hears_once_when_the_last_night_action_is_in(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    goons = slots_of(game, "goon")
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[doctor.pk])
    services.submit_night_action(goons[0].user, game.pk, ability="kill", targets=[cop.pk])
    assert not _notes(host, "night_actions_in")
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[cop.pk])
    (note,) = _notes(host, "night_actions_in")
    assert note.text == f"All night actions are in for Night 1 of {game.title}."
    assert note.link == f"/games/{game.pk}/host/"
    assert _told("night_actions_in") == {host.pk}
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[goons[1].pk])
    assert len(_notes(host, "night_actions_in")) == 1  # a changed action: once a night


def test_beat_runs_the_reminder_sweep_each_minute(make_game):
    from mafia_site.celery import app
    from notifications import tasks

    entry = app.conf.beat_schedule["send-deadline-reminders"]
    assert entry["task"] == tasks.send_deadline_reminders.name and entry["schedule"] == 60.0
    make_game("forum-vanilla")  # its day ends in a day: nothing due yet
    assert tasks.send_deadline_reminders() == 0
