"""A game page rendered in process for a socket's viewer, and the live parts cut out of it.

An open page's parts that differ per viewer and that the items do not carry (a signed-in
viewer's reply box, role PM, night actions, the host's controls; the sign-ups and the
activity page for anyone) used to be fetched by the page itself (``fetch(location.href)``)
after every event that redrew them. Now the socket renders that page for its viewer and
pushes the parts (``games.live.own``): the page never asks.

What is rendered is what a reload shows, by construction: the request goes through the
site's own middleware, URL resolver and view, with the socket's own cookies (its session:
the same person) and host, so every rule of who may see what is the view's, not a copy of
it. A signed-in viewer's render is theirs alone; an anonymous one is made without any cookie
and shared by every anonymous socket on that page (``own._shared``). Each form's CSRF token
is replaced by ``fragments._CSRF_SLOT``: the page puts its own in (``static/js/live.js``).

Only the live game pages of the socket's own game are rendered (``page_path``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse
from django.urls import Resolver404, resolve

from ..event_kinds import PARTS
from ..fragments import _CSRF_SLOT

# The game pages that carry live.js (``templates/games/_live_scripts.html``).
LIVE_PAGES = frozenset(
    {
        "games:thread",
        "games:private_thread",
        "games:role",
        "games:host",
        "games:activity",
        "games:multi_iso",
        "games:whispers",
    }
)

# The socket's headers a page render takes: the person (cookie, only for a signed-in
# viewer), the host (ALLOWED_HOSTS, links), the proxy's (the scheme behind TLS, the
# address) and the language (``Accept-Language``: the game socket's scope says its own
# language there, ``language.scope_in``). Nothing else of a websocket handshake means
# anything to a page.
_HEADERS = (
    "host",
    "x-forwarded-proto",
    "x-forwarded-for",
    "x-forwarded-host",
    "accept-language",
)


def page_path(game_id: int, value: str | None) -> str | None:
    """The page's path and query (``/games/5/role/``, ``/games/5/?page=2``) if it is one of
    ``game_id``'s live pages, else None."""
    if not value or not value.startswith("/") or value.startswith("//") or len(value) > 2000:
        return None
    split = urlsplit(value)
    if split.scheme or split.netloc:
        return None
    try:
        match = resolve(split.path)
    except Resolver404:
        return None
    if match.view_name not in LIVE_PAGES or match.kwargs.get("game_id") != game_id:
        return None
    return value


_handler: BaseHandler | None = None


def _get_handler() -> BaseHandler:
    """The site's request handler with its middleware (one per process, as a WSGI server's)."""
    global _handler
    if _handler is None:
        handler = BaseHandler()
        handler.load_middleware(is_async=False)
        _handler = handler
    return _handler


def _environ(scope: Mapping[str, Any], path: str, *, signed_in: bool) -> dict[str, Any]:
    split = urlsplit(path)
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("127.0.0.1", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": split.path,
        "QUERY_STRING": split.query,
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": str(client[0]),
        "HTTP_ACCEPT": "text/html",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "https" if scope.get("scheme") in ("wss", "https") else "http",
    }
    wanted = _HEADERS + (("cookie",) if signed_in else ())
    for name, value in scope.get("headers") or ():
        key = name.decode("latin-1").lower()
        if key in wanted:
            text = value.decode("latin-1")
            environ["HTTP_" + key.upper().replace("-", "_")] = (
                _without_messages(text) if key == "cookie" else text
            )
    return environ


def _without_messages(cookie: str) -> str:
    """The cookie header without the flash messages' cookie: a render for the socket must
    not show (and so use up) the "Vote cast." the person's own next page load is to show.
    Without it, the messages' fallback storage (the session) is not read either."""
    name = getattr(settings, "MESSAGE_COOKIE_NAME", "messages")
    kept = [c for c in cookie.split(";") if c.strip().partition("=")[0] != name]
    return ";".join(kept)


@dataclass(frozen=True)
class Rendered:
    """A page as its viewer would load it now: the answer's status and its live parts (by
    element id, each the element's HTML). ``whole``: every live part of the page (not a
    few rendered on their own)."""

    status: int
    parts: dict[str, str]
    whole: bool = True


_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def render_page(
    scope: Mapping[str, Any],
    path: str,
    *,
    signed_in: bool,
    cut: Callable[[str], dict[str, str]] | None = None,
) -> Rendered:
    """``path`` as the socket's viewer would load it (anonymous: without any cookie), with
    every live part of it (``cut``: which parts, ``live_parts`` unless said; CSRF tokens
    left as ``_CSRF_SLOT``)."""
    request = WSGIRequest(_environ(scope, path, signed_in=signed_in))
    response = _get_handler().get_response(request)
    if response.status_code != 200 or getattr(response, "streaming", False):
        return Rendered(response.status_code, {})
    assert isinstance(response, HttpResponse)  # not streaming: it has its content
    html = _TOKEN.sub(r"\g<1>" + _CSRF_SLOT + r"\g<2>", response.content.decode())
    return Rendered(200, (cut or live_parts)(html))


# -- the parts of a rendered page ----------------------------------------------------------
_START = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)(\s[^>]*)?>")
_ATTR = re.compile(r'([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"')
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "col", "area"})


_APPENDED = frozenset(p.name for p in PARTS.values() if p.appended)


def live_parts(html: str) -> dict[str, str]:
    """Every element of ``html`` with an ``id`` and a ``data-live-part``, by id (the first
    of an id), as its whole HTML; not the parts only ever added to (the posts: their items
    add them). The site's templates write attributes in double quotes and escape ``<`` in
    text, so a tag is always a tag."""
    found: dict[str, str] = {}
    for element_id, values, element in _marked(html, "data-live-part"):
        names = values.get("data-live-part", "").split()
        if element_id not in found and names and not set(names) <= _APPENDED:
            found[element_id] = element
    return found


def marked_parts(html: str, attribute: str) -> dict[str, str]:
    """Every element of ``html`` with an ``id`` and ``attribute`` (a side domain's page
    marks its parts so: the league's ``data-league-part``), by id (the first of an id), as
    its whole HTML: a ``cut`` for ``render_page``."""
    found: dict[str, str] = {}
    for element_id, _, element in _marked(html, attribute):
        found.setdefault(element_id, element)
    return found


def _marked(html: str, attribute: str) -> Iterator[tuple[str, dict[str, str], str]]:
    """(id, attributes, whole HTML) of each element of ``html`` with an id and ``attribute``
    (with a value or bare)."""
    bare = re.compile(rf"\s{re.escape(attribute)}(?=[\s=>/]|$)")
    for start in _START.finditer(html):
        attrs = start.group(2) or ""
        if attribute not in attrs or not bare.search(attrs):
            continue
        values = dict(_ATTR.findall(attrs))
        if not values.get("id"):
            continue
        tag = start.group(1).lower()
        end = start.end() if tag in _VOID else _end_of(html, tag, start.end())
        if end is not None:
            yield values["id"], values, html[start.start() : end]


def _end_of(html: str, tag: str, position: int) -> int | None:
    """Where the element opened just before ``position`` ends (after its closing tag)."""
    pattern = re.compile(rf"<(/?){tag}(?=[\s>/])[^>]*>", re.IGNORECASE)
    depth = 1
    for match in pattern.finditer(html, position):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.end()
    return None


def part_names(element_html: str) -> frozenset[str]:
    """The ``data-live-part`` names of an element's HTML (its opening tag's)."""
    start = _START.match(element_html)
    values = dict(_ATTR.findall(start.group(2) or "")) if start else {}
    return frozenset(values.get("data-live-part", "").split()) & PARTS.keys()
