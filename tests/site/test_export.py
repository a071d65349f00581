"""Open data (issue 34, part 8): a finished game exported whole (the API and
``manage.py export_games``), naming only the people who let it and agents, 404 until the
end for everyone."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.models import OpenDataConsent, Thought, Vote
from games.services.open_data import set_open_data_naming
from games.services.whispers import send_whisper
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory
from tests.site.test_agents import game_with_agent, new_agent

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def played(make_game: Any, host: Any) -> tuple[Any, dict[str, Any]]:
    """A forum game to its end: an agent in the last seat, a player who lets the export
    name them, one who does not (named in a post and a thought), a replacement."""
    agent, _key = new_agent(UserFactory(username="owner"))
    game = game_with_agent(make_game, host, agent)
    townies = [s for s in slots_of(game, "vanilla_townie") if s.user_id != agent.user_id]
    open_one, shy = townies[0], townies[1]
    set_open_data_naming(open_one.user, True)
    shy_name = shy.user.get_username()
    g = f"/api/v1/games/{game.pk}/"
    answer = api(open_one.user).post(
        g + "posts/",
        {"body": f"I think {shy_name.upper()} is odd, host.", "thoughts": f"{shy_name} lies"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    goon = slot_of(game, "goon")
    assert api(shy.user).post(g + "vote/", {"target": goon.pk}, format="json").status_code == 200
    services.replace_player(host, game.pk, townies[2].pk, UserFactory(username="latecomer"))
    for mafioso in game.slots.filter(alignment="mafia"):
        services.modkill(host, game.pk, mafioso.pk)
    game.refresh_from_db()
    return game, {"agent": agent, "open": open_one, "shy": shy, "replaced": townies[2]}


def test_a_running_game_is_exported_to_nobody(make_game, host):
    game = make_game()
    townie = slot_of(game, "vanilla_townie")
    for who in (None, host, townie.user, UserFactory()):
        assert api(who).get(f"/api/v1/games/{game.pk}/export/").status_code == 404
    out = io.StringIO()
    call_command("export_games", stdout=out, stderr=io.StringIO())
    assert out.getvalue() == ""


def test_a_finished_game_names_only_whom_it_may(make_game, host):
    game, who = played(make_game, host)
    answer = api().get(f"/api/v1/games/{game.pk}/export/")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    text = json.dumps(data)
    assert data["schema"] == 1 and data["game"]["id"] == game.pk and data["game"]["winner"]
    seats = {s["seat"]: s for s in data["seats"]}
    assert {s["role"] for s in seats.values()} == set(game.slots.values_list("role", flat=True))
    named = {h["name"] for s in data["seats"] for h in s["holders"]}
    assert who["open"].user.get_username() in named
    assert who["agent"].user.get_username() in named  # an agent: always
    # The others are their seats: nowhere by name, not even where a post or thought wrote it.
    shy = who["shy"]
    for person in (shy.user, who["replaced"].user):
        assert person.get_username().lower() not in text.lower(), person
    assert data["host"] is None  # (the host's name, "host", is also a key: checked below)
    post = next(p for p in data["posts"] if p["seat"] == who["open"].seat and not p["auto"])
    assert post["body"] == f"I think Seat {shy.seat} is odd, the host."
    assert [t["text"] for t in data["thoughts"]] == [f"Seat {shy.seat} lies"]
    assert Thought.objects.get().text == f"{shy.user.get_username()} lies"  # kept as written
    replaced = seats[who["replaced"].seat]["holders"]
    assert [h["name"] for h in replaced] == [None, None] and replaced[1]["since_phase"] == 1
    # Every vote, by seat.
    assert [(v["seat"], v["target"]) for v in data["votes"]] == [
        (v.voter.seat, v.target.seat if v.target else None)
        for v in Vote.objects.filter(phase__game=game).select_related("voter", "target")
    ]
    assert data["phases"][0]["label"] == "Day 1"
    assert not any("P" + str(s) in line for p in data["phases"] for line in p["explanation"]
                   for s in seats)  # fmt: skip


def test_the_command_writes_one_line_per_finished_game(make_game, host, tmp_path):
    game, _who = played(make_game, host)
    make_game()  # running: not exported
    path = tmp_path / "games.jsonl"
    err = io.StringIO()
    call_command("export_games", out=str(path), stderr=err)
    lines = path.read_text().splitlines()
    assert [json.loads(line)["game"]["id"] for line in lines] == [game.pk]
    assert json.loads(lines[0]) == api().get(f"/api/v1/games/{game.pk}/export/").json()
    assert "1 game exported." in err.getvalue()
    out = io.StringIO()
    call_command("export_games", ruleset="classic", stdout=out, stderr=io.StringIO())
    assert out.getvalue() == ""
    with pytest.raises(CommandError, match="--since"):
        call_command("export_games", since="last week", stderr=io.StringIO())


def test_the_account_page_sets_whether_the_export_names_you(client_for):
    person = UserFactory(username="carol")
    web: Client = client_for(person)
    page = web.get("/accounts/open-data/").content.decode()
    assert "Now: exported games give your seat" in page and 'name="named"' in page
    web.post("/accounts/open-data/", {"named": "on"})
    assert OpenDataConsent.objects.filter(user=person).exists()
    assert "Now: exported games name you." in web.get("/accounts/open-data/").content.decode()
    web.post("/accounts/open-data/", {})
    assert not OpenDataConsent.objects.filter(user=person).exists()
    assert Client().get("/accounts/open-data/").status_code == 302  # log in first


def test_whispers_are_exported_by_seat_and_their_names_redacted(make_game, host):
    game = make_game("forum-vanilla", whispers="private")
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    set_open_data_naming(a.user, True)
    shy = c.user.get_username()
    send_whisper(a.user, game.pk, to=b.pk, body=f"Watch {shy}, and me.")
    send_whisper(b.user, game.pk, to=a.pk, body="Agreed")
    assert api(a.user).get(f"/api/v1/games/{game.pk}/export/").status_code == 404
    for mafioso in game.slots.filter(alignment="mafia"):
        services.modkill(host, game.pk, mafioso.pk)
    exported = api().get(f"/api/v1/games/{game.pk}/export/").json()
    first, second = exported["whispers"]
    assert (first["number"], first["sender"], first["recipient"]) == (1, a.seat, b.seat)
    assert (second["sender"], second["recipient"]) == (b.seat, a.seat)
    assert first["body"] == f"Watch Seat {c.seat}, and me." and shy not in json.dumps(exported)
    assert first["phase"] == second["phase"] is not None
