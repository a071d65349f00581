"""Site moderators: reports of posts and players, the moderators' queue and its actions
(dismiss, warn, mute, suspend, ban), appeals, sanctions that end, alternate accounts.

Hidden information: a report of a mafia-chat post reaches only moderators outside that game
(the leak scanner searches a playing moderator's queue each phase, too)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.utils import timezone

from agents import services as agent_services
from games import services
from games.errors import ErrorCode, GameRuleError
from games.models import AltAccount, GameEvent, ModerationLogEntry, Report, Sanction, Slot
from games.reads import moderation as reads
from games.reads.my_games import my_games
from games.services import moderation as moderation
from games.setups import SETUPS
from league import services as league_services
from league.formats import format_of
from league.models import LeagueQueueEntry
from notifications import mail as digests
from notifications.models import Notification
from tests.conftest import api
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def browser(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def mods(db: Any) -> tuple[Any, Any]:
    """Two site moderators who play in no game."""
    first, second = UserFactory(username="modone"), UserFactory(username="modtwo")
    moderation.set_moderator(first)
    moderation.set_moderator(second)
    return first, second


def mafia_and_town(game: Any) -> tuple[Slot, Slot]:
    slots = list(game.slots.select_related("user").order_by("seat"))
    return next(s for s in slots if s.is_mafia), next(s for s in slots if not s.is_mafia)


# -- reports ---------------------------------------------------------------------------------
def test_a_post_is_reported_from_its_page_and_lands_in_the_queue_in_context(make_game, mods):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    for n in range(4):
        services.submit_post(town.user, game.pk, body=f"calm post {n}")
    services.submit_post(mafia.user, game.pk, body="you are all idiots")
    number = game.posts.filter(thread="public").order_by("-number").first().number
    # The post's own Report link.
    thread = browser(town.user).get(f"/games/{game.pk}/?page=last").content.decode()
    assert f'href="/games/{game.pk}/posts/{number}/report/"' in thread
    sent = browser(town.user).post(
        f"/games/{game.pk}/posts/{number}/report/", {"reason": "abuse", "text": "insults"}
    )
    assert sent.status_code == 302
    report = Report.objects.get()
    assert (report.reporter, report.player, report.post.number) == (town.user, mafia.user, number)
    queue = browser(mods[0]).get("/moderation/").content.decode()
    assert "insults" in queue and "you are all idiots" in queue  # the post, in context
    assert "calm post 3" in queue  # the post before it
    # Not for anyone else.
    assert browser(town.user).get("/moderation/").status_code == 403
    assert browser().get("/moderation/").status_code == 302


def test_the_api_reports_a_post_or_a_player_with_a_fixed_reason(make_game):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    services.submit_post(mafia.user, game.pk, body="spam spam")
    number = game.posts.filter(thread="public").order_by("-number").first().number
    client = api(town.user)
    made = client.post(
        "/api/v1/reports/",
        {"post": {"game": game.pk, "thread": "public", "number": number}, "reason": "spam"},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["player"] == mafia.user.username
    assert made.json()["post"] == {"game": game.pk, "thread": "public", "number": number}
    player = client.post(
        "/api/v1/reports/", {"player": mafia.user.username, "reason": "cheating"}, format="json"
    )
    assert player.status_code == 201 and player.json()["post"] is None
    bad = client.post("/api/v1/reports/", {"player": "x", "reason": "ugly"}, format="json")
    assert bad.status_code == 400
    both = client.post(
        "/api/v1/reports/",
        {"player": mafia.user.username, "reason": "spam", "post": {"game": game.pk, "number": 1}},
        format="json",
    )
    assert both.status_code == 422 and both.json()["code"] == ErrorCode.REPORT_TARGET
    me = client.post(
        "/api/v1/reports/", {"player": town.user.username, "reason": "spam"}, format="json"
    )
    assert me.status_code == 422 and me.json()["code"] == ErrorCode.REPORT_TARGET
    assert api().post("/api/v1/reports/", {"player": "x", "reason": "spam"}).status_code in (
        401,
        403,
    )
    assert Report.objects.count() == 2


def test_a_thread_you_cannot_read_has_no_post_to_report(make_game):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    services.submit_post(mafia.user, game.pk, body="we kill at dawn", thread="mafia")
    answer = api(town.user).post(
        "/api/v1/reports/",
        {"post": {"game": game.pk, "thread": "mafia", "number": 1}, "reason": "spam"},
        format="json",
    )
    # Not "forbidden": the thread is not there for them (the same 404 as a thread that
    # does not exist), and nothing was written.
    assert answer.status_code == 404 and answer.json()["code"] == ErrorCode.NO_THREAD
    assert browser(town.user).get(f"/games/{game.pk}/t/mafia/posts/1/report/").status_code == 404
    assert not Report.objects.exists()


def test_a_mafia_chat_report_reaches_only_moderators_outside_the_game(make_game, mods, host):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    moderation.set_moderator(town.user)  # a moderator who plays in this game
    services.submit_post(mafia.user, game.pk, body="MAFIASECRET target is x", thread="mafia")
    moderation.file_report(
        host, reason="other", text="see MAFIASECRET", game_id=game.pk, thread="mafia", number=1
    )
    report = Report.objects.get()
    playing = browser(town.user).get("/moderation/").content.decode()
    assert "MAFIASECRET" not in playing and "No open report" in playing
    outside = browser(mods[0]).get("/moderation/").content.decode()
    assert "MAFIASECRET" in outside
    # Nor can the playing moderator act on it, or find it on the person's record.
    with pytest.raises(GameRuleError) as refused:
        moderation.handle_report(town.user, report.pk, action="dismiss")
    assert refused.value.code == ErrorCode.NO_REPORT
    record = browser(town.user).get(f"/moderation/people/{mafia.user.username}/").content
    assert b"MAFIASECRET" not in record and b"None you may see" in record
    # Once the game is over, it is everyone's to see.
    game.status = "finished"
    game.save(update_fields=["status"])
    assert "MAFIASECRET" in browser(town.user).get("/moderation/").content.decode()


# -- actions ---------------------------------------------------------------------------------
def test_a_suspension_takes_the_person_and_their_agents_off_the_site(make_game, mods, host):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    agent_services.register_agent(mafia.user, "mafiabot")
    agent_key = agent_services.create_token(mafia.user, "mafiabot").key
    assert api(key=agent_key).get("/api/v1/my-games/").status_code == 200
    signed_in = browser(mafia.user)
    assert "Log out" in signed_in.get("/").content.decode()
    LeagueQueueEntry.objects.create(user=mafia.user, setup="forum-vanilla")
    moderation.file_report(town.user, reason="abuse", player=mafia.user.username)
    report = Report.objects.get()

    done = browser(mods[0]).post(
        f"/moderation/reports/{report.pk}/",
        {"action": "suspend", "reason": "abuse", "days": "7", "note": "Cool off."},
    )
    assert done.status_code == 302
    mafia.user.refresh_from_db()
    assert not mafia.user.is_active
    sanction = Sanction.objects.get()
    assert sanction.kind == "suspend" and sanction.report == report
    assert timedelta(days=6, hours=23) < sanction.ends_at - timezone.now() <= timedelta(days=7)
    report.refresh_from_db()
    assert report.status == "actioned" and report.handled_by == mods[0]
    # Signed out everywhere: the open session, a new log-in, the agent's token.
    assert "Log out" not in signed_in.get("/").content.decode()
    login = Client().post("/accounts/login/", {"username": mafia.user.username, "password": "pw"})
    assert login.status_code == 302 and "/accounts/inactive/" in login["Location"]
    refused = api(key=agent_key).get("/api/v1/my-games/")
    # Told why, by a code of its own: the owner is suspended (their agent with them).
    assert refused.status_code == 403 and refused.json()["code"] == ErrorCode.SUSPENDED
    assert "suspended until" in refused.json()["error"]
    assert not LeagueQueueEntry.objects.filter(user=mafia.user).exists()
    # The host is asked to replace the seat: the host-only event and the dashboard.
    flagged = GameEvent.objects.filter(game=game, kind="replacement_needed").get()
    assert flagged.audience == "host" and flagged.payload["slot_id"] == mafia.pk
    assert flagged.payload["removed"] is True
    dashboard = browser(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "taken off the site by its moderators" in dashboard
    hosting = next(g for g in my_games(host).active if g.game.pk == game.pk)
    assert hosting.host_needs == ["replace"]  # "my games" flags it too
    # Told, with the appeal link; by mail too, whatever their settings say.
    note = Notification.objects.get(user=mafia.user, kind="moderation")
    assert "suspended until" in note.text and "Cool off." in note.text
    assert note.link.startswith("/appeal/") and note.mail == "pending"
    # The audit log.
    entry = ModerationLogEntry.objects.get(action="suspended")
    assert entry.moderator == mods[0] and entry.user == mafia.user
    log = browser(mods[1]).get("/moderation/log/").content.decode()
    assert "Suspended" in log and mafia.user.username in log


def test_the_sanction_notice_is_mailed_even_with_mail_turned_off(make_game, mods):
    person = UserFactory(username="muted one")
    EmailAddress.objects.create(user=person, email="m@example.com", verified=True, primary=True)
    assert digests.stop_email(person.pk, "all")  # unsubscribed from every kind it can
    moderation.sanction(mods[0], person, "warn", reason="spam", note="No adverts.")
    digest = digests.build_digest(person.pk, timezone.now() + timedelta(hours=1))
    assert digest is not None
    assert digests.send_digest(digest.pk) == "sent"
    assert "No adverts." in mail.outbox[-1].body
    # The settings page does not offer to turn it off.
    page = browser(person).get("/notifications/settings/").content.decode()
    assert "A moderator acted on your account" not in page


def test_a_mute_refuses_posts_until_it_ends(make_game, mods):
    game = make_game("forum-vanilla")
    mafia, town = mafia_and_town(game)
    moderation.sanction(mods[0], town.user, "mute", reason="spam", days=2)
    posted = api(town.user).post(f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}, format="json")
    assert posted.status_code == 403 and posted.json()["code"] == ErrorCode.MUTED
    assert "muted until" in posted.json()["error"]
    # Still a player: the vote button works.
    voted = api(town.user).post(
        f"/api/v1/games/{game.pk}/vote/", {"target": mafia.pk}, format="json"
    )
    assert voted.status_code == 200, voted.content
    # Two days later the sweep ends it.
    later = timezone.now() + timedelta(days=2, minutes=1)
    assert moderation.lift_ended(later) == 1
    assert reads.mute_of(town.user.pk) is None
    services.submit_post(town.user, game.pk, body="back")
    assert ModerationLogEntry.objects.filter(action="expired", moderator=None).exists()


def test_a_suspension_ends_by_itself_and_the_account_comes_back(mods):
    person = UserFactory(username="returner")
    moderation.sanction(mods[0], person, "suspend", reason="abuse", days=1)
    person.refresh_from_db()
    assert not person.is_active
    assert moderation.lift_ended(timezone.now() + timedelta(hours=1)) == 0
    assert moderation.lift_ended(timezone.now() + timedelta(days=1, minutes=1)) == 1
    person.refresh_from_db()
    assert person.is_active
    assert Notification.objects.filter(user=person, text__contains="has ended").exists()


def test_a_ban_outlasts_a_suspension_that_ends(mods):
    person = UserFactory(username="twice")
    moderation.sanction(mods[0], person, "suspend", reason="abuse", days=1)
    moderation.sanction(mods[1], person, "ban", reason="hate")
    moderation.lift_ended(timezone.now() + timedelta(days=2))
    person.refresh_from_db()
    assert not person.is_active  # the ban still holds


def test_a_banned_persons_own_token_says_banned_and_a_wrong_key_says_nothing(mods):
    person = UserFactory(username="tokenholder")
    key = api(person).post("/api/v1/auth/token/", {"username": "tokenholder", "password": "pw"})
    key = key.json()["token"]
    assert api(key=key).get("/api/v1/my-games/").status_code == 200
    moderation.sanction(mods[0], person, "ban", reason="hate")
    refused = api(key=key).get("/api/v1/my-games/")
    assert (refused.status_code, refused.json()["code"]) == (403, ErrorCode.BANNED)
    assert refused.json()["error"] == "This account is banned from the site."
    unknown = api(key="pat_not-a-key").get("/api/v1/my-games/")
    assert unknown.status_code == 401 and unknown.json()["code"] == "authentication_failed"


def test_in_a_league_game_the_seat_of_a_banned_player_is_modkilled(make_game, mods):
    game = make_game("forum-vanilla")
    game.league_setup = "forum-vanilla"
    game.save(update_fields=["league_setup"])
    _mafia, town = mafia_and_town(game)
    moderation.sanction(mods[0], town.user, "ban", reason="cheating")
    town.refresh_from_db()
    assert not town.alive and town.death_cause == "modkill"


def test_bad_input_to_moderation_is_refused_and_changes_nothing(mods):
    person = UserFactory(username="someone")
    for kwargs, code in (
        ({"kind": "mute", "reason": "spam", "days": 0}, ErrorCode.DAYS),
        ({"kind": "suspend", "reason": "spam", "days": "lots"}, ErrorCode.DAYS),
        ({"kind": "mute", "reason": "spam", "days": 99999}, ErrorCode.DAYS),
        ({"kind": "exile", "reason": "spam"}, ErrorCode.MODERATION_ACTION),
        ({"kind": "warn", "reason": "because"}, ErrorCode.REASON),
    ):
        with pytest.raises(GameRuleError) as refused:
            moderation.sanction(mods[0], person, **kwargs)
        assert refused.value.code == code
    with pytest.raises(GameRuleError) as self_acted:
        moderation.sanction(mods[0], mods[0], "ban", reason="spam")
    assert self_acted.value.code == ErrorCode.SAME_PERSON
    with pytest.raises(GameRuleError) as not_mod:
        moderation.sanction(person, mods[0], "ban", reason="spam")
    assert not_mod.value.code == ErrorCode.NOT_MODERATOR
    page = browser(mods[0]).post(
        "/moderation/people/someone/", {"action": "suspend", "reason": "spam", "days": "-3"}
    )
    assert page.status_code == 200 and b"has-error" in page.content
    assert not Sanction.objects.exists() and not ModerationLogEntry.objects.exists()


def test_a_report_is_handled_once(mods):
    reporter, person = UserFactory(username="r"), UserFactory(username="p")
    report = moderation.file_report(reporter, reason="spam", player="p")
    moderation.handle_report(mods[0], report.pk, action="dismiss", note="not spam")
    with pytest.raises(GameRuleError) as again:
        moderation.handle_report(mods[1], report.pk, action="ban", reason="spam")
    assert again.value.code == ErrorCode.ALREADY_HANDLED
    person.refresh_from_db()
    assert person.is_active and not Sanction.objects.exists()
    assert ModerationLogEntry.objects.get().action == "dismissed"


# -- appeals ---------------------------------------------------------------------------------
def test_one_appeal_by_the_mailed_link_answered_by_another_moderator(mods):
    person = UserFactory(username="appellant")
    moderation.sanction(mods[0], person, "suspend", reason="abuse", days=30, note="Too far.")
    link = Notification.objects.get(user=person, kind="moderation").link
    page = Client().get(link)  # signed out: they cannot log in
    assert page.status_code == 200 and b"Too far." in page.content
    sent = Client().post(link, {"text": "It was a joke between friends."})
    assert sent.status_code == 302
    again = Client().post(link, {"text": "Please?"})
    assert b"Please?" not in again.content
    assert Sanction.objects.get().appeal.text == "It was a joke between friends."
    appeal = Sanction.objects.get().appeal
    # Not by the moderator who acted.
    own = browser(mods[0]).post(f"/moderation/appeals/{appeal.pk}/", {"grant": "yes"})
    assert own.status_code == 302
    person.refresh_from_db()
    assert not person.is_active
    granted = browser(mods[1]).post(
        f"/moderation/appeals/{appeal.pk}/", {"grant": "yes", "answer": "Fair enough."}
    )
    assert granted.status_code == 302
    person.refresh_from_db()
    assert person.is_active
    appeal.refresh_from_db()
    assert appeal.granted and appeal.answered_by == mods[1]
    assert {e.action for e in ModerationLogEntry.objects.all()} >= {
        "suspended",
        "appeal_granted",
        "lifted",
    }
    assert Client().get("/appeal/forged-token/").status_code == 404


# -- alternate accounts ----------------------------------------------------------------------
def test_approved_alternates_never_share_a_game(make_game, mods, host):
    main = UserFactory(username="mainacct")
    alt = UserFactory(username="altacct")
    declared = browser(alt).post("/accounts/alt/", {"main": "mainacct", "note": "my phone"})
    assert declared.status_code == 302
    row = AltAccount.objects.get()
    assert row.status == "pending" and row.main == main
    game = services.create_game(host, title="Alts", seed=1, **_vanilla())
    services.join_game(main, game.pk)
    services.join_game(alt, game.pk)  # pending: not yet kept apart
    services.leave_game(alt, game.pk)
    browser(mods[0]).post(f"/moderation/alts/{row.pk}/", {"approve": "yes"})
    assert reads.same_person(alt.pk) == {main.pk, alt.pk}
    joined = api(alt).post(f"/api/v1/games/{game.pk}/join/")
    assert joined.status_code == 403 and joined.json()["code"] == ErrorCode.SAME_PERSON
    # Nor in a game the other hosts.
    hosted = services.create_game(main, title="Main hosts", seed=1, **_vanilla())
    with pytest.raises(GameRuleError) as refused:
        services.join_game(alt, hosted.pk)
    assert refused.value.code == ErrorCode.SAME_PERSON


def test_approving_an_alternate_parts_it_from_the_games_it_shares(make_game, mods, host):
    """Declared while pending, two accounts of one person sat in one running game and
    signed up for another; the approval withdraws the sign-up and asks the host to replace
    the alternate's seat (the main plays on); the other players' seats are not flagged."""
    game = make_game("forum-vanilla")
    slots = list(game.slots.select_related("user").order_by("seat"))
    main, alt = slots[0].user, slots[1].user
    other = UserFactory(username="altsother")
    later = services.create_game(other, title="Next", seed=1, **_vanilla())
    services.join_game(main, later.pk)
    services.join_game(alt, later.pk)
    moderation.declare_alt(alt, main.username)
    assert not GameEvent.objects.filter(game=game, kind="replacement_needed").exists()

    browser(mods[0]).post(f"/moderation/alts/{AltAccount.objects.get().pk}/", {"approve": "yes"})
    flagged = GameEvent.objects.get(game=game, kind="replacement_needed")
    assert flagged.audience == "host" and flagged.payload["slot_id"] == slots[1].pk
    assert flagged.payload["removed"] is False
    dashboard = browser(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "another account of a person already in this game" in dashboard
    assert dashboard.count("another account of a person") == 1  # the alternate's seat only
    hosting = next(g for g in my_games(host).active if g.game.pk == game.pk)
    assert hosting.host_needs == ["replace"]
    assert set(later.slots.values_list("user_id", flat=True)) == {main.pk}
    # Replaced, the seat is no longer flagged.
    services.replace_player(host, game.pk, slots[1].pk, other)
    assert (
        "another account of a person"
        not in browser(host).get(f"/games/{game.pk}/host/").content.decode()
    )


def test_the_league_never_seats_two_accounts_of_one_person(mods):
    needed = format_of("forum-vanilla").setup.player_count
    main, alt = UserFactory(username="lmain"), UserFactory(username="lalt")
    moderation.declare_alt(alt, "lmain")
    moderation.decide_alt(mods[0], AltAccount.objects.get().pk, approve=True)
    league_services.join_queue(main, "forum-vanilla")
    league_services.join_queue(alt, "forum-vanilla")
    for n in range(needed - 2):
        league_services.join_queue(UserFactory(username=f"q{n}"), "forum-vanilla")
    assert league_services.match("forum-vanilla") is None  # one short: no game
    league_services.join_queue(UserFactory(username="last"), "forum-vanilla")
    assert league_services.match("forum-vanilla") is not None
    seated = set(Slot.objects.filter(user__in=[main, alt]).values_list("user_id", flat=True))
    assert seated == {main.pk}
    assert LeagueQueueEntry.objects.filter(user=alt).exists()  # waits for the next table


def _vanilla() -> dict[str, Any]:
    return SETUPS["forum-vanilla"].game_kwargs()
