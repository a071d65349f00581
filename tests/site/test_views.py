"""The web pages: each renders for the right people and refuses the wrong ones; forms show
their errors; pagination, ISO, quoting, vote buttons and the role PM's legal choices."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.errors import InvalidInput
from games.models import Game, NightAction, Post, SavedSetup, Slot, Vote
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


def post_count(page: str) -> int:
    return page.count('<article id="post-')


def vote_buttons(page: str) -> set[str]:
    return set(re.findall(r'data-vote="(\w+)"', page))


def option_values(page: str, select_name: str) -> set[str]:
    match = re.search(rf'<select name="{re.escape(select_name)}"[^>]*>(.*?)</select>', page, re.S)
    assert match, f"no select {select_name}"
    return {v for v in re.findall(r'<option value="([^"]*)"', match.group(1)) if v}


# -- accounts -------------------------------------------------------------------------------
def test_sign_up_logs_in_and_shows_errors(client):
    page = client.get("/accounts/signup/")
    assert page.status_code == 200 and "Create account" in html(page)
    bad = client.post("/accounts/signup/", {"username": "ann", "password1": "x", "password2": "y"})
    assert bad.status_code == 200 and 'class="error"' in html(bad)
    ok = client.post(
        "/accounts/signup/",
        {"username": "ann", "password1": "Long-enough-42", "password2": "Long-enough-42"},
    )
    assert ok.status_code == 302
    assert get_user_model().objects.filter(username="ann").exists()
    assert "ann" in html(client.get("/"))


def test_log_in_and_out(client, db):
    UserFactory(username="bob")
    assert client.get("/accounts/login/").status_code == 200
    wrong = client.post("/accounts/login/", {"username": "bob", "password": "no"})
    assert wrong.status_code == 200 and "form-errors" in html(wrong)
    assert client.post("/accounts/login/", {"username": "bob", "password": "pw"}).status_code == 302
    assert "Log out" in html(client.get("/"))
    assert client.post("/accounts/logout/").status_code == 302
    assert "Log in" in html(client.get("/"))


# -- lobby and create -----------------------------------------------------------------------
def test_lobby_is_public_and_sorted_by_status(make_game, client):
    signups = make_game("forum-vanilla", start=False)
    running = make_game("classic-ten")
    page = html(client.get("/"))
    sections = {
        name: page.split(f'id="lobby-{name}"')[1].split("</section>")[0]
        for name in ("sign-ups", "running", "finished")
    }
    assert signups.title in sections["sign-ups"] and "7/7 signed up" in sections["sign-ups"]
    assert f"/games/{running.pk}/" in sections["running"]
    assert "No games here yet" in sections["finished"]


def test_create_needs_login(client):
    response = client.get("/games/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_create_from_a_setup_prefills_and_renders_flags(client_for, host):
    client = client_for(host)
    start = html(client.get("/games/new/"))
    assert "?setup=classic-ten" in start and "?ruleset=forum" in start
    page = html(client.get("/games/new/?setup=forum-cop-doctor-nine"))
    assert 'value="Cop and doctor nine-player"' in page
    assert "protectionStopsAllKills" in page  # the forum rule set's flags, rendered generically
    assert "dayVote" not in page  # set by the site's own vote rule field
    assert '<option value="majority_lock" selected>' in page
    city = html(client.get("/games/new/?ruleset=city"))
    assert "loverDeathDrag" in city and "protectionStopsAllKills" not in city
    assert option_values(city, "roles-0-role") == {
        "citizen", "sheriff", "doctor", "mistress", "mafia", "don", "maniac",
    }  # fmt: skip


def _create_post(**overrides):
    data = {
        "title": "My game",
        "ruleset": "forum",
        "setup": "",
        "method": "nar",
        "vote_rule": "majority_hammer",
        "starts_with": "night",
        "no_night_posting": "on",
        "skip_vote_allowed": "on",
        "day_length": "2",
        "day_unit": "days",
        "night_length": "30",
        "night_unit": "minutes",
        "player_cap": "",
        "min_posts_per_day": "3",
        "inactivity_action": "modkill",
        "flag_protectionStopsAllKills": "",
        "flag_selfTargeting": "on",
        "flag_narSharedSwaps": "cancel",
        "roles-TOTAL_FORMS": "3",
        "roles-INITIAL_FORMS": "0",
        "roles-MIN_NUM_FORMS": "0",
        "roles-MAX_NUM_FORMS": "1000",
        "roles-0-role": "cop",
        "roles-0-count": "1",
        "roles-0-sanity": "paranoid",
        "roles-1-role": "vanilla_townie",
        "roles-1-count": "4",
        "roles-1-modifiers": ["bulletproof"],
        "roles-2-role": "goon",
        "roles-2-count": "2",
    }
    data.update(overrides)
    return data


def test_create_a_game_with_own_role_list(client_for, host):
    response = client_for(host).post("/games/new/?ruleset=forum", _create_post())
    assert response.status_code == 302
    game = Game.objects.get()
    assert response["Location"] == f"/games/{game.pk}/"
    assert game.method == "nar" and game.starts_with == "night"
    assert game.day_length == timedelta(days=2) and game.night_length == timedelta(minutes=30)
    assert game.player_cap == 7 and game.min_posts_per_day == 3
    assert game.inactivity_action == "modkill"
    assert game.flags["selfTargeting"] is True and game.flags["narSharedSwaps"] == "cancel"
    assert game.flags["protectionStopsAllKills"] is False
    assert game.role_list == [
        {"role": "cop", "count": 1, "sanity": "paranoid"},
        {"role": "vanilla_townie", "count": 4, "modifiers": ["bulletproof"]},
        {"role": "goon", "count": 2},
    ]


def test_create_form_errors(client_for, host):
    client = client_for(host)
    too_small = client.post(
        "/games/new/?ruleset=forum",
        _create_post(**{"roles-1-count": "1", "roles-2-role": "", "roles-0-sanity": ""}),
    )
    assert too_small.status_code == 200 and "between 3 and" in html(too_small)
    cap = client.post("/games/new/?ruleset=forum", _create_post(player_cap="9"))
    assert "takes exactly 7 players" in html(cap)
    unknown = client.post("/games/new/?ruleset=forum", _create_post(**{"roles-0-role": "wizard"}))
    assert "Select a valid choice" in html(unknown)
    sanity = client.post("/games/new/?ruleset=forum", _create_post(**{"roles-2-sanity": "insane"}))
    assert "Only investigative roles have a sanity" in html(sanity)
    empty = client.post("/games/new/?ruleset=forum", _create_post(title=""))
    assert "This field is required" in html(empty)
    assert not Game.objects.exists()


# -- sign-ups ---------------------------------------------------------------------------------
def test_signups_join_leave_remove_start(make_game, host, client_for, client):
    game = make_game("forum-vanilla", start=False)
    url = f"/games/{game.pk}/"
    assert "Log in to join" in html(client.get(url))
    slot = game.slots.order_by("seat").first()
    player = client_for(slot.user)
    assert f"/games/{game.pk}/leave/" in html(player.get(url))
    player.post(f"/games/{game.pk}/leave/")
    assert not Slot.objects.filter(pk=slot.pk).exists()
    newcomer = client_for(UserFactory(username="newcomer"))
    assert f"/games/{game.pk}/join/" in html(newcomer.get(url))
    newcomer.post(f"/games/{game.pk}/join/")
    host_client = client_for(host)
    page = html(host_client.get(url))
    assert "Start the game" in page and "/remove/" in page
    late = client_for(UserFactory(username="late"))
    refused = late.post(f"/games/{game.pk}/join/", follow=True)
    assert "The game is full." in html(refused)
    victim = game.slots.order_by("seat").last()
    host_client.post(f"/games/{game.pk}/signups/{victim.pk}/remove/")
    assert game.slots.count() == 6
    assert "needs 7 players" in html(host_client.post(f"/games/{game.pk}/start/", follow=True))
    late.post(f"/games/{game.pk}/join/")
    assert player.post(f"/games/{game.pk}/start/").status_code == 302
    game.refresh_from_db()
    assert game.is_signups  # only the host starts
    host_client.post(f"/games/{game.pk}/start/")
    game.refresh_from_db()
    assert game.is_running


# -- the thread -------------------------------------------------------------------------------
def test_thread_pagination_and_newest_page(make_game, client):
    game = make_game("forum-vanilla")
    slots = list(game.slots.order_by("seat"))
    # Post #1 is the site's "Day 1 begins": message n is post n + 1.
    for i in range(59):
        services.submit_post(slots[i % 7].user, game.pk, body=f"message number {i + 1}")
    first = html(client.get(f"/games/{game.pk}/"))
    assert "message number 1<" in first and "message number 25<" not in first
    assert post_count(first) == 25
    assert "?page=last" in first  # the "Newest" link
    last = html(client.get(f"/games/{game.pk}/?page=last"))
    assert "message number 59<" in last and post_count(last) == 10
    assert 'data-last-page="1"' in last and 'data-last-page="0"' in first
    second = html(client.get(f"/games/{game.pk}/?page=2"))
    assert "message number 25<" in second
    assert "message number 59<" in html(client.get(f"/games/{game.pk}/?page=999"))
    assert "message number 1<" in html(client.get(f"/games/{game.pk}/?page=abc"))
    link = client.get(f"/games/{game.pk}/posts/30/")
    assert link["Location"] == f"/games/{game.pk}/?page=2#post-public-30"


def test_iso_filters_and_counts(make_game, client):
    game = make_game("forum-vanilla")
    a, b, c = list(game.slots.order_by("seat"))[:3]
    for _ in range(3):
        services.submit_post(a.user, game.pk, body="from a")
    services.submit_post(b.user, game.pk, body="from b")
    page = html(client.get(f"/games/{game.pk}/?iso={a.seat}"))
    assert post_count(page) == 3 and "from b" not in page
    assert f'{a.display_name} <span class="count">(3)</span>' in page
    assert f'{b.display_name} <span class="count">(1)</span>' in page
    assert f'{c.display_name} <span class="count">(0)</span>' in page
    both = html(client.get(f"/games/{game.pk}/?iso={a.seat}&iso={b.seat}"))
    assert post_count(both) == 4


def test_quote_prefills_the_reply_box(make_game, client_for):
    game = make_game("forum-vanilla")
    a, b = list(game.slots.order_by("seat"))[:2]
    number = services.submit_post(a.user, game.pk, body="I am town").post.number
    page = html(client_for(b.user).get(f"/games/{game.pk}/?quote={number}"))
    assert f"[quote={a.display_name} #{number}]\nI am town\n[/quote]" in page
    assert f'data-quote="{number}"' in page and 'id="reply-body"' in page


def test_reply_posts_and_refuses_with_a_message(make_game, client_for, host):
    game = make_game("forum-vanilla")
    a, b = list(game.slots.order_by("seat"))[:2]
    client = client_for(a.user)
    response = client.post(f"/games/{game.pk}/post/", {"body": f"**Vote: {b.display_name}**"})
    # Post #1 is the site's "Day 1 begins".
    assert response.status_code == 302 and response["Location"].endswith("#post-public-2")
    assert Vote.objects.get().target_id == b.pk
    nobody = client.post(f"/games/{game.pk}/post/", {"body": "**Vote: zzz**"}, follow=True)
    assert "counts for nothing" in html(nobody)
    services.modkill(host, game.pk, a.pk)
    page = html(client.get(f"/games/{game.pk}/"))
    assert "Dead players cannot post in the game thread" in page and 'id="reply-body"' not in page
    refused = client.post(f"/games/{game.pk}/post/", {"body": "from beyond"}, follow=True)
    assert "Dead players cannot post" in html(refused)
    assert not Post.objects.filter(body="from beyond").exists()


def test_no_reply_box_at_night_or_for_outsiders(make_game, client_for, client, host):
    game = make_game("forum-vanilla")
    a = game.slots.order_by("seat").first()
    assert 'id="reply-body"' not in html(client.get(f"/games/{game.pk}/"))
    assert 'id="reply-body"' not in html(client_for(UserFactory()).get(f"/games/{game.pk}/"))
    services.cut_deadline_now(host, game.pk)
    page = html(client_for(a.user).get(f"/games/{game.pk}/"))
    assert "Nobody but the host posts in the game thread at night" in page
    assert 'id="reply-body"' in html(client_for(host).get(f"/games/{game.pk}/"))


def test_vote_count_sidebar_and_vote_buttons(make_game, client_for, client, host):
    game = make_game("forum-vanilla")
    a, b, c = list(game.slots.order_by("seat"))[:3]
    services.cast_vote(a.user, game.pk, c.pk)
    services.cast_vote(b.user, game.pk, c.pk)
    page = html(client.get(f"/games/{game.pk}/"))
    assert 'id="vote-count"' in page and 'id="players"' in page and 'id="phase-banner"' in page
    assert "With 7 alive it takes 4 to eliminate" in page
    assert "L-2" in page and "Not voting (5)" in page
    assert "?page=1#post-public-1" in page  # each voter links to the post that voted
    assert "<time datetime=" in page and "data-countdown" in page
    assert not vote_buttons(page)  # anonymous: no vote buttons
    page = html(client_for(a.user).get(f"/games/{game.pk}/"))
    living_others = {str(s.pk) for s in game.slots.all() if s.pk not in (a.pk, c.pk)}
    assert vote_buttons(page) == living_others | {"skip"}  # not self, not the current vote
    assert "your vote" in page and f"/games/{game.pk}/unvote/" in page
    response = client_for(a.user).post(f"/games/{game.pk}/vote/", {"target": b.pk})
    assert response.status_code == 302
    assert Vote.objects.filter(voter=a).last().target_id == b.pk
    client_for(a.user).post(f"/games/{game.pk}/unvote/")
    assert Vote.objects.filter(voter=a).last().kind == "unvote"
    dead_target = client_for(a.user).post(f"/games/{game.pk}/vote/", {"target": "x"}, follow=True)
    assert "no such player" in html(dead_target)
    services.cut_deadline_now(host, game.pk)
    night = html(client_for(a.user).get(f"/games/{game.pk}/"))
    assert not vote_buttons(night) and "Final vote count" in night
    refused = client_for(a.user).post(f"/games/{game.pk}/vote/", {"target": b.pk}, follow=True)
    assert "during the day" in html(refused)


def test_classic_nominate_buttons(make_game, client_for):
    game = make_game("classic-ten")
    a, b = slots_of(game, "town")[:2]
    page = html(client_for(a.user).get(f"/games/{game.pk}/"))
    assert set(re.findall(r'data-nominate="(\d+)"', page)) == {str(s.pk) for s in game.slots.all()}
    assert vote_buttons(page) == {"skip"}  # nobody is nominated yet
    client_for(a.user).post(f"/games/{game.pk}/nominate/", {"target": b.pk})
    page = html(client_for(a.user).get(f"/games/{game.pk}/"))
    assert "Nominated:</strong>" in page and "nominated</span>" in page
    assert f"/games/{game.pk}/nominate/" not in page  # once a day
    assert vote_buttons(page) == {str(b.pk), "skip"}  # only nominated players


def test_classic_skip_nomination_only_on_day_one(make_game, client_for, host):
    game = make_game("classic-ten")
    a, b = slots_of(game, "town")[:2]
    page = html(client_for(a.user).get(f"/games/{game.pk}/"))
    assert 'data-nominate="skip"' in page
    client_for(a.user).post(f"/games/{game.pk}/nominate/", {"target": "skip"})
    assert game.phases.get(number=1).nominations.get(nominator=a).target is None
    assert 'data-nominate="skip"' not in html(client_for(a.user).get(f"/games/{game.pk}/"))
    services.cut_deadline_now(host, game.pk)  # day 1 ends (skip wins: nobody voted)
    services.cut_deadline_now(host, game.pk)  # night 1 passes quietly
    assert current_phase(game).is_day
    assert 'data-nominate="skip"' not in html(client_for(b.user).get(f"/games/{game.pk}/"))


# -- private threads --------------------------------------------------------------------------
def test_private_threads(make_game, client_for, client, host):
    game = make_game("classic-ten")
    mafia = slot_of(game, "mafia")
    town = slot_of(game, "town")
    services.submit_post(mafia.user, game.pk, body="kill the doc", thread="mafia")
    assert "kill the doc" in html(client_for(mafia.user).get(f"/games/{game.pk}/t/mafia/"))
    assert "kill the doc" in html(client_for(host).get(f"/games/{game.pk}/t/mafia/"))
    assert client_for(town.user).get(f"/games/{game.pk}/t/mafia/").status_code == 404
    assert client.get(f"/games/{game.pk}/t/mafia/").status_code == 404
    assert client.get(f"/games/{game.pk}/t/dead/").status_code == 404
    assert client.get(f"/games/{game.pk}/t/nonsense/").status_code == 404
    assert (
        client_for(town.user)
        .post(f"/games/{game.pk}/t/mafia/post/", {"body": "let me in"})
        .status_code
        == 404
    )
    services.modkill(host, game.pk, town.pk)
    dead = client_for(town.user)
    assert dead.get(f"/games/{game.pk}/t/dead/").status_code == 200
    dead.post(f"/games/{game.pk}/t/dead/post/", {"body": "rip me"})
    assert Post.objects.filter(thread="dead", body="rip me").exists()
    services.modkill(host, game.pk, mafia.pk)
    # Dead, the mafioso has lost the chat they know exists: told so, not "no such thread".
    closed = client_for(mafia.user).get(f"/games/{game.pk}/t/mafia/")
    assert closed.status_code == 403 and "kill the doc" not in html(closed)
    assert "You lost access to this thread when you died" in html(closed)


# -- role PM ----------------------------------------------------------------------------------
def test_role_pm_refuses_the_wrong_people(make_game, client_for, client, host):
    game = make_game("classic-ten")
    url = f"/games/{game.pk}/role/"
    assert client.get(url).status_code == 302
    assert client_for(UserFactory()).get(url).status_code == 404
    assert client_for(host).get(url)["Location"] == f"/games/{game.pk}/host/"
    assert client_for(slot_of(game, "town").user).get(url).status_code == 200


def test_role_pm_offers_exactly_the_legal_choices(make_game, client_for, host):
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)
    detective = slot_of(game, "detective")
    mafia = slots_of(game, "mafia")
    client = client_for(detective.user)
    page = html(client.get(f"/games/{game.pk}/role/"))
    assert "You are a Town Detective." in page and "detective" not in page.replace("-", "")
    assert option_values(page, "act-investigate-target_1") == {
        str(s.pk) for s in game.slots.exclude(pk=detective.pk)
    }
    mafia_page = html(client_for(mafia[0].user).get(f"/games/{game.pk}/role/"))
    assert option_values(mafia_page, "act-kill-target_1") == {
        str(s.pk) for s in game.slots.exclude(alignment="mafia")
    }
    assert mafia[1].display_name in mafia_page and mafia[2].display_name in mafia_page
    town_page = html(client_for(slot_of(game, "town").user).get(f"/games/{game.pk}/role/"))
    assert "You have no night action tonight" in town_page and "<select" not in town_page
    illegal = client.post(
        f"/games/{game.pk}/role/",
        {"form_ability": "investigate", "act-investigate-target_1": str(detective.pk)},
    )
    assert illegal.status_code == 200 and "Select a valid choice" in html(illegal)
    ok = client.post(
        f"/games/{game.pk}/role/",
        {"form_ability": "investigate", "act-investigate-target_1": str(mafia[0].pk)},
    )
    assert ok.status_code == 302
    assert NightAction.objects.get().targets == [mafia[0].pk]
    page = html(client.get(f"/games/{game.pk}/role/"))
    assert "Change" in page and "Withdraw investigate" in page
    client.post(f"/games/{game.pk}/role/withdraw/", {"ability": "investigate"})
    assert not NightAction.objects.exists()
    client.post(
        f"/games/{game.pk}/role/",
        {"form_ability": "investigate", "act-investigate-target_1": str(mafia[0].pk)},
    )
    services.cut_deadline_now(host, game.pk)
    page = html(client.get(f"/games/{game.pk}/role/"))
    assert f"Your investigation of {mafia[0].display_name}: mafia." in page
    assert "Night actions are sent at night" in page


def test_role_pm_shows_service_errors_on_the_form(make_game, client_for, host, monkeypatch):
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)
    mafia = slots_of(game, "mafia")
    town = slot_of(game, "town")

    def refuse(*args, **kwargs):
        raise InvalidInput("The resolver says no.", "illegal_action")

    monkeypatch.setattr(services, "submit_night_action", refuse)
    response = client_for(mafia[0].user).post(
        f"/games/{game.pk}/role/", {"form_ability": "kill", "act-kill-target_1": str(town.pk)}
    )
    assert response.status_code == 200
    assert 'class="form-errors"' in html(response) and "The resolver says no." in html(response)
    # A target that died since the page was drawn is no longer a choice.
    monkeypatch.undo()
    services.modkill(host, game.pk, town.pk)
    response = client_for(mafia[0].user).post(
        f"/games/{game.pk}/role/", {"form_ability": "kill", "act-kill-target_1": str(town.pk)}
    )
    assert response.status_code == 200 and "Select a valid choice" in html(response)
    assert not NightAction.objects.exists()


# -- host dashboard ---------------------------------------------------------------------------
def test_host_dashboard_and_actions(make_game, client_for, client, host):
    game = make_game("classic-ten")
    url = f"/games/{game.pk}/host/"
    assert client.get(url).status_code == 302
    assert client_for(slot_of(game, "town").user).get(url).status_code == 404
    assert client_for(slot_of(game, "town").user).post(url + "pause/").status_code == 404
    host_client = client_for(host)
    page = html(host_client.get(url))
    for role in ("Detective", "Doctor", "Mafia", "Town"):  # display names, never slugs
        assert role in page
    deadline = current_phase(game).deadline
    host_client.post(url + "extend/", {"amount": "2", "unit": "hours"})
    assert current_phase(game).deadline - deadline == timedelta(hours=2)
    host_client.post(url + "pause/")
    assert current_phase(game).is_paused
    assert "Resume" in html(host_client.get(url))
    again = host_client.post(url + "pause/", follow=True)
    assert "already paused" in html(again)
    host_client.post(url + "resume/")
    assert not current_phase(game).is_paused
    host_client.post(url + "post/", {"thread": "public", "body": "Welcome to day 1"})
    assert Post.objects.get(is_host=True, is_auto=False).body == "Welcome to day 1"
    victim = slot_of(game, "doctor")
    host_client.post(url + "modkill/", {"slot": victim.pk, "reason": "rules"})
    assert not Slot.objects.get(pk=victim.pk).alive
    town = slot_of(game, "town")
    unknown = host_client.post(
        url + "replace/", {"slot": town.pk, "username": "ghost"}, follow=True
    )
    assert "There is no user called" in html(unknown)
    UserFactory(username="sub")
    host_client.post(url + "replace/", {"slot": town.pk, "username": "sub"})
    assert Slot.objects.get(pk=town.pk).user.username == "sub"
    detective = slot_of(game, "detective")
    host_client.post(url + "cut/")
    services.submit_night_action(
        detective.user, game.pk, ability="investigate", targets=[slot_of(game, "mafia").pk]
    )
    page = html(host_client.get(url))
    assert "Investigate" in page  # night actions as they come in
    host_client.post(url + "cut/")
    page = html(host_client.get(url))
    assert "investigates" in page  # the resolver's explanation, in display names
    assert f"P{detective.seat} " not in page
    assert host_client.post(url + "bogus/").status_code == 404


# -- archive --------------------------------------------------------------------------------
def test_archive_after_the_end(make_game, client, host):
    game = make_game("forum-vanilla")
    assert client.get(f"/games/{game.pk}/archive/").status_code == 404
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    page = html(client.get(f"/games/{game.pk}/archive/"))
    assert "Town wins" in page and "Goon" in page and "Vanilla Townie" in page
    assert "vanilla_townie" not in page
    thread = html(client.get(f"/games/{game.pk}/"))
    assert "Game over: Town wins" in thread and f"/games/{game.pk}/archive/" in thread


def test_inactive_players_are_flagged_to_the_host_and_told_privately(
    make_game, client_for, client, host
):
    game = make_game("forum-vanilla", min_posts_per_day=1)
    for _ in range(3):  # day 1, night 1, day 2: two prods for everyone silent
        services.cut_deadline_now(host, game.pk)
    slot = game.slots.order_by("seat").first()
    page = html(client_for(host).get(f"/games/{game.pk}/host/"))
    assert 'id="needs-replacement"' in page and slot.display_name in page
    assert "prodded 2 times" in html(client_for(slot.user).get(f"/games/{game.pk}/role/"))
    # Who was prodded is theirs and the host's (the house rules say what a prod is).
    public = html(client.get(f"/games/{game.pk}/"))
    assert "been prodded" not in public and "prodded 2" not in public
    assert "a player who falls short is prodded" in public
    api = client_for(host).get(f"/api/v1/games/{game.pk}/host/").json()
    assert len(api["needs_replacement"]) == 7


def _classic_post(**overrides):
    data = _create_post(
        ruleset="classic",
        method="simple",
        vote_rule="plurality",
        turn_based="on",
        turn_seconds="45",
        vote_seconds="90",
        word_limit="120",
        **{
            "roles-TOTAL_FORMS": "4",
            "roles-0-role": "mafia",
            "roles-0-count": "3",
            "roles-0-sanity": "",
            "roles-1-role": "detective",
            "roles-1-count": "1",
            "roles-1-modifiers": [],
            "roles-2-role": "doctor",
            "roles-2-count": "1",
            "roles-3-role": "town",
            "roles-3-count": "5",
        },
    )
    for key in [k for k in data if k.startswith("flag_")]:
        del data[key]
    data.update(overrides)
    return data


def test_create_form_turn_by_turn_fields(client_for, host):
    client = client_for(host)
    classic = html(client.get("/games/new/?setup=classic-ten"))
    for name in ("turn_based", "turn_seconds", "vote_seconds", "word_limit"):
        assert f'name="{name}"' in classic
    assert re.search(r'<input[^>]*name="turn_based"[^>]*checked', classic)  # on by default
    power = html(client.get("/games/new/?ruleset=power"))
    assert 'name="turn_seconds"' in power and 'name="word_limit"' not in power
    forum = html(client.get("/games/new/?ruleset=forum"))
    assert 'name="turn_based"' not in forum and 'name="turn_seconds"' not in forum

    response = client.post("/games/new/?ruleset=classic", _classic_post())
    assert response.status_code == 302, html(response)[:3000]
    game = Game.objects.get()
    assert game.turn_based and game.ruleset == "classic"
    assert game.turn_length == timedelta(seconds=45) and game.vote_length == timedelta(seconds=90)
    assert game.day_settings == {"word_limit": 120}

    thread = client.post("/games/new/?ruleset=classic", _classic_post(turn_based="", title="T"))
    assert thread.status_code == 302
    assert not Game.objects.get(title="T").turn_based  # unticked: the day is a free thread

    for bad in ({"turn_seconds": "5"}, {"vote_seconds": "x"}, {"word_limit": "0"}):
        response = client.post("/games/new/?ruleset=classic", _classic_post(title="Bad", **bad))
        assert response.status_code == 200  # the form again, with the error; nothing created
        field = next(iter(bad))
        page = html(response)
        assert re.search(rf'has-error">\s*<label for="id_{field}"', page), field
        assert not Game.objects.filter(title="Bad").exists()


def _power_post(**overrides):
    from games.setups import SETUPS

    roles = [(e["role"], e["count"]) for e in SETUPS["power-nine"].game_kwargs()["role_list"]]
    data = _classic_post(ruleset="power", method="priority", starts_with="day")
    data["roles-TOTAL_FORMS"] = str(len(roles))
    del data["word_limit"]
    for i, (role, count) in enumerate(roles):
        data.update({f"roles-{i}-role": role, f"roles-{i}-count": str(count)})
        data.pop(f"roles-{i}-sanity", None)
    data.update(overrides)
    return data


def test_create_form_power_discussion_budget_reaches_the_day(client_for, host, make_users):
    client = client_for(host)
    power = html(client.get("/games/new/?ruleset=power"))
    for name, initial in (("allowance", 2), ("growth", 1), ("floor", 6), ("cap", 40)):
        assert re.search(rf'name="discussion_open_{name}"[^>]*value="{initial}"', power), name
    for other in ("classic", "city"):
        page = html(client.get(f"/games/new/?ruleset={other}"))
        assert 'name="discussion_open_allowance"' not in page

    bad = client.post(
        "/games/new/?ruleset=power",
        _power_post(title="Bad", discussion_open_floor="50", discussion_open_cap="10"),
    )
    assert bad.status_code == 200 and "floor cannot be above its cap" in html(bad)
    assert not Game.objects.filter(title="Bad").exists()

    response = client.post(
        "/games/new/?ruleset=power",
        _power_post(
            discussion_open_allowance="3",
            discussion_open_growth="0",
            discussion_open_floor="4",
            discussion_open_cap="30",
            save_as="My power table",
        ),
    )
    assert response.status_code == 302, html(response)[:3000]
    game = Game.objects.get()
    assert game.ruleset == "power" and game.turn_based
    assert game.day_settings == {
        "discussion_open_allowance": 3,
        "discussion_open_growth": 0,
        "discussion_open_floor": 4,
        "discussion_open_cap": 30,
    }
    for user in make_users(game.player_cap):
        services.join_game(user, game.pk)
    services.start_game(host, game.pk)
    day = game.phases.get(number=1)
    assert day.kind == "day"
    assert day.day_state["settings"]["discussion_open_allowance"] == 3
    assert day.day_state["settings"]["discussion_open_cap"] == 30

    # The saved setup brings the budget back onto the form.
    saved = SavedSetup.objects.get(name="My power table")
    again = html(client.get(f"/games/new/?saved={saved.pk}"))
    assert re.search(r'name="discussion_open_allowance"[^>]*value="3"', again)
    assert re.search(r'name="discussion_open_floor"[^>]*value="4"', again)
