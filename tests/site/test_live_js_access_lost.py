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

import pytest

from tests.live_js_stub import NODE, run_live_js

SCENARIO = r"""loadLiveJs();
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
    return run_live_js(SCENARIO, extra)


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
