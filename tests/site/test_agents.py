"""Agent accounts: registering agents, their tokens, who a game admits, and the badge that
marks an agent wherever its name is shown (pages, live parts, the API)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from agents import services as agent_services
from games import fragments, services
from games.api_tokens import hash_key
from games.errors import GameRuleError
from games.models import Agent, AgentToken, Game, Post, Slot
from tests.conftest import api, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

BADGE = '<span class="agent-badge" title="An agent: a program, not a person">agent</span>'


@pytest.fixture
def owner(db: Any) -> Any:
    return UserFactory(username="ada")


def new_agent(owner: Any, name: str = "robo") -> tuple[Agent, str]:
    agent = agent_services.register_agent(owner, name, description="Plays town.")
    return agent, agent_services.create_token(owner, name).key


def game_with_agent(make_game: Any, host: Any, agent: Agent, **overrides: Any) -> Game:
    """A forum-vanilla game with the agent in the last seat, started."""
    game = make_game("forum-vanilla", start=False, **overrides)
    last = game.slots.order_by("-seat").first()
    services.remove_signup(host, game.pk, last.pk)
    services.join_game(agent.user, game.pk)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    return game


# -- registering, on the page and in the API -----------------------------------------------
def test_the_page_registers_an_agent_and_shows_its_key_once(owner, client_for):
    web = client_for(owner)
    page = web.get("/agents/").content.decode()
    assert 'id="register-agent"' in page and "You have no agents yet." in page
    response = web.post(
        "/agents/",
        {"name": "Deep Thought", "description": "Thinks.", "code_url": "https://example.org/dt"},
    )
    assert response.status_code == 302 and response["Location"] == "/agents/Deep%20Thought/"
    page = web.get(response["Location"]).content.decode()
    key = re.search(r'id="new-key-value" type="text" readonly value="([^"]+)"', page).group(1)
    assert key.startswith("agt_")
    assert "https://example.org/dt" in page and BADGE in page
    # Shown once: a reload has the token listed by its prefix, never the key again.
    again = web.get("/agents/Deep%20Thought/").content.decode()
    assert key not in again and key[:10] in again
    agent = Agent.objects.get(user__username="Deep Thought")
    assert agent.owner == owner and not agent.user.has_usable_password()
    assert api(key=key).get("/api/v1/my-games/").status_code == 200
    # The list of my agents names it, with its badge.
    mine = web.get("/agents/").content.decode()
    assert 'href="/agents/Deep%20Thought/">Deep Thought</a>' + BADGE in mine


def test_a_key_is_stored_hashed_only(owner):
    agent, key = new_agent(owner)
    token = AgentToken.objects.get(agent=agent)
    assert token.key_hash == hash_key(key) and token.prefix == key[:10]
    stored = [str(v) for v in AgentToken.objects.values_list().get(pk=token.pk)]
    assert not any(key in value for value in stored)


def test_names_are_checked_as_at_sign_up(owner, client_for, make_users):
    make_users(1)  # player1
    web = client_for(owner)
    for bad in ("PLAYER1", "pl\u0430yer1", "two  spaces", "a/b", ""):
        response = web.post("/agents/", {"name": bad})
        assert response.status_code == 200, bad  # the form again, with its error
    assert not Agent.objects.exists()
    with pytest.raises(GameRuleError) as refused:
        agent_services.register_agent(owner, "ada")  # the owner's own name
    assert refused.value.code == "name"
    with pytest.raises(GameRuleError) as refused:
        agent_services.register_agent(owner, "bot", code_url="javascript:alert(1)")
    assert refused.value.code == "code_url"


def test_the_api_registers_lists_and_manages_tokens(owner):
    me = api(owner)
    response = me.post("/api/v1/agents/", {"name": "robo", "token_name": "laptop"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["agent"]["name"] == "robo" and body["agent"]["owner"] == "ada"
    first = body["token"]
    assert first["key"].startswith("agt_") and first["name"] == "laptop"
    assert first["prefix"] == first["key"][:10] and first["revoked"] is False
    assert [a["name"] for a in me.get("/api/v1/agents/").json()["results"]] == ["robo"]

    made = me.post("/api/v1/agents/robo/tokens/", {"name": "server"}, format="json")
    assert made.status_code == 201 and made.json()["key"] != first["key"]
    listed = me.get("/api/v1/agents/robo/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["server", "laptop"]
    assert all("key" not in t for t in listed)

    # The first key works until it is revoked; then it signs in no one (401).
    assert api(key=first["key"]).get("/api/v1/my-games/").status_code == 200
    revoked = me.post(f"/api/v1/agents/robo/tokens/{first['id']}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["revoked"] is True
    assert api(key=first["key"]).get("/api/v1/my-games/").status_code == 401
    assert api(key=made.json()["key"]).get("/api/v1/my-games/").status_code == 200


def test_only_the_owner_manages_and_never_with_an_agents_token(owner):
    agent, key = new_agent(owner)
    token = AgentToken.objects.get(agent=agent)
    stranger = api(UserFactory(username="mallory"))
    assert stranger.get("/api/v1/agents/robo/tokens/").status_code == 404
    assert stranger.post("/api/v1/agents/robo/tokens/").status_code == 404
    assert stranger.post(f"/api/v1/agents/robo/tokens/{token.pk}/revoke/").status_code == 404
    assert stranger.get("/api/v1/agents/").json()["results"] == []
    bot = api(key=key)
    for response in (
        bot.get("/api/v1/agents/"),
        bot.post("/api/v1/agents/", {"name": "robo2"}, format="json"),
        bot.get("/api/v1/agents/robo/tokens/"),
        bot.post("/api/v1/agents/robo/tokens/"),
        bot.post(f"/api/v1/agents/robo/tokens/{token.pk}/revoke/"),
    ):
        assert response.status_code == 403 and response.json()["code"] == "agent_account"
    assert not AgentToken.objects.get(pk=token.pk).revoked
    assert AgentToken.objects.count() == 1 and Agent.objects.count() == 1
    # The pages: another person finds no tokens, no forms, and cannot revoke.
    assert api(None).get("/api/v1/agents/").status_code in (401, 403)


def test_the_agent_page_for_others_and_the_owners_forms(owner, client_for):
    agent, _ = new_agent(owner)
    token = AgentToken.objects.get(agent=agent)
    public = client_for(None).get("/agents/robo/").content.decode()
    assert "Plays town." in public and "ada" in public and BADGE in public
    assert token.prefix not in public and "New token" not in public
    assert client_for(None).get("/agents/nobody/").status_code == 404
    other = client_for(UserFactory(username="mallory"))
    assert other.post(f"/agents/robo/tokens/{token.pk}/revoke/").status_code == 404
    assert other.post("/agents/robo/tokens/new/").status_code == 404
    assert other.post("/agents/robo/edit/", {"description": "hacked"}).status_code == 404
    web = client_for(owner)
    assert web.post("/agents/robo/edit/", {"description": "Plays scum.", "code_url": ""})
    agent.refresh_from_db()
    assert agent.description == "Plays scum."
    assert web.post("/agents/robo/tokens/new/", {"name": "ci"}).status_code == 302
    page = web.get("/agents/robo/").content.decode()
    assert 'id="new-key-value"' in page and AgentToken.objects.filter(agent=agent).count() == 2
    assert web.post(f"/agents/robo/tokens/{token.pk}/revoke/").status_code == 302
    assert AgentToken.objects.get(pk=token.pk).revoked


def test_caps_on_agents_and_live_tokens(owner):
    agent, _ = new_agent(owner)
    for _ in range(agent_services.MAX_LIVE_TOKENS_PER_AGENT - 1):
        agent_services.create_token(owner, "robo")
    response = api(owner).post("/api/v1/agents/robo/tokens/")
    assert response.status_code == 422 and response.json()["code"] == "too_many_tokens"
    oldest = AgentToken.objects.filter(agent=agent).order_by("created_at").first()
    agent_services.revoke_token(owner, "robo", oldest.pk)  # a revoked one frees a place
    agent_services.create_token(owner, "robo")
    for i in range(2, agent_services.MAX_AGENTS_PER_OWNER + 1):
        agent_services.register_agent(owner, f"robo{i}")
    with pytest.raises(GameRuleError) as refused:
        agent_services.register_agent(owner, "one too many")
    assert refused.value.code == "too_many_agents"


# -- in games ------------------------------------------------------------------------------
def test_admits_is_a_setting_and_is_enforced(make_game, host, owner, make_users):
    agent, key = new_agent(owner)
    people = make_game("forum-vanilla", start=False, admits="people")
    assert people.admits == "people"
    with pytest.raises(GameRuleError) as refused:
        services.join_game(agent.user, people.pk)
    assert refused.value.code == "admits"
    joined = api(key=key).post(f"/api/v1/games/{people.pk}/join/")
    assert joined.status_code == 403 and joined.json()["code"] == "admits"

    bots = services.create_game(
        host,
        title="Bots only",
        setup="forum-vanilla",
        admits="agents",
        ruleset="forum",
        role_list=[{"role": "goon", "count": 1}, {"role": "vanilla_townie", "count": 2}],
    )
    (person,) = make_users(1, prefix="person")
    with pytest.raises(GameRuleError) as refused:
        services.join_game(person, bots.pk)
    assert refused.value.code == "admits"
    services.join_game(agent.user, bots.pk)
    assert api(host).get(f"/api/v1/games/{bots.pk}/").json()["admits"] == "agents"
    with pytest.raises(GameRuleError):
        services.create_game(
            host,
            title="x",
            setup="forum-vanilla",
            ruleset="forum",
            role_list=[{"role": "vanilla_townie", "count": 3}],
            admits="robots",
        )

    # A running game for people: no agent in its replacement queue, nor as a replacement.
    running = make_game("forum-vanilla", admits="people")
    with pytest.raises(GameRuleError) as refused:
        services.join_queue(agent.user, running.pk)
    assert refused.value.code == "admits"
    slot = running.slots.order_by("seat").first()
    with pytest.raises(GameRuleError) as refused:
        services.replace_player(host, running.pk, slot.pk, agent.user)
    assert refused.value.code == "admits" and refused.value.field == "new_user"
    # The page says whom the game admits.
    page = APIClient().get(f"/games/{running.pk}/").content.decode()
    assert "People only" in page


def test_the_create_form_offers_admits(host, client_for):
    page = client_for(host).get("/games/new/?setup=forum-vanilla").content.decode()
    assert 'name="admits"' in page and "Agents only" in page


def test_an_agent_plays_its_own_seat_only(make_game, host, owner):
    agent, key = new_agent(owner)
    game = game_with_agent(make_game, host, agent)
    seat = Slot.objects.get(game=game, user=agent.user)
    other = game.slots.exclude(pk=seat.pk).order_by("seat").first()
    bot = api(key=key)
    voted = bot.post(f"/api/v1/games/{game.pk}/vote/", {"target": other.pk}, format="json")
    assert voted.status_code == 200, voted.content
    vote_post = Post.objects.filter(game=game, author=agent.user).get()
    assert vote_post.slot_id == seat.pk  # the agent's own seat voted, nobody else's
    # Not seated in another game: it cannot vote there, for anyone.
    elsewhere = make_game("forum-vanilla")
    target = elsewhere.slots.order_by("seat").first()
    refused = bot.post(f"/api/v1/games/{elsewhere.pk}/vote/", {"target": target.pk}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "not_player"
    assert not Post.objects.filter(game=elsewhere, author=agent.user).exists()


def test_an_agent_is_rate_limited_like_a_person(make_game, host, owner, settings):
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex
    settings.RATE_LIMITS = {"post": (2, 60)}
    agent, key = new_agent(owner)
    game = game_with_agent(make_game, host, agent)
    bot = api(key=key)
    for n in range(2):
        sent = bot.post(f"/api/v1/games/{game.pk}/posts/", {"body": f"hi {n}"}, format="json")
        assert sent.status_code == 201, sent.content
    refused = bot.post(f"/api/v1/games/{game.pk}/posts/", {"body": "again"}, format="json")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"


def test_the_badge_marks_the_agent_everywhere(make_game, host, owner, client_for):
    agent, key = new_agent(owner)
    game = game_with_agent(make_game, host, agent)
    goons = slots_of(game, "goon")
    api(key=key).post(f"/api/v1/games/{game.pk}/vote/", {"target": goons[0].pk}, format="json")
    services.submit_post(agent.user, game.pk, body="Beep.")
    page = client_for(None).get(f"/games/{game.pk}/?page=last").content.decode()
    # The post's author, the players list, the vote count's voter: each with the badge.
    assert f'<span class="name">robo</span>{BADGE}' in page
    assert page.count(BADGE) >= 4
    people = [s.user.username for s in game.slots.exclude(user=agent.user)]
    assert all(f'<span class="name">{name}</span>{BADGE}' not in page for name in people)
    # The live parts render exactly what a reload shows.
    post = Post.objects.filter(game=game, author=agent.user, body="Beep.").get()
    live_post = fragments.render_post(post)
    assert f'<span class="name">robo</span>{BADGE}' in live_post and live_post in page
    live_count = fragments.render_vote_count(game)
    assert BADGE in live_count and live_count in page
    assert BADGE in fragments.render_players(game)
    # The API says it too.
    detail = api(None).get(f"/api/v1/games/{game.pk}/").json()
    assert {p["name"]: p["agent"] for p in detail["players"]}["robo"] is True
    assert sum(p["agent"] for p in detail["players"]) == 1
    posts = api(None).get(f"/api/v1/games/{game.pk}/posts/?page=last").json()["results"]
    assert [p["agent"] for p in posts if p["author"] == "robo"] == [True, True]
    assert not any(p["agent"] for p in posts if p["author"] != "robo")
    count = api(None).get(f"/api/v1/games/{game.pk}/vote-count/").json()
    voters = [v for w in count["wagons"] for v in w["voters"]]
    assert [v["agent"] for v in voters if v["name"] == "robo"] == [True]
    # The archive, once the game is over.
    for goon in goons:
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    archive = client_for(None).get(f"/games/{game.pk}/archive/").content.decode()
    assert f"robo{BADGE}" in archive


def test_the_badge_costs_no_query_on_a_steady_page(make_game, host, owner, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    agent, _ = new_agent(owner)
    game = game_with_agent(make_game, host, agent)
    web = client_for(None)
    web.get(f"/games/{game.pk}/")
    with CaptureQueriesContext(connection) as ctx:
        web.get(f"/games/{game.pk}/")
    assert not [q for q in ctx.captured_queries if "games_agent" in q["sql"]]
    # A new agent is seen at once (the shared version changed).
    agent_services.register_agent(owner, "robo2")
    from games.reads.agents import current_agent_names

    assert "robo2" in current_agent_names()
    # Deleting the agent's account (the admin's way: the agent row goes with it) is seen too.
    Agent.objects.get(user__username="robo2").user.delete()
    assert "robo2" not in current_agent_names()


def test_an_agent_host_is_marked_in_the_game_list(owner, client_for):
    agent, _ = new_agent(owner)
    game = services.create_game(
        agent.user,
        title="Hosted by a bot",
        ruleset="forum",
        role_list=[{"role": "goon", "count": 1}, {"role": "vanilla_townie", "count": 2}],
    )
    lobby = client_for(None).get("/").content.decode()
    assert f"hosted by robo{BADGE}" in lobby
    assert f"hosted by robo{BADGE}" in client_for(None).get(f"/games/{game.pk}/").content.decode()
