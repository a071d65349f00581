"""Real sockets in their viewers' languages (issue 35): the whole ASGI stack, the real Redis
layer. A socket's language is read from its handshake at connect (``Accept-Language``, the
language cookie; a signed-in person's account), and every item it is sent is in it: the
publisher's one item rendered again per language in use (``games.live.localize``), once per
process however many sockets of that language wait for it.

The in-process twin, with each open page compared with its reload, is
``tests/site/test_live_i18n.py``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from games import services
from games.live import localize
from games.lru import ProcessLRU
from games.models import Game
from tests.live.ws_support import Socket, live_redis_layer

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(90),
]

db = database_sync_to_async
CYRILLIC = re.compile("[А-Яа-яЁё]")


@pytest_asyncio.fixture(autouse=True, params=["background", "inline"])
async def live_layer(request, settings):
    async with live_redis_layer(settings, background=request.param == "background"):
        yield


def _seq(game: Game) -> int:
    return Game.objects.get(pk=game.pk).event_seq


async def _open(game_id: int, *headers: tuple[bytes, bytes], query: str = "") -> Socket:
    from games.live import publisher
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False  # (importing the ASGI app turns it on)
    path = f"/ws/games/{game_id}/?{query}"
    base = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    communicator = WebsocketCommunicator(application, path, headers=[*base, *headers])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    socket = Socket(communicator)
    await socket.wait_for(lambda i: i.get("type") in ("replay", "reload"))
    return socket


async def test_each_socket_gets_its_items_in_its_language(make_game, host, monkeypatch):
    game = await db(make_game)("forum-vanilla")
    rendered: list[tuple[int, int, int, str]] = []
    real = localize.render_items

    def counted(game_id: int, keys: Any) -> Any:
        rendered.extend(keys)
        return real(game_id, keys)

    monkeypatch.setattr(localize, "render_items", counted)
    monkeypatch.setattr(localize, "_ITEMS", ProcessLRU(8192))
    cookie = f"{django_settings.LANGUAGE_COOKIE_NAME}=ru".encode()
    russian = [
        await _open(game.pk, (b"accept-language", b"ru-RU,ru;q=0.9,en;q=0.8")),
        await _open(game.pk, (b"cookie", cookie), (b"accept-language", b"en-US")),
    ]
    english = await _open(game.pk, (b"accept-language", b"en-US,en;q=0.9"))

    await db(services.cut_deadline_now)(host, game.pk)

    def started(item: dict[str, Any]) -> bool:
        return item.get("kind") == "phase_started"

    items = [await s.wait_for(started) for s in (*russian, english)]
    for socket in (*russian, english):
        await socket.drain()
    ru_items, en_item = items[:2], items[2]
    # The same item (its number and audience), in each socket's words.
    assert {(i["n"], i["aud"]) for i in items} == {(en_item["n"], en_item["aud"])}
    assert ru_items[0] == ru_items[1]
    assert CYRILLIC.search(ru_items[0]["banner"]), ru_items[0]["banner"]
    assert not CYRILLIC.search(en_item["banner"])
    assert ru_items[0]["banner"] != en_item["banner"]
    # Every item the English socket got, the Russian ones got too, numbered alike.
    numbers = [(i["kind"], i["aud"], i["n"]) for i in english.items if "kind" in i]
    for socket in russian:
        assert [(i["kind"], i["aud"], i["n"]) for i in socket.items if "kind" in i] == numbers
    # Rendered again in Russian only, each item once for both Russian sockets.
    assert rendered and {key[3] for key in rendered} == {"ru"}
    assert len(rendered) == len(set(rendered))

    # Texts of the socket's own: an error is worded in the socket's language too.
    await russian[0].send({"type": "resume", "positions": {"public": -1}})
    error = await russian[0].wait_for(lambda i: i.get("type") == "error")
    assert error["code"] and CYRILLIC.search(error["error"])
    await english.send({"type": "resume", "positions": {"public": -1}})
    error = await english.wait_for(lambda i: i.get("type") == "error")
    assert error["error"].startswith("Positions are whole numbers")
    for socket in (*russian, english):
        await socket.close()


async def test_a_signed_in_persons_socket_speaks_their_accounts_language(
    make_game, host, monkeypatch
):
    from games.models import AccountSettings
    from tests.live.ws_support import _session_cookie

    game = await db(make_game)("forum-vanilla")
    await db(AccountSettings.objects.update_or_create)(user=host, defaults={"language": "ru"})
    cookie = await db(_session_cookie)(host)
    # Their browser asks for English; their account's choice wins, as on their pages.
    socket = await _open(
        game.pk, (b"cookie", f"sessionid={cookie}".encode()), (b"accept-language", b"en")
    )
    await db(services.cut_deadline_now)(host, game.pk)
    item = await socket.wait_for(lambda i: i.get("kind") == "phase_started")
    assert CYRILLIC.search(item["banner"]), item["banner"]
    await socket.close()
