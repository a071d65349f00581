"""A viewer's own copy of their page's parts, pushed on their socket (issue 30).

Each open page used to fetch itself again at every vote for its players panel (its own vote
mark and buttons; the host's role labels) and at every phase change for the rest (the reply
box, the role PM's actions, the host's controls, the sign-ups, the activity page). Now the
socket attaches the viewer's own copy to the items redrawing them (``item["own"]``): these
tests open real sockets in process (the whole ASGI stack, the real Redis layer), change the
game through the services, and compare what was pushed with the same person's fresh page
(the Django test client).
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import display, fragments, services
from games.event_kinds import KINDS
from games.live import own as own_module
from games.live.page_render import live_parts, part_names
from games.lru import ProcessLRU
from games.models import Game, Slot
from tests.conftest import slot_of
from tests.live.ws_support import live_redis_layer, open_socket
from tests.site.live_pages import _by_id, parse

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(90),
]

db = database_sync_to_async
OWN = "&own=players,turn-panel"  # what live.js asks for on a thread page


@pytest_asyncio.fixture(autouse=True, params=["background", "inline"])
async def live_layer(request, settings):
    async with live_redis_layer(settings, background=request.param == "background"):
        yield


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """Every render of the players panel's or the table's template (any thread), from an
    empty cache: the page's and the sockets' renders alike."""
    calls: list[str] = []
    lock = threading.Lock()
    real = fragments.render_to_string

    def spy(name: str, *args: Any, **kwargs: Any) -> str:
        if name in ("games/_players_panel.html", "games/_turn.html"):
            with lock:
                calls.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(fragments, "render_to_string", spy)
    monkeypatch.setattr(fragments, "_PANELS", ProcessLRU(2048))
    monkeypatch.setattr(fragments, "_TURNS", ProcessLRU(1024))
    return calls


def _slots(game: Game) -> list[Slot]:
    return list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))


def _seq(game: Game) -> int:
    return Game.objects.get(pk=game.pk).event_seq


def _page(user: Any, game: Game) -> str:
    """``user``'s fresh thread page, rendered afresh (not from the panels' cache)."""
    fragments._PANELS = ProcessLRU(2048)
    fragments._TURNS = ProcessLRU(1024)
    client = Client()
    client.force_login(user)
    response = client.get(reverse("games:thread", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _element(html: str, element_id: str):
    return _by_id(parse(html)).get(element_id)


def _token(page: str) -> str:
    """The page's own CSRF token, as live.js reads it (its first token field)."""
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def _as_live_js(pushed: str, page: str) -> str:
    """The pushed part with the page's token put in, as live.js does."""
    return pushed.replace(fragments._CSRF_SLOT, _token(page))


def _badges(html: str) -> set[str]:
    return set(re.findall(r'<span class="badge[^"]*">([^<]+)</span>', html))


def _is_count(item: dict) -> bool:
    return item.get("kind") == "vote_count" and "Vote" in "".join(item.get("own", {}).values())


def _role_titles(game: Game) -> set[str]:
    return {display.role_title(game.ruleset, s.role) for s in _slots(game)} - {""}


async def test_a_players_own_panel_is_pushed_once_per_person_as_their_page_shows_it(
    make_game, renders
):
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    me, voter, target = slots[0], slots[1], slots[2]
    await db(services.cast_vote)(me.user, game.pk, target.pk)  # "your vote" on my panel
    since = await db(_seq)(game)
    tab1 = (await open_socket(game.pk, me.user, since=since, query=OWN))[0]
    tab2 = (await open_socket(game.pk, me.user, since=since, query=OWN))[0]
    spectator = (await open_socket(game.pk, since=since, query=OWN))[0]  # anonymous: no own
    renders.clear()

    await db(services.cast_vote)(voter.user, game.pk, target.pk)
    first = await tab1.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i)
    second = await tab2.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i)
    seen = await spectator.wait_for(lambda i: i.get("kind") == "vote_count")
    assert "own" not in seen
    # One render for two tabs of one person (the spectators' HTML is rendered elsewhere).
    assert renders == ["games/_players_panel.html"]
    assert first["own"] == second["own"] and set(first["own"]) == {"players"}
    pushed = first["own"]["players"]
    assert fragments._CSRF_SLOT in pushed  # the page's own token goes in on the client
    assert "your vote" in pushed and "data-unvote" in pushed

    page = await db(_page)(me.user, game)
    assert _element(_as_live_js(pushed, page), "players") == _element(page, "players")
    # Nothing a player may not see: no role label the spectators' panel does not have.
    spectators = seen.get("players") or await db(fragments.render_players)(game)
    assert not (_badges(pushed) - _badges(spectators)) - {"your vote", "nominated"}
    assert not (await db(_role_titles)(game)) & (_badges(pushed) - _badges(spectators))
    for socket in (tab1, tab2, spectator):
        await socket.close()


