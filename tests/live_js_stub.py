"""``static/js/live.js`` under Node, without a browser: a stand-in for the few browser
objects it touches (a page with one live part, ``#role-pm``; a socket class whose instances
a scenario drives; a ``fetch`` that counts, since nothing may call it).

A scenario is JavaScript run after the stand-ins: it calls ``loadLiveJs()``, drives
``sockets`` (every ``WebSocket`` live.js made, in order), reads ``extra`` (its JSON
argument) and ends by printing ``seen`` as JSON. ``seen`` holds what the page did:
``reloaded``, ``fetched`` (calls of ``fetch``), ``removed`` / ``swapped`` (the part),
``asked`` (parts asked of the socket) and ``statuses`` (its ``live:status`` events).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from games.event_kinds import kinds_for_pages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

STUB = r"""
const [source, kinds, extra] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];
const seen = {
  reloaded: false, fetched: 0, removed: false, swapped: null, asked: [], statuses: [],
};
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
  addEventListener() {},
  dispatchEvent(event) { if (event.type === "live:status") seen.statuses.push(event.detail); },
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
function loadLiveJs() {
  // As the page loads them: the words' reader (texts.js) first, then live.js.
  const texts = require("path").join(require("path").dirname(source), "texts.js");
  require("vm").runInThisContext(require("fs").readFileSync(texts, "utf8"), texts);
  require("vm").runInThisContext(require("fs").readFileSync(source, "utf8"), source);
}
"""


def run_live_js(scenario: str, extra: Any = None) -> dict[str, Any]:
    """What the page did (``seen``) when ``scenario`` ran live.js."""
    assert NODE is not None
    script, kinds = str(ROOT / "static/js/live.js"), json.dumps(kinds_for_pages())
    result = subprocess.run(
        [NODE, "-e", STUB + scenario, script, kinds, json.dumps(extra)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])
