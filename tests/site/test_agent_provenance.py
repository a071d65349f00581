"""An agent's provenance (issue 34, part 7): its owner states its model and version (the
pages' forms and the API), and its page (and ``GET /api/v1/agents/<name>/``) shows them
with its refusal and timeout rates (``agents.provenance``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError

from agents import services as agent_services
from agents.provenance import refusal_rate, timeout_rate
from games import services
from games.models import Agent, Game, GameStatus, NightAction, PrivateResult, Slot
from games.services import refusals
from tests.conftest import api, current_phase, slot_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db: Any) -> Any:
    return UserFactory(username="ada")


def new_agent(owner: Any, name: str = "robo", **fields: str) -> tuple[Agent, str]:
    agent = agent_services.register_agent(owner, name, **fields)
    return agent, agent_services.create_token(owner, name).key


def seated(make_game: Any, host: Any, agent: Agent) -> tuple[Game, Slot]:
    """A started forum-vanilla game (day 1) with the agent in the last seat."""
    game = make_game("forum-vanilla", start=False)
    last = game.slots.order_by("-seat").first()
    services.remove_signup(host, game.pk, last.pk)
    services.join_game(agent.user, game.pk)
    services.start_game(host, game.pk)
    return game, Slot.objects.get(game=game, user=agent.user)


# -- its owner states the model ------------------------------------------------------------
def test_the_forms_set_the_model_and_the_page_shows_it(owner, client_for):
    web = client_for(owner)
    response = web.post(
        "/agents/",
        {"name": "Deep Thought", "model_name": "gpt-5", "model_version": "2025-08-07"},
    )
    assert response.status_code == 302, response.content.decode()
    agent = Agent.objects.get(user__username="Deep Thought")
    assert (agent.model_name, agent.model_version) == ("gpt-5", "2025-08-07")
    page = web.get("/agents/Deep%20Thought/").content.decode()
    assert '<dd id="agent-model">gpt-5 <span class="muted">version</span> 2025-08-07</dd>' in page
    assert 'name="model_name"' in page and 'value="gpt-5"' in page  # the edit form, filled

    edited = web.post(
        "/agents/Deep%20Thought/edit/",
        {"description": "", "code_url": "https://example.org/dt", "model_name": "reference bot"},
    )
    assert edited.status_code == 302
    agent.refresh_from_db()
    assert (agent.model_name, agent.model_version, agent.code_url) == (
        "reference bot",
        "",
        "https://example.org/dt",
    )
    # Anyone sees it, signed in or not.
    public = client_for(None).get("/agents/Deep%20Thought/").content.decode()
    assert '<dd id="agent-model">reference bot</dd>' in public


def test_the_api_sets_the_model_and_answers_it(owner):
    me = api(owner)
    made = me.post(
        "/api/v1/agents/",
        {"name": "robo", "model_name": "claude-x", "model_version": "1"},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["agent"]["model_name"] == "claude-x"
    assert made.json()["agent"]["model_version"] == "1"
    patched = me.patch("/api/v1/agents/robo/", {"model_version": "2"}, format="json")
    assert patched.status_code == 200, patched.content
    assert patched.json()["model_name"] == "claude-x" and patched.json()["model_version"] == "2"
    listed = me.get("/api/v1/agents/").json()["results"]
    assert [(a["model_name"], a["model_version"]) for a in listed] == [("claude-x", "2")]
    # The public answer: no sign-in needed, no token count, the rates with nothing yet.
    public = api().get("/api/v1/agents/robo/")
    assert public.status_code == 200
    body = public.json()
    assert body["model_name"] == "claude-x" and body["model_version"] == "2"
    assert body["owner"] == "ada" and "live_tokens" not in body
    assert body["refusals"] == {"count": 0, "of": 0, "rate": None}
    assert body["timeouts"] == {"count": 0, "of": 0, "rate": None}
    assert api().get("/api/v1/agents/nobody/").status_code == 404


def test_only_its_owner_edits_it(owner):
    agent, key = new_agent(owner, model_name="gpt-5")
    other = UserFactory(username="eve")
    assert (
        api(other).patch("/api/v1/agents/robo/", {"model_name": "x"}, format="json").status_code
        == 404
    )
    assert (
        api(key=key).patch("/api/v1/agents/robo/", {"model_name": "x"}, format="json").status_code
        == 403
    )
    assert (
        api().patch("/api/v1/agents/robo/", {"model_name": "x"}, format="json").status_code == 401
    )
    agent.refresh_from_db()
    assert agent.model_name == "gpt-5"


# -- bad input changes nothing -------------------------------------------------------------
@pytest.mark.parametrize(
    "field,value",
    [("model_name", "m" * 81), ("model_version", "v" * 41), ("model_name", "gpt\x005")],
)
def test_bad_input_is_refused_and_changes_nothing(owner, client_for, field, value):
    agent, _ = new_agent(owner, model_name="gpt-5", model_version="1")
    web = client_for(owner)
    # Registering: the form says what is wrong, on the field, and nobody is registered.
    page = web.post("/agents/", {"name": "other", field: value})
    assert page.status_code == 200
    html = page.content.decode()
    assert '<div class="field has-error">' in html and f'name="{field}"' in html
    assert not Agent.objects.filter(user__username="other").exists()
    # Editing on the page: the error is told, and nothing of the edit is kept.
    edited = web.post("/agents/robo/edit/", {field: value, "description": "changed"}, follow=True)
    told = edited.content.decode()
    assert "Saved." not in told and ("at most" in told or "NUL" in told)
    # The API: a 400 in the one error shape, on the field.
    answer = api(owner).patch(
        "/api/v1/agents/robo/", {field: value, "description": "changed"}, format="json"
    )
    assert answer.status_code == 400, answer.content
    assert answer.json()["field"] == field
    refused = api(owner).post("/api/v1/agents/", {"name": "other", field: value}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == field
    agent.refresh_from_db()
    assert (agent.model_name, agent.model_version, agent.description) == ("gpt-5", "1", "")
    assert not Agent.objects.filter(user__username="other").exists()


def test_a_model_name_is_one_line(owner):
    new_agent(owner, model_name="gpt-5")
    answer = api(owner).patch("/api/v1/agents/robo/", {"model_name": "gpt\t5"}, format="json")
    assert answer.status_code == 422 and answer.json()["code"] == "model"
    assert answer.json()["field"] == "model_name"
    assert Agent.objects.get().model_name == "gpt-5"


# -- refusal rate --------------------------------------------------------------------------
def test_a_refused_act_is_counted_and_an_accepted_one_is_in_the_denominator(
    make_game, host, owner, client_for
):
    agent, key = new_agent(owner)
    game, seat = seated(make_game, host, agent)
    bot = api(key=key)
    other = game.slots.exclude(pk=seat.pk).order_by("seat").first()
    # A target the game does not have: the rules refuse it (422), and it is counted.
    refused = bot.post(f"/api/v1/games/{game.pk}/vote/", {"target": 999999}, format="json")
    assert refused.status_code == 422, refused.content
    assert Slot.objects.get(pk=seat.pk).refusals == 1
    # A night action by day: refused (409), counted.
    by_day = bot.post(
        f"/api/v1/games/{game.pk}/actions/",
        {"ability": "kill", "targets": [other.pk]},
        format="json",
    )
    assert by_day.status_code in (409, 422), by_day.content
    assert Slot.objects.get(pk=seat.pk).refusals == 2
    # Not counted: a read, a body that is not even a request (400), who may act (403).
    assert bot.get("/api/v1/games/999999/").status_code == 404
    assert bot.post(f"/api/v1/games/{game.pk}/vote/", {}, format="json").status_code == 400
    assert bot.post("/api/v1/agents/", {"name": "x"}, format="json").status_code == 403
    # A person's refusal counts toward no agent's rate.
    person = game.slots.exclude(pk=seat.pk).order_by("seat").last().user
    assert (
        api(person)
        .post(f"/api/v1/games/{game.pk}/vote/", {"target": 999999}, format="json")
        .status_code
        == 422
    )
    assert Slot.objects.get(pk=seat.pk).refusals == 2  # on the person's own seat, not here
    assert Slot.objects.get(game=game, user=person).refusals == 1
    # An accepted vote: its post and its vote row are acts on record.
    voted = bot.post(f"/api/v1/games/{game.pk}/vote/", {"target": other.pk}, format="json")
    assert voted.status_code == 200, voted.content
    # Nothing of a running game counts (a refusal at night would tell a night action).
    assert (refusal_rate(agent).count, refusal_rate(agent).of) == (0, 0)
    assert api().get("/api/v1/agents/robo/").json()["refusals"]["of"] == 0
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    rate = refusal_rate(agent)
    assert (rate.count, rate.of, rate.text) == (2, 4, "2 of 4 (50%)")
    assert api().get("/api/v1/agents/robo/").json()["refusals"] == {
        "count": 2,
        "of": 4,
        "rate": 0.5,
    }
    page = client_for(None).get("/agents/robo/").content.decode()
    assert ">2 of 4 (50%)</dd>" in page


def test_a_count_that_fails_leaves_the_refusal_answered(make_game, host, owner, monkeypatch):
    agent, key = new_agent(owner)
    game, _ = seated(make_game, host, agent)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseError("the count's table is away")

    monkeypatch.setattr(refusals.Slot.objects, "filter", broken)
    refused = api(key=key).post(f"/api/v1/games/{game.pk}/vote/", {"target": 999999}, format="json")
    monkeypatch.undo()
    assert refused.status_code == 422 and refused.json()["field"] == "target"
    assert not Slot.objects.filter(game=game, refusals__gt=0).exists()


# -- timeout rate --------------------------------------------------------------------------
def test_a_seat_acted_for_at_random_and_prodded_times_out(make_game, host, owner, client_for):
    agent, _ = new_agent(owner)
    game = make_game("classic-ten", must_act=True, min_posts_per_day=1)
    # The agent holds the detective's seat (the record is what the rates read).
    detective = slot_of(game, "detective")
    Slot.objects.filter(pk=detective.pk).update(user=agent.user)
    services.cut_deadline_now(host, game.pk)  # day 1 ends: everyone silent, all prodded
    assert current_phase(game).is_night
    services.cut_deadline_now(host, game.pk)  # the night ends: the site investigates for it
    (taken,) = PrivateResult.objects.filter(slot=detective, payload__kind="must_act")
    assert not taken.payload["factional"]
    assert NightAction.objects.filter(actor=detective, ability="investigate").exists()
    # Not counted while the game runs.
    assert (timeout_rate(agent).count, timeout_rate(agent).of) == (0, 0)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    detective.refresh_from_db()
    assert detective.prods == 1
    # Required: day 1 (ended; day 3 has not) and the night's investigation; missed: both.
    rate = timeout_rate(agent)
    assert (rate.count, rate.of, rate.text) == (2, 2, "2 of 2 (100%)")
    body = api().get("/api/v1/agents/robo/").json()["timeouts"]
    assert body == {"count": 2, "of": 2, "rate": 1.0}
    assert ">2 of 2 (100%)</dd>" in client_for(None).get("/agents/robo/").content.decode()


def test_an_act_it_sent_is_required_and_done(make_game, host, owner):
    agent, _ = new_agent(owner)
    game = make_game("classic-ten", must_act=True, min_posts_per_day=0)
    detective = slot_of(game, "detective")
    Slot.objects.filter(pk=detective.pk).update(user=agent.user)
    services.cut_deadline_now(host, game.pk)
    target = next(
        o for o in services.night_options(game, detective) if o["ability"] == "investigate"
    )["choices"][0]
    services.submit_night_action(agent.user, game.pk, ability="investigate", targets=[target])
    services.cut_deadline_now(host, game.pk)
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    # No posting minimum: its days ask nothing; its night's investigation was its own.
    rate = timeout_rate(agent)
    assert (rate.count, rate.of, rate.text) == (0, 1, "0 of 1 (0%)")
    # Sent by itself, the investigation is an accepted act too (its only one).
    assert (refusal_rate(agent).count, refusal_rate(agent).of) == (0, 1)