async def test_the_hosts_own_panel_shows_roles_and_equals_the_hosts_page(make_game, host):
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    since = await db(_seq)(game)
    mine = (await open_socket(game.pk, host, since=since, query=OWN))[0]
    player = (await open_socket(game.pk, slots[0].user, since=since, query=OWN))[0]

    await db(services.cast_vote)(slots[1].user, game.pk, slots[2].pk)
    hosts = (await mine.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i))["own"]
    players = (await player.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i))["own"]
    page = await db(_page)(host, game)
    assert _element(_as_live_js(hosts["players"], page), "players") == _element(page, "players")
    titles = await db(_role_titles)(game)
    assert titles & _badges(hosts["players"])  # the host sees the roles...
    assert not titles & _badges(players["players"])  # ...a player's copy does not
    assert hosts["players"] != players["players"]
    for socket in (mine, player):
        await socket.close()


async def test_a_signed_in_spectators_own_panel_equals_their_page(make_game, make_users):
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    (outsider,) = await db(make_users)(1, prefix="reader")
    since = await db(_seq)(game)
    socket = (await open_socket(game.pk, outsider, since=since, query=OWN))[0]

    await db(services.cast_vote)(slots[1].user, game.pk, slots[2].pk)
    own = (await socket.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i))["own"]
    page = await db(_page)(outsider, game)
    assert _element(_as_live_js(own["players"], page), "players") == _element(page, "players")
    assert "<form" not in own["players"]  # no buttons for someone not playing
    assert not (await db(_role_titles)(game)) & _badges(own["players"])
    await socket.close()


async def test_replayed_items_carry_own_and_a_page_that_asks_for_none_gets_none(make_game):
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    me = slots[0]
    await db(services.cast_vote)(slots[1].user, game.pk, slots[2].pk)
    # Caught up from the start: the replayed count carries the viewer's panel too.
    replayed = (await open_socket(game.pk, me.user, since=0, query=OWN))[0]
    count = await replayed.wait_for(lambda i: i.get("kind") == "vote_count")
    page = await db(_page)(me.user, game)
    assert _element(_as_live_js(count["own"]["players"], page), "players") == _element(
        page, "players"
    )
    # A page without the parameter (an older live.js) is sent no own parts.
    plain = (await open_socket(game.pk, me.user, since=0))[0]
    assert "own" not in await plain.wait_for(lambda i: i.get("kind") == "vote_count")
    for socket in (replayed, plain):
        await socket.close()


async def test_the_table_is_pushed_per_seat(make_game):
    game = await db(make_game)("city-ten", table=True)
    slots = await db(_slots)(game)
    first, second, third = slots[0], slots[1], slots[2]
    since = await db(_seq)(game)
    theirs = (await open_socket(game.pk, second.user, since=since, query=OWN))[0]
    other = (await open_socket(game.pk, third.user, since=since, query=OWN))[0]

    await db(services.pass_turn)(first.user, game.pk)
    own = (await theirs.wait_for(lambda i: i.get("kind") == "turn" and "own" in i))["own"]
    others = (await other.wait_for(lambda i: i.get("kind") == "turn" and "own" in i))["own"]
    assert 'id="your-turn"' in own["turn-panel"] and "your-turn" not in others["turn-panel"]
    for user, pushed in ((second.user, own), (third.user, others)):
        page = await db(_page)(user, game)
        for part in ("turn-panel", "players"):
            assert _element(_as_live_js(pushed[part], page), part) == _element(page, part)
    for socket in (theirs, other):
        await socket.close()


async def test_renders_per_vote_are_one_per_person_not_per_socket(make_game, renders):
    """Five players with two tabs each and three anonymous spectators: five renders a vote."""
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    since = await db(_seq)(game)
    sockets = []
    for slot in slots[:5]:
        for _ in range(2):
            sockets.append((await open_socket(game.pk, slot.user, since=since, query=OWN))[0])
    for _ in range(3):
        sockets.append((await open_socket(game.pk, since=since, query=OWN))[0])
    renders.clear()
    await db(services.cast_vote)(slots[-2].user, game.pk, slots[-1].pk)
    for socket in sockets[:10]:
        await socket.wait_for(lambda i: i.get("kind") == "vote_count" and "own" in i)
    assert renders == ["games/_players_panel.html"] * 5
    for socket in sockets:
        await socket.close()


