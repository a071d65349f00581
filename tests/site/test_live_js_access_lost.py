"""live.js and the parts its socket pushes with an item (issue 30): a replaced-out player's
open role PM page gets the ``replaced`` item with ``own_status`` 404 (the socket's render
of the page is refused: the seat's role PM is its new holder's). It used to keep the old
parts ("You are a Town Doctor.", the night actions) for the rest of the game; now the page
reloads, and shows what a reload shows ("You were replaced"). An item whose parts came
swaps them in; one whose parts did not come (a render that failed) asks the socket for
them, and never fetches the page.

The script runs under Node with a stand-in for the few browser objects it touches (no
browser): a page with one live part, a socket that delivers one ``replaced`` item with the
fields under test, and a ``fetch`` that counts (it must never be called).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from games.event_kinds import kinds_for_pages

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

HARNESS = r"""
const [source, extra, kinds] = [process.argv[1], JSON.parse(process.argv[2]), process.argv[3]];
const seen = { reloaded: false, fetched: 0, removed: false, swapped: null, asked: [] };
function element(id, attrs) {
  attrs = attrs || {};
  return {
    id: id, style: {}, children: [], textContent: "", className: "",
    classList: { add() {}, remove() {}, toggle() {}, contains() { return false; } },
    getAttribute(n) { return n in attrs ? attrs[n] : null; },
    hasAttribute(n) { return n in attrs; },
    setAttribute(n, v) { attrs[n] = String(v); },
    removeAttribute(n) { delete attrs[n]; },
    appendChild(c) { this.children.push(c); return c; },
    addEventListener() {}, querySelector() { return null; },
    querySelectorAll() { return []; }, contains() { return false; },
    remove() { if (id === "role-pm") seen.removed = true; },
    replaceWith(fresh) { if (id === "role-pm") seen.swapped = fresh.id; },
    focus() {}, isConnected: true,
  };
}
const part = element("role-pm", { "data-live-part": "phase" });
const body = element("", {
  "data-game-id": "1", "data-thread": "role", "data-last-page": "1",
  "data-live-positions": "public.3,slot:5.2", "data-slot-id": "5", "data-user": "1",
});
global.window = global;
global.document = {
  body: body, title: "Role PM", activeElement: null,
  getElementById(id) {
    if (id === "live-kinds") return { textContent: kinds };
    return id === "role-pm" ? part : null;
  },
  querySelectorAll(sel) { return sel === "[data-live-part]" ? [part] : []; },
  querySelector() { return null; },
  createElement(tag) {
    const holder = element("");
    holder.querySelector = (sel) => ({ id: sel.slice(1), querySelector() { return null; } });
    return holder;
  },
  importNode(n) { return n; },
  addEventListener() {}, dispatchEvent() {},
};
global.location = {
  protocol: "http:", host: "testserver", href: "http://testserver/games/1/role/",
  reload() { seen.reloaded = true; },
};
global.CustomEvent = function (type, init) { this.type = type; this.detail = init && init.detail; };
global.CSS = { escape: (s) => s };
global.addEventListener = function () {};
global.setInterval = function () { return 0; };
global.DOMParser = function () {
  this.parseFromString = () => ({ getElementById: () => null });
};
global.fetch = function () {
  seen.fetched++;
  return Promise.resolve({ ok: true, status: 200, text: () => Promise.resolve("") });
};
const sockets = [];
global.WebSocket = function (url) { this.url = url; this.readyState = 1; sockets.push(this); };
global.WebSocket.OPEN = 1;
global.WebSocket.prototype.send = function (text) {
  const message = JSON.parse(text);
  if (message.type === "parts") seen.asked.push(message.parts);
};
global.WebSocket.prototype.close = function () {};
require("vm").runInThisContext(require("fs").readFileSync(source, "utf8"), source);
const socket = sockets[0];
socket.onopen();
const frame = [
  { type: "hello", game: 1, audiences: ["public", "slot:5"], server_time: Date.now() / 1000 },
  { type: "replay", positions: { public: 3, "slot:5": 2 } },
  Object.assign({ kind: "replaced", aud: "public", n: 4, prev: 3,
    data: { slot_id: 5, seat: 5, old_name: "gus", new_name: "Zoë Smith" } }, extra),
];
socket.onmessage({ data: JSON.stringify(frame) });
setTimeout(() => { console.log(JSON.stringify(seen)); process.exit(0); }, 800);
"""


def _run_live_js(extra: dict) -> dict:
    script, kinds = str(ROOT / "static/js/live.js"), json.dumps(kinds_for_pages())
    result = subprocess.run(
        [NODE, "-e", HARNESS, script, json.dumps(extra), kinds],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
@pytest.mark.parametrize("status", [404, 403])
def test_a_page_its_viewer_may_no_longer_load_reloads(status):
    seen = _run_live_js({"own_status": status})
    assert seen["reloaded"], "the page kept parts its person may no longer see"
    assert seen["fetched"] == 0 and seen["asked"] == []


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
def test_the_pushed_parts_are_swapped_in_and_nothing_is_fetched():
    html = '<section id="role-pm" data-live-part="phase">You were moved.</section>'
    seen = _run_live_js({"own": {"role-pm": html}, "covered": ["phase"]})
    assert seen["swapped"] == "role-pm" and not seen["reloaded"] and not seen["removed"]
    assert seen["fetched"] == 0 and seen["asked"] == []


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
def test_a_part_the_page_no_longer_has_is_taken_away():
    seen = _run_live_js({"own": {}, "covered": ["phase"]})
    assert seen["removed"] and seen["swapped"] is None and seen["fetched"] == 0


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
def test_parts_that_did_not_come_are_asked_for_on_the_socket():
    seen = _run_live_js({})  # the socket's render failed: the item came without its parts
    assert seen["asked"] == [["phase"]]  # "replaced" redraws the role PM's "phase" part
    assert seen["fetched"] == 0 and not seen["reloaded"] and not seen["removed"]
