"""Last wills in headless Chromium: a player writes a will on their role PM; another player
and a spectator, their game threads open, see nothing of it; the town votes the writer out
and the will arrives in both threads live (no reload), right after the elimination."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .cast import cast, live
from .story import LIVE_MS, MARKER, goto

pytestmark = pytest.mark.e2e

PASSWORD = "Last-words-e2e-4"
HOST = "willhost"
PLAYERS = ("willa", "willb", "willc", "willd", "wille", "willf", "willg")
SPECTATOR = "willwatch"
WILL = "E2E-LAST-WILL-5b2e"


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    with cast(
        e2e_stack,
        browser,
        password=PASSWORD,
        host=HOST,
        players=PLAYERS,
        others=(SPECTATOR,),
        watching=(*PLAYERS[:2], SPECTATOR),
        log="will",
    ) as people:
        yield people


def test_a_will_is_posted_when_its_writer_dies(people: dict) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    game = host.post(
        "games/", {"title": "E2E: last wills", "setup": "forum-vanilla", "last_wills": True}
    )
    g = game["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    host.post(f"games/{g}/start/")
    slots = {s["name"]: s["slot_id"] for s in host.get(f"games/{g}/host/")["slots"]}
    writer, other, spectator = pages[PLAYERS[0]], pages[PLAYERS[1]], pages[SPECTATOR]

    # The writer keeps a will on their role PM, by keyboard.
    goto(writer, f"/games/{g}/role/")
    box = writer.get_by_label("Your will")
    box.fill(f"I was town. {WILL}")
    box.focus()
    writer.keyboard.press("Tab")  # to the button
    with writer.expect_response(lambda r: r.request.method == "POST" and "/will/" in r.url):
        writer.keyboard.press("Enter")
    writer.wait_for_load_state("domcontentloaded")
    expect(writer.locator("#last-will textarea")).to_have_value(f"I was town. {WILL}")
    expect(writer.get_by_text("Your will is saved")).to_be_visible()

    # Another player and a spectator: nothing of it.
    for page in (other, spectator):
        goto(page, f"/games/{g}/")
        assert WILL not in page.content(), page.url
        live(page)

    # The town votes the writer out (a majority hammers): the will follows the elimination.
    for name in PLAYERS[1:5]:
        apis[name].post(f"games/{g}/vote/", {"target": slots[PLAYERS[0]]})
    for page in (other, spectator):
        posts = page.locator("#posts")
        expect(posts).to_contain_text(f"{PLAYERS[0]}'s last will:", timeout=LIVE_MS)
        expect(posts.locator("blockquote", has_text=WILL)).to_have_count(1)
        assert page.evaluate(f"Boolean({MARKER})"), "the thread reloaded instead of updating"
    # After a reload too; and the dead writer's role PM says it was posted.
    goto(spectator, f"/games/{g}/?page=last")
    expect(spectator.locator("#posts")).to_contain_text(WILL)
    goto(writer, f"/games/{g}/role/")
    expect(writer.locator("#last-will")).to_contain_text("posted in the thread when you died")
