"""Deadlines told (issue 30, part 4): the host's extend, pause and resume are announced in
the game thread with the new deadline, from the services, the API and the host's page; the
extend form says its unit and starts from a sensible one."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import GameEvent, Phase, Post, Thread
from tests.conftest import current_phase

pytestmark = pytest.mark.django_db

# A Friday well ahead of the test run's clock (no sweep may end the day under the test).
FRIDAY_NOON = datetime(2032, 11, 26, 12, 0, tzinfo=UTC)


def _pin_deadline(game: Any, deadline: datetime = FRIDAY_NOON) -> Phase:
    phase = current_phase(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=deadline)
    return current_phase(game)


def _auto_posts(game: Any) -> list[Post]:
    return list(
        Post.objects.filter(game=game, thread=Thread.PUBLIC, is_auto=True).order_by("number")
    )


def _last_announcement(game: Any) -> Post:
    post = _auto_posts(game)[-1]
    assert post.is_host and post.author_id == game.host_id
    return post


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_extend_pause_extend_and_resume_are_each_announced_with_the_new_deadline(make_game, host):
    game = make_game("forum-vanilla")
    _pin_deadline(game)
    before = len(_auto_posts(game))

    services.extend_deadline(host, game.pk, by=timedelta(hours=2))
    extended = _last_announcement(game)
    assert extended.body == "**The deadline was extended by 2 hours, to Fri 26 Nov, 14:00 UTC.**"
    # The same plain and HTML forms as every automatic post, in the current day.
    assert extended.html == (
        "<p><strong>The deadline was extended by 2 hours, to Fri 26 Nov, 14:00 UTC.</strong></p>"
    )
    assert extended.phase_id == current_phase(game).pk
    post_event = GameEvent.objects.filter(game=game, kind="post").latest("seq")
    assert post_event.payload["is_auto"] and post_event.payload["html"] == extended.html

    services.pause_game(host, game.pk, now=datetime(2032, 11, 26, 8, 30, tzinfo=UTC))
    assert _last_announcement(game).body == (
        "**The host paused the game, with 5 hours 30 minutes left.** The clock stands still "
        "until the game resumes."
    )

    services.extend_deadline(host, game.pk, by=timedelta(days=1))
    assert _last_announcement(game).body == (
        "**The deadline was extended by 1 day.** The game is paused, with 1 day 5 hours "
        "30 minutes left once it resumes."
    )

    services.resume_game(host, game.pk, now=datetime(2032, 11, 27, 9, 0, tzinfo=UTC))
    assert current_phase(game).deadline == datetime(2032, 11, 28, 14, 30, tzinfo=UTC)
    assert _last_announcement(game).body == (
        "**The game resumed.** The deadline is now Sun 28 Nov, 14:30 UTC."
    )
    assert len(_auto_posts(game)) == before + 4


def test_a_table_day_says_it_is_the_turns_deadline(make_game, host):
    game = make_game("classic-ten", table=True)
    night_zero = current_phase(game)
    assert services.advance_phase(game.pk, 1, now=night_zero.deadline + timedelta(seconds=1))
    turn_ends = current_phase(game).deadline
    services.extend_deadline(host, game.pk, by=timedelta(seconds=30))
    new = (turn_ends + timedelta(seconds=30)).astimezone(UTC)
    assert _last_announcement(game).body == (
        f"**The turn's deadline was extended by 30 seconds, to "
        f"{new:%a} {new.day} {new:%b}, {new:%H:%M} UTC.**"
    )
    services.pause_game(host, game.pk, now=turn_ends - timedelta(seconds=40))
    assert _last_announcement(game).body.startswith(
        "**The host paused the game, with 1 minute left of the turn.**"
    )


def test_the_api_announces_its_minutes_in_words(make_game, host):
    game = make_game("forum-vanilla")
    _pin_deadline(game)
    url = f"/api/v1/games/{game.pk}/host"
    assert api(host).post(f"{url}/extend/", {"minutes": 90}, format="json").status_code == 200
    assert _last_announcement(game).body == (
        "**The deadline was extended by 1 hour 30 minutes, to Fri 26 Nov, 13:30 UTC.**"
    )
    assert api(host).post(f"{url}/pause/").status_code == 200
    assert _last_announcement(game).body.startswith("**The host paused the game, with ")
    assert api(host).post(f"{url}/resume/").status_code == 200
    deadline = current_phase(game).deadline.astimezone(UTC)
    assert _last_announcement(game).body == (
        f"**The game resumed.** The deadline is now "
        f"{deadline:%a} {deadline.day} {deadline:%b}, {deadline:%H:%M} UTC."
    )


def test_the_openapi_document_gives_the_extend_unit(db):
    schema = APIClient().get("/api/v1/openapi.json").json()
    minutes = schema["components"]["schemas"]["ExtendRequest"]["properties"]["minutes"]
    assert "in minutes" in minutes["description"]
    assert minutes["minimum"] == 1 and minutes["maximum"] == 14 * 24 * 60


def _extend_form(page: str) -> str:
    match = re.search(r'<form[^>]*/host/extend/".*?</form>', page, re.S)
    assert match, "no extend form on the host's page"
    return match.group(0)


def test_the_host_page_extend_form_says_its_unit_and_announces(make_game, host, client_for):
    game = make_game("forum-vanilla")
    _pin_deadline(game)
    url = f"/games/{game.pk}/host/"
    form = _extend_form(client_for(host).get(url).content.decode())
    assert ">Extend by</label>" in form and ">Unit</label>" in form
    assert 'name="amount" value="1"' in form
    assert '<option value="hours" selected>hours</option>' in form
    assert "announced in the game thread" in form

    client_for(host).post(url + "extend/", {"amount": "3", "unit": "hours"})
    assert _last_announcement(game).body == (
        "**The deadline was extended by 3 hours, to Fri 26 Nov, 15:00 UTC.**"
    )


def test_a_table_day_extends_in_minutes_by_default(make_game, host, client_for):
    game = make_game("classic-ten", table=True)
    night_zero = current_phase(game)
    assert services.advance_phase(game.pk, 1, now=night_zero.deadline + timedelta(seconds=1))
    assert current_phase(game).is_table_day
    form = _extend_form(client_for(host).get(f"/games/{game.pk}/host/").content.decode())
    assert '<option value="minutes" selected>minutes</option>' in form
