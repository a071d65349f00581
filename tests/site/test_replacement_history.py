"""A replacement keeps history: past acts name whoever held the seat then ("gus"), not the
player who holds it now ("Zoë Smith"); the thread announces the replacement; the
replaced-out player is told, and sees none of the seat's private information any more."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Post
from games.reads.activity import vote_log
from games.reads.phase_history import phase_records
from tests.conftest import slot_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def replaced_on_day_2(make_game, host):
    """Day 1: gus votes; night 1: the doctor protects gus; day 2: Zoë Smith replaces gus."""
    game = make_game("forum-cop-doctor-nine", starts_with="day")
    gus = slot_of(game, "vanilla_townie")
    gus.user.username = "gus"
    gus.user.save(update_fields=["username"])
    doctor = slot_of(game, "doctor")
    services.submit_post(gus.user, game.pk, body=f"**Vote: {doctor.display_name}**")
    services.cut_deadline_now(host, game.pk)  # day 1 ends
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[gus.pk])
    services.cut_deadline_now(host, game.pk)  # night 1 ends
    old_user = gus.user
    zoe = UserFactory(username="Zoë Smith")
    services.replace_player(host, game.pk, gus.pk, zoe)
    game.refresh_from_db()
    return game, gus, doctor, old_user


def test_past_acts_name_the_seat_holder_of_the_time(replaced_on_day_2, host):
    game, _, doctor, _ = replaced_on_day_2
    # the doctor's role PM, page and API
    page = _client(doctor.user).get(f"/games/{game.pk}/role/").content.decode()
    past = page[page.index("Your past actions") :]
    assert "gus" in past and "Zoë Smith" not in past
    pm = _client(doctor.user).get(f"/api/v1/games/{game.pk}/role/").json()
    assert [t["name"] for t in pm["past_actions"][0]["targets"]] == ["gus"]
    # the host's records (the archive reads the same)
    slots = list(game.slots.select_related("user"))
    night = next(r for r in phase_records(game, slots, include_open=True) if r["actions"])
    assert night["actions"][0]["targets"] == ["gus"]
    # the vote log: gus voted on day 1
    assert [v["voter"] for v in vote_log(game)] == ["gus"]
    # the host's dashboard
    dashboard = _client(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "replaced gus" in dashboard


def test_the_thread_announces_the_replacement(replaced_on_day_2):
    game, *_ = replaced_on_day_2
    post = Post.objects.filter(game=game, is_auto=True).order_by("number").last()
    assert post.body == "**Zoë Smith replaces gus.**" and post.is_host


def test_the_replaced_out_player_is_told_and_sees_no_secrets(replaced_on_day_2):
    game, _, _, old_user = replaced_on_day_2
    client = _client(old_user)
    thread = client.get(f"/games/{game.pk}/").content.decode()
    assert "You were replaced" in thread and "Zoë Smith" in thread
    role = client.get(f"/games/{game.pk}/role/")
    text = role.content.decode()
    assert role.status_code == 404 and "You were replaced" in text
    assert "Vanilla Townie" not in text and "Your results" not in text
    api = client.get(f"/api/v1/games/{game.pk}/role/")
    assert api.status_code == 404 and "Zoë Smith replaced you" in api.json()["error"]
    assert "vanilla" not in api.content.decode().lower()


def test_todays_vote_names_both_holders(make_game, host):
    """A vote cast today by the seat's old holder may still stand for its new one."""
    game = make_game("forum-vanilla")
    gus, target = slot_of(game, "vanilla_townie", 0), slot_of(game, "goon")
    services.submit_post(gus.user, game.pk, body=f"**Vote: {target.display_name}**")
    old_name = gus.display_name
    services.replace_player(host, game.pk, gus.pk, UserFactory(username="Zoë Smith"))
    assert [v["voter"] for v in vote_log(game)] == [f"{old_name} (replaced by Zoë Smith)"]
