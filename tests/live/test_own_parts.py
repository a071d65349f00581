"""A signed-in viewer's own players panel and table, pushed on their socket (issue 30).

Each open page used to fetch itself again at every vote for its players panel (its own vote
mark and buttons; the host's role labels). Now the socket attaches the viewer's own copy to
the items redrawing it (``item["own"]``): these tests open real sockets in process (the
whole ASGI stack, the real Redis layer), change the game through the services, and compare
what was pushed with the same person's fresh page (the Django test client).
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import display, fragments, services
from games.lru import ProcessLRU
from games.models import Game, Slot
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
    # A page without the parameter (an older live.js) is sent no own parts: it fetches.
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
