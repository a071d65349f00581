"""live.js when a page's own refresh is refused (issue 30): a replaced-out player's open
role PM page asks for its parts again after the ``replaced`` event and gets a 404 (the
seat's role PM is its new holder's). It used to keep the old parts ("You are a Town
Doctor.", the night actions) for the rest of the game; now a 404 or 403 reloads the page,
which then shows what a reload shows ("You were replaced").

The script runs under Node with a stand-in for the few browser objects it touches (no
browser): a page with one live part, a socket that delivers one ``replaced`` item, and a
``fetch`` answering with the status under test.
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
const [source, status, kinds] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
const seen = { reloaded: false, fetched: 0, removed: false };
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
    replaceWith() {}, focus() {},
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
  createElement(tag) { return element(""); },
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
  return Promise.resolve({
    ok: status >= 200 && status < 300, status: status,
    text: () => Promise.resolve("<html><body></body></html>"),
  });
};
const sockets = [];
global.WebSocket = function (url) { this.url = url; this.readyState = 1; sockets.push(this); };
global.WebSocket.OPEN = 1;
global.WebSocket.prototype.send = function () {};
global.WebSocket.prototype.close = function () {};
require("vm").runInThisContext(require("fs").readFileSync(source, "utf8"), source);
const socket = sockets[0];
socket.onopen();
const frame = [
  { type: "hello", game: 1, audiences: ["public", "slot:5"], server_time: Date.now() / 1000 },
  { type: "replay", positions: { public: 3, "slot:5": 2 } },
  { kind: "replaced", aud: "public", n: 4, prev: 3,
    data: { slot_id: 5, seat: 5, old_name: "gus", new_name: "Zoë Smith" } },
];
socket.onmessage({ data: JSON.stringify(frame) });
setTimeout(() => { console.log(JSON.stringify(seen)); process.exit(0); }, 800);
"""


def _run_live_js(status: int) -> dict:
    script, kinds = str(ROOT / "static/js/live.js"), json.dumps(kinds_for_pages())
    result = subprocess.run(
        [NODE, "-e", HARNESS, script, str(status), kinds],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
@pytest.mark.parametrize("status", [404, 403])
def test_a_refused_refresh_reloads_the_page(status):
    seen = _run_live_js(status)
    assert seen["fetched"] == 1  # "replaced" redraws the role PM's "phase" part
    assert seen["reloaded"], "the page kept parts its person may no longer see"


@pytest.mark.skipif(NODE is None, reason="Node is not installed")
def test_a_server_error_keeps_the_page_until_the_next_event():
    seen = _run_live_js(500)  # a passing failure, not a change of access
    assert seen["fetched"] == 1 and not seen["reloaded"] and not seen["removed"]
