"""Live frames in each viewer's language, equal to that viewer's own reload (issue 35).

In process, in the style of ``test_live_in_process.py``: pages kept open as
``tests.live_model.OpenPage`` are fed the frames the live layer itself sends (the catch-up
``replay``, then each socket's own ``own.attach``, which renders the items again in the
socket's language, ``localize``, and adds the viewer's own parts), and each open page's live
parts are compared with a fresh load by the same person. The socket's language is the
consumer's own reading of its handshake (``consumers._connect_reads``): an account's choice,
else the browser's language cookie or ``Accept-Language``.

A Russian and an English viewer of one game, signed in (a player each) and anonymous, keep
their pages open over a vote and a phase change: each page equals its own reload, and the
Russian pages show Russian. Two Russian spectators cost one Russian render of each item,
and nothing is rendered in Russian while no Russian socket is open.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from games import services
from games.live import consumers, localize, own
from games.live.language import BASE, browser_language, scope_in, socket_language
from games.live.render import prod_notice
from games.live.replay import replay
from games.models import AccountSettings
from tests.conftest import slot_of
from tests.live_model import LiveRoom, OpenPage, _inline_db, forget_gets

pytestmark = pytest.mark.django_db

CYRILLIC = re.compile("[А-Яа-яЁё]")


@pytest.fixture(autouse=True)
def _sockets_read_their_language(monkeypatch) -> None:
    """The model's sockets take their language as the consumer's connect does."""
    real = own.OwnPage.of.__func__  # type: ignore[attr-defined]

    def of(cls, game_id, scope, own_query, page, language=None):
        if language is None:
            language = consumers._connect_reads(game_id, scope)[1]
        return real(cls, game_id, scope, own_query, page, language)

    monkeypatch.setattr(own.OwnPage, "of", classmethod(of))


@pytest.fixture
def item_renders(monkeypatch) -> list[tuple[int, int, int, str]]:
    """Every item rendered again in a socket's language (``localize.render_items``)."""
    keys: list[tuple[int, int, int, str]] = []
    real = localize.render_items

    def counted(game_id: int, wanted: Any) -> Any:
        keys.extend(wanted)
        return real(game_id, wanted)

    monkeypatch.setattr(localize, "render_items", counted)
    monkeypatch.setattr(localize, "_ITEMS", type(localize._ITEMS)(8192))
    return keys


@pytest.fixture
def page_renders(monkeypatch) -> list[tuple[bool, str]]:
    """Every page rendered for a socket (``page_render.render_page``): (signed in, the
    language its scope asks for)."""
    calls: list[tuple[bool, str]] = []
    real = own.render_page

    def counted(scope: Any, path: str, *, signed_in: bool) -> Any:
        asked = [v.decode() for k, v in scope.get("headers") or () if k == b"accept-language"]
        calls.append((signed_in, ",".join(asked)))
        return real(scope, path, signed_in=signed_in)

    monkeypatch.setattr(own, "render_page", counted)
    return calls


