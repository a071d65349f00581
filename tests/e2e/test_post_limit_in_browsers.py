"""The post limit in headless Chromium: two players post from the reply box until the
day's limit, each box saying how many posts are left and then that they are used; at the
limit the vote button still votes; and when the limit lifts (a minute before the deadline,
a moment no request marks: the Celery scan's event) both open boxes open again, live, with
no reload.

The day is long (the players reach the limit at any pace, however loaded the machine);
once they have, the game's ``post_limit_lifted`` is set in the stack's database so that
the lift's moment (``deadline - post_limit_lifted``) is two seconds away instead of
minutes: the worker's scan still finds that moment and announces it by itself, as at the
end of a real day (no request, no call into the site)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from .cast import cast
from .story import LIVE_MS, MARKER, click_vote, goto, post_reply, wagon

pytestmark = pytest.mark.e2e

PASSWORD = "Few-words-e2e-33"
HOST = "limithost"
PLAYERS = ("lima", "limb", "limc", "limd", "lime", "limf", "limg")
# Day 1 lasts ten minutes and the limit lifts one minute before its end: nine minutes to
# reach the limit in. The story then sets the lift two seconds ahead (``lift_soon``); the
# worker's scan (every second here) announces it.
DAY_MINUTES = 10
LIFT_WAIT_MS = 60_000  # the scan's second, or the watchdog's 25-s grace, with room to spare

bots = reference_bot()


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    with cast(
        e2e_stack,
        browser,
        password=PASSWORD,
        host=HOST,
        players=PLAYERS,
        watching=PLAYERS[:2],
        log="limit",
    ) as people:
        yield people


def reply_box(page: Page) -> Any:
    return page.locator("#reply")


def lift_soon(env: dict[str, str], game_id: int) -> None:
    """The game's ``post_limit_lifted`` set, in the stack's database, so that the lift's
    moment (``deadline - post_limit_lifted``) is two seconds from now: a setting of
    seconds (the API takes whole minutes) instead of minutes of waiting. Only the setting
    moves; the scan that finds the moment, the event and the pages' redraw are the site's."""
    with psycopg.connect(env["DATABASE_URL"]) as db:
        moved = db.execute(
            "UPDATE games_game g SET post_limit_lifted = p.deadline - now() - interval '2 s' "
            "FROM games_phase p WHERE g.id = p.game_id AND g.id = %s AND NOT p.resolved "
            "AND p.kind = 'day' AND p.deadline > now() + interval '1 minute'",
            (game_id,),
        ).rowcount
    assert moved == 1, f"no running day in game {game_id} with a minute left"


def test_two_players_reach_the_post_limit_and_the_lift_opens_their_boxes(
    e2e_stack: Any, people: dict
) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    game = host.post(
        "games/",
        {
            "title": "E2E: few words",
            "setup": "forum-vanilla",
            "post_limit": 2,
            "post_limit_lifted_minutes": 1,
            "day_length_minutes": DAY_MINUTES,
        },
    )
    g = game["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    host.post(f"games/{g}/start/")
    a, b = (pages[n] for n in PLAYERS[:2])

    for page, name in ((a, PLAYERS[0]), (b, PLAYERS[1])):
        goto(page, f"/games/{g}/")
        expect(reply_box(page)).to_contain_text("2 of 2 posts left today.")
        post_reply(page, f"{name} says one thing.")
        expect(reply_box(page)).to_contain_text("1 of 2 posts left today.")
        post_reply(page, f"{name} says a second thing.")
        expect(reply_box(page)).to_contain_text(
            "You have used your 2 posts today; the limit lifts at"
        )
        expect(page.locator("#reply-body")).to_have_count(0)  # nothing to type in

    # The API refuses a third post the same way, and nothing is posted.
    with pytest.raises(bots.ApiError) as refused:
        apis[PLAYERS[0]].post(f"games/{g}/posts/", {"body": "A third thing."})
    assert (refused.value.status, refused.value.code) == (409, "post_limit_reached")
    # A vote is not talk: the vote button still votes at the limit.
    click_vote(a, PLAYERS[2])
    expect(wagon(a, PLAYERS[2])).to_be_visible(timeout=LIVE_MS)
    expect(reply_box(a)).to_contain_text("You have used your 2 posts today")

    # The lift: no request marks it; both open boxes open again, live, not reloaded.
    for page in (a, b):
        expect(page.locator("#bell")).to_have_attribute("data-live", "1", timeout=LIVE_MS)
        page.evaluate(f"{MARKER} = true")
    expect(reply_box(b)).to_contain_text("You have used your 2 posts today")  # not lifted yet
    lift_soon(e2e_stack.env, g)
    for page in (a, b):
        expect(reply_box(page)).to_contain_text(
            "The post limit is lifted until the deadline.", timeout=LIFT_WAIT_MS
        )
        expect(page.locator("#reply-body")).to_be_visible()
        assert page.evaluate(f"Boolean({MARKER})"), "the page reloaded instead of redrawing"
    post_reply(a, "Now I may say a third thing.")
    expect(a.locator("#posts")).to_contain_text("Now I may say a third thing.")