# -- the page's other parts: rendered for the viewer by their socket ----------------------
def _client(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _get(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def _page_query(html: str, path: str) -> str:
    """What live.js sends on connect for a page: its live elements and where it is."""
    parts = live_parts(html)
    elements = ",".join(f"{i}:{'+'.join(sorted(part_names(h)))}" for i, h in parts.items())
    return f"&own={quote(elements)}&page={quote(path)}"


async def test_a_role_pm_at_dusk_gets_its_night_actions_pushed_as_its_page_shows_them(
    make_game, host
):
    game = await db(make_game)("forum-cop-doctor-nine")
    cop = await db(slot_of)(game, "cop")
    path = f"/games/{game.pk}/role/"
    client = await db(_client)(cop.user)
    before = await db(_get)(client, path)
    socket = (
        await open_socket(
            game.pk, cop.user, since=await db(_seq)(game), query=_page_query(before, path)
        )
    )[0]

    await db(services.cut_deadline_now)(host, game.pk)  # the day ends: night 1
    item = await socket.wait_for(lambda i: i.get("kind") == "phase_started" and "own" in i)
    fresh = await db(_get)(client, path)
    assert item["own"] and "phase" in item["covered"]
    for element_id, html in item["own"].items():
        assert _element(_as_live_js(html, fresh), element_id) == _element(fresh, element_id)
    # What the page did not have by day and has now: the night's action form.
    assert "Investigate" in "".join(item["own"].values()) and "Investigate" not in before
    await socket.close()


def _redrawing_events(game: Game, since: int, part: str) -> int:
    kinds = Game.objects.get(pk=game.pk).events.filter(seq__gt=since).values_list("kind", flat=True)
    return sum(part in KINDS[kind].parts for kind in kinds)


async def test_every_anonymous_page_shares_one_render_per_change(make_game, host, monkeypatch):
    game = await db(make_game)("forum-vanilla")
    path = f"/games/{game.pk}/"
    query = _page_query(await db(_get)(_client(), path), path)
    calls: list[str] = []
    real = own_module.render_page

    def counted(scope: Any, page: str, *, signed_in: bool) -> Any:
        calls.append(page)
        return real(scope, page, signed_in=signed_in)

    monkeypatch.setattr(own_module, "render_page", counted)
    since = await db(_seq)(game)
    sockets = [(await open_socket(game.pk, since=since, query=query))[0] for _ in range(4)]

    await db(services.cut_deadline_now)(host, game.pk)
    pushed = [
        await s.wait_for(lambda i: i.get("kind") == "phase_started" and "own" in i) for s in sockets
    ]
    assert len({repr(p["own"]) for p in pushed}) == 1  # the same copy for every spectator
    assert "reply" in pushed[0]["own"]  # the reply box: "Log in to post" at night too
    # One render per event that redrew the reply box (the day's end, the night's start...),
    # shared by the four sockets however the events fell into their frames.
    redrawing = await db(_redrawing_events)(game, since, "phase")
    assert 1 <= len(calls) <= redrawing < len(sockets) * redrawing and set(calls) == {path}
    fresh = await db(_get)(_client(), path)
    assert _element(pushed[0]["own"]["reply"], "reply") == _element(fresh, "reply")
    for socket in sockets:
        await socket.close()


async def test_a_page_asks_its_socket_for_its_page_links(make_game):
    game = await db(make_game)("forum-vanilla")
    me = (await db(_slots)(game))[0]
    path = f"/games/{game.pk}/"
    client = await db(_client)(me.user)
    query = _page_query(await db(_get)(client, path), path)
    socket = (await open_socket(game.pk, me.user, since=await db(_seq)(game), query=query))[0]
    for n in range(fragments.POSTS_PER_PAGE + 1):  # the thread gains a second page
        await db(services.submit_post)(me.user, game.pk, body=f"Post {n}.")
    await socket.send({"type": "parts", "parts": ["pages", "no-such-part"]})
    answer = await socket.wait_for(lambda i: i.get("type") == "parts")
    fresh = await db(_get)(client, path)
    assert answer["parts"] == ["pages"] and set(answer["own"]) == {"pages-top", "pages-bottom"}
    assert "?page=2" in answer["own"]["pages-top"]
    for element_id in ("pages-top", "pages-bottom"):
        assert _element(answer["own"][element_id], element_id) == _element(fresh, element_id)
    await socket.close()
