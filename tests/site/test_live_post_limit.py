"""Live equals reload for the post limit's reply box, in process (the style of
``test_live_in_process.py``: pages kept open as ``tests.live_model.OpenPage``, fed the
frames the live layer itself sends, compared with a fresh load).

The box says how many posts are left today; it must follow the player's own posts
(``posts_left``, to their own feed) and the limit's lift (``post_limit_lifted``), a moment
no request marks: without its event an open box would keep saying the limit holds."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services
from games.reads import post_limit
from games.services import post_limit as limit_services
from tests.conftest import current_phase, slot_of
from tests.live_model import LiveRoom, OpenPage, forget_gets

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def box(page: OpenPage) -> str:
    """The reply box's words as the open page shows them now."""
    element = page.doc.by_id("reply")
    assert element is not None
    return " ".join(element.text_content().split())


def drifted_parts(pages: list[OpenPage]) -> dict[str, set[str]]:
    forget_gets()
    return {p.label: {m.part for m in p.drift()} for p in pages if p.drift()}


def test_the_reply_box_follows_the_post_limit_live(client_for, make_game, host, monkeypatch):
    game = make_game(
        "forum-vanilla", post_limit=2, post_limit_lifted=HOUR, day_length=timedelta(hours=24)
    )
    townie = slot_of(game, "vanilla_townie")
    other = slot_of(game, "vanilla_townie", 1)
    room = LiveRoom(game.pk)
    url = f"/games/{game.pk}/"
    pages = [
        room.open(OpenPage(client_for(townie.user), url, user=townie.user, label="poster")),
        room.open(OpenPage(client_for(other.user), url, user=other.user, label="other")),
        room.open(OpenPage(client_for(), url, viewer="anonymous", label="spectator")),
        room.open(OpenPage(client_for(host), url, user=host, viewer="host", label="host")),
    ]
    assert "2 of 2 posts left today." in box(pages[0])

    # Each of the player's own posts redraws their box, and only theirs differs.
    for n, says in ((1, "1 of 2 posts left today."), (2, "You have used your 2 posts today")):
        services.submit_post(townie.user, game.pk, body=f"Post {n}.")
        assert drifted_parts(pages).get("poster", set()) >= {"reply"}  # stale until pushed
        room.sync()
        assert drifted_parts(pages) == {}
        assert says in box(pages[0])
    assert "2 of 2 posts left today." in box(pages[1])

    # The lift: its moment comes with no request. Moved there, an open box is stale...
    lifts = current_phase(game).deadline - HOUR
    monkeypatch.setattr(post_limit, "now", lambda: lifts)
    assert drifted_parts(pages) == {"poster": {"reply"}, "other": {"reply"}}
    # ... until the lift's event (the scan's or its ETA task's) redraws every box.
    assert limit_services.lift_due(lifts) == [(game.pk, 1)]
    room.sync()
    assert drifted_parts(pages) == {}
    assert "The post limit is lifted until the deadline." in box(pages[0])
    assert "The post limit is lifted until the deadline." in box(pages[1])
    assert [p.reloads for p in pages] == [0, 0, 0, 0]  # redrawn in place, never reloaded
