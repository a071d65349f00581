"""An open thread page and a new post equal a reload of the same URL (issue 30): page 1 of a
full page stays posts 1-25 and gains the "Next" link; ``?page=last`` becomes the new last
page; a page with room adds the post.

The server says where each post goes (the pushed item's ``page``; the page's ``data-page``,
``data-pages`` and ``data-page-reach``), tested here directly; then ``static/js/live.js``
itself runs under Node on the page's own attributes and the item the live layer renders,
with a stand-in for the few DOM calls it makes (the post list, the page links, the notice
box, the socket), and what it leaves in ``#posts`` and the page links is compared with a
fresh load. A post that starts a page the links do not show makes the page ask its socket
for its links (``{"type": "parts"}``); the answer is the consumer's own (``parts_frame``).
"""

from __future__ import annotations

import asyncio
import html as htmllib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from games import services
from games.live.render import Renderer
from games.models import GameEvent
from games.reads.paging import page_reach
from games.reads.thread import POSTS_PER_PAGE, page_of

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
LIVE_JS = ROOT / "static" / "js" / "live.js"
NODE = shutil.which("node")

HARNESS = r"""
const fs = require("fs");
const [source, inputPath] = [process.argv[1], process.argv[2]];
const input = JSON.parse(fs.readFileSync(inputPath, "utf8"));
const seen = { fetched: 0, swapped: {}, notices: [], asked: [] };
function node(id, attrs) {
  attrs = attrs || {};
  const el = {
    id: id || "", style: {}, children: [], parent: null, className: "", title: "",
    classList: { add() {}, remove() {}, toggle() {}, contains() { return false; } },
    getAttribute(n) { return n in attrs ? attrs[n] : null; },
    hasAttribute(n) { return n in attrs; },
    setAttribute(n, v) { attrs[n] = String(v); },
    removeAttribute(n) { delete attrs[n]; },
    get firstChild() { return this.children[0] || null; },
    appendChild(c) {
      if (c.parent) c.parent.removeChild(c);
      c.parent = this;
      this.children.push(c);
      if (c.className && c.className.indexOf("live-notice") === 0) seen.notices.push(c.textContent);
      return c;
    },
    removeChild(c) {
      this.children.splice(this.children.indexOf(c), 1);
      c.parent = null;
      return c;
    },
    remove() { if (this.parent) this.parent.removeChild(this); },
    set innerHTML(text) {  // a post's article: its id is all the list needs
      this.children = [];
      this.html = text;
      const found = /id="([^"]+)"/.exec(text);
      if (found) this.appendChild(node(found[1]));
    },
    addEventListener() {}, querySelectorAll() { return []; },
    querySelector(sel) {  // a holder of pushed HTML: the element of that id is all of it
      return this.html && sel[0] === "#" ? { id: sel.slice(1), html: this.html,
        querySelector() { return null; } } : null;
    },
    get isConnected() { return true; },
    contains() { return false; }, replaceWith(f) { seen.swapped[this.id] = f.html; }, focus() {},
  };
  return el;
}
const body = node("", input.attrs);
const posts = node("posts");
input.posts.forEach((id) => posts.appendChild(node(id)));
const pageLinks = {
  "pages-top": node("pages-top", { "data-live-part": "pages" }),
  "pages-bottom": node("pages-bottom", { "data-live-part": "pages" }),
};
function find(el, id) {
  if (el.id === id) return el;
  for (const c of el.children) { const f = find(c, id); if (f) return f; }
  return null;
}
global.window = global;
global.document = {
  body: body, title: "Thread", activeElement: null,
  getElementById(id) {
    if (id === "live-kinds") return { textContent: input.kinds };
    return pageLinks[id] || find(posts, id) || find(body, id);
  },
  querySelectorAll(sel) { return sel === "[data-live-part]" ? Object.values(pageLinks) : []; },
  querySelector() { return null; },
  createElement() { return node(""); },
  importNode(n) { return n; },
  addEventListener() {}, dispatchEvent() {},
};
global.location = { protocol: "http:", host: "testserver", href: input.url, reload() {} };
global.CustomEvent = function (type, init) { this.type = type; this.detail = init && init.detail; };
global.CSS = { escape: (s) => s };
global.addEventListener = function () {};
global.setInterval = function () { return 0; };
global.DOMParser = function () {
  this.parseFromString = () => ({
    getElementById: (id) => (id in input.fresh ? { id: id, html: input.fresh[id] } : null),
  });
};
global.fetch = function () {
  seen.fetched++;
  return Promise.resolve({ ok: true, status: 200, text: () => Promise.resolve("<html></html>") });
};
const sockets = [];
global.WebSocket = function (url) { this.url = url; this.readyState = 1; sockets.push(this); };
global.WebSocket.OPEN = 1;
global.WebSocket.prototype.send = function (text) {
  const message = JSON.parse(text);
  if (message.type !== "parts") return;
  seen.asked.push(message.parts);
  setTimeout(() => this.onmessage({ data: JSON.stringify([input.answer]) }), 0);
};
global.WebSocket.prototype.close = function () {};
// As the page loads them: the words' reader (texts.js) first, then live.js.
const texts = require("path").join(require("path").dirname(source), "texts.js");
require("vm").runInThisContext(fs.readFileSync(texts, "utf8"), texts);
require("vm").runInThisContext(fs.readFileSync(source, "utf8"), source);
const socket = sockets[0];
socket.onopen();
socket.onmessage({ data: JSON.stringify(input.frames) });
setTimeout(() => {
  seen.posts = posts.children.map((c) => c.id);
  seen.page = body.getAttribute("data-page");
  console.log(JSON.stringify(seen));
  process.exit(0);
}, 500);
"""


