"""Blind games (issue 34, ``Game.blind``): while a blind game runs nobody learns which seats
are agents (pages, fragments, the API; players, spectators, the host, anonymous visitors);
after the end the badges return, each person who held a seat may guess once which seats
were agents (``league.guesses``), and each agent's page says how often it was spotted."""

from __future__ import annotations

from typing import Any

import pytest

from agents import services as agent_services
from games import fragments, services
from games.errors import ErrorCode, InvalidInput
from games.models import Agent, Game, GameStatus
from games.setups import SETUPS
from league import services as league_services
from league.formats import FORMATS, blind_setups
from league.models import AgentGuess
from tests.conftest import api, slots_of
from tests.factories import UserFactory
from tests.site.test_views import _create_post

pytestmark = pytest.mark.django_db

BADGE = '<span class="agent-badge" title="An agent: a program, not a person">agent</span>'


@pytest.fixture
def owner(db: Any) -> Any:
    return UserFactory(username="ada")


def new_agent(owner: Any, name: str = "robo") -> tuple[Agent, str]:
    agent = agent_services.register_agent(owner, name, description="Plays.")
    return agent, agent_services.create_token(owner, name).key


def game_with_agent(
    make_game: Any, host: Any, agent: Agent, *, start: bool = True, **overrides: Any
) -> Game:
    """A forum-vanilla game with the agent signed up last (started if asked)."""
    game = make_game("forum-vanilla", start=False, **overrides)
    last = game.slots.order_by("-seat").first()
    services.remove_signup(host, game.pk, last.pk)
    services.join_game(agent.user, game.pk)
    if start:
        services.start_game(host, game.pk)
    game.refresh_from_db()
    return game


def blind_game(make_game: Any, host: Any, agent: Agent, **kw: Any) -> Game:
    return game_with_agent(make_game, host, agent, anonymous_names=True, blind=True, **kw)


def end(game: Game, host: Any) -> None:
    """The host modkills the goons: the town wins."""
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished


def agent_seat(game: Game, agent: Agent) -> int:
    return game.slots.get(user=agent.user).seat


def person(game: Game, agent: Agent, n: int = 0) -> Any:
    return list(game.slots.exclude(user=agent.user).order_by("seat").select_related("user"))[n].user


