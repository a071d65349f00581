"""A viewer's own copy of the parts of their page that the items do not carry, pushed.

The items carry the spectators' rendering of the vote count, the banner, the players panel
and the table (``render``). Every other part, and on a signed-in page every part that
differs per viewer (their vote buttons, reply box, role PM, night actions, the host's
controls), is this socket's to push: ``"own": {element id: html}`` on each item that
redraws one of them, and ``static/js/live.js`` swaps them in. No page fetches itself.

A page says on connect which live elements it has and where it is (``?own=players:players,
reply:phase+turn-panel&page=/games/5/role/``: element id, then its parts); every render of
the page tells the socket again (parts come and go: the night actions at dusk). What is
attached is exactly what that viewer's reload would show:

- a signed-in viewer's players panel and table (``fragments.OWN_PARTS``), where they are
  all an item redraws, come from the page's own reads and caches
  (``fragments.own_parts_html``), cheaply;
- anything else comes from the page itself, rendered in process for the socket's viewer
  (``page_render``): the site's middleware and view, so its rules of who sees what;
  ``"covered"`` names the parts it redrew, so an element the page no longer has (the
  host's controls at the end) is taken away, and ``"own_status"`` says the viewer may no
  longer load the page (replaced out: 404), which reloads it.

Each is rendered once per viewer, language and game state, not per socket: the sockets
waiting on the same item share one render (``_shared``), and every anonymous socket of one
language on one page shares that language's anonymous render. Each render is made in the
socket's language (``language.socket_language``), and so are the items themselves
(``localize``: the frame's items first, then the viewer's own parts). The renders run on
the sockets' database threads (``socket_db``), inside the socket's one sending task
(``Outbox``), so a socket's frames keep their order. A render that fails costs the item its
``own``, not the item: the page asks for its parts again on the socket
(``{"type": "parts"}``, ``parts_frame``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation

from ..event_kinds import KINDS, PARTS
from ..fragments import OWN_PARTS, own_parts_html
from ..lru import ProcessLRU
from ..socket_db import socket_db
from .language import BASE, scope_in
from .localize import localized
from .page_render import Rendered, page_path, part_names, render_page
from .wire import dumps

log = logging.getLogger(__name__)


def _redraws(signed_in: bool) -> dict[str, frozenset[str]]:
    """kind -> the parts its items redraw on a page of such a viewer (live.js redraws a
    kind's ``own_parts`` on signed-in pages only)."""
    out = {}
    for name, kind in KINDS.items():
        parts = kind.parts | (kind.own_parts if signed_in else frozenset())
        if parts:
            out[name] = frozenset(parts)
    return out


REDRAWS = {True: _redraws(True), False: _redraws(False)}

# The parts the items themselves carry, usable as they are: everyone's where they are the
# same for everyone, every pushed one on an anonymous page (the spectators' rendering).
_CARRIED = {
    True: frozenset(p.name for p in PARTS.values() if p.same_for_everyone or p.appended),
    False: frozenset(p.name for p in PARTS.values() if p.pushed or p.appended),
}


@dataclass
class OwnPage:
    """What a socket knows of its page: whose it is, where, and its live elements."""

    game_id: int
    user: Any
    scope: Mapping[str, Any] = field(repr=False)
    path: str | None
    elements: dict[str, frozenset[str]]  # element id -> its parts (``data-live-part``)
    # The socket's language (``language.socket_language``): its items and renders are in it.
    language: str = BASE

    @property
    def signed_in(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    @property
    def parts(self) -> frozenset[str]:
        """The page's parts the socket pushes: those the items do not carry."""
        every = frozenset().union(*self.elements.values())
        parts = every - _CARRIED[self.signed_in]
        if self.path is None:  # no page to render: only a signed-in viewer's panel and table
            parts &= OWN_PARTS if self.signed_in else frozenset()
        return parts

    @classmethod
    def of(
        cls,
        game_id: int,
        scope: Mapping[str, Any],
        own: str | None,
        page: str | None,
        language: str = BASE,
    ) -> OwnPage:
        """The socket's page from its query (``own``: ``id:part+part,...``, a bare part
        name for an element of that id; ``page``: its path and query), in ``language``. A
        socket signed in with an agent's token has no page (its cookies, if any, may be
        another person's)."""
        path = page_path(game_id, page) if scope.get("token_id") is None else None
        return cls(
            game_id, scope.get("user"), scope_in(scope, language), path, parse_own(own), language
        )

    def user_key(self) -> int | None:
        return self.user.pk if self.signed_in else None

    def cheap(self, want: frozenset[str]) -> bool:
        """Whether ``want`` redraws only the signed-in viewer's players panel and table,
        each its own element (not the reply box a turn also changes)."""
        if not (self.signed_in and want <= OWN_PARTS):
            return False
        return all(
            element_id in OWN_PARTS and parts <= OWN_PARTS
            for element_id, parts in self.elements.items()
            if parts & want
        )

    def learn(self, rendered: Rendered) -> None:
        """The elements a render shows the page gaining (the night's actions at dusk). One
        it no longer shows is kept: the page still has it until an item redrawing its part
        arrives (``covered``) and takes it away, and the render may have been made for an
        earlier item of another frame (the host's queue at the end of the game)."""
        if rendered.status == 200 and rendered.whole:
            for element_id, html in rendered.parts.items():
                self.elements[element_id] = part_names(html)


def parse_own(value: str | None) -> dict[str, frozenset[str]]:
    """The page's ``own`` query parameter: element id -> its known parts."""
    elements: dict[str, frozenset[str]] = {}
    for entry in (value or "").split(",")[:100]:
        element_id, _, names = entry.partition(":")
        parts = frozenset((names or element_id).split("+")) & PARTS.keys()
        if element_id and len(element_id) <= 100 and parts:
            elements[element_id] = parts
    return elements


# ``render.Renderer.item`` puts "n" and "kind" first, and ``wire.dumps`` keeps that order:
# the kind is read from the text's head without parsing the whole item.
_HEAD = re.compile(r'\{"n":\d+,"kind":"([a-z_]+)"')


def wanted(text: str, page: OwnPage) -> frozenset[str]:
    """The parts of ``page`` the item ``text`` redraws that the socket pushes."""
    head = _HEAD.match(text)
    if head is None or not text.endswith("}"):
        return frozenset()
    return REDRAWS[page.signed_in].get(head.group(1), frozenset()) & page.parts


def with_own(text: str, extra: dict[str, Any]) -> str:
    """The item ``text`` with ``extra``'s keys added (before its closing brace)."""
    return text[:-1] + "," + dumps(extra)[1:]


# Per event loop: (game, user, page, parts, language, newest seq) -> the render in flight.
# The sockets that wait on the same item (two tabs; every anonymous viewer of a page of one
# language) share it.
_inflight: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[Any, ...], asyncio.Task[Rendered]]
] = weakref.WeakKeyDictionary()
# (game, user, page, parts, language) -> (seq, the newest render started once event ``seq``
# was committed). A render made after event N shows at least N: a socket whose frame ends at N
# or before takes it, so the sockets of one page share a render however a phase change's
# events fall into their frames.
_DONE: ProcessLRU[tuple[int, Rendered]] = ProcessLRU(1024)


