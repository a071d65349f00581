"""live.js's retries when the server turns its socket away (issue 30, capacity).

A web process takes so many handshakes at once (``mafia_site.socket_limits``); the next
socket is accepted only to be closed with 4503, "the site is busy". live.js reset its
backoff when a socket opened, so a page refused that way tried again every half second
for as long as the storm lasted, and added to it. Now a page backs off from two seconds,
doubling with jitter, and only the server's first frame (the catch-up) makes it live and
resets the backoff; a drop after that is retried at once, as before.

Run under Node with the stand-ins of ``tests/live_js_stub.py``; the page's timers are
recorded, not waited for.
"""

from __future__ import annotations

import pytest

from tests.live_js_stub import NODE, run_live_js

pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed")

# Each step is the code a socket is closed with; "frame" first delivers the catch-up.
SCENARIO = r"""
const waits = [];
let again = null;
global.setTimeout = function (fn, ms) {
  if (fn.name === "connect") { waits.push(ms); again = fn; }
  return 0;
};
loadLiveJs();
const catchUp = JSON.stringify([
  { type: "hello", game: 1, audiences: ["public", "slot:5"], server_time: Date.now() / 1000 },
  { type: "replay", positions: { public: 3, "slot:5": 2 } },
]);
const steps = [];
for (const step of extra) {
  const socket = sockets[sockets.length - 1];
  socket.onopen();
  if (step.frame) socket.onmessage({ data: catchUp });
  socket.onclose({ code: step.code });
  steps.push({ wait: waits[waits.length - 1], statuses: seen.statuses.splice(0) });
  again();
}
console.log(JSON.stringify(Object.assign(seen, { steps: steps, sockets: sockets.length })));
"""


def _steps(*steps: tuple[int, bool]) -> list[dict]:
    seen = run_live_js(SCENARIO, [{"code": code, "frame": frame} for code, frame in steps])
    assert seen["fetched"] == 0
    return seen["steps"]


def test_a_busy_site_is_retried_after_two_seconds_then_four_then_eight():
    steps = _steps((4503, False), (4503, False), (4503, False))
    waits = [step["wait"] for step in steps]
    # The backoff plus up to half of it again (jitter): 2-3 s, 4-6 s, 8-12 s.
    assert 2000 <= waits[0] <= 3000, waits
    assert 4000 <= waits[1] <= 6000, waits
    assert 8000 <= waits[2] <= 12000, waits
    # Opened only to be turned away: never shown as live, but as reconnecting.
    for step in steps:
        assert "live" not in step["statuses"], step
        assert step["statuses"][-1] == "reconnecting", step


def test_the_catch_up_makes_the_page_live_and_resets_the_backoff():
    steps = _steps((4503, False), (4503, False), (1006, True), (1006, False))
    assert "live" in steps[2]["statuses"]
    # A drop after the page was caught up is retried within a second, as a network blip.
    assert 500 <= steps[2]["wait"] <= 750, steps
    assert 1000 <= steps[3]["wait"] <= 1500, steps  # and again doubles


def test_too_many_pages_still_waits_a_minute():
    (step,) = _steps((4429, False))
    assert 60000 <= step["wait"] <= 90000
    assert step["statuses"][-1] == "crowded"