def _russian_browser(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    return client


def _drifted(pages: list[OpenPage]) -> dict[str, list[str]]:
    forget_gets()
    return {p.label: [str(m) for m in p.drift()] for p in pages if p.drift()}


def _text(page: OpenPage, element_id: str) -> str:
    element = page.doc.by_id(element_id)
    assert element is not None, element_id
    return " ".join(element.text_content().split())


def _lang(page: OpenPage) -> str:
    html = page.doc.first("html")
    return (html.attrs.get("lang") if html is not None else "") or ""


def test_each_viewer_gets_frames_in_their_language_equal_to_their_reload(
    client_for, make_game, host, item_renders, page_renders
):
    game = make_game("forum-vanilla")
    ru_player = slot_of(game, "vanilla_townie")
    en_player = slot_of(game, "vanilla_townie", 1)
    AccountSettings.objects.update_or_create(user=ru_player.user, defaults={"language": "ru"})
    room = LiveRoom(game.pk)
    url = f"/games/{game.pk}/"
    ru = [
        OpenPage(client_for(ru_player.user), url, user=ru_player.user, label="ru player"),
        OpenPage(_russian_browser(client_for()), url, viewer="anonymous", label="ru spectator"),
        OpenPage(_russian_browser(client_for()), url, viewer="anonymous", label="ru spectator 2"),
    ]
    en = [
        OpenPage(client_for(en_player.user), url, user=en_player.user, label="en player"),
        OpenPage(client_for(), url, viewer="anonymous", label="en spectator"),
    ]
    pages = [room.open(page) for page in ru + en]
    sockets = {page.label: room.sockets[id(page)] for page in pages}
    assert {label: s.own_page.language for label, s in sockets.items()} == {
        "ru player": "ru",
        "ru spectator": "ru",
        "ru spectator 2": "ru",
        "en player": "en",
        "en spectator": "en",
    }
    # Each reload is in its reader's language (the page says so).
    assert [_lang(p) for p in pages] == ["ru", "ru", "ru", "en", "en"]
    banners = {p.label: _text(p, "phase-banner") for p in pages}
    assert CYRILLIC.search(banners["ru spectator"]) and not CYRILLIC.search(banners["en spectator"])
    assert _drifted(pages) == {}

    # A vote: the vote count (carried by the items) and the players panels (the signed-in
    # viewers' own copies) are redrawn, each in its viewer's language.
    services.cast_vote(en_player.user, game.pk, ru_player.pk)
    room.sync(told={ru_player.user_id, en_player.user_id})
    assert _drifted(pages) == {}
    assert [p.reloads for p in pages] == [0, 0, 0, 0, 0]  # redrawn in place
    # The spectators' vote counts came in the items: each in its socket's language.
    count = {p.label: _text(p, "vote-count") for p in pages}
    assert count["ru spectator"] == count["ru spectator 2"] == count["ru player"]
    assert count["en spectator"] == count["en player"]
    assert count["ru spectator"] != count["en spectator"]

    # A phase change: the banner, the players and everything the night redraws.
    before = {p.label: _text(p, "phase-banner") for p in pages}
    services.cut_deadline_now(host, game.pk)
    room.sync(told={ru_player.user_id, en_player.user_id})  # their bells: the day's end
    assert _drifted(pages) == {}
    assert [p.reloads for p in pages] == [0, 0, 0, 0, 0]
    after = {p.label: _text(p, "phase-banner") for p in pages}
    assert all(after[label] != before[label] for label in after)  # it did change live
    for page in ru:
        assert CYRILLIC.search(after[page.label]), (page.label, after[page.label])
    for page in en:
        assert not CYRILLIC.search(after[page.label]), (page.label, after[page.label])

    # The items were rendered again in Russian only, and each once for every Russian socket
    # of the process (the two spectators and the player share the renders).
    assert item_renders, "no item was rendered in Russian"
    assert {key[3] for key in item_renders} == {"ru"}
    assert len(item_renders) == len(set(item_renders))
    # The spectators' own parts (their reply box...): one anonymous render per language and
    # change, however many spectators of that language (two Russian, one English).
    anonymous = [language for signed_in, language in page_renders if not signed_in]
    assert anonymous.count("ru") == anonymous.count("en") > 0


def test_no_russian_is_rendered_while_no_russian_socket_is_open(
    client_for, make_game, host, item_renders
):
    game = make_game("forum-vanilla")
    room = LiveRoom(game.pk)
    url = f"/games/{game.pk}/"
    page = room.open(OpenPage(client_for(), url, viewer="anonymous", label="en spectator"))
    services.cut_deadline_now(host, game.pk)
    room.sync()
    assert _drifted([page]) == {}
    assert item_renders == []


def test_the_items_a_russian_socket_gets_are_the_same_items_in_russian(
    make_game, host, item_renders
):
    """The language changes an item's words, never which item it is: the same event, the
    same number and audience, and the same fields as the English item. The English items
    the hub routes to a Russian socket go out as the Russian catch-up renders them."""
    game = make_game("forum-vanilla")
    services.cut_deadline_now(host, game.pk)
    english = replay(game.pk, frozenset({"public"}), 0).items
    page = own.OwnPage(game.pk, None, scope_in({}, "ru"), None, {}, "ru")
    with _inline_db():
        texts = asyncio.run(own.attach(page, english))
    assert len(item_renders) == len(english)  # each rendered in Russian, once
    russian = replay(game.pk, frozenset({"public"}), 0, language="ru").items
    assert texts == [text for _, text in russian]
    assert [s for s, _ in english] == [s for s, _ in russian]
    for (_, en_text), (_, ru_text) in zip(english, russian, strict=True):
        en_item, ru_item = json.loads(en_text), json.loads(ru_text)
        assert [en_item[k] for k in ("n", "kind", "aud")] == [
            ru_item[k] for k in ("n", "kind", "aud")
        ]
        assert set(en_item) == set(ru_item)
    banners = [json.loads(t).get("banner", "") for t in texts]
    assert any(CYRILLIC.search(b) for b in banners)
    # The same frame again (another Russian socket): no render, the same texts.
    with _inline_db():
        again = asyncio.run(own.attach(page, english))
    assert again == texts and len(item_renders) == len(english)


def test_a_render_that_is_not_the_routed_item_is_never_sent_in_its_stead(
    make_game, host, item_renders
):
    """Belt and braces: the Russian render replaces a routed item only when it has the
    same number, kind and audience (here a routed text that claims another audience for
    the event's seq keeps its own text)."""
    game = make_game("forum-vanilla")
    services.cut_deadline_now(host, game.pk)
    seq, text = replay(game.pk, frozenset({"public"}), 0).items[-1]
    forged = text.replace('"aud":"public"', '"aud":"mafia"', 1)
    assert forged != text
    page = own.OwnPage(game.pk, None, scope_in({}, "ru"), None, {}, "ru")
    with _inline_db():
        texts = asyncio.run(own.attach(page, [(seq, forged), (seq, text)]))
    assert texts[0] == forged  # not the public event's Russian words under "mafia"
    assert texts[1] != text and json.loads(texts[1])["aud"] == "public"


# -- the socket's language ------------------------------------------------------------------
def _scope(user: Any = None, **headers: str) -> dict[str, Any]:
    return {
        "user": user,
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


def test_a_sockets_language_is_read_as_a_reload_reads_it(make_users):
    (person,) = make_users(1, prefix="lang")
    assert browser_language(_scope()) == BASE == settings.LANGUAGE_CODE
    assert browser_language(_scope(accept_language="ru-RU,ru;q=0.9,en;q=0.8")) == "ru"
    assert browser_language(_scope(accept_language="de-DE,de;q=0.9")) == "en"
    assert browser_language(_scope(accept_language="de,ru;q=0.5")) == "ru"
    # The language cookie wins over the header, as LocaleMiddleware has it.
    cookie = f"{settings.LANGUAGE_COOKIE_NAME}=ru; other=1"
    assert browser_language(_scope(cookie=cookie, accept_language="en")) == "ru"
    # A signed-in person: their account's choice, else their browser's.
    assert socket_language(_scope(person, accept_language="ru")) == "ru"
    AccountSettings.objects.update_or_create(user=person, defaults={"language": "en"})
    person.refresh_from_db()
    assert socket_language(_scope(person, accept_language="ru")) == "en"
    # As their session keeps it (what their page's reload reads), when it does.
    session = {"account_language": "ru"}
    assert socket_language({**_scope(person), "session": session}) == "ru"
    assert socket_language({**_scope(person, accept_language="ru"), "session": {"x": 1}}) == "en"
    # A page rendered for a socket says the socket's language, whatever the browser said.
    scoped = scope_in(_scope(accept_language="ru-RU,ru;q=0.9"), "en")
    assert [v for k, v in scoped["headers"] if k == b"accept-language"] == [b"en"]


def test_the_bad_positions_error_is_in_the_sockets_language():
    english = consumers.BadPositions.control("en")
    russian = consumers.BadPositions.control("ru")
    assert english["code"] == russian["code"]
    assert english["error"].startswith("Positions are whole numbers")
    assert CYRILLIC.search(russian["error"])


def test_a_prod_notice_is_in_the_active_language():
    payload = {"posts": 1, "required": 3}
    english = prod_notice(payload)
    with translation.override("ru"):
        russian = prod_notice(payload)
    assert english.startswith("You were prodded")
    assert CYRILLIC.search(russian), russian