def agent_fields(value: Any) -> list[bool]:
    """Every ``"agent"`` of a JSON answer."""
    found: list[bool] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "agent":
                found.append(item)
            else:
                found.extend(agent_fields(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(agent_fields(item))
    return found


# -- the setting -----------------------------------------------------------------------------
def test_blind_needs_anonymous_names(host):
    kwargs = SETUPS["forum-vanilla"].game_kwargs()
    kwargs["blind"] = True
    with pytest.raises(InvalidInput) as refused:
        services.create_game(host, title="Blind", **kwargs)
    assert refused.value.code == ErrorCode.BLIND and refused.value.field == "blind"
    assert not Game.objects.filter(title="Blind").exists()
    kwargs["anonymous_names"] = True
    game = services.create_game(host, title="Blind", **kwargs)
    assert game.blind and game.anonymous_names
    # The API: a clear 422; the house rules say it.
    body = {"title": "Blind API", "setup": "forum-vanilla", "blind": True}
    answer = api(host).post("/api/v1/games/", body, format="json")
    assert answer.status_code == 422 and answer.json()["code"] == "blind"
    answer = api(host).post("/api/v1/games/", {**body, "anonymous_names": True}, format="json")
    assert answer.status_code == 201, answer.content
    made = answer.json()
    assert made["blind"] is True
    assert any("Blind game" in line for line in made["house_rules"])


def test_the_create_form_refuses_blind_without_masks(host, client_for):
    web = client_for(host)
    assert 'name="blind"' in web.get("/games/new/?ruleset=forum").content.decode()
    before = Game.objects.count()
    answer = web.post("/games/new/?ruleset=forum", _create_post(title="Blind form", blind="on"))
    assert answer.status_code == 200 and Game.objects.count() == before
    assert "A blind game needs anonymous names" in answer.content.decode()
    both = _create_post(title="Blind form", blind="on", anonymous_names="on")
    assert web.post("/games/new/?ruleset=forum", both).status_code == 302
    made = Game.objects.get(title="Blind form")
    assert made.blind and made.anonymous_names


# -- hidden while it runs -------------------------------------------------------------------
def _pages(game: Game) -> list[str]:
    return [
        f"/games/{game.pk}/",
        f"/games/{game.pk}/?page=last",
        "/games/",
        "/agents/robo/",
        "/players/robo/",
    ]


def _api_paths(game: Game) -> list[str]:
    return [
        f"/api/v1/games/{game.pk}/",
        f"/api/v1/games/{game.pk}/posts/?page=last",
        f"/api/v1/games/{game.pk}/vote-count/",
    ]


def test_a_running_blind_game_shows_no_agent_to_anyone(make_game, host, owner, client_for):
    agent, key = new_agent(owner)
    game = blind_game(make_game, host, agent)
    target = person(game, agent)
    vote = api(key=key).post(
        f"/api/v1/games/{game.pk}/vote/",
        {"target": game.slots.get(user=target).pk},
        format="json",
    )
    assert vote.status_code == 200, vote.content
    services.submit_post(agent.user, game.pk, body="Beep.")
    mask = game.slots.get(user=agent.user).mask_name
    spectator = UserFactory(username="watcher")
    for viewer in (None, spectator, target, host, owner):
        web = client_for(viewer)
        for path in _pages(game):
            page = web.get(path).content.decode()
            assert "agent-badge" not in page or path in ("/agents/robo/", "/players/robo/"), path
            if path.startswith("/agents/") or path.startswith("/players/"):
                # The agent's own pages: its badge beside its name, never the game.
                assert mask not in page and f"/games/{game.pk}/" not in page, path
        for path in _api_paths(game):
            answer = api(viewer).get(path)
            assert answer.status_code == 200, (path, answer.content)
            assert not any(agent_fields(answer.json())), (viewer, path)
    # The host's own pages and answers, too.
    host_page = client_for(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "agent-badge" not in host_page and "robo" in host_page  # the account, no badge
    host_view = api(host).get(f"/api/v1/games/{game.pk}/host/").json()
    assert not any(agent_fields(host_view))
    # The live parts the socket sends.
    assert "agent-badge" not in fragments.render_vote_count(game)
    assert "agent-badge" not in fragments.render_players(game)
    # The agent's own answers do not say it either (uniform: a field that differs by seat
    # would tell), and it plays on.
    mine = api(key=key).get(f"/api/v1/games/{game.pk}/").json()
    assert not any(agent_fields(mine))


def test_the_same_game_not_blind_shows_the_host_the_badge(make_game, host, owner, client_for):
    """The control: masks alone leave the host's badge (so the test above can fail)."""
    agent, _ = new_agent(owner)
    game = game_with_agent(make_game, host, agent, anonymous_names=True)
    assert BADGE in client_for(host).get(f"/games/{game.pk}/host/").content.decode()
    host_view = api(host).get(f"/api/v1/games/{game.pk}/host/").json()
    assert any(agent_fields(host_view))


def test_sign_ups_of_a_blind_game_show_no_badge(make_game, host, owner, client_for):
    agent, _ = new_agent(owner)
    game = blind_game(make_game, host, agent, start=False)
    services.submit_post(agent.user, game.pk, body="Signing up.")
    page = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert "robo" in page and "agent-badge" not in page
    detail = api(None).get(f"/api/v1/games/{game.pk}/").json()
    assert detail["players"] and not any(agent_fields(detail))
    posts = api(None).get(f"/api/v1/games/{game.pk}/posts/?page=last").json()
    assert not any(agent_fields(posts))
    # The control: an ordinary game's sign-ups show it.
    other = game_with_agent(make_game, host, agent, start=False)
    assert BADGE in client_for(None).get(f"/games/{other.pk}/").content.decode()


def test_the_badges_return_at_the_end(make_game, host, owner, client_for):
    agent, _ = new_agent(owner)
    game = blind_game(make_game, host, agent)
    services.submit_post(agent.user, game.pk, body="Beep.")
    end(game, host)
    assert BADGE in client_for(None).get(f"/games/{game.pk}/archive/").content.decode()
    assert BADGE in client_for(None).get(f"/games/{game.pk}/review/").content.decode()
    detail = api(None).get(f"/api/v1/games/{game.pk}/").json()
    flags = {p["seat"]: p["agent"] for p in detail["players"]}
    assert flags[agent_seat(game, agent)] is True and sum(flags.values()) == 1


# -- the guesses ---------------------------------------------------------------------------
def _guess(user: Any, game: Game, seats: Any) -> Any:
    return api(user).post(
        f"/api/v1/games/{game.pk}/agent-guesses/", {"seats": seats}, format="json"
    )


def test_guesses_open_at_the_end_of_a_blind_game_only(make_game, host, owner):
    agent, _ = new_agent(owner)
    game = blind_game(make_game, host, agent)
    player = person(game, agent)
    running = _guess(player, game, [1])
    assert running.status_code == 409 and running.json()["code"] == "not_over"
    read = api(player).get(f"/api/v1/games/{game.pk}/agent-guesses/")
    assert read.status_code == 409 and read.json()["code"] == "not_over"
    ordinary = game_with_agent(make_game, host, agent)
    end(ordinary, host)
    answer = _guess(person(ordinary, agent), ordinary, [1])
    assert answer.status_code == 422 and answer.json()["code"] == "not_blind"
    assert api(None).get("/api/v1/games/999999/agent-guesses/").status_code == 404
    assert not AgentGuess.objects.exists()


def test_who_may_guess_and_what(make_game, host, owner):
    agent, key = new_agent(owner)
    game = blind_game(make_game, host, agent)
    end(game, host)
    before = Game.objects.filter(pk=game.pk).values().get()
    truth = agent_seat(game, agent)
    player = person(game, agent)
    cases = [
        (None, [1], 401, None),  # not signed in
        (UserFactory(username="outsider"), [1], 403, "not_player"),
        (host, [1], 403, "not_player"),  # the host held no seat
        (owner, [1], 403, "not_player"),
        (player, [99], 422, "guess_seats"),
        (player, [0], 400, None),  # not a seat number at all (the document's 400)
        (player, "3", 400, None),
    ]
    for user, seats, status, code in cases:
        answer = _guess(user, game, seats)
        assert answer.status_code == status, (user, seats, answer.content)
        if code:
            assert answer.json()["code"] == code
    agent_answer = api(key=key).post(
        f"/api/v1/games/{game.pk}/agent-guesses/", {"seats": [truth]}, format="json"
    )
    assert agent_answer.status_code == 403 and agent_answer.json()["code"] == "agent_account"
    assert not AgentGuess.objects.exists()
    # A good guess: once.
    answer = _guess(player, game, [truth, truth, 1 if truth != 1 else 2])
    assert answer.status_code == 201, answer.content
    made = answer.json()
    assert made["right"] == 1 and made["agent_seats"] == [truth]
    assert made["seats"] == sorted({truth, 1 if truth != 1 else 2})
    again = _guess(player, game, [])
    assert again.status_code == 409 and again.json()["code"] == "already_guessed"
    assert AgentGuess.objects.get().seats == made["seats"]
    # An empty guess is a guess ("no agent").
    assert _guess(person(game, agent, 1), game, []).status_code == 201
    # The game itself is untouched.
    assert Game.objects.filter(pk=game.pk).values().get() == before
    # Everyone reads the truth and the guesses.
    found = api(None).get(f"/api/v1/games/{game.pk}/agent-guesses/").json()
    assert [s["seat"] for s in found["agent_seats"]] == [truth]
    assert [g["name"] for g in found["guesses"]] == [
        player.username,
        person(game, agent, 1).username,
    ]
    assert found["may_guess"] is False
    assert (
        api(person(game, agent, 2))
        .get(f"/api/v1/games/{game.pk}/agent-guesses/")
        .json()["may_guess"]
    )


def test_the_review_panel_takes_a_guess(make_game, host, owner, client_for):
    agent, _ = new_agent(owner)
    game = blind_game(make_game, host, agent)
    end(game, host)
    player = person(game, agent)
    web = client_for(player)
    review = web.get(f"/games/{game.pk}/review/").content.decode()
    assert 'id="agent-guess-form"' in review
    truth = agent_seat(game, agent)
    answer = web.post(f"/games/{game.pk}/agent-guess/", {"seats": [str(truth)]}, follow=True)
    assert answer.status_code == 200
    assert "1 of the seats you named were agents" in answer.content.decode()
    assert AgentGuess.objects.get(person=player).seats == [truth]
    again = web.get(f"/games/{game.pk}/review/").content.decode()
    assert 'id="agent-guess-form"' not in again and player.username in again
    # A spectator sees the truth, no form; a bad seat is a message, not a crash.
    assert (
        'id="agent-guess-form"'
        not in client_for(None).get(f"/games/{game.pk}/review/").content.decode()
    )
    other = client_for(person(game, agent, 1))
    bad = other.post(f"/games/{game.pk}/agent-guess/", {"seats": ["99"]}, follow=True)
    assert (
        bad.status_code == 200
        and not AgentGuess.objects.filter(person=person(game, agent, 1)).exists()
    )
    # An ordinary game's review has no panel.
    ordinary = game_with_agent(make_game, host, agent)
    end(ordinary, host)
    assert (
        'id="agent-guesses"'
        not in client_for(None).get(f"/games/{ordinary.pk}/review/").content.decode()
    )


def test_the_agent_page_says_how_often_it_was_spotted(make_game, host, owner, client_for):
    agent, _ = new_agent(owner)
    page = client_for(None).get("/agents/robo/").content.decode()
    assert "No guesses yet" in page
    spotted = lambda: client_for(None).get("/api/v1/agents/robo/").json()["spotted"]  # noqa: E731
    assert spotted() == {"count": 0, "of": 0, "rate": None}
    game = blind_game(make_game, host, agent)
    end(game, host)
    truth = agent_seat(game, agent)
    wrong = 1 if truth != 1 else 2
    # Three people guess: two name its seat, one does not; a fourth says "no agent".
    for n, seats in enumerate([[truth], [truth, wrong], [wrong], []]):
        assert _guess(person(game, agent, n), game, seats).status_code == 201
    # A running blind game's seat counts nothing (there are no guesses before the end).
    blind_game(make_game, host, agent)
    page = client_for(None).get("/agents/robo/").content.decode()
    # 2 of the 4 guesses named its seat: 50%; the API says the same.
    assert 'Spotted in <span id="spotted-rate">2 of 4 guesses (50%)</span>' in page
    assert spotted() == {"count": 2, "of": 4, "rate": 0.5}


# -- the league option ----------------------------------------------------------------------
def test_a_blind_league_queue_makes_blind_games(settings, client_for):
    settings.LEAGUE_BLIND = "forum-vanilla, classic-ten"
    assert blind_setups() == {"forum-vanilla", "classic-ten"}
    kwargs = FORMATS["forum-vanilla"].game_kwargs()
    assert kwargs["blind"] is True and kwargs["anonymous_names"] is True
    # A table cannot be blind (no masks at a table).
    assert not FORMATS["classic-ten"].blind and not FORMATS["classic-ten"].game_kwargs()["blind"]
    assert not FORMATS["forum-cop-nine"].blind
    queues = {q["setup"]: q for q in api(None).get("/api/v1/queues/").json()}
    assert queues["forum-vanilla"]["blind"] is True and queues["forum-cop-nine"]["blind"] is False
    settings.LEAGUE_BLIND = ""
    assert not FORMATS["forum-vanilla"].blind


def test_the_matchmaker_makes_a_blind_game(settings, django_capture_on_commit_callbacks, owner):
    settings.LEAGUE_BLIND = "all"
    agent, _ = new_agent(owner)
    users = [UserFactory(username=f"q{i}") for i in range(1, 7)] + [agent.user]
    for user in users:
        with django_capture_on_commit_callbacks(execute=True):
            league_services.join_queue(user, "forum-vanilla")
    game = Game.objects.get(league_setup="forum-vanilla")
    assert game.blind and game.anonymous_names and game.status == GameStatus.RUNNING
    assert not any(agent_fields(api(users[0]).get(f"/api/v1/games/{game.pk}/").json()))
