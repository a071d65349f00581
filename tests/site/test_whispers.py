"""Whispers (the ``whispers`` variant): who may whisper to whom and when, who reads them
(the page, the API, the sockets, the notifications), and a whole game played through the
API with whispers."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, GameRuleError
from games.models import GameEvent, Post, Whisper
from games.services.whispers import MAX_WHISPER_LENGTH, send_whisper
from notifications.models import Notification
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def refused(code: ErrorCode, user: Any, game: Any, to: Any, body: str = "psst") -> None:
    before = (Whisper.objects.count(), GameEvent.objects.filter(game=game).count())
    with pytest.raises(GameRuleError) as caught:
        send_whisper(user, game.pk, to=to, body=body)
    assert caught.value.code == code, caught.value.message
    # Nothing written: no whisper, no event.
    assert (Whisper.objects.count(), GameEvent.objects.filter(game=game).count()) == before


@pytest.fixture
def whispering(make_game):
    """A forum-vanilla game by day, with private whispers."""
    return make_game("forum-vanilla", whispers="private")


# -- the service -------------------------------------------------------------------------
def test_a_whisper_is_stored_rendered_and_told_to_its_two_players_and_the_host(whispering):
    game = whispering
    a, b = slots_of(game, "vanilla_townie")[:2]
    whisper = send_whisper(a.user, game.pk, to=b.pk, body="  I trust *you*  ")
    assert (whisper.sender, whisper.recipient, whisper.number) == (a, b, 1)
    assert whisper.body == "I trust *you*" and whisper.html == "<p>I trust <em>you</em></p>"
    assert whisper.phase == current_phase(game) and current_phase(game).is_day
    events = GameEvent.objects.filter(game=game, kind="whisper")
    assert sorted(e.audience for e in events) == sorted([f"slot:{a.pk}", f"slot:{b.pk}", "host"])
    assert all(e.payload["html"] == whisper.html for e in events)
    assert "number" not in events[0].payload  # its gaps would count others' whispers
    # Private: the thread says nothing of it.
    assert not Post.objects.filter(game=game, body__icontains="whisper").exists()
    # The recipient is told who whispered, never what.
    note = Notification.objects.get(kind="whispered")
    assert note.user == b.user and a.display_name in note.text and "trust" not in note.text
    assert note.link == f"/games/{game.pk}/whispers/"


def test_an_announced_whisper_says_so_in_the_thread_and_nothing_more(make_game):
    game = make_game("forum-vanilla", whispers="announced")
    a, b = slots_of(game, "vanilla_townie")[:2]
    send_whisper(a.user, game.pk, to=b.pk, body="the goon is SECRETWORD")
    line = Post.objects.filter(game=game, is_auto=True).order_by("number").last()
    assert line.body == f"{a.display_name} whispered to {b.display_name}."
    assert line.thread == "public"
    assert not Post.objects.filter(game=game, body__contains="SECRETWORD").exists()


def test_each_refusal_has_its_code(whispering, make_game, host):
    game = whispering
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    refused(ErrorCode.NOT_PLAYER, UserFactory(), game, b.pk)
    refused(ErrorCode.NOT_PLAYER, host, game, b.pk)
    refused(ErrorCode.SELF_WHISPER, a.user, game, a.pk)
    refused(ErrorCode.NO_PLAYER, a.user, game, 999_999)
    refused(ErrorCode.NO_PLAYER, a.user, game, "x")
    refused(ErrorCode.EMPTY, a.user, game, b.pk, body="   ")
    refused(ErrorCode.TOO_LONG, a.user, game, b.pk, body="x" * (MAX_WHISPER_LENGTH + 1))
    refused(ErrorCode.INVALID, a.user, game, b.pk, body="a\x00b")  # PostgreSQL cannot keep it
    services.modkill(host, game.pk, c.pk)
    refused(ErrorCode.DEAD_TARGET, a.user, game, c.pk)
    refused(ErrorCode.DEAD, c.user, game, a.pk)
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    refused(ErrorCode.NIGHT, a.user, game, b.pk)

    off = make_game("forum-vanilla")  # whispers are off unless the host says otherwise
    x, y = slots_of(off, "vanilla_townie")[:2]
    refused(ErrorCode.WHISPERS_OFF, x.user, off, y.pk)

    signups = make_game("forum-vanilla", whispers="private", start=False)
    first, second = list(signups.slots.order_by("seat"))[:2]
    refused(ErrorCode.NOT_STARTED, first.user, signups, second.pk)


def test_no_whisper_after_the_end(make_game, host):
    game = make_game("forum-vanilla", whispers="private")
    a, b = slots_of(game, "vanilla_townie")[:2]
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    refused(ErrorCode.GAME_OVER, a.user, game, b.pk)


# -- the API -------------------------------------------------------------------------------
def test_the_api_sends_and_lists_what_each_person_may_read(whispering, host):
    game = whispering
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    url = f"/api/v1/games/{game.pk}/whispers/"
    answer = api(a.user).post(url, {"to": b.pk, "body": "hello **b**"}, format="json")
    assert answer.status_code == 201, answer.content
    sent = answer.json()
    assert sent["sender"]["slot_id"] == a.pk and sent["recipient"]["slot_id"] == b.pk
    assert sent["html"] == "<p>hello <strong>b</strong></p>" and sent["number"] is None
    api(c.user).post(url, {"to": a.pk, "body": "from c"}, format="json")

    def bodies(user: Any) -> list[str]:
        response = api(user).get(url)
        assert response.status_code == 200
        return [w["body"] for w in response.json()]

    assert bodies(a.user) == ["hello **b**", "from c"]
    assert bodies(b.user) == ["hello **b**"]
    assert bodies(c.user) == ["from c"]
    assert bodies(slot_of(game, "goon").user) == []
    assert bodies(UserFactory()) == [] and bodies(None) == []
    host_view = api(host).get(url).json()
    assert [w["number"] for w in host_view] == [1, 2]
    # After the game everyone reads them all.
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    assert bodies(None) == ["hello **b**", "from c"]


def test_the_api_refuses_with_codes_and_changes_nothing(whispering):
    game = whispering
    a, b = slots_of(game, "vanilla_townie")[:2]
    url = f"/api/v1/games/{game.pk}/whispers/"
    assert api().post(url, {"to": b.pk, "body": "x"}, format="json").status_code in (401, 403)
    missing = api(a.user).post(url, {"body": "x"}, format="json")
    assert missing.status_code == 400
    to_self = api(a.user).post(url, {"to": a.pk, "body": "x"}, format="json")
    assert to_self.status_code == 422 and to_self.json()["code"] == "self_whisper"
    long = api(a.user).post(url, {"to": b.pk, "body": "x" * 2001}, format="json")
    assert long.status_code == 400
    assert not Whisper.objects.exists()


def test_the_openapi_document_has_the_whispers(client):
    document = client.get("/api/v1/openapi.json").json()
    operations = document["paths"]["/api/v1/games/{game_id}/whispers/"]
    assert {"get", "post"} <= operations.keys()
    assert "201" in operations["post"]["responses"] and "429" in operations["post"]["responses"]


# -- the page ------------------------------------------------------------------------------
def test_the_page_shows_each_viewer_what_they_may_read(whispering, host, client_for):
    game = whispering
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    send_whisper(a.user, game.pk, to=b.pk, body="MARKERAB")
    send_whisper(c.user, game.pk, to=a.pk, body="MARKERCA")
    url = f"/games/{game.pk}/whispers/"
    page = client_for(a.user).get(url).content.decode()
    assert "MARKERAB" in page and "MARKERCA" in page
    assert f"With {b.display_name}" in page and f"With {c.display_name}" in page
    assert f'action="/games/{game.pk}/whispers/send/"' in page
    page_b = client_for(b.user).get(url).content.decode()
    assert "MARKERAB" in page_b and "MARKERCA" not in page_b
    goon = slot_of(game, "goon")
    assert "MARKER" not in client_for(goon.user).get(url).content.decode()
    assert client_for(UserFactory()).get(url).status_code == 404
    assert client_for().get(url).status_code == 404
    host_page = client_for(host).get(url).content.decode()
    assert "MARKERAB" in host_page and "MARKERCA" in host_page and "All whispers" in host_page
    # The game's nav links the page for its players and host, not for a spectator.
    assert url in client_for(a.user).get(f"/games/{game.pk}/").content.decode()
    assert url not in client_for().get(f"/games/{game.pk}/").content.decode()
    # After the game the archive's readers read them all.
    for g in slots_of(game, "goon"):
        services.modkill(host, game.pk, g.pk)
    after = client_for().get(url).content.decode()
    assert "MARKERAB" in after and "MARKERCA" in after
    assert url in client_for().get(f"/games/{game.pk}/archive/").content.decode()


def test_the_page_form_whispers_and_refuses_with_a_message(whispering, client_for, settings):
    game = whispering
    a, b = slots_of(game, "vanilla_townie")[:2]
    web = client_for(a.user)
    response = web.post(f"/games/{game.pk}/whispers/send/", {"to": b.pk, "body": "by form"})
    assert response.status_code == 302
    assert Whisper.objects.get().body == "by form"
    page = web.get(response["Location"]).content.decode()
    assert f"You whispered to {b.display_name}." in page
    response = web.post(f"/games/{game.pk}/whispers/send/", {"to": a.pk, "body": "me"}, follow=True)
    assert "You cannot whisper to yourself." in response.content.decode()
    assert Whisper.objects.count() == 1


def test_whispers_count_against_the_posts_rate_limit(whispering, settings):
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMITS = {"post": (2, 60)}
    game = whispering
    a, b = slots_of(game, "vanilla_townie")[:2]
    url = f"/api/v1/games/{game.pk}/whispers/"
    client = api(a.user)
    codes = [client.post(url, {"to": b.pk, "body": f"w{i}"}, format="json").status_code
             for i in range(3)]  # fmt: skip
    assert codes == [201, 201, 429]


# -- a whole game through the API ------------------------------------------------------------
def test_a_whole_game_through_the_api_with_whispers(make_game, host):
    """Announced whispers by day, refused at night, read by their players and the host
    while the game runs and by everyone once it is over."""
    game = make_game("forum-vanilla", whispers="announced")
    url = f"/api/v1/games/{game.pk}/whispers/"
    goons = slots_of(game, "goon")
    town = slots_of(game, "vanilla_townie")
    sent: list[str] = []
    for day in range(1, 6):
        game.refresh_from_db()
        if not game.is_running:
            break
        alive = [s for s in (*town, *goons) if type(s).objects.get(pk=s.pk).alive]
        sender, recipient = alive[0], alive[-1]
        body = f"day {day} whisper"
        answer = api(sender.user).post(url, {"to": recipient.pk, "body": body}, format="json")
        assert answer.status_code == 201, answer.content
        sent.append(body)
        # The recipient reads it, a third player does not.
        assert body in [w["body"] for w in api(recipient.user).get(url).json()]
        third = alive[1]
        assert body not in [w["body"] for w in api(third.user).get(url).json()]
        # The thread says it happened.
        posts = api().get(f"/api/v1/games/{game.pk}/posts/?page=last").json()["results"]
        assert any("whispered to" in p["body"] for p in posts)
        # The town votes out a goon: each living player votes for the first living goon.
        target = next(g for g in goons if type(g).objects.get(pk=g.pk).alive)
        for voter in alive:
            if voter.pk != target.pk:
                api(voter.user).post(
                    f"/api/v1/games/{game.pk}/vote/", {"target": target.pk}, format="json"
                )
            game.refresh_from_db()
            if not game.is_running or current_phase(game).is_night:
                break
        game.refresh_from_db()
        if not game.is_running:
            break
        night = api(sender.user).post(url, {"to": recipient.pk, "body": "x"}, format="json")
        assert night.status_code == 409 and night.json()["code"] == "night"
        api(host).post(f"/api/v1/games/{game.pk}/host/cut/", {}, format="json")
    game.refresh_from_db()
    assert game.is_finished
    everyone = [w["body"] for w in api().get(url).json()]
    assert everyone == sent and len(sent) >= 2
