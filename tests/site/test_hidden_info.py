"""Hidden information, systematically: every page and API endpoint, fetched as each kind of
person, must not contain another player's role, alignment, night action or private
result (nor the private threads' posts) unless the rules show it to them; after the game
ends the archive shows everything to everyone.

The game: the power-roles setup (godfather and mafia roleblocker; cop, doctor, vigilante,
two masons, villager; a jester). Day 1 the villager is modkilled (our dead player), night 1
the cop investigates the godfather, the doctor protects the vigilante, the mafia shoot the
vigilante; the mafia, masons and dead each post a secret in their thread.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client
from django.utils.translation import gettext as _
from rest_framework.test import APIClient

from games import display, naming, services
from games.models import Game, PrivateResult, Slot
from resolver.rulesets import get_ruleset
from tests.conftest import current_phase, slot_of
from tests.factories import UserFactory, person_key

pytestmark = pytest.mark.django_db

MAFIA_SECRET = "MAFIACHATSECRET"
MASON_SECRET = "MASONCHATSECRET"
DEAD_SECRET = "DEADCHATSECRET"
THREADS = ("public", "mafia", "masons", "dead")


# -- fetching everything ----------------------------------------------------------------------
def page_urls(game: Game) -> list[str]:
    g = game.pk
    urls = ["/", f"/games/{g}/", f"/games/{g}/?page=last", f"/games/{g}/?iso=1&iso=2"]
    urls += [f"/games/{g}/t/{t}/" for t in THREADS[1:]]
    urls += [f"/games/{g}/role/", f"/games/{g}/host/", f"/games/{g}/archive/"]
    return urls


def api_urls(game: Game) -> list[str]:
    g = game.pk
    urls = ["/api/v1/games/", f"/api/v1/games/{g}/", f"/api/v1/games/{g}/vote-count/"]
    urls += [f"/api/v1/games/{g}/posts/?thread={t}" for t in THREADS]
    urls += [f"/api/v1/games/{g}/posts/?iso=1&page=last"]
    urls += [f"/api/v1/games/{g}/role/", f"/api/v1/games/{g}/host/"]
    urls += [f"/api/v1/games/{g}/archive/"]
    return urls


def everything(game: Game, user: Any) -> dict[str, str]:
    """url -> body, for every page and API endpoint, as ``user`` (None: anonymous)."""
    web, api = Client(), APIClient()
    if user is not None:
        web.force_login(user)
        api.force_authenticate(user)
    bodies = {}
    for url in page_urls(game):
        response = web.get(url)
        assert response.status_code in (200, 302, 403, 404), (url, response.status_code)
        bodies[url] = html.unescape(response.content.decode())
    for url in api_urls(game):
        response = api.get(url)
        assert response.status_code in (200, 401, 403, 404), (url, response.status_code)
        bodies[url] = response.content.decode()
    return bodies


def explanation(game: Game, number: int) -> list[str]:
    """Phase ``number``'s resolver explanation, in display names."""
    names = naming.seat_names(game.slots.select_related("user"))
    return [
        naming.render(line, names) for line in game.phases.get(number=number).report["explanation"]
    ]


def found(bodies: dict[str, str], word: str) -> list[str]:
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    return [url for url, body in bodies.items() if pattern.search(body)]


# -- the game ---------------------------------------------------------------------------------
@pytest.fixture
def power_game(make_game, host) -> dict[str, Any]:
    game = make_game("power-nine")
    people = {
        role: slot_of(game, role)
        for role in ("godfather", "mafia_roleblocker", "cop", "doctor", "vigilante", "villager")
    }
    people["mason"] = slot_of(game, "mason")
    people["mason2"] = slot_of(game, "mason", 1)
    people["jester"] = slot_of(game, "jester")
    services.submit_post(people["godfather"].user, game.pk, body=MAFIA_SECRET, thread="mafia")
    services.submit_post(people["mason"].user, game.pk, body=MASON_SECRET, thread="masons")
    services.modkill(host, game.pk, people["villager"].pk)
    services.submit_post(people["villager"].user, game.pk, body=DEAD_SECRET, thread="dead")
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    act = services.submit_night_action
    act(people["cop"].user, game.pk, ability="investigate", targets=[people["godfather"].pk])
    act(people["doctor"].user, game.pk, ability="protect", targets=[people["vigilante"].pk])
    act(people["godfather"].user, game.pk, ability="kill", targets=[people["vigilante"].pk])
    return {"game": game, "people": people}


