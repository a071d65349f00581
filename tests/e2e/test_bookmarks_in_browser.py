"""Bookmarks in headless Chromium, by keyboard alone: a player bookmarks a post from the
thread (its *Bookmark* link), writes a note, finds it on "My bookmarks" (reached from the
account menu), edits the note, follows the link back to the post and removes the bookmark;
another player never sees the note. Both bookmark pages pass axe-core."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .cast import cast
from .story import goto
from .test_accessibility import tab_to

pytestmark = pytest.mark.e2e

PASSWORD = "Bookmarked-e2e-6"
HOST = "markhost"
PLAYERS = ("marka", "markb", "markc", "markd", "marke", "markf", "markg")
NOTE = "E2E-NOTE-7f3a she claimed cop"
SAID = "I have a feeling about markc."


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    with cast(
        e2e_stack,
        browser,
        password=PASSWORD,
        host=HOST,
        players=PLAYERS,
        watching=PLAYERS[:2],
        log="bookmark",
    ) as people:
        yield people


def serious_violations(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, as the a11y suite counts."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [v["id"] for v in found if v.get("impact") in ("serious", "critical")]


def press_and_load(page: Page, key: str = "Enter") -> None:
    with page.expect_navigation():
        page.keyboard.press(key)
    page.wait_for_load_state("load")


def test_bookmark_a_post_with_a_note_by_keyboard(people: dict) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    g = host.post("games/", {"title": "E2E: bookmarks", "setup": "forum-vanilla"})["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    host.post(f"games/{g}/start/")
    number = apis[PLAYERS[2]].post(f"games/{g}/posts/", {"body": SAID})["post"]["number"]
    me, other = pages[PLAYERS[0]], pages[PLAYERS[1]]

    # From the thread: the post's Bookmark link, then the note, then the button.
    goto(me, f"/games/{g}/?page=last")
    tab_to(me, f"#post-public-{number} .bookmark-link")
    press_and_load(me)
    expect(me.locator("h1")).to_contain_text(f"Bookmark post #{number}")
    expect(me.locator(".excerpt")).to_have_text(SAID)
    assert not serious_violations(me), me.url
    tab_to(me, "#id_note")
    me.keyboard.type(NOTE)
    tab_to(me, "#bookmark-form button[type=submit]")
    press_and_load(me)
    me.wait_for_url(re.compile(r"/bookmarks/$"))
    expect(me.locator("#messages")).to_contain_text(f"Bookmarked: post #{number}")
    item = me.locator(".bookmark")
    expect(item).to_have_count(1)
    expect(item).to_contain_text(f"E2E: bookmarks · Game thread · post #{number}")
    expect(item.locator(".excerpt")).to_have_text(SAID)
    expect(item.locator("textarea")).to_have_value(NOTE)
    assert not serious_violations(me), me.url

    # The note is changed in place.
    tab_to(me, ".bookmark textarea")
    me.keyboard.press("Control+A")
    me.keyboard.type(f"{NOTE} (and she lied)")
    tab_to(me, ".bookmark-note button[type=submit]")
    press_and_load(me)
    expect(me.locator("#messages")).to_contain_text("The note is saved")
    expect(me.locator(".bookmark textarea")).to_have_value(f"{NOTE} (and she lied)")

    # The link goes to the post in its thread page.
    tab_to(me, ".bookmark h3 a")
    press_and_load(me)
    assert me.url.endswith(f"/games/{g}/?page=1#post-public-{number}"), me.url
    expect(me.locator(f"#post-public-{number}")).to_contain_text(SAID)

    # "My bookmarks" is in the account menu.
    goto(me, "/accounts/email/")
    tab_to(me, "nav[aria-label=Account] a[href='/bookmarks/']")
    press_and_load(me)
    me.wait_for_url(re.compile(r"/bookmarks/$"))
    expect(me.locator(".bookmark")).to_have_count(1)

    # Another player: no bookmark of theirs, and nothing of the note anywhere they look.
    for url in ("/bookmarks/", f"/games/{g}/posts/{number}/bookmark/", f"/games/{g}/?page=last"):
        goto(other, url)
        assert "E2E-NOTE-7f3a" not in other.content(), url
    goto(other, "/bookmarks/")
    expect(other.locator("#no-bookmarks")).to_be_visible()

    # Removed by keyboard.
    goto(me, "/bookmarks/")
    tab_to(me, ".bookmark-remove button")
    press_and_load(me)
    expect(me.locator("#messages")).to_contain_text("The bookmark is removed")
    expect(me.locator("#no-bookmarks")).to_be_visible()
