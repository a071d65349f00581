"""``static/js/live.js`` in Python, for proving "live equals reload" in process.

An ``OpenPage`` is a game page a viewer keeps open: parsed from a GET with Django's test
``Client`` (logged in as the viewer, or anonymous), holding what live.js holds (the page's
live parts, its positions, thread, newest-page flag, signed-in flag, slot and the kind
registry the page carries). ``OpenPage.apply(items, controls)`` applies a socket's frames
exactly as live.js would: the viewer's own copy of parts put in place from the items
(``own``, by element id; ``covered`` parts the copy lacks taken away), the rest replaced
from the pushed HTML where live.js does so, parts that came without their copy asked for
on the socket (``{"type": "parts"}``, answered by the consumer's own ``parts_frame``),
posts appended, reloads on ``game_started``, a role PM's ``role_pm``, ``own_status`` and
``access``/``reload`` controls. Nothing is fetched. Where live.js would leave a part
stale, so does the model: that is what the comparison with a fresh load
(``OpenPage.drift``) is for.

The frames come from the server's own code: ``games.live.replay.replay`` from the page's
positions (exactly the items a socket holding them is sent), routed the way the hub routes
them (``Hub._apply_access`` revokes a dead or replaced player's audiences between items),
and the access controls from the consumer's own re-check (``GameConsumer
.access_may_have_changed`` and ``_recheck``, with its database calls made inline), and
each page's own parts from the socket's own ``games.live.own.attach`` (one frame per page
and delivery, rendered in process for the page's viewer with its own cookies). See
``LiveRoom.deliver``.

What the model cannot see: timing. Frames are computed once an action has returned, so a
pushed part is rendered as of the end of the action (as a publish after its commit would,
for one transaction), and so is a viewer's own copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

from django.test import Client

from games.fragments import _CSRF_SLOT as CSRF_SLOT
from games.live import consumers, own
from games.live.audiences import access_meta
from games.live.hub import Hub, Room
from games.live.inbox import inbox_frame
from games.live.kinds import ACCESS_KINDS
from games.live.replay import replay
from games.models import Game, GameEvent
from tests.live_dom import Element, normalised, parse_document, parse_fragment

# The parts every game page may have beside those marked data-live-part (live_parity's),
# and the header's bell (``static/js/bell.js``: its count follows the inbox frames).
NAMED_PARTS = ("vote-count", "players", "phase-banner", "turn-panel", "posts", "bell")


@dataclass(frozen=True)
class Mismatch:
    """One part of one open page that differs from a fresh load."""

    viewer: str
    page: str
    part: str
    detail: str
    names: tuple[str, ...] = ()  # the element's data-live-part (which kinds redraw it)

    def __str__(self) -> str:
        return f"{self.viewer} / {self.page} / #{self.part}: {self.detail}"


def difference(live: str, fresh: str) -> str:
    """The first place the two differ, shortly, with a little context."""
    start = 0
    while start < min(len(live), len(fresh)) and live[start] == fresh[start]:
        start += 1
    end = 0
    while (
        end < min(len(live), len(fresh)) - start
        and live[len(live) - 1 - end] == fresh[len(fresh) - 1 - end]
    ):
        end += 1
    lo = max(start - 80, 0)
    return (
        f"live …{live[lo : len(live) - end + 80]!r}… / "
        f"reload …{fresh[lo : len(fresh) - end + 80]!r}…"
    )


def _int(value: Any) -> int | None:
    """JavaScript's ``parseInt(value, 10) || ...`` for the page's attributes."""
    try:
        return int(str(value))
    except ValueError:
        return None


# ==========================================================================================
# The page (live.js)
# ==========================================================================================
@dataclass
class Load:
    """One GET of a page: its answer and its parsed document."""

    status: int
    url: str
    doc: Element


# GETs made since the last change of the database, by (client, URL): a page's fetch and
# the fresh load it is compared with, both made after an action, are the same answer (the
# server does not look at X-Live-Refresh), so one request serves both. ``forget_gets``
# empties it before every action.
_GETS: dict[tuple[int, str], tuple[int, str, str]] = {}
_PARTS: dict[tuple[int, str], dict[str, str]] = {}  # the same answers' parts, normalised


def forget_gets() -> None:
    _GETS.clear()
    _PARTS.clear()


def _get(client: Client, url: str, **headers: str) -> Load:
    key = (id(client), url)
    if key not in _GETS:
        answer = client.get(url, follow=True, **headers)
        final = answer.redirect_chain[-1][0] if answer.redirect_chain else url
        _GETS[key] = (answer.status_code, final, answer.content.decode())
    status, final, text = _GETS[key]
    return Load(status, final, parse_document(text))


def parts_of(doc: Element) -> dict[str, str]:
    """Each live part of a document, normalised (live_parity's EXTRACT)."""
    return {part: normalised(element) for part, element in _part_elements(doc).items()}


def _part_elements(doc: Element) -> dict[str, Element]:
    found: dict[str, Element] = {}
    for element in doc.elements():
        if element.id and "data-live-part" in element.attrs and element.id not in found:
            found[element.id] = element
    for name in NAMED_PARTS:
        if name not in found and (element := doc.by_id(name)) is not None:
            found[name] = element
    return found


def part_names(doc: Element, part: str) -> tuple[str, ...]:
    """What the element ``part`` is marked to be (``data-live-part``; a named part without
    the mark: its id)."""
    element = doc.by_id(part)
    if element is None:
        return ()
    return tuple((element.get("data-live-part") or part).split())


class OpenPage:
    """A page kept open by ``viewer``; never reloaded by the test, only by live.js's rules."""

    def __init__(
        self, client: Client, url: str, *, viewer: str = "", label: str = "", user: Any = None
    ) -> None:
        self.client = client
        self.url = url
        self.viewer = viewer
        self.label = label or url
        self.user = user  # who the socket signs in as (an agent: its token's user)
        self.reloads = -1  # the first load is not a reload
        self.applied = 0  # items applied
        self.asks = 0  # {"type": "parts"} asks on the socket
        self.statuses: list[int] = []  # every answer to a whole-page GET
        self.notices: list[str] = []  # what live.js said in its notice box (not compared)
        # Notices of "you" kinds (a result, a prod...) shown for an item addressed to
        # someone else's feed or the host's: (kind, audience, text).
        self.misaddressed: list[tuple[str, str, str]] = []
        self.room: LiveRoom | None = None
        self.load()

    # -- loading (the first GET, and live.js's location.reload()) --------------------------
    def load(self) -> None:
        got = _get(self.client, self.url)
        self.statuses.append(got.status)
        self.reloads += 1
        self.url = got.url  # location.href after redirects
        self.doc = got.doc
        body = self.doc.first("body")
        attrs = body.attrs if body is not None else {}
        self.game_id = int(attrs["data-game-id"]) if attrs.get("data-game-id") else None
        self.thread = attrs.get("data-thread") or "public"
        self.newest_page = attrs.get("data-last-page") == "1"
        self.iso_view = "data-iso" in attrs  # its posts are redrawn ("iso"), never appended
        # Where the page is in its thread (the server's data-page, data-pages and
        # data-page-reach: "last" for ?page=last, which follows a growing thread).
        self.page_number = _int(attrs.get("data-page")) or 1
        self.page_count = _int(attrs.get("data-pages")) or float("inf")
        self.page_reach = attrs.get("data-page-reach") or str(self.page_number)
        self.signed_in = "data-user" in attrs
        self.slot_id = attrs.get("data-slot-id")
        self.last: dict[str, int] = {}
        for pair in (attrs.get("data-live-positions") or "").split(","):
            aud, dot, number = pair.rpartition(".")
            if dot and aud:
                self.last[aud] = int(number)
        script = self.doc.by_id("live-kinds")
        self.registry: dict[str, Any] = {"kinds": {}, "shared": [], "appended": [], "pushed": []}
        if script is not None:
            with contextlib.suppress(ValueError):
                self.registry = json.loads(script.text_content())
        self.asked: dict[str, bool] = {}  # parts to ask the socket for
        self.reload_asked = False
        if self.room is not None:
            self.room.connect(self)  # the new page opens its own socket

    @property
    def path(self) -> str:
        """live.js's ``location.pathname + location.search``."""
        split = urlsplit(self.url)
        return split.path + (f"?{split.query}" if split.query else "")

    @property
    def live(self) -> bool:
        """live.js runs (and opens a socket) only on a page with a game id."""
        return self.game_id is not None

    # -- what is compared --------------------------------------------------------------------
    def parts_now(self) -> dict[str, str]:
        return parts_of(self.doc)

    def fresh_parts(self) -> dict[str, str]:
        key = (id(self.client), self.url)
        if key not in _PARTS or key not in _GETS:
            _PARTS[key] = parts_of(_get(self.client, self.url).doc)
        return _PARTS[key]

    def drift(self) -> list[Mismatch]:
        """Each part that differs from a fresh load of the same URL by the same person."""
        live, again = self.parts_now(), self.fresh_parts()
        found = []
        for part in sorted(set(live) | set(again)):
            if part not in live:
                detail = "missing on the open page"
            elif part not in again:
                detail = "missing on a fresh load"
            elif live[part] != again[part]:
                detail = difference(live[part], again[part])
            else:
                continue
            names = part_names(self.doc, part) or part_names(_get(self.client, self.url).doc, part)
            found.append(Mismatch(self.viewer, self.label, part, detail, names))
        return found

    # -- the bell (bell.js's onFrame) -------------------------------------------------------
    def inbox(self, frame: dict[str, Any]) -> None:
        """bell.js's ``showCount``: the count, its attribute and the unread class. (Its
        ``data-live`` mark only says the bell now follows the socket: not compared.)"""
        bell = self.doc.by_id("bell")
        if bell is None:
            return
        unread = max(0, int(frame.get("unread") or 0))
        bell.attrs["data-unread"] = str(unread)
        classes = [c for c in (bell.get("class") or "").split() if c != "has-unread"]
        bell.attrs["class"] = " ".join(classes + (["has-unread"] if unread else []))
        for element in bell.elements():
            if "data-bell-count" in element.attrs:
                element.set_inner_html(str(unread))

    # -- frames (live.js's applyBatch) -------------------------------------------------------
    def apply(self, items: list[dict[str, Any]], controls: list[dict[str, Any]]) -> None:
        """Items in order, then the controls (the consumer's access re-check answers after
        the items it routed); then the reload, or the coalesced ask for parts."""
        for item in items:
            if self.reload_asked:
                break  # the page is going away; what it would still draw is moot
            self.applied += 1
            self._apply_item(item)
        for message in controls:
            self._control(message)
        while not self.reload_asked and self.asked and self.room is not None:
            parts, self.asked = sorted(self.asked), {}
            self.asks += 1
            answer = self.room.ask(self, parts)  # the consumer's answer, in its place
            self._apply_own(answer, list(answer.get("parts") or []))
        if self.reload_asked:
            self.load()

    def _control(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "reload" or (kind == "access" and message.get("reload")):
            self.reload_asked = True
        elif kind == "replay":
            for key, number in (message.get("positions") or {}).items():
                self.last[key] = max(self.last.get(key, 0), number)

    def _apply_item(self, item: dict[str, Any]) -> None:
        if item["kind"] == "vote_count":
            if "~vote_count" not in self.last or item["n"] > self.last["~vote_count"]:
                self.last["~vote_count"] = item["n"]
                self._redraw(item)
            return
        audience = item.get("aud") or "public"
        if audience in self.last:
            if item["n"] <= self.last[audience]:
                return
            # A gap cannot happen here: the frames are a replay from the page's positions.
            assert item["n"] == self.last[audience] + 1, (item, self.last)
        self.last[audience] = item["n"]
        self._show(item)

    def _for_someone_else(self, item: dict[str, Any]) -> bool:
        kind = self.registry["kinds"].get(item["kind"])
        aud = item.get("aud")
        return (
            bool(kind and kind.get("you"))
            and isinstance(aud, str)
            and aud.startswith("slot:")
            and aud != f"slot:{self.slot_id}"
        )

    def _show(self, item: dict[str, Any]) -> None:
        others = self._for_someone_else(item)
        kind, data = item["kind"], item.get("data")
        shown = len(self.notices)
        if kind == "game_started":
            self.reload_asked = True
            return
        if kind == "post":
            if item.get("thread") == self.thread and not self.iso_view:
                self._add_post(item)
            elif item.get("thread") != self.thread and self.thread not in ("activity", "iso"):
                self.notices.append(f"New post in the {item.get('thread')} thread.")
        elif others:
            pass
        elif kind == "private_result" and data:
            self.notices.append(data.get("text") or "You have a new result.")
        elif kind == "turn_notice" and data:
            self.notices.append(data.get("text") or "")
        elif kind == "vote_refused" and data:
            self.notices.append(data.get("message") or "")
        elif kind == "prod":
            if item.get("notice"):  # worded by the server, on the prodded player's copy only
                self.notices.append(item["notice"])
        elif kind == "role_pm" and self.thread == "role":
            self.reload_asked = True
        elif kind == "night_action" and self.thread == "host":
            self.notices.append("Night actions updated.")
        if kind == "your_turn" and not others:
            self.notices.append("Your turn at the table.")
        if len(self.notices) > shown and kind in self._you_kinds():
            mine = item.get("aud") == f"slot:{self.slot_id}"
            if not mine:  # "you" said on a page of someone the item is not about
                self.misaddressed.append((kind, str(item.get("aud")), self.notices[-1]))
        self._redraw(item)
        if kind == "game_finished":
            self.notices.append("The game is over.")

    def _you_kinds(self) -> set[str]:
        return {name for name, kind in self.registry["kinds"].items() if kind.get("you")}

    def _pushed_html(self, item: dict[str, Any], part: str) -> str | None:
        """live.js ``pushedHtml``: the item's field the registry names for ``part``."""
        if self.registry["kinds"].get(item["kind"], {}).get("state"):
            return item.get("html")
        field = self.registry["fields"].get(part)
        return item.get(field) if field else None

    def _carried(self, part: str) -> bool:
        """live.js ``carried``: the items carry ``part`` as a reload shows it here."""
        usable = self.registry["shared"] if self.signed_in else self.registry["pushed"]
        return part in self.registry["appended"] or part in usable

    def _redraw(self, item: dict[str, Any]) -> None:
        kind = self.registry["kinds"].get(item["kind"])
        if not kind:
            return
        parts = list(kind["parts"]) + (list(kind["own"]) if self.signed_in else [])
        done = self._apply_own(item, parts)
        if self.reload_asked:
            return
        elements = [e for e in self.doc.elements() if "data-live-part" in e.attrs]
        for part in parts:
            if part in self.registry["appended"]:
                continue
            html = self._pushed_html(item, part)
            usable = bool(html) and self._carried(part)
            for el in elements:
                if not el.id or part not in el.attrs["data-live-part"].split() or el.id in done:
                    continue
                if usable and el.id == part:
                    self._replace(part, html or "")
                elif not self._carried(part):
                    self.asked[part] = True

    def _apply_own(self, message: dict[str, Any], parts: list[str]) -> set[str]:
        """live.js ``applyOwn``: the viewer's own copy of each element of ``parts`` put in
        place (``own``, by id), or taken away where ``covered`` says the server rendered it
        and it is gone; ``own_status``: the page reloads. The ids done."""
        done: set[str] = set()
        if message.get("own_status"):
            self.reload_asked = True
            return done
        own = message.get("own") or {}
        covered = message.get("covered") or []
        for el in [e for e in self.doc.elements() if "data-live-part" in e.attrs]:
            if not el.id or self.doc.by_id(el.id) is not el:
                continue  # replaced with its container already (live.js: detached)
            names = el.attrs["data-live-part"].split()
            if not any(n in parts or n in covered for n in names):
                continue
            if isinstance(own.get(el.id), str):
                html = self._with_token(own[el.id])
                if html is None:
                    self.reload_asked = True
                    return done
                self._replace(el.id, html)  # live.js: swapOwn (nobody types here)
                done.add(el.id)
            elif any(n in covered for n in names):
                el.remove()
                done.add(el.id)
        return done

    def _with_token(self, html: str) -> str | None:
        """live.js ``withToken``: the page's own CSRF token in place of the placeholder."""
        if CSRF_SLOT not in html:
            return html
        token = next(
            (e.attrs.get("value") for e in self.doc.elements()
             if e.tag == "input" and e.attrs.get("name") == "csrfmiddlewaretoken"),
            None,
        )  # fmt: skip
        return html.replace(CSRF_SLOT, token) if token else None

    def _add_post(self, item: dict[str, Any]) -> None:
        page = item.get("page") or self.page_number
        if page > self.page_count:
            self.page_count = page
            self.asked["pages"] = True  # the page links gain the new page
        if not self.newest_page:
            self.notices.append("New posts: go to the newest page.")
            return
        if page > self.page_number:
            reach = page if self.page_reach == "last" else _int(self.page_reach) or self.page_number
            if page > reach:
                self.newest_page = False
                self.notices.append("New posts on the next page.")
                return
            self.page_number = page  # the new page starts with this post
            old = self.doc.by_id("posts")
            if old is not None:
                old.set_inner_html("")
        posts = self.doc.by_id("posts")
        if posts is None:
            return
        if self.doc.by_id(f"post-{item.get('thread')}-{item.get('number')}") is not None:
            return
        empty = self.doc.by_id("no-posts")
        if empty is not None:
            empty.remove()
        for child in list(parse_fragment(item.get("html") or "").children):
            posts.append(child)

    def _replace(self, element_id: str, html: str) -> None:
        el = self.doc.by_id(element_id)
        if el is None or not html:
            return
        holder = parse_fragment(html.strip())
        fresh = holder.by_id(element_id) if holder.by_id(element_id) is not holder else None
        fresh = fresh or holder.first_element()
        if fresh is not None:
            el.replace_with(fresh)
        else:
            el.set_inner_html(html)


# ==========================================================================================
# The sockets (the consumer and the hub, their own code)
# ==========================================================================================
class _Controls:
    """Stands in for a socket's ``Outbox``: the re-check's controls are only collected."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    def control(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


class _Hub(Hub):
    """The hub's routing state without a channel layer: ``set_audiences`` changes the
    routing at once, as the real one does (its group subscriptions are not modelled)."""

    def __init__(self) -> None:  # no channel layer, no tasks
        self.rooms = {}

    def set_audiences(self, member: Any, audiences: frozenset[str]) -> None:
        room = self.rooms.get(member.game_id)
        if room is not None and member in room.sockets:
            room.sockets[member] = audiences


class ModelSocket(consumers.GameConsumer):
    """A ``GameConsumer`` that was never connected over a wire: it holds what ``connect``
    sets up, so its own ``access_may_have_changed`` and ``_recheck`` run unchanged."""

    def __init__(self, page: OpenPage, hub: _Hub) -> None:  # not AsyncConsumer's
        self.page = page
        self.scope = {"user": page.user}
        self.hub = hub
        self.outbox = _Controls()  # type: ignore[assignment]
        self._rechecks: set[asyncio.Task] = set()

    seen_seq = 0  # the newest event this socket has been routed (its access read, then each
    # delivery's floor)


@contextlib.contextmanager
def _inline_db() -> Iterator[None]:
    """The consumer's ``socket_db`` calls made inline, on this thread's connection (the
    test's transaction): a pool thread would not see the uncommitted rows. Django keeps a
    separate connection per async context, so the call is made as sync code: the running
    loop is hidden from it for the duration (nothing awaits meanwhile)."""

    def inline(func: Any) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            loop = asyncio.get_running_loop()
            asyncio._set_running_loop(None)
            try:
                return func(*args, **kwargs)
            finally:
                asyncio._set_running_loop(loop)

        return call

    with (
        mock.patch.object(consumers, "socket_db", inline),
        mock.patch.object(own, "socket_db", inline),
    ):
        yield


def _scope(page: OpenPage) -> dict[str, Any]:
    return socket_scope(page.client, page.user)


def socket_scope(client: Client, user: Any) -> dict[str, Any]:
    """A socket's scope as Channels makes it from a page's handshake: its user, the site's
    host and the browser's cookies (the test client's)."""
    cookies = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
    return {
        "user": user,
        "headers": [(b"host", b"testserver"), (b"cookie", cookies.encode("latin-1"))],
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
        "scheme": "ws",
    }


@dataclass
class LiveRoom:
    """Every open page of one game, each with its socket in one hub room."""

    game_id: int
    hub: _Hub = field(default_factory=_Hub)
    sockets: dict[int, ModelSocket] = field(default_factory=dict)  # id(page) -> socket
    pages: list[OpenPage] = field(default_factory=list)

    @property
    def room(self) -> Room:
        room = self.hub.rooms.get(self.game_id)
        if room is None:
            room = self.hub.rooms[self.game_id] = Room(self.game_id)
        return room

    def open(self, page: OpenPage) -> OpenPage:
        page.room = self
        self.pages.append(page)
        self.connect(page)
        return page

    def close(self, page: OpenPage) -> None:
        old = self.sockets.pop(id(page), None)
        if old is not None:
            self.room.sockets.pop(old, None)
        page.room = None
        self.pages.remove(page)

    def connect(self, page: OpenPage) -> None:
        """The page's socket (re)connects: the consumer's ``connect``, from the access read
        (``consumers.viewer_access``) to the catch-up replay from the page's positions."""
        old = self.sockets.pop(id(page), None)
        if old is not None:
            self.room.sockets.pop(old, None)
        if not page.live or page.game_id != self.game_id:
            return  # no live.js: no socket
        access = consumers.viewer_access(self.game_id, page.user)
        if access is None:
            return  # closed with 4404
        audiences, seq, slot_id = access
        socket = ModelSocket(page, self.hub)
        socket.game_id = self.game_id
        socket.user_id = page.user.pk if getattr(page.user, "is_authenticated", False) else None
        socket.slot_id = slot_id
        socket.told = audiences  # what ``hello`` tells the client
        socket.access_seq = socket.applied_seq = seq
        self.room.sockets[socket] = audiences
        self.sockets[id(page)] = socket
        socket.seen_seq = seq
        # live.js names its page's live elements and where it is (``?own=...&page=...``).
        mine = [
            f"{e.id}:{'+'.join(e.attrs['data-live-part'].split())}"
            for e in page.doc.elements()
            if e.id and "data-live-part" in e.attrs
        ]
        socket.own_page = own.OwnPage.of(self.game_id, _scope(page), ",".join(mine), page.path)
        # The catch-up: nothing happened between the page's render and its socket here.
        got = replay(self.game_id, audiences, 0 if not page.last else None, page.last or None)
        items = self._items(socket, got.items)
        head = {"type": "reload"} if got.reload else {"type": "replay", "positions": got.positions}
        page.apply(items, [head])

    @staticmethod
    def _items(socket: Any, batch: list[tuple[int, str]]) -> list[dict[str, Any]]:
        """Items as the socket sends them in one frame: the socket's own ``attach`` adds the
        viewer's copy of the parts they redraw (rendered now, on this thread)."""
        with _inline_db():
            texts = asyncio.run(own.attach(socket.own_page, list(batch)))
        return [json.loads(text) for text in texts]

    def ask(self, page: OpenPage, parts: list[str]) -> dict[str, Any]:
        """The consumer's answer to the page's ``{"type": "parts", "parts": parts}``."""
        socket = self.sockets[id(page)]
        with _inline_db():
            return asyncio.run(own.parts_frame(socket.own_page, parts))

    def audiences(self, page: OpenPage) -> frozenset[str]:
        socket = self.sockets.get(id(page))
        return self.room.sockets.get(socket, frozenset()) if socket else frozenset()

    def deliver(self) -> dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        """Each open page's frames for what happened since the last delivery.

        Items: ``replay`` from the page's positions under its socket's audiences, less what
        the hub would no longer route to it after an access event (``Hub._apply_access``:
        a dead player's team thread, everything but public for a replaced player).
        Controls: the consumer's own re-check (``access_may_have_changed``), run against
        the database as it is now."""
        floor = Game.objects.filter(pk=self.game_id).values_list("event_seq", flat=True).get()
        sockets = list(self.sockets.items())
        before = {key: self.room.sockets[s] for key, s in sockets}
        seen = min((s.seen_seq for _, s in sockets), default=floor)
        events = list(
            GameEvent.objects.filter(game_id=self.game_id, seq__gt=seen, kind__in=ACCESS_KINDS)
            .order_by("seq")
            .only("seq", "kind", "payload", "audience")
        )
        frames: dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        routed: dict[int, list[tuple[int, frozenset[str]]]] = {key: [] for key, _ in sockets}
        with _inline_db():
            asyncio.run(self._access_events(events, sockets, routed))
        replays: dict[tuple[frozenset[str], tuple[tuple[str, int], ...]], Any] = {}
        for key, socket in sockets:
            page = socket.page
            # Pages with the same audiences and positions get the same replay (the host's).
            asked = (before[key], tuple(sorted(page.last.items())))
            if asked not in replays:
                replays[asked] = replay(self.game_id, before[key], None, page.last or None)
            got = replays[asked]
            if got.reload:
                frames[key] = ([], [{"type": "reload", "reason": "too far behind"}])
                continue
            batch = []
            for seq, text in got.items:
                # The hub delivers up to an access event under the old access, then routes
                # by what ``_apply_access`` left.
                allowed = before[key]
                for at, audiences in routed[key]:
                    if seq > at:
                        allowed = audiences
                aud = json.loads(text).get("aud", "public")
                if aud in allowed or '"kind":"vote_count"' in text:
                    batch.append((seq, text))
            items = self._items(socket, batch)
            controls = [{"type": "replay", "positions": got.positions}, *socket.outbox.sent]
            socket.outbox.sent = []
            socket.seen_seq = floor
            frames[key] = (items, controls)
        return frames

    async def _access_events(
        self,
        events: list[GameEvent],
        sockets: list[tuple[int, ModelSocket]],
        routed: dict[int, list[tuple[int, frozenset[str]]]],
    ) -> None:
        full = self.room
        for event in events:
            meta = access_meta(event)
            if not meta:
                continue
            # Only the sockets that were open when the event was published hear of it.
            live = [(k, s) for k, s in sockets if event.seq > s.seen_seq]
            room = Room(self.game_id, sockets={s: full.sockets[s] for _, s in live})
            self.hub.rooms[self.game_id] = room
            try:
                # The hub's own routing change; it calls each socket's
                # ``access_may_have_changed``, which starts the consumer's re-check.
                self.hub._apply_access(room, event.seq, meta)
                for key, socket in live:
                    routed[key].append((event.seq, room.sockets[socket]))
                for _key, socket in live:
                    for task in list(socket._rechecks):
                        await task  # reads the database as it is now
            finally:
                self.hub.rooms[self.game_id] = full
            for _key, socket in live:
                full.sockets[socket] = room.sockets[socket]

    def sync(self, told: Collection[int] = ()) -> None:
        """Deliver and apply every open page's frames (a page that reloads reconnects);
        then the inbox frames of ``told``, the people whose bells the action asked to
        redraw (``publish_inbox``), to each of their open pages' sockets."""
        for key, (items, controls) in self.deliver().items():
            socket = self.sockets.get(key)
            if socket is not None:
                socket.page.apply(items, controls)
        frames = {user_id: inbox_frame(user_id, fresh=True) for user_id in told}
        for socket in self.sockets.values():
            if socket.user_id in frames:
                socket.page.inbox(frames[socket.user_id])
