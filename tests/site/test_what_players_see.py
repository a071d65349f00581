"""What players see (issue 9): the day's final vote count, the site's announcements in the
thread, votes that did not count marked on the post, and the smaller things (partners'
deaths, the host's thread menu and role list, refused links, the favicon, free names)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from games import demo, services
from games.display import role_title
from games.models import Phase, Post
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db

LATER = timedelta(days=3)


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def hammer(game: Any, target: Any, voters: list[Any]) -> None:
    for voter in voters:
        services.cast_vote(voter.user, game.pk, target.pk)


def auto_posts(game: Any) -> list[Post]:
    return list(Post.objects.filter(game=game, is_auto=True).order_by("number"))


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


# -- 1: the final vote count ------------------------------------------------------------
def test_the_final_count_is_the_day_as_it_ended_hammer_vote_included(make_game):
    game = make_game("forum-vanilla")  # 7 players, majority hammer
    slots = list(game.slots.order_by("seat"))
    target, voters = slots[0], slots[1:5]
    hammer(game, target, voters)
    assert current_phase(game).is_night

    count = api().get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert count["resolved"] and count["label"] == "Day 1"
    assert count["alive_count"] == 7 and count["majority"] == 4
    [wagon] = count["wagons"]
    assert wagon["target"]["slot_id"] == target.pk and wagon["count"] == 4
    assert [v["slot_id"] for v in wagon["voters"]] == [v.pk for v in voters]
    assert len(count["not_voting"]) == 3  # the target and the two who did not vote
    html = page(Client(), f"/games/{game.pk}/")
    assert "Final vote count, Day 1" in html and "With 7 alive it takes 4" in html
    assert f"{target.display_name}</span>" in html and "No votes yet" not in html

    # Day 2: its own live count; day 1's final count is kept.
    services.cut_deadline_now(game.host, game.pk)
    day2 = current_phase(game)
    assert day2.is_day
    live = api().get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert live["label"] == "Day 2" and not live["resolved"] and live["wagons"] == []
    day1 = Phase.objects.get(game=game, number=1)
    assert day1.final_count["wagons"][0]["count"] == 4

    # Day 2 ends on its deadline without a majority: its final count shows its votes.
    alive = [s for s in game.slots.order_by("seat") if s.alive]
    services.cast_vote(alive[0].user, game.pk, alive[1].pk)
    assert services.advance_phase(game.pk, day2.number, now=timezone.now() + LATER)
    count = api().get(f"/api/v1/games/{game.pk}/vote-count/").json()
    if count.get("label") == "Day 2":  # unless the game ended some other way
        assert count["resolved"] and count["wagons"][0]["count"] == 1
        assert count["alive_count"] == len(alive)


def test_the_final_count_reaches_live_viewers_as_a_vote_count_event(make_game):
    from games.models import GameEvent

    game = make_game("forum-vanilla")
    slots = list(game.slots.order_by("seat"))
    hammer(game, slots[0], slots[1:5])
    counts = GameEvent.objects.filter(game=game, kind="vote_count").order_by("-seq")
    last = counts.first().payload
    assert last["resolved"] and last["wagons"][0]["count"] == 4 and last["alive_count"] == 7


# -- 2: announcements -------------------------------------------------------------------
def test_the_site_announces_each_phase_change_in_the_thread_as_the_host(make_game):
    game = make_game("forum-vanilla")
    [start] = auto_posts(game)
    assert start.number == 1 and start.is_host and start.author == game.host
    assert "Day 1 begins" in start.body and "takes 4 to eliminate" in start.body

    slots = list(game.slots.order_by("seat"))
    target = slots[0]
    hammer(game, target, slots[1:5])
    target.refresh_from_db()
    posts = auto_posts(game)
    elimination, night = posts[1], posts[2]
    assert f"{target.display_name} has been eliminated" in elimination.body
    assert "Final vote count, Day 1" in elimination.body
    assert f"({4})" in elimination.body
    role = role_title("forum", target.revealed_role)  # the display name, never the slug
    assert role and f"They were a **{role}**" in elimination.body  # the forum reveals on death
    assert "Night 1 begins" in night.body and night.phase.is_night

    # The banner links what was announced at the change; the API shows them like host posts.
    banner = page(Client(), f"/games/{game.pk}/")
    for post in (elimination, night):
        assert f'data-announcement="{post.number}"' in banner
    data = api().get(f"/api/v1/games/{game.pk}/posts/?page=last").json()["results"]
    by_number = {p["number"]: p for p in data}
    assert by_number[night.number]["is_auto"] and by_number[night.number]["is_host"]
    assert by_number[night.number]["author"] == game.host.username

    # A quiet night, then day 2.
    services.cut_deadline_now(game.host, game.pk)
    dawn = auto_posts(game)[3:]
    assert "Night 1 is over.** Nobody died" in dawn[0].body
    assert "Day 2 begins" in dawn[1].body
    assert current_phase(game).announcements == [dawn[0].number, dawn[1].number]


def test_a_night_kill_and_the_end_of_the_game_are_announced(make_game):
    game = make_game("forum-vanilla")
    goons = slots_of(game, "goon")
    town = slots_of(game, "vanilla_townie")
    # Day 1: a townie is voted out; night 1: the goons kill another.
    hammer(game, town[0], [*goons, town[1], town[2]])
    services.submit_night_action(
        goons[0].user,
        game.pk,
        ability=services.night_options(game, goons[0])[0]["ability"],
        targets=[town[1].pk],
    )
    services.cut_deadline_now(game.host, game.pk)
    town[1].refresh_from_db()
    dawn = next(p for p in auto_posts(game) if "Night 1 is over" in p.body)
    assert f"{town[1].display_name} was found dead" in dawn.body
    assert "They were a **Vanilla Townie**." in dawn.body
    # Day 2: 5 alive (2 goons): one more townie out and the mafia have parity.
    hammer(game, town[2], [*goons, town[3]])
    game.refresh_from_db()
    assert game.is_finished
    last = auto_posts(game)[-1]
    assert "The game is over: Mafia wins" in last.body
    banner = page(Client(), f"/games/{game.pk}/")
    assert f'data-announcement="{last.number}"' in banner


def test_a_revote_is_announced(make_game):
    game = make_game("classic-ten")
    slots = list(game.slots.order_by("seat"))
    a, b = slots[0], slots[1]
    services.nominate(slots[2].user, game.pk, a.pk)
    services.nominate(slots[3].user, game.pk, b.pk)
    for voter in slots[2:5]:
        services.cast_vote(voter.user, game.pk, a.pk)
    for voter in slots[5:8]:
        services.cast_vote(voter.user, game.pk, b.pk)
    assert services.advance_phase(game.pk, 1, now=timezone.now() + LATER)
    last = auto_posts(game)[-1]
    assert "is tied: a revote" in last.body
    assert a.display_name in last.body and b.display_name in last.body
    assert last.number in current_phase(game).announcements


def test_announcements_never_name_a_role_that_was_not_revealed(make_game):
    game = make_game("forum-vanilla")
    goon = slot_of(game, "goon")
    services.modkill(game.host, game.pk, goon.pk, reason="rules")
    modkill = auto_posts(game)[-1]
    assert f"{goon.display_name} has been modkilled" in modkill.body
    assert "goon" not in modkill.body.lower() and "not revealed" in modkill.body
    assert modkill.number in current_phase(game).announcements
    # A cleaned role (the resolver reveals "unknown") is not named either.
    from games.services import announcements

    goon.revealed_role = "unknown"
    sentence = announcements.role_sentence(goon)
    assert "goon" not in sentence and "could not be determined" in sentence


# -- 6: votes that did not count ---------------------------------------------------------
def test_a_vote_that_did_not_count_is_marked_on_the_post_for_everyone(make_game):
    game = make_game("forum-vanilla")
    a = game.slots.order_by("seat")[0]
    unknown = services.submit_post(a.user, game.pk, body="**Vote: nobodyhere**").post
    self_vote = services.submit_post(a.user, game.pk, body=f"**Vote: {a.display_name}**").post
    fine = services.submit_post(a.user, game.pk, body="just talking").post
    for post in (unknown, self_vote):
        post.refresh_from_db()
        assert post.vote_note
    html = page(Client(), f"/games/{game.pk}/")  # an anonymous spectator
    assert html.count('class="vote-note"') == 2
    assert "This vote did not count" in html
    data = api().get(f"/api/v1/games/{game.pk}/posts/").json()["results"]
    notes = {p["number"]: p["vote_note"] for p in data}
    assert notes[unknown.number] and notes[self_vote.number] and notes[fine.number] == ""


# -- 7: smaller things -------------------------------------------------------------------
def test_the_mafia_role_pm_shows_a_partner_s_death(make_game, client_for):
    game = make_game("forum-vanilla")
    first, second = slots_of(game, "goon")
    services.modkill(game.host, game.pk, second.pk)
    html = page(client_for(first.user), f"/games/{game.pk}/role/")
    assert f'<strong>{second.display_name}</strong> <span class="muted">(dead' in html
    pm = api(first.user).get(f"/api/v1/games/{game.pk}/role/").json()
    [partner] = pm["partners"]
    assert partner["alive"] is False


def test_the_host_posts_only_in_threads_the_game_has(make_game, client_for):
    game = make_game("forum-vanilla")  # no masons
    html = page(client_for(game.host), f"/games/{game.pk}/host/")
    assert 'value="mafia"' in html and 'value="masons"' not in html
    response = api(game.host).post(
        f"/api/v1/games/{game.pk}/host/post/", {"body": "hi", "thread": "masons"}, format="json"
    )
    assert response.status_code == 404 and response.json()["code"] == "no_thread"
    assert not Post.objects.filter(game=game, thread="masons").exists()


def test_the_host_sees_the_role_list_during_sign_ups_nobody_else_does(make_game, client_for):
    game = make_game("forum-vanilla", start=False)
    player = game.slots.first().user
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/host/"):
        html = page(client_for(game.host), url)  # in words, never the slug (issue 19)
        assert "5× Town Vanilla Townie" in html and "vanilla_townie" not in html
    for client in (Client(), client_for(player)):
        html = page(client, f"/games/{game.pk}/")
        assert "vanilla_townie" not in html and "goon" not in html
        assert "Town Vanilla Townie" not in html


def test_a_refused_link_keeps_its_text():
    from games.markup import render_post

    assert render_post("[url=javascript:alert(1)]click me[/url]") == "<p>click me</p>"
    assert "javascript" not in render_post("[url=JavaScript:alert(1)]x[/url]")
    assert 'href="https://example.org/"' in render_post("[url=https://example.org/]ok[/url]")


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert 'rel="icon"' in client.get("/").content.decode()


# -- 8: newcomers' names ------------------------------------------------------------------
def test_the_demo_bots_leave_common_names_free(client):
    demo.create_demo_game(seed=1)
    response = client.post(
        "/accounts/signup/",
        {"username": "alice", "password1": "Red-Herring-42x", "password2": "Red-Herring-42x"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert "-bot" in client.get("/accounts/signup/").content.decode()