def viewers(people: dict[str, Slot], host: Any) -> dict[str, tuple[Any, Slot | None]]:
    """name -> (user, their slot)."""
    return {
        "anonymous": (None, None),
        "outsider": (UserFactory(username="outsider"), None),
        "town": (people["vigilante"].user, people["vigilante"]),
        "cop": (people["cop"].user, people["cop"]),
        "mason": (people["mason"].user, people["mason"]),
        "mafia": (people["godfather"].user, people["godfather"]),
        "dead": (people["villager"].user, people["villager"]),
    }


def forbidden_roles(game: Game, slot: Slot | None) -> set[str]:
    """Role slugs this viewer must not see: everyone else's, except their own role's slug
    and words of their own role's description (the godfather's mentions "the cop")."""
    roles = {s.role for s in game.slots.all()}
    if slot is None:
        return roles
    own = get_ruleset(game.ruleset).roles[slot.role].description.lower()
    return {r for r in roles - {slot.role} if not re.search(rf"\b{r}\b", own)}


def role_words(game: Game, role: str) -> list[str]:
    """A role as the pages may print it: its slug and its display name ("Mafia Roleblocker")."""
    return [role, display.role_title(game.ruleset, role)]


def check_viewer(game: Game, name: str, user: Any, slot: Slot | None, secrets: dict) -> None:
    bodies = everything(game, user)
    for role in forbidden_roles(game, slot):
        for word in role_words(game, role):
            assert not found(bodies, word), (
                f"{name} sees the role {word!r} at {found(bodies, word)}"
            )
    for secret, allowed in secrets.items():
        where = [url for url, body in bodies.items() if secret in body]
        if name in allowed:
            assert where, f"{name} should see {secret!r}"
        else:
            assert not where, f"{name} sees {secret!r} at {where}"
    # Structural check of the public JSON: no living player's role or alignment.
    detail = json.loads(bodies[f"/api/v1/games/{game.pk}/"])
    for player in detail["players"]:
        if player["alive"]:
            assert player["role"] == "" and player["alignment"] == "", (name, player)
    assert detail["role_list"] is None, name


def test_nothing_leaks_during_the_night(power_game, host):
    game, people = power_game["game"], power_game["people"]
    secrets = {
        MAFIA_SECRET: {"mafia"},
        MASON_SECRET: {"mason"},
        DEAD_SECRET: {"dead"},
        # tonight's actions, as they come in: the actor, the host, and the mafia's team kill
        "investigate": {"cop"},
        "protect": set(),
    }
    for name, (user, slot) in viewers(people, host).items():
        check_viewer(game, name, user, slot, secrets)
    # The host sees all of it.
    bodies = everything(game, host)
    text = "\n".join(bodies.values())
    for secret in (MAFIA_SECRET, MASON_SECRET, DEAD_SECRET, "investigate", "protect"):
        assert secret in text, secret
    for role in {s.role for s in game.slots.all()}:
        assert found(bodies, role), role


def test_nothing_leaks_after_the_night(power_game, host):
    game, people = power_game["game"], power_game["people"]
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_day
    result = PrivateResult.objects.get(slot=people["cop"])
    lines = explanation(game, 2)
    assert result.text and lines
    protected_line = next(line for line in lines if "protect" in line.lower())
    assert people["doctor"].display_name in protected_line  # rendered with display names
    secrets = {
        protected_line: set(),
        MAFIA_SECRET: {"mafia"},
        MASON_SECRET: {"mason"},
        DEAD_SECRET: {"dead"},
        result.text: {"cop"},
        "investigate": {"cop"},
        "investigation": {"cop"},
        "protect": set(),
    }
    for name, (user, slot) in viewers(people, host).items():
        check_viewer(game, name, user, slot, secrets)
    host_text = "\n".join(everything(game, host).values())
    assert result.text in host_text and protected_line in host_text


def test_dead_mafia_lose_the_mafia_chat(power_game, host):
    game, people = power_game["game"], power_game["people"]
    services.modkill(host, game.pk, people["godfather"].pk)
    bodies = everything(game, people["godfather"].user)
    assert not [url for url, body in bodies.items() if MAFIA_SECRET in body]
    assert [url for url, body in bodies.items() if DEAD_SECRET in body]  # now in the dead thread


