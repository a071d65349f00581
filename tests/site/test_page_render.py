"""The socket's page renders (``games.live.page_render``): which pages, and their parts."""

from __future__ import annotations

from games.live.page_render import live_parts, page_path, part_names, render_page


def test_only_the_sockets_own_games_live_pages_are_rendered() -> None:
    assert page_path(5, "/games/5/role/") == "/games/5/role/"
    assert page_path(5, "/games/5/?page=2&iso=7") == "/games/5/?page=2&iso=7"
    assert page_path(5, "/games/5/t/mafia/") == "/games/5/t/mafia/"
    for other in (
        "/games/6/role/",  # another game
        "/games/5/vote/",  # not a page
        "/notifications/",
        "//evil.example/games/5/",
        "https://evil.example/games/5/",
        "games/5/",
        "",
        None,
    ):
        assert page_path(5, other) is None, other


def test_the_parts_of_a_rendered_page_are_cut_out_whole() -> None:
    html = (
        '<main><div id="a" data-live-part="phase"><div><p>x</p></div><br>'
        '<section id="b" data-live-part="actions chores"><div>in</div></section></div>'
        '<div id="a" data-live-part="phase">second a</div>'
        '<aside id="c">not live</aside><input id="d" data-live-part="phase" value="v"></main>'
    )
    parts = live_parts(html)
    assert list(parts) == ["a", "b", "d"]
    assert parts["a"].startswith('<div id="a"') and parts["a"].endswith("</section></div>")
    assert parts["b"] == '<section id="b" data-live-part="actions chores"><div>in</div></section>'
    assert part_names(parts["b"]) == {"actions", "chores"}
    assert parts["d"] == '<input id="d" data-live-part="phase" value="v">'


def test_a_sockets_render_leaves_the_persons_flash_messages_for_their_next_page(
    client_for, make_game
) -> None:
    """Messages too long for their cookie wait in the session behind a marker in the cookie
    (Django's fallback storage); a page render would show and so use them up. The socket's
    render is made without the messages' cookie: they stay for the person's next page."""
    from django.conf import settings
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.contrib.sessions.backends.db import SessionStore
    from django.test import RequestFactory

    from tests.live_model import socket_scope

    game = make_game("forum-vanilla")
    me = game.slots.order_by("seat").first()
    client = client_for(me.user)
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    session = SessionStore(session_key)
    session["_messages"] = '[["__json_message",0,20,"Your vote was cast on a long day."]]'
    session.save()
    # The cookie part: nothing but the marker "more in the session".
    request = RequestFactory().get("/")
    storage = CookieStorage(request)
    marker = storage._encode([CookieStorage.not_finished])
    client.cookies["messages"] = marker

    rendered = render_page(socket_scope(client, me.user), f"/games/{game.pk}/", signed_in=True)
    assert rendered.status == 200 and "reply" in rendered.parts
    assert "_messages" in SessionStore(session_key).load()  # still there for their page
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Your vote was cast on a long day." in page


def test_an_agents_token_socket_has_no_page_to_render(django_user_model) -> None:
    """A socket signed in with an agent's token renders nothing (cookies it might also send
    could be another person's): only the seat's players panel and table are its own."""
    from games.live.own import OwnPage

    agent = django_user_model(username="pagelessbot", pk=10**6)
    own = "players:players,reply:phase+turn-panel,actions:actions"
    scope = {"user": agent, "token_id": 3, "headers": [(b"cookie", b"sessionid=someone")]}
    as_agent = OwnPage.of(5, scope, own, "/games/5/role/")
    assert as_agent.path is None and as_agent.parts == {"players", "turn-panel"}
    as_page = OwnPage.of(5, {**scope, "token_id": None}, own, "/games/5/role/")
    assert as_page.path == "/games/5/role/"
    assert as_page.parts == {"players", "phase", "turn-panel", "actions"}


def test_a_page_still_has_what_an_earlier_render_no_longer_shows() -> None:
    """Seen in Chromium: the game's end was rendered for an earlier frame's item (no host
    queue any more); the socket then forgot the page had the queue, so the "game finished"
    item did not cover it and the open dashboard kept it. The page keeps what it had until
    an item redrawing that part takes it away."""
    from games.live.own import OwnPage, _own_fields
    from games.live.page_render import Rendered

    scope = {"user": None}
    page = OwnPage.of(5, scope, "replacement-queue:chores,nav:phase", "/games/5/host/")
    end = Rendered(200, {"nav": '<nav id="nav" data-live-part="phase">over</nav>'})
    page.learn(end)
    assert "chores" in page.parts
    finished = _own_fields(end, frozenset({"phase", "chores"}) & page.parts, page)
    assert finished["covered"] == ["chores", "phase"] and "replacement-queue" not in finished["own"]
    dusk = Rendered(200, {"actions": '<div id="actions" data-live-part="actions">x</div>'})
    page.learn(dusk)
    assert page.elements["actions"] == {"actions"} and "actions" in page.parts
