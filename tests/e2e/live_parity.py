"""Comparing an open page's live parts with a fresh load of the same page.

A page kept open is updated live (items over its socket, with the viewer's own parts);
a fresh load renders everything from the database. After every scenario the two must show
the same live parts: each element with ``data-live-part`` and an id, and the vote count,
players, phase banner, table panel and posts.

Only what legitimately differs is normalised: the countdown's text (its ``datetime`` is
compared), ages relative to the moment of rendering (``data-clock``: "last sweep 3 s
ago"), the CSRF token, the live status indicator and the live notices, whitespace.

To know when live delivery has settled, an init script (the test's own, no product code)
records on ``window.__e2eLive`` when the page last changed (a frame on its socket, a DOM
change outside the countdowns and notices, a fetch starting or ending), how many fetches are
in flight and what the socket's status is; a page has settled when it has been quiet for a
while with no fetch in flight.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from .story import watch_console

# The parts every game page may have, beside those marked data-live-part.
NAMED_PARTS = ("vote-count", "players", "phase-banner", "turn-panel", "posts")
QUIET_MS = 800
FRESH_AT_ONCE = 10
SETTLE_TIMEOUT_S = 20.0

HOOK = r"""
(() => {
  const state = { last: Date.now(), inflight: 0, status: null };
  window.__e2eLive = state;
  const mark = (why) => { state.last = Date.now(); state.why = String(why).slice(0, 200); };
  document.addEventListener("live:status", (e) => {
    state.status = e.detail;
    mark("status " + e.detail);
  });
  const realFetch = window.fetch;
  window.fetch = function () {
    state.inflight++;
    mark("fetch");
    return realFetch.apply(this, arguments).then(
      (r) => r.clone().text().then(() => r, () => r),
    ).finally(() => { state.inflight--; mark("fetched"); });
  };
  const RealSocket = window.WebSocket;
  window.WebSocket = class extends RealSocket {
    constructor(url, protocols) {
      super(url, protocols);
      // The keep-alive's pong (every 30 s on every page) is not the page changing.
      this.addEventListener("message", (e) => {
        if (!/^\[?\{"type":"pong"/.test(String(e.data))) mark("frame");
      });
    }
  };
  // Countdowns tick every second and notices come and go: neither is the page changing.
  const quiet = (node) => {
    const el = node && node.nodeType === 1 ? node : node && node.parentElement;
    return !!(el && el.closest &&
      el.closest("time[data-countdown], #live-notices, #live-status"));
  };
  new MutationObserver((records) => {
    const loud = records.find((r) => !quiet(r.target));
    if (loud) {
      const t = loud.target.nodeType === 1 ? loud.target : loud.target.parentElement;
      mark("dom " + loud.type + " " + (loud.attributeName || "") + " " +
           (t ? t.tagName + "#" + t.id + "." + t.className : "?"));
    }
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         characterData: true });
})();
"""

EXTRACT = """
(named) => {
  const ids = new Set(named);
  document.querySelectorAll("[data-live-part][id]").forEach((e) => ids.add(e.id));
  const out = {};
  for (const id of ids) {
    const el = document.getElementById(id);
    if (!el) continue;
    const copy = el.cloneNode(true);
    copy.querySelectorAll("#live-notices, #live-status").forEach((x) => x.remove());
    const clocks = [copy, ...copy.querySelectorAll("time[data-countdown]")]
      .filter((t) => t.matches("time[data-countdown]"));
    clocks.forEach((t) => {
      t.textContent = "";
      t.removeAttribute("title");
      t.removeAttribute("data-absolute");
    });
    // Ages said relative to the moment of rendering (the host's "last sweep 3 s ago"):
    // their text depends on when the page was rendered, not on what it shows.
    copy.querySelectorAll("[data-clock]").forEach((x) => { x.textContent = ""; });
    copy.querySelectorAll("input[name=csrfmiddlewaretoken]")
      .forEach((x) => x.removeAttribute("value"));
    out[id] = copy.outerHTML.replace(/\\s+/g, " ").replace(/> </g, "><")
      .replace(/ >/g, ">").trim();
  }
  return out;
}
"""


@dataclass(frozen=True)
class Mismatch:
    """One part of one open page that differs from a fresh load."""

    viewer: str
    page: str
    part: str
    detail: str

    def __str__(self) -> str:
        return f"{self.viewer} / {self.page} / #{self.part}: {self.detail}"


@dataclass
class OpenPage:
    """A page a viewer keeps open: never reloaded by the test (live.js may reload it)."""

    viewer: str
    label: str
    url: str
    page: Page
    fresh: Page | None = None  # the tab the fresh loads are made in (blank in between)


def _state(page: Page) -> tuple[bool, Any]:
    """(settled, what was seen): quiet for QUIET_MS, no fetch in flight, socket live."""
    try:
        s = page.evaluate(
            "() => { const s = window.__e2eLive; if (!s || document.readyState !== 'complete')"
            " return null; return [Date.now() - s.last, s.inflight, s.status, s.why]; }"
        )
    except PlaywrightError:  # navigating (live.js reloads a page whose access changed)
        return False, "navigating"
    if s is None:
        return False, "loading"
    quiet_for, inflight, status, _why = s
    return quiet_for >= QUIET_MS and inflight == 0 and status in (None, "live"), s


def settle(pages: Iterable[Page], timeout: float = SETTLE_TIMEOUT_S) -> None:
    """Wait until every page has been quiet at once (live delivery done)."""
    pages = list(pages)
    end = time.monotonic() + timeout
    while True:
        states = [(p.url, _state(p)) for p in pages]
        waiting = [(url, seen) for url, (ok, seen) in states if not ok]
        if not waiting:
            return
        if time.monotonic() > end:
            raise AssertionError(f"pages still changing after {timeout:.0f} s: {waiting}")
        time.sleep(0.2)


def parts_of(page: Page) -> dict[str, str]:
    for attempt in range(3):
        try:
            page.wait_for_load_state("load")
            return page.evaluate(EXTRACT, list(NAMED_PARTS))
        except PlaywrightError:
            if attempt == 2:
                raise
            time.sleep(0.5)
    return {}


def difference(live: str, fresh: str) -> str:
    """The first place the two differ, shortly, with a little context."""
    matcher = difflib.SequenceMatcher(None, live, fresh, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            lo, flo = max(i1 - 80, 0), max(j1 - 80, 0)
            return f"live …{live[lo : i2 + 80]!r}… / reload …{fresh[flo : j2 + 80]!r}…"
    return "equal"


def compare(open_pages: list[OpenPage]) -> list[Mismatch]:
    """Each open page's live parts against a fresh load of its URL in the same context."""
    found: list[Mismatch] = []
    # A few fresh tabs at a time: the server allows one person LIVE_SOCKETS_PER_PERSON (30).
    for start in range(0, len(open_pages), FRESH_AT_ONCE):
        found += _compare_batch(open_pages, open_pages[start : start + FRESH_AT_ONCE])
    return found


def _compare_batch(everyone: list[OpenPage], batch: list[OpenPage]) -> list[Mismatch]:
    fresh: list[tuple[OpenPage, Page]] = []
    for o in batch:
        if o.fresh is None:
            o.fresh = o.page.context.new_page()
            watch_console(o.fresh, f"parity-{o.viewer}-fresh")
        o.fresh.goto(o.url, wait_until="commit")  # the tabs load side by side
        fresh.append((o, o.fresh))
    try:
        settle([p for _, p in fresh] + [o.page for o in everyone])
        found: list[Mismatch] = []
        for o, p in fresh:
            live, again = parts_of(o.page), parts_of(p)
            for part in sorted(set(live) | set(again)):
                if part not in live:
                    found.append(Mismatch(o.viewer, o.label, part, "missing on the open page"))
                elif part not in again:
                    found.append(Mismatch(o.viewer, o.label, part, "missing on a fresh load"))
                elif live[part] != again[part]:
                    found.append(
                        Mismatch(o.viewer, o.label, part, difference(live[part], again[part]))
                    )
        return found
    finally:
        # Blank until the next comparison: no socket held (LIVE_SOCKETS_PER_PERSON).
        for _, p in fresh:
            p.goto("about:blank", wait_until="commit")


def open_page(context: Any, viewer: str, label: str, url: str) -> OpenPage:
    page = context.new_page()
    watch_console(page, f"parity-{viewer}")
    page.goto(url, wait_until="domcontentloaded")
    return OpenPage(viewer, label, url, page)