def test_a_dead_member_is_told_why_their_team_thread_is_closed(power_game, host, caplog):
    """The godfather, dead, opening the mafia chat is told they lost it by dying (a 403 with
    that reason, page and API alike), not that there is no such thread; a dead mason the same
    for the masons' thread. Whoever was never in a thread still learns nothing of it (404),
    the dead villager included, and nothing of its posts shows on the refusal."""
    game, people = power_game["game"], power_game["people"]
    services.modkill(host, game.pk, people["godfather"].pk)
    services.modkill(host, game.pk, people["mason"].pk)
    lost = str(_("You lost access to this thread when you died: the dead read the dead thread."))
    for who, thread, status in (
        ("godfather", "mafia", 403),
        ("mason", "masons", 403),
        ("godfather", "masons", 404),
        ("villager", "mafia", 404),
        ("mason2", "mafia", 404),
        ("mafia_roleblocker", "mafia", 200),
    ):
        web = Client()
        web.force_login(people[who].user)
        page = web.get(f"/games/{game.pk}/t/{thread}/")
        assert page.status_code == status, (who, thread, page.status_code)
        answer = web.get(f"/api/v1/games/{game.pk}/posts/", {"thread": thread})
        assert answer.status_code == status, (who, thread, answer.status_code)
        told = lost in page.content.decode() and answer.json().get("error") == lost
        assert told == (status == 403), (who, thread)
        if status != 200:
            text = page.content.decode() + answer.content.decode()
            assert MAFIA_SECRET not in text and MASON_SECRET not in text
    posted = Client()
    posted.force_login(people["godfather"].user)
    response = posted.post(f"/games/{game.pk}/t/mafia/post/", {"body": "still here?"})
    assert response.status_code == 403 and lost in response.content.decode()
    # A refusal, not a fault: logged in one line, with no traceback (``mafia_site.logs``).
    refused = [r for r in caplog.records if r.name == "django.request" and r.status_code == 403]
    assert refused and not any(r.exc_info for r in refused)


def test_errors_never_reveal_roles(power_game, host):
    game, people = power_game["game"], power_game["people"]
    api = APIClient()
    api.force_authenticate(people["vigilante"].user)
    others = forbidden_roles(game, people["vigilante"])
    for target in Slot.objects.filter(game=game):
        for ability in ("kill", "investigate", "protect", "block"):
            response = api.post(
                f"/api/v1/games/{game.pk}/actions/",
                {"ability": ability, "targets": [target.pk]},
                format="json",
            )
            if response.status_code == 200:
                continue
            body = response.content.decode()
            for role in others:
                for word in role_words(game, role):
                    assert not re.search(rf"\b{word}\b", body, re.I), (ability, target.role, body)
    web = Client()
    web.force_login(people["vigilante"].user)
    response = web.post(f"/games/{game.pk}/t/mafia/post/", {"body": "hello"})
    assert response.status_code == 404  # not even "you are not mafia"


def test_after_the_end_everything_is_public(power_game, host):
    game, people = power_game["game"], power_game["people"]
    services.cut_deadline_now(host, game.pk)
    cop_result = PrivateResult.objects.get(slot=people["cop"]).text
    for role in ("godfather", "mafia_roleblocker"):
        services.modkill(host, game.pk, people[role].pk)
    game.refresh_from_db()
    assert game.is_finished
    bodies = everything(game, None)
    archive = bodies[f"/games/{game.pk}/archive/"]
    api_archive = bodies[f"/api/v1/games/{game.pk}/archive/"]
    for role in {s.role for s in game.slots.all()}:
        assert display.role_title(game.ruleset, role) in archive, role  # by its display name
        assert f'"role":"{role}"' in api_archive.replace(" ", ""), role
    assert "investigate" in archive and "protect" in archive  # every night's actions
    assert cop_result in archive  # every private result
    lines = explanation(game, 2)
    assert lines and all(line in archive for line in lines)  # every night's explanation
    assert MAFIA_SECRET in bodies[f"/games/{game.pk}/t/mafia/"]
    assert MASON_SECRET in bodies[f"/games/{game.pk}/t/masons/"]
    assert DEAD_SECRET in bodies[f"/games/{game.pk}/t/dead/"]
    assert MAFIA_SECRET in bodies[f"/api/v1/games/{game.pk}/posts/?thread=mafia"]
    detail = json.loads(bodies[f"/api/v1/games/{game.pk}/"])
    assert all(p["role"] and p["alignment"] for p in detail["players"])
    assert detail["role_list"]


def test_no_page_or_endpoint_prints_the_game_wide_event_count(power_game, host):
    # Every event (night actions and private results included) bumps the game's event seq:
    # a page or JSON that showed it would let anyone count hidden actions between two
    # public events. Pages carry per-audience positions for live.js instead.
    game = Game.objects.get(pk=power_game["game"].pk)
    seq = str(game.event_seq)
    for name, (user, _slot) in viewers(power_game["people"], host).items():
        for url, body in everything(game, user).items():
            assert "event_seq" not in body, (name, url)
            assert not re.search(rf'data-(?:last-)?seq="{seq}"', body), (name, url)
    count = json.loads(APIClient().get(f"/api/v1/games/{game.pk}/vote-count/").content)
    assert "seq" not in count
    thread = Client().get(f"/games/{game.pk}/").content.decode()
    positions = re.search(r'data-live-positions="([^"]*)"', thread).group(1)
    assert positions.startswith("public.") or ",public." in positions