def _render(page: OwnPage, parts: frozenset[str], cheap: bool) -> Rendered:
    """``parts`` of ``page`` as its viewer's reload would show them now (sync)."""
    if cheap:
        with translation.override(page.language):
            html = own_parts_html(page.game_id, page.user, parts)
        return Rendered(200, html, whole=False)
    if page.path is None:
        return Rendered(0, {})
    # The page's scope says the socket's language (``scope_in``): the site's middleware
    # renders in it; the override only keeps this thread's language as it was afterwards.
    with translation.override(page.language):
        return render_page(page.scope, page.path, signed_in=page.signed_in)


async def _shared(page: OwnPage, parts: frozenset[str], seq: int | None) -> Rendered:
    """``_render`` as of at least event ``seq`` (it is committed: the hub or the replay has
    its item), one render for every socket asking for it; None: a render of its own now."""
    cheap = page.cheap(parts)
    page_key = (
        page.game_id,
        page.user_key(),
        page.path,
        parts if cheap else "page",
        page.language,
    )
    done = _DONE.get(page_key) if seq is not None else None
    if done is not None and done[0] >= seq:  # type: ignore[operator]
        rendered = done[1]
    else:
        loop = asyncio.get_running_loop()
        running = _inflight.setdefault(loop, {})
        key = (*page_key, seq)
        task = running.get(key) if seq is not None else None
        if task is None:
            task = loop.create_task(socket_db(_render)(page, parts, cheap))
            if seq is not None:
                running[key] = task
                task.add_done_callback(lambda _: running.pop(key, None))
        # One socket going away (cancelled) must not cancel the others' render.
        rendered = await asyncio.shield(task)
        if seq is not None:
            _DONE.put(page_key, (seq, rendered), keep=lambda held: held[0] >= seq)
    page.learn(rendered)
    return rendered