# -- reading a page -------------------------------------------------------------------------
def _body_attrs(page: str) -> dict[str, str]:
    tag = re.search(r"<body([^>]*)>", page)
    assert tag
    return {k: htmllib.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag.group(1))}


def _post_ids(page: str) -> list[str]:
    start = page.index('id="posts"')
    end = page.index('id="pages-bottom"')
    return re.findall(r'<article[^>]*id="(post-[^"]+)"', page[start:end])


def _part(page: str, part_id: str) -> str:
    start = page.rindex("<", 0, page.index(f'id="{part_id}"'))
    depth, at = 0, start
    for tag in re.finditer(r"<(/?)div\b[^>]*>", page[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            at = start + tag.end()
            break
    return page[start:at]


def _fill(game, upto: int) -> None:
    """Posts until the public thread's newest is number ``upto`` (#1 is "Day 1 begins")."""
    writers = list(game.slots.order_by("seat"))
    last = game.posts.filter(thread="public").count()
    for i in range(last + 1, upto + 1):
        services.submit_post(writers[i % len(writers)].user, game.pk, body=f"message {i}")


def _newest_post_item(game, attrs: dict[str, str]) -> dict:
    """The item the open page's socket gets for the newest post: numbered right after the
    page's own position in its audience."""
    event = GameEvent.objects.filter(game=game, kind="post").latest("seq")
    positions = dict(p.rsplit(".", 1) for p in attrs["data-live-positions"].split(",") if p)
    return Renderer(game.pk).item(event, int(positions.get("public", 0)) + 1)


def _answer(game_id: int, url: str) -> dict:
    """The consumer's answer to an anonymous page's ``{"type": "parts", "parts":
    ["pages"]}`` now (``games.live.own.parts_frame``, rendered on this thread)."""
    from django.contrib.auth.models import AnonymousUser
    from django.test import Client

    from games.live import own
    from tests.live_model import _inline_db, socket_scope

    scope = socket_scope(Client(), AnonymousUser())
    page = own.OwnPage.of(game_id, scope, "pages-top:pages,pages-bottom:pages", url)
    with _inline_db():
        return asyncio.run(own.parts_frame(page, ["pages"]))


def _run_live_js(tmp_path: Path, url: str, page: str, frames: list[dict], fresh: str) -> dict:
    from games.event_kinds import kinds_for_pages

    attrs = _body_attrs(page)
    data = {
        "attrs": attrs,
        "url": f"http://testserver{url}",
        "posts": _post_ids(page),
        "kinds": json.dumps(kinds_for_pages()),
        "frames": [{"type": "hello", "audiences": ["public"], "server_time": 0}, *frames],
        "fresh": {p: _part(fresh, p) for p in ("pages-top", "pages-bottom")},
        "answer": _answer(int(attrs["data-game-id"]), url),
    }
    path = tmp_path / "input.json"
    path.write_text(json.dumps(data))
    result = subprocess.run(
        [NODE, "-e", HARNESS, str(LIVE_JS), str(path)],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return json.loads(result.stdout.strip().splitlines()[-1])


# -- the server's part ------------------------------------------------------------------------
def test_a_posts_page_is_the_page_a_reload_shows_it_on():
    assert [page_of(n) for n in (1, 25, 26, 50, 51)] == [1, 1, 2, 2, 3]
    assert POSTS_PER_PAGE == 25


def test_how_far_a_url_follows_a_growing_thread():
    assert page_reach("last") is None  # to its end
    assert page_reach("3") == 3 and page_reach("999") == 999
    assert page_reach(None) == 1 and page_reach("abc") == 1 and page_reach("-2") == 1


def test_the_page_says_where_it_is_and_the_pushed_post_says_its_page(make_game, client):
    game = make_game("forum-vanilla")
    _fill(game, 30)
    first = client.get(f"/games/{game.pk}/").content.decode()
    attrs = _body_attrs(first)
    assert (attrs["data-page"], attrs["data-pages"], attrs["data-page-reach"]) == ("1", "2", "1")
    newest = _body_attrs(client.get(f"/games/{game.pk}/?page=last").content.decode())
    assert (newest["data-page"], newest["data-page-reach"], newest["data-last-page"]) == (
        "2", "last", "1",
    )  # fmt: skip
    # An ISO view's pages are not the thread's: it carries none of it.
    iso = _body_attrs(client.get(f"/games/{game.pk}/?iso=1").content.decode())
    assert "data-pages" not in iso and "data-page-reach" not in iso
    item = _newest_post_item(game, attrs)
    assert (item["number"], item["page"]) == (30, 2)
    assert 'id="pages-top" data-live-part="pages"' in first
    assert 'id="pages-bottom" data-live-part="pages"' in first


# -- live.js on the page -----------------------------------------------------------------------
needs_node = pytest.mark.skipif(NODE is None, reason="Node is not installed")


@needs_node
@pytest.mark.parametrize(
    ("url", "before", "after"),
    [
        ("/", 25, 26),  # page 1 is full: the post starts page 2
        ("/?page=last", 25, 26),  # the URL follows the thread: the page becomes page 2
        ("/?page=last", 49, 51),  # two posts in one frame, the second on a new page
        ("/", 20, 21),  # room on the page: the post is added
        ("/?page=1", 30, 31),  # an older page: nothing added
    ],
)
def test_an_open_thread_page_equals_a_reload_after_new_posts(
    make_game, client, tmp_path, url, before, after
):
    game = make_game("forum-vanilla")
    _fill(game, before)
    url = f"/games/{game.pk}{url}"
    page = client.get(url).content.decode()
    attrs = _body_attrs(page)
    frames = []
    for number in range(before + 1, after + 1):
        _fill(game, number)
        item = _newest_post_item(game, attrs)
        item["n"] += len(frames)
        frames.append(item)
    fresh = client.get(url).content.decode()
    seen = _run_live_js(tmp_path, url, page, frames, fresh)
    assert seen["posts"] == _post_ids(fresh)  # #posts as a reload shows it
    assert seen["page"] == _body_attrs(fresh)["data-page"]
    if page_of(after) > page_of(before):  # a new page: the page links as a reload shows them
        assert seen["asked"] == [["pages"]] and seen["fetched"] == 0
        assert seen["swapped"] == {p: _part(fresh, p) for p in ("pages-top", "pages-bottom")}
        assert 'rel="next"' in _part(fresh, "pages-top") or "page=last" in url
    else:
        assert seen["asked"] == [] and seen["fetched"] == 0 and seen["swapped"] == {}
    if url.endswith(f"{game.pk}/") and after == 26:
        assert "New posts on the next page." in seen["notices"]