def _id_like_values(value: Any, path: str = "") -> list[str]:
    """Keys that would carry a site-wide post primary key (``id``, ``post_id``)."""
    found_keys = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("id", "post_id", "pk"):
                found_keys.append(f"{path}.{key}")
            found_keys += _id_like_values(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            found_keys += _id_like_values(inner, f"{path}[{n}]")
    return found_keys


def test_post_references_count_nothing_but_their_own_thread(make_game):
    """A site-wide post id counts every private post between two public ones (with their
    times): the API and the vote count refer to posts by their number in their thread."""
    game = make_game("forum-vanilla")
    slots = list(game.slots.select_related("user").order_by("seat"))
    mafia = [s for s in slots if s.is_mafia]
    town = [s for s in slots if not s.is_mafia]
    services.submit_post(town[0].user, game.pk, body=f"**Vote: {town[1].display_name}**")
    for n in range(3):  # hidden posts between two public ones
        services.submit_post(mafia[0].user, game.pk, body=f"secret {n}", thread="mafia")
    services.submit_post(town[2].user, game.pk, body=f"**Vote: {town[1].display_name}**")
    api = APIClient()
    posts = json.loads(api.get(f"/api/v1/games/{game.pk}/posts/").content)
    count = json.loads(api.get(f"/api/v1/games/{game.pk}/vote-count/").content)
    assert _id_like_values(posts) == [] and _id_like_values(count) == []
    numbers = [p["number"] for p in posts["results"]]
    assert numbers == sorted(numbers) and numbers[-1] - numbers[-2] == 1
    voters = count["wagons"][0]["voters"]
    assert [v["post_number"] for v in voters] == numbers[-2:]
    player = APIClient()
    player.force_authenticate(town[3].user)
    made = player.post(f"/api/v1/games/{game.pk}/posts/", {"body": "hello"}, format="json").json()
    assert _id_like_values(made) == [] and made["post"]["number"] == numbers[-1] + 1
    # The thread's links to the posts that cast votes still work: by number.
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert re.search(rf'href="/games/{game.pk}/[^"]*#post-public-{numbers[-1]}"', page)
    assert Client().get(f"/games/{game.pk}/posts/{numbers[-1]}/").status_code == 302


# -- caches keep nothing personal ---------------------------------------------------------------
def token_of(user: Any) -> str:
    return person_key(user)


def _not_stored(response) -> None:
    assert response.status_code == 200, (response.status_code, response.content[:200])
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    assert {"private", "no-store"} <= directives, response.get("Cache-Control")


def test_personal_pages_and_answers_are_private_and_never_stored(make_game, host):
    game = make_game("forum-vanilla")
    goon = slot_of(game, "goon")
    services.submit_post(goon.user, game.pk, body=MAFIA_SECRET, thread="mafia")
    g = game.pk
    web = Client()
    web.force_login(goon.user)
    for url in (
        f"/games/{g}/role/",
        f"/games/{g}/t/mafia/",
        f"/games/{g}/",  # the public thread, with the person's own buttons
        f"/api/v1/games/{g}/role/",
        f"/api/v1/games/{g}/posts/?thread=mafia",
    ):
        _not_stored(web.get(url))
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {token_of(goon.user)}")
    for url in (f"/api/v1/games/{g}/role/", f"/api/v1/games/{g}/posts/?thread=mafia"):
        _not_stored(token.get(url))
    hosting = Client()
    hosting.force_login(host)
    _not_stored(hosting.get(f"/games/{g}/host/"))
    _not_stored(hosting.get(f"/api/v1/games/{g}/host/"))


def test_a_spectators_pages_are_the_same_for_everyone_and_not_marked_private(make_game, host):
    game = make_game("forum-vanilla")
    services.host_post(host, game.pk, body="Welcome, everyone.")
    for url in (f"/games/{game.pk}/", f"/api/v1/games/{game.pk}/posts/", "/"):
        response = Client().get(url)
        assert response.status_code == 200
        assert "private" not in response.get("Cache-Control", ""), url
        assert "no-store" not in response.get("Cache-Control", ""), url
    assert "Welcome, everyone." in Client().get(f"/games/{game.pk}/").content.decode()
    # The favicon declares itself public: a signed-in person's browser may keep it too.
    web = Client()
    web.force_login(host)
    assert "public" in web.get("/favicon.ico")["Cache-Control"]