def _own_fields(rendered: Rendered, want: frozenset[str], page: OwnPage) -> dict[str, Any]:
    """What an item redrawing ``want`` carries from ``rendered`` (empty: nothing usable)."""
    if rendered.status in (403, 404, 301, 302):
        # The viewer may no longer load this page as it is (replaced out, the game gone):
        # the page reloads, and shows what a reload shows.
        return {"own_status": rendered.status}
    if rendered.status != 200:
        return {}
    if not rendered.whole:  # the cheap render: the players panel and the table by id
        own = {part: rendered.parts[part] for part in sorted(want) if part in rendered.parts}
        return {"own": own} if own else {}
    own = {
        element_id: html for element_id, html in rendered.parts.items() if part_names(html) & want
    }
    return {"own": own, "covered": sorted(want)}


async def attach(page: OwnPage, batch: Iterable[tuple[int | None, str]]) -> list[str]:
    """The texts of ``batch`` (a socket's next frame, in order), each item that redraws one
    of the page's pushed parts with the viewer's own rendering of them."""
    batch = list(batch)
    # The items in the socket's language (the channel layer's are in ``BASE``).
    texts = await localized(page.game_id, page.language, batch, socket_db)
    needs = [(i, wanted(text, page)) for i, (seq, text) in enumerate(batch) if seq is not None]
    needs = [(i, want) for i, want in needs if want]
    if not needs:
        return texts
    newest = max(int(batch[i][0] or 0) for i, _ in needs)
    every = frozenset().union(*(w for _, w in needs))
    try:
        rendered = await _shared(page, every, newest)
    except asyncio.CancelledError:
        raise
    except Exception:  # the database is away: the page asks for its parts again
        log.warning("Game socket: the viewer's own parts were not rendered", exc_info=True)
        return texts
    for i, want in needs:
        extra = _own_fields(rendered, want, page)
        if extra:
            texts[i] = with_own(texts[i], extra)
    return texts


async def parts_frame(page: OwnPage, asked: Any) -> dict[str, Any]:
    """The answer to a page's ``{"type": "parts", "parts": [...]}`` (an item that came
    without its parts, the page links of a thread grown by a page): those parts now."""
    names = frozenset(n for n in asked if isinstance(n, str)) if isinstance(asked, list) else ()
    # A part the page gained since it said which it has (its render comes back whole).
    known = page.parts | (PARTS.keys() - _CARRIED[page.signed_in] if page.path else frozenset())
    want = frozenset(names) & known
    frame: dict[str, Any] = {"type": "parts", "parts": sorted(want)}
    if not want:
        return frame
    try:
        rendered = await _shared(page, want, None)  # now: never an older render
    except asyncio.CancelledError:
        raise
    except Exception:
        log.warning("Game socket: the parts asked for were not rendered", exc_info=True)
        return frame
    frame.update(_own_fields(rendered, want, page))
    return frame
