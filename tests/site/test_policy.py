"""One policy of who may do what now (issue 33, part 1): what a page offers is exactly what
the service takes.

For every game state and every kind of person, each thread's page shows the reply box
exactly when ``services.submit_post`` takes the post, and otherwise says the very sentence
the service refuses with; nobody posts into a thread they cannot open. The host's
dashboard shows each control exactly when its service accepts it. Both sides ask
``games.reads.policy``; these tests hold them to it from the outside (the page's HTML, the
service's answer), so a rule added on one side only fails here.
"""

from __future__ import annotations

import html
from functools import partial
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from games import services
from games.errors import GameRuleError
from games.reads.policy import HOST_CONTROLS
from games.services import moderation
from games.services.whispers import send_whisper
from tests.conftest import current_phase, slot_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

STATES = ("signups", "day", "night", "paused", "finished", "cancelled")
PEOPLE = ("anonymous", "spectator", "townie", "goon", "dead", "host", "cohost", "muted")
THREADS = ("public", "mafia", "dead", "masons")


def game_in(state: str, make_game: Any, host: Any, **settings: Any) -> Any:
    """A forum game in ``state`` (a night where only the host posts in the game thread)."""
    started = state not in ("signups", "cancelled")
    game = make_game(start=started, no_night_posting=True, **settings)
    services.add_cohost(host, game.pk, UserFactory(username="cohost").get_username())
    if state == "cancelled":
        services.cancel_game(host, game.pk)
    elif state == "night":
        services.cut_deadline_now(host, game.pk)
        assert current_phase(game).is_night
    elif state == "paused":
        services.pause_game(host, game.pk)
    elif state == "finished":
        for slot in game.slots.filter(alignment="mafia"):
            services.modkill(host, game.pk, slot.pk)
        game.refresh_from_db()
        assert game.is_finished
    if state in ("day", "night", "paused"):
        townie = slot_of(game, "vanilla_townie")
        services.modkill(host, game.pk, townie.pk)  # the dead player
    game.refresh_from_db()
    return game


def person(kind: str, game: Any, host: Any) -> Any:
    if kind == "anonymous":
        return AnonymousUser()
    if kind == "spectator":
        return UserFactory()
    if kind == "host":
        return host
    if kind == "cohost":
        return type(host).objects.get(username="cohost")
    slots = list(game.slots.select_related("user").order_by("seat"))
    town = [s for s in slots if not s.is_mafia]
    if kind == "goon":
        return next((s for s in slots if s.is_mafia), slots[0]).user  # (no roles in sign-ups)
    if kind == "dead":
        return next((s.user for s in town if not s.alive), town[0].user)
    if kind == "muted":
        user = next(s for s in town if s.alive).user
        mod = UserFactory(username=f"mod{game.pk}")
        moderation.set_moderator(mod)
        moderation.sanction(mod, user, "mute", reason="spam", days=1)
        return user
    return next(s for s in reversed(town) if s.alive).user  # "townie"


def page_of(client: Client, game: Any, thread: str) -> tuple[int, str]:
    url = f"/games/{game.pk}/" if thread == "public" else f"/games/{game.pk}/t/{thread}/"
    response = client.get(url)
    return response.status_code, response.content.decode()


@pytest.mark.parametrize("state", STATES)
def test_the_reply_box_is_shown_exactly_when_the_post_is_taken(
    state: str, make_game: Any, host: Any
) -> None:
    game = game_in(state, make_game, host)
    checked = 0
    for kind in PEOPLE:
        user = person(kind, game, host)
        client = Client()
        if kind != "anonymous":
            client.force_login(user)
        for thread in THREADS:
            status, page = page_of(client, game, thread)
            try:
                services.submit_post(user, game.pk, body="Checking the policy.", thread=thread)
            except GameRuleError as exc:
                refused: GameRuleError | None = exc
            else:
                refused = None
            where = f"{state}, {kind}, {thread}"
            if status == 404:  # a thread they cannot open: they cannot post in it either
                assert refused is not None, where
                continue
            assert status == 200, where
            offered = 'id="reply"' in page and "<textarea" in page.split('id="reply"')[1]
            if refused is None:
                assert offered, f"{where}: taken, but the page offers no reply box"
            else:
                assert not offered, f"{where}: refused ({refused.code}), but the page offers it"
                assert html.escape(refused.message, quote=False) in page, where
            checked += 1
    assert checked >= len(PEOPLE)  # everyone met the game thread's page at least


def refused_by(act: Any) -> GameRuleError | None:
    try:
        act()
    except GameRuleError as exc:
        return exc
    return None


