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
