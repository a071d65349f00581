"""Look-alike names are refused at sign-up (Unicode skeletons, UTS #39); spaces and
non-Latin names that look like no one are welcome."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.confusables import skeleton
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-123"


def sign_up(name: str):
    return Client().post(
        "/accounts/signup/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [
        ("pl7", "\u0440l7"),  # Cyrillic er
        ("pl7", "p17"),  # digit one for l
        ("pl7", "pI7"),  # capital i for l
        ("alice", "Alice"),
        ("alice", "\u0430lice"),  # Cyrillic a
        ("Bob", "B\u043eb"),  # Cyrillic o
        ("Mr Pink", "MrPink"),
        ("Jose", "Jos\u00e9"),
        ("Boris", "\u0392oris"),  # Greek capital beta
    ],
)
def test_look_alikes_are_refused(existing, look_alike):
    UserFactory(username=existing)
    response = sign_up(look_alike)
    assert response.status_code == 200
    assert "looks too much like" in response.content.decode()
    assert not get_user_model().objects.filter(username=look_alike).exists()


@pytest.mark.parametrize(
    "name",
    [
        "Mr Pink",
        "\u0410\u043d\u043d\u0430",
        "\u738b\u5c0f\u660e",
        "\u0411\u043e\u0440\u0438\u0441",
        "pl8",
        "Ann Lee",
    ],
)
def test_spaces_and_other_scripts_are_welcome(name):
    UserFactory(username="pl7")
    UserFactory(username="Anna")
    response = sign_up(name)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert get_user_model().objects.filter(username=name).exists()


@pytest.mark.parametrize(
    "name", ["two  spaces", "tab\there", "semi;colon", "a\x00b", "Mr\u200bPink"]
)
def test_odd_names_are_refused_with_a_message(name):
    response = sign_up(name)
    assert response.status_code == 200  # the form again, with the reason
    assert get_user_model().objects.count() == 0


def test_skeleton_examples():
    assert skeleton("\u0440l7") == skeleton("pl7")
    assert skeleton("player1") != skeleton("player2")


# -- one fold for names as people type them (votes, Replace, ISO, sign-up) ----------------


def _zoe_game(make_game):
    """A started forum game in which player1 is called "Zoë Smith"."""
    from tests.conftest import slot_of

    game = make_game("forum-vanilla")
    zoe = slot_of(game, "vanilla_townie")
    zoe.user.username = "Zoë Smith"
    zoe.user.save(update_fields=["username"])
    return game, zoe


@pytest.mark.parametrize("written", ["zoe smith", "ZOE SMITH", "Zoë  Smith", "zoesmith", "zoe"])
def test_a_bold_vote_finds_a_name_without_its_accent_or_case(make_game, written):
    from games import services
    from games.models import Vote
    from tests.conftest import slot_of

    game, zoe = _zoe_game(make_game)
    voter = slot_of(game, "goon")
    post = services.submit_post(voter.user, game.pk, body=f"**Vote: {written}**").post
    assert post.vote_note == ""
    assert Vote.objects.get(voter=voter).target_id == zoe.pk


def test_sign_up_refuses_a_name_typed_the_same_as_another():
    # "Ian" and "ian" fold alike, so one could be voted for as the other: refused.
    UserFactory(username="Ian")
    response = sign_up("ian")
    assert "looks too much like" in response.content.decode()
    assert not get_user_model().objects.filter(username="ian").exists()


def test_the_hosts_replace_form_finds_a_name_typed_without_accents(make_game, host):
    from games.models import Slot
    from tests.conftest import slot_of

    game = make_game("forum-vanilla")
    UserFactory(username="Zoë Smith")
    gus = slot_of(game, "goon")
    client = Client()
    client.force_login(host)
    url = f"/games/{game.pk}/host/replace/"
    answer = client.post(url, {"slot": gus.pk, "username": "zoe smith"}, follow=True)
    assert Slot.objects.get(pk=gus.pk).user.username == "Zoë Smith"
    assert "Zoë Smith now plays seat" in answer.content.decode()
    # an unknown name: a sentence under the field's label, not the field's name
    answer = client.post(url, {"slot": gus.pk, "username": "nobody here"}, follow=True)
    shown = [str(m) for m in answer.context["messages"]]
    assert shown == ['Replacement: There is no user called "nobody here".']


def test_the_api_replace_finds_a_name_typed_without_accents(make_game, host):
    from games.models import Slot
    from tests.conftest import slot_of

    game = make_game("forum-vanilla")
    UserFactory(username="Zoë Smith")
    gus = slot_of(game, "goon")
    client = Client()
    client.force_login(host)
    url = f"/api/v1/games/{game.pk}/host/replace/"
    done = client.post(url, {"slot_id": gus.pk, "username": "ZOE SMITH"}, "application/json")
    assert done.status_code == 200, done.json()
    assert Slot.objects.get(pk=gus.pk).user.username == "Zoë Smith"
    # a refused field reads as words, not as the field's name ("slot_id: ...")
    bad = client.post(url, {"slot_id": "x", "username": "a"}, "application/json")
    assert bad.status_code == 400 and bad.json()["field"] == "slot_id"
    assert bad.json()["error"].startswith("Slot: ")


def test_iso_takes_a_name_as_typed(make_game, client):
    from games import services
    from tests.conftest import slot_of

    game, zoe = _zoe_game(make_game)
    services.submit_post(zoe.user, game.pk, body="Zoë's post")
    services.submit_post(slot_of(game, "goon").user, game.pk, body="a goon's words")
    answer = client.get(f"/api/v1/games/{game.pk}/posts/", {"iso": "zoe smith"})
    assert answer.json()["iso"] == [zoe.seat]
    page = client.get(f"/games/{game.pk}/", {"iso": "zoe smith"}).content.decode()
    assert "Zoë&#x27;s post" in page and "a goon&#x27;s words" not in page


def test_field_words():
    from games.api.errors import field_words

    assert field_words("slot_id") == "Slot"
    assert field_words("roles[1].count") == "Roles, row 2, count"