@pytest.mark.parametrize("state", STATES)
def test_the_whisper_and_will_forms_are_shown_exactly_when_the_service_takes_them(
    state: str, make_game: Any, host: Any
) -> None:
    game = game_in(state, make_game, host, whispers="private", last_wills=True)
    for kind in PEOPLE:
        user = person(kind, game, host)
        client = Client()
        if kind != "anonymous":
            client.force_login(user)
        me = getattr(user, "pk", None)
        to = next(s.pk for s in game.slots.order_by("seat") if s.alive and s.user_id != me)
        where = f"{state}, {kind}"

        response = client.get(f"/games/{game.pk}/whispers/")
        refused = refused_by(partial(send_whisper, user, game.pk, to=to, body="Psst."))
        page = response.content.decode()
        if response.status_code != 200:  # no whispers of theirs to read: none to send
            assert refused is not None, where
        else:
            offered = f"/games/{game.pk}/whispers/send/" in page
            assert offered == (refused is None), f"{where}: offered {offered}, {refused}"
            if refused is not None and 'id="whisper-form"' in page:
                assert html.escape(refused.message, quote=False) in page, where

        response = client.get(f"/games/{game.pk}/role/")
        refused = refused_by(partial(services.write_will, user, game.pk, "My will."))
        offered = response.status_code == 200 and 'id="will-form"' in response.content.decode()
        assert offered == (refused is None), f"{where}: will form {offered}, {refused}"


# The dashboard's form of each control, and its service.
CONTROLS: dict[str, tuple[str, Any]] = {
    "cut": ("/cut/", lambda u, g: services.cut_deadline_now(u, g)),
    "pause": ("/pause/", lambda u, g: services.pause_game(u, g)),
    "resume": ("/resume/", lambda u, g: services.resume_game(u, g)),
    "skip_turn": ("/skip-turn/", lambda u, g: services.skip_speaker(u, g)),
    "count": ("/count/", lambda u, g: services.post_vote_count(u, g)),
    "cancel": ("/cancel/", lambda u, g: services.cancel_game(u, g)),
    "cohosts": ("/cohost-add/", lambda u, g: services.add_cohost(u, g, "newcomer")),
}


def test_every_host_control_with_a_button_is_checked_here() -> None:
    # extend, modkill and replace are forms open all game long (their own inputs
    # are checked by their tests); the rest come and go with the game's state.
    assert set(CONTROLS) == set(HOST_CONTROLS) - {"extend", "modkill", "replace"}


@pytest.mark.parametrize("state", ["signups", "day", "night", "paused", "finished"])
@pytest.mark.parametrize("control", sorted(CONTROLS))
@pytest.mark.parametrize("who", ["host", "cohost"])
def test_the_dashboard_shows_a_control_exactly_when_its_service_accepts_it(
    state: str, control: str, who: str, make_game: Any, host: Any
) -> None:
    game = game_in(state, make_game, host)
    UserFactory(username="newcomer")
    user = person(who, game, host)
    client = Client()
    client.force_login(user)
    page = client.get(f"/games/{game.pk}/host/").content.decode()
    action, service = CONTROLS[control]
    shown = f"/games/{game.pk}/host{action}" in page
    try:
        service(user, game.pk)
    except GameRuleError as exc:
        assert not shown, f"{control} shown to the {who} in {state}, refused: {exc.code}"
    else:
        assert shown, f"{control} taken from the {who} in {state}, but not shown"


def test_the_api_document_lists_each_operation_s_refusals_from_the_policy(client: Any) -> None:
    from games.reads.policy import POSTING, host_control_refusals

    document = client.get("/api/v1/openapi.json").json()
    paths = document["paths"]

    def said(path: str, status: int) -> str:
        return paths[path]["post"]["responses"][str(status)]["description"]

    for refusal in POSTING:
        assert f"`{refusal.code}`: {refusal.message}" in said(
            "/api/v1/games/{game_id}/posts/", refusal.status
        )
    for path, control in [
        ("/api/v1/games/{game_id}/host/cut/", "cut"),
        ("/api/v1/games/{game_id}/host/resume/", "resume"),
        ("/api/v1/games/{game_id}/cohosts/", "cohosts"),
    ]:
        for refusal in host_control_refusals(control):
            assert f"`{refusal.code}`: {refusal.message}" in said(path, refusal.status)
    assert "`paused`" in said("/api/v1/games/{game_id}/host/cut/", 409)
    assert "`paused`" not in said("/api/v1/games/{game_id}/host/resume/", 409)
