"""The JSON API: token auth, every endpoint, 4xx JSON errors, the OpenAPI document."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import GameStatus, NightAction, Post, Slot
from games.setups import SETUPS
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def assert_error(response: Any, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) >= {"error", "code", "field"}, body
    assert body["error"]
    if code is not None:
        assert body["code"] == code, body
    return body


# -- auth ---------------------------------------------------------------------------------
def test_token_auth_obtains_and_uses_a_token(make_game):
    game = make_game("classic-ten")
    player = slot_of(game, "detective").user
    client = APIClient()
    response = client.post(
        "/api/v1/auth/token/", {"username": player.username, "password": "pw"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert_error(client.get(f"/api/v1/games/{game.pk}/role/"), 401)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get(f"/api/v1/games/{game.pk}/role/")
    assert response.status_code == 200
    assert response.json()["role"] == "detective"


def test_token_refused_for_a_wrong_password(db):
    UserFactory(username="ann")
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": "ann", "password": "nope"}, format="json"
    )
    body = assert_error(response, 401, "bad_credentials")
    assert body["field"] == "password"


def test_session_auth_works_too(make_game, client_for):
    game = make_game("classic-ten")
    player = slot_of(game, "town").user
    response = client_for(player).get(f"/api/v1/games/{game.pk}/role/")
    assert response.status_code == 200 and response.json()["role"] == "town"


def test_anonymous_cannot_change_anything(make_game):
    game = make_game(start=False)
    assert_error(api().post(f"/api/v1/games/{game.pk}/join/"), 401)
    assert_error(api().post("/api/v1/games/", {"title": "x"}, format="json"), 401)
    assert_error(api().post(f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}, format="json"), 401)


# -- games --------------------------------------------------------------------------------
def test_create_from_a_setup_join_leave_start(host, make_users):
    users = make_users(7)
    response = api(host).post(
        "/api/v1/games/",
        {"title": "Bots welcome", "setup": "forum-vanilla", "day_length_minutes": 90},
        format="json",
    )
    assert response.status_code == 201, response.content
    game = response.json()
    assert game["status"] == "signups" and game["player_cap"] == 7
    assert game["day_length_seconds"] == 5400
    gid = game["id"]
    for user in users:
        assert api(user).post(f"/api/v1/games/{gid}/join/").status_code == 200
    assert_error(api(UserFactory()).post(f"/api/v1/games/{gid}/join/"), 409, "full")
    assert api(users[0]).post(f"/api/v1/games/{gid}/leave/").status_code == 200
    assert_error(api(host).post(f"/api/v1/games/{gid}/start/"), 409, "not_enough_players")
    assert_error(api(users[1]).post(f"/api/v1/games/{gid}/start/"), 403, "not_host")
    api(users[0]).post(f"/api/v1/games/{gid}/join/")
    response = api(host).post(f"/api/v1/games/{gid}/start/")
    assert response.status_code == 200
    assert response.json()["game"]["status"] == "running"
    assert response.json()["game"]["phase"]["kind"] == "day"


def test_create_with_own_role_list_is_checked_against_the_rule_set(host):
    bad = api(host).post(
        "/api/v1/games/",
        {"title": "Bad", "ruleset": "forum", "role_list": [{"role": "wizard", "count": 3}]},
        format="json",
    )
    body = assert_error(bad, 422, "setup")  # well-formed; the rules refuse it
    assert "wizard" in body["error"]
    missing = api(host).post("/api/v1/games/", {"title": "No roles"}, format="json")
    assert_error(missing, 400)
    ok = api(host).post(
        "/api/v1/games/",
        {
            "title": "Mine",
            "ruleset": "forum",
            "method": "nar",
            "role_list": [
                {"role": "cop", "count": 1, "sanity": "naive"},
                {"role": "vanilla_townie", "count": 4, "modifiers": ["bulletproof"]},
                {"role": "goon", "count": 2},
            ],
            "flags": {"protectionStopsAllKills": False},
            "vote_rule": "majority_lock",
        },
        format="json",
    )
    assert ok.status_code == 201, ok.content
    data = ok.json()
    assert data["method"] == "nar" and data["flags"]["protectionStopsAllKills"] is False
    assert data["role_list"][0]["sanity"] == "naive"  # the host sees the setup


def test_list_and_detail(make_game):
    running = make_game("forum-vanilla")
    response = api().get("/api/v1/games/")
    assert response.status_code == 200
    assert [g["id"] for g in response.json()] == [running.pk]
    assert api().get("/api/v1/games/?status=finished").json() == []
    assert_error(api().get("/api/v1/games/?status=bogus"), 400, "invalid")
    detail = api().get(f"/api/v1/games/{running.pk}/").json()
    assert len(detail["players"]) == 7
    assert all(p["role"] == "" and p["alignment"] == "" for p in detail["players"])
    assert detail["role_list"] is None
    assert_error(api().get("/api/v1/games/999999/"), 404)


def test_rulesets_and_setups_reference(db):
    rulesets = {r["name"]: r for r in api().get("/api/v1/rulesets/").json()}
    assert {"city", "classic", "power", "forum"} <= set(rulesets)
    assert "rar" in rulesets["forum"]["methods"]
    assert any(f["name"] == "dayVote" for f in rulesets["forum"]["flags"])
    setups = {s["slug"] for s in api().get("/api/v1/setups/").json()}
    assert "classic-ten" in setups


# -- posts ----------------------------------------------------------------------------------
def test_posts_create_list_page_and_iso(make_game):
    game = make_game("forum-vanilla")
    a, b = list(game.slots.order_by("seat"))[:2]
    for i in range(30):
        author = a if i % 3 else b
        response = api(author.user).post(
            f"/api/v1/games/{game.pk}/posts/", {"body": f"post {i}"}, format="json"
        )
        assert response.status_code == 201
    first = api().get(f"/api/v1/games/{game.pk}/posts/").json()
    # 30 posts and the site's "Day 1 begins" announcement.
    assert first["page"] == 1 and first["num_pages"] == 2 and first["count"] == 31
    assert [p["number"] for p in first["results"]] == list(range(1, 26))
    last = api().get(f"/api/v1/games/{game.pk}/posts/?page=last").json()
    assert last["page"] == 2 and len(last["results"]) == 6
    iso = api().get(f"/api/v1/games/{game.pk}/posts/?iso={b.seat}").json()
    assert iso["count"] == 10 and all(p["seat"] == b.seat for p in iso["results"])
    counts = {c["seat"]: c["posts"] for c in iso["iso_counts"]}
    assert counts[a.seat] == 20 and counts[b.seat] == 10
    by_name = api().get(f"/api/v1/games/{game.pk}/posts/?iso={b.display_name.upper()}")
    assert by_name.json()["count"] == 10
    # A player the game does not have: said, not the whole thread as if nothing was asked.
    for query, said in (("zzz", "No player called zzz."), ("99", "No player with number 99.")):
        nobody = api().get(f"/api/v1/games/{game.pk}/posts/?iso={b.seat}&iso={query}")
        assert nobody.status_code == 422, nobody.content
        assert nobody.json()["code"] == "no_player" and nobody.json()["error"] == said


def test_an_automatic_post_reads_as_plain_text_beside_its_escaped_source(host, make_users):
    game = services.create_game(
        host, title="Names", seed=3, **SETUPS["forum-vanilla"].game_kwargs()
    )
    odd = UserFactory(username="bot-a1 (3)")
    for user in [odd, *make_users(game.player_cap - 1)]:
        services.join_game(user, game.pk)
    services.start_game(host, game.pk)
    services.modkill(host, game.pk, Slot.objects.get(game=game, user=odd).pk)
    posts = api().get(f"/api/v1/games/{game.pk}/posts/?page=last").json()["results"]
    said = next(p for p in posts if p["is_auto"] and "bot" in p["body"])
    assert "bot\\-a1 \\(3\\)" in said["body"]  # the source escapes Markdown
    assert "bot-a1 (3)" in said["text"] and "\\" not in said["text"]
    assert "<" not in said["text"]
    # Every post has it: a player's own words, a line per paragraph.
    player = game.slots.exclude(user=odd).order_by("seat").first().user
    services.submit_post(player, game.pk, body="**Hello** there.\n\nSecond *line*.")
    mine = api().get(f"/api/v1/games/{game.pk}/posts/?page=last").json()["results"][-1]
    assert mine["text"] == "Hello there.\n\nSecond line."


def test_post_vote_message_and_errors(make_game, host):
    game = make_game("forum-vanilla")
    a = game.slots.order_by("seat")[0]
    response = api(a.user).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "**Vote: nobodyhere**"}, format="json"
    )
    assert response.status_code == 201
    assert "counts for nothing" in response.json()["vote_message"]
    assert_error(
        api(a.user).post(f"/api/v1/games/{game.pk}/posts/", {"body": "  "}, format="json"), 400
    )
    services.modkill(host, game.pk, a.pk)
    before = Post.objects.count()
    dead = api(a.user).post(f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}, format="json")
    assert_error(dead, 403, "dead")
    assert Post.objects.count() == before
    outsider = api(UserFactory()).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}, format="json"
    )
    assert_error(outsider, 403, "not_player")


def test_private_thread_is_404_for_non_members(make_game):
    game = make_game("classic-ten")
    town = slot_of(game, "town").user
    mafia = slot_of(game, "mafia").user
    assert_error(api(town).get(f"/api/v1/games/{game.pk}/posts/?thread=mafia"), 404)
    response = api(town).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "hi", "thread": "mafia"}, format="json"
    )
    assert_error(response, 404)
    ok = api(mafia).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "hi", "thread": "mafia"}, format="json"
    )
    assert ok.status_code == 201
    assert api(mafia).get(f"/api/v1/games/{game.pk}/posts/?thread=mafia").json()["count"] == 1


# -- votes ----------------------------------------------------------------------------------
def test_vote_unvote_and_vote_count(make_game):
    game = make_game("forum-vanilla")
    a, b, c = list(game.slots.order_by("seat"))[:3]
    response = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": c.pk}, format="json")
    assert response.status_code == 200, response.content
    vc = response.json()["vote_count"]
    assert vc["wagons"][0]["target"]["slot_id"] == c.pk
    assert vc["wagons"][0]["l_minus"] == 3  # 7 alive: majority 4
    api(b.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": None}, format="json")
    vc = api().get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert {w["name"] for w in vc["wagons"]} == {c.display_name, "No elimination"}
    assert vc["majority_text"] == "With 7 alive it takes 4 to eliminate"
    response = api(a.user).post(f"/api/v1/games/{game.pk}/unvote/")
    assert response.status_code == 200
    assert_error(api(a.user).post(f"/api/v1/games/{game.pk}/unvote/"), 422, "no_vote")
    bad = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": 987654}, format="json")
    assert_error(bad, 422, "no_player")
    self_vote = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": a.pk}, format="json")
    assert_error(self_vote, 422, "self_vote")
    malformed = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {}, format="json")
    body = assert_error(malformed, 400)
    assert body["field"] == "target"


def test_vote_at_night_is_refused_and_posts_nothing(make_game, host):
    game = make_game("forum-vanilla")
    services.cut_deadline_now(host, game.pk)
    a, b = list(game.slots.order_by("seat"))[:2]
    before = Post.objects.count()
    response = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}, format="json")
    assert_error(response, 409, "not_day")
    assert Post.objects.count() == before


def test_nominate_in_classic(make_game):
    game = make_game("classic-ten")
    a, b = slots_of(game, "town")[:2]
    refused = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}, format="json")
    assert_error(refused, 422, "not_nominated")
    response = api(a.user).post(
        f"/api/v1/games/{game.pk}/nominate/", {"target": b.pk}, format="json"
    )
    assert response.status_code == 200
    assert [n["slot_id"] for n in response.json()["nominated"]] == [b.pk]
    again = api(a.user).post(f"/api/v1/games/{game.pk}/nominate/", {"target": b.pk}, format="json")
    assert_error(again, 422, "already_nominated")
    vote = api(a.user).post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}, format="json")
    assert vote.status_code == 200


def test_nominate_where_there_are_none(make_game):
    game = make_game("forum-vanilla")
    a, b = list(game.slots.order_by("seat"))[:2]
    response = api(a.user).post(
        f"/api/v1/games/{game.pk}/nominate/", {"target": b.pk}, format="json"
    )
    assert_error(response, 422, "no_nominations")


# -- role PM and night actions ----------------------------------------------------------------
def test_role_pm_abilities_actions_and_results(make_game, host):
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)
    detective = slot_of(game, "detective")
    mafia = slots_of(game, "mafia")
    town = slot_of(game, "town")
    pm = api(detective.user).get(f"/api/v1/games/{game.pk}/role/").json()
    assert pm["role"] == "detective" and pm["night_open"] is True and pm["partners"] == []
    [ability] = pm["abilities"]
    assert ability["ability"] == "investigate"
    choices = {c["slot_id"] for c in ability["choices"]}
    assert detective.pk not in choices and len(choices) == 9
    illegal = api(detective.user).post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "investigate", "targets": [detective.pk]},
        format="json",
    )
    assert_error(illegal, 422, "illegal_action")
    assert "Attempt 1 of 3" in illegal.json()["error"]
    assert not NightAction.objects.exists()
    # The 422 came after the commit: the refused attempt is counted.
    assert current_phase(game).night_refusals == {f"{detective.pk}:investigate": 1}
    ok = api(detective.user).post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "investigate", "targets": [mafia[0].pk]},
        format="json",
    )
    assert ok.status_code == 200
    assert ok.json()["my_actions"][0]["targets"][0]["slot_id"] == mafia[0].pk
    gone = api(detective.user).delete(f"/api/v1/games/{game.pk}/actions/investigate/")
    assert gone.status_code == 200 and gone.json()["my_actions"] == []
    assert_error(api(detective.user).delete(f"/api/v1/games/{game.pk}/actions/investigate/"), 404)
    api(detective.user).post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "investigate", "targets": [mafia[0].pk]},
        format="json",
    )
    mafia_pm = api(mafia[0].user).get(f"/api/v1/games/{game.pk}/role/").json()
    assert {p["slot_id"] for p in mafia_pm["partners"]} == {mafia[1].pk, mafia[2].pk}
    api(mafia[1].user).post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "kill", "targets": [town.pk]},
        format="json",
    )
    team = api(mafia[0].user).get(f"/api/v1/games/{game.pk}/role/").json()["team_actions"]
    assert [a["targets"][0]["slot_id"] for a in team] == [town.pk]
    services.cut_deadline_now(host, game.pk)
    pm = api(detective.user).get(f"/api/v1/games/{game.pk}/role/").json()
    assert pm["night_open"] is False and pm["abilities"] == []
    [result] = pm["results"]
    assert "mafia" in result["text"] and mafia[0].display_name in result["text"]
    assert pm["past_actions"][0]["ability"] == "investigate"


def test_night_action_by_day_and_without_a_role(make_game):
    game = make_game("classic-ten")
    detective = slot_of(game, "detective")
    town = slot_of(game, "town")
    day = api(detective.user).post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "investigate", "targets": [town.pk]},
        format="json",
    )
    assert_error(day, 409, "not_night")
    assert_error(api(UserFactory()).get(f"/api/v1/games/{game.pk}/role/"), 404)


# -- host -------------------------------------------------------------------------------------
def test_host_endpoints(make_game, host):
    game = make_game("classic-ten")
    player = slot_of(game, "town")
    assert_error(api(player.user).get(f"/api/v1/games/{game.pk}/host/"), 403)
    assert_error(api(player.user).post(f"/api/v1/games/{game.pk}/host/pause/"), 403)
    view = api(host).get(f"/api/v1/games/{game.pk}/host/").json()
    assert {s["role"] for s in view["slots"]} == {"mafia", "detective", "doctor", "town"}
    deadline = current_phase(game).deadline
    response = api(host).post(
        f"/api/v1/games/{game.pk}/host/extend/", {"minutes": 60}, format="json"
    )
    assert response.status_code == 200
    assert (current_phase(game).deadline - deadline).total_seconds() == 3600
    assert_error(api(host).post(f"/api/v1/games/{game.pk}/host/extend/", {}, format="json"), 400)
    assert api(host).post(f"/api/v1/games/{game.pk}/host/pause/").json()["game"]["phase"]["paused"]
    assert_error(api(host).post(f"/api/v1/games/{game.pk}/host/pause/"), 409, "paused")
    assert api(host).post(f"/api/v1/games/{game.pk}/host/resume/").status_code == 200
    response = api(host).post(
        f"/api/v1/games/{game.pk}/host/post/", {"body": "Day 1 begins."}, format="json"
    )
    assert response.status_code == 200
    assert Post.objects.get(game=game, is_host=True, is_auto=False).body == "Day 1 begins."
    new = UserFactory(username="newcomer")
    response = api(host).post(
        f"/api/v1/games/{game.pk}/host/replace/",
        {"slot_id": player.pk, "username": "newcomer"},
        format="json",
    )
    assert response.status_code == 200
    assert Slot.objects.get(pk=player.pk).user == new
    unknown = api(host).post(
        f"/api/v1/games/{game.pk}/host/replace/",
        {"slot_id": player.pk, "username": "ghost"},
        format="json",
    )
    assert_error(unknown, 422, "no_user")
    victim = slot_of(game, "doctor")
    response = api(host).post(
        f"/api/v1/games/{game.pk}/host/modkill/", {"slot_id": victim.pk}, format="json"
    )
    assert response.status_code == 200
    assert not Slot.objects.get(pk=victim.pk).alive
    assert api(host).post(f"/api/v1/games/{game.pk}/host/cut/").status_code == 200
    assert current_phase(game).is_night
    view = api(host).get(f"/api/v1/games/{game.pk}/host/").json()
    assert view["phases"][0]["resolved"] and view["phases"][0]["explanation"]


def test_host_removes_a_signup(make_game, host):
    game = make_game(start=False)
    slot = game.slots.first()
    response = api(host).post(
        f"/api/v1/games/{game.pk}/host/remove-signup/", {"slot_id": slot.pk}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["game"]["signed_up"] == 6


# -- archive ----------------------------------------------------------------------------------
def test_archive_only_after_the_end(make_game, host):
    game = make_game("forum-vanilla")
    assert_error(api().get(f"/api/v1/games/{game.pk}/archive/"), 404)
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    archive = api().get(f"/api/v1/games/{game.pk}/archive/").json()
    assert archive["game"]["winner"] == "town"
    assert {s["role"] for s in archive["slots"]} == {"goon", "vanilla_townie"}
    detail = api().get(f"/api/v1/games/{game.pk}/").json()
    assert {p["role"] for p in detail["players"]} == {"goon", "vanilla_townie"}


# -- OpenAPI ------------------------------------------------------------------------------------
def test_openapi_document_lists_the_endpoints(db):
    response = api().get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    paths = set(schema["paths"])
    for path in (
        "/api/v1/auth/token/",
        "/api/v1/games/",
        "/api/v1/games/{game_id}/",
        "/api/v1/games/{game_id}/join/",
        "/api/v1/games/{game_id}/posts/",
        "/api/v1/games/{game_id}/vote/",
        "/api/v1/games/{game_id}/unvote/",
        "/api/v1/games/{game_id}/nominate/",
        "/api/v1/games/{game_id}/vote-count/",
        "/api/v1/games/{game_id}/role/",
        "/api/v1/games/{game_id}/actions/",
        "/api/v1/games/{game_id}/host/modkill/",
        "/api/v1/games/{game_id}/host/replace/",
        "/api/v1/games/{game_id}/archive/",
    ):
        assert path in paths, path
    assert "post" in schema["paths"]["/api/v1/games/{game_id}/vote/"]
    assert "get" not in schema["paths"]["/api/v1/games/{game_id}/host/cut/"]
    assert "tokenAuth" in json.dumps(schema["components"].get("securitySchemes", {}))
    assert api().get("/api/v1/docs/").status_code == 200


def test_swagger_page_works_offline(db):
    # The API page's assets are served by the site itself (drf-spectacular-sidecar), so it
    # works on a closed network; no script or stylesheet comes from another host.
    page = api().get("/api/v1/docs/").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', page)
    assert sources and all(s.startswith("/static/") for s in sources), sources
    # Nothing inline the Content-Security-Policy (style-src 'self') would refuse.
    assert "<style" not in page and " style=" not in page
    assert all("<script src=" in tag for tag in re.findall(r"<script[^>]*>", page))
