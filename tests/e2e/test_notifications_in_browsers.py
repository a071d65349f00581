"""The bell and desktop notifications in headless Chromium: a player with two game pages
open in background tabs is told when their turn at a table comes.

``bella`` turns desktop notifications on in her settings page, and her browser context
grants the permission. An init script makes every tab of hers a background tab
(``document.hidden``) and records each ``new Notification(...)`` instead of showing it.
She plays in a city table (bots beside her, through the public API, pass their turns
until hers comes) and has signed up for a second game; both games' pages are open. When
her turn comes, both tabs' bells show the unread count the API says, both tabs pop up the
"your turn" notification, "my games" shows the table waiting for her, and clicking the
notification opens the table and marks it read.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .story import LIVE_MS, goto, open_as

pytestmark = pytest.mark.e2e

PASSWORD = "Bell-rings-e2e-5"
HOST = "bellhost"
PLAYER = "bella"
BOTS = tuple(f"bellbot{i}" for i in range(9))

bots = reference_bot()

# Every tab of the context is in the background, and desktop notifications are recorded.
BACKGROUND_AND_RECORDED = """
Object.defineProperty(document, "hidden", { get: () => true, configurable: true });
Object.defineProperty(document, "visibilityState", { get: () => "hidden", configurable: true });
window.__shown = [];
function RecordedNotification(title, options) {
  const shown = { title: title, options: options || {}, onclick: null, close() {} };
  window.__shown.push(shown);
  return shown;
}
RecordedNotification.permission = "granted";
RecordedNotification.requestPermission = (done) => {
  if (done) done("granted");
  return Promise.resolve("granted");
};
window.Notification = RecordedNotification;
"""


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, PLAYER, *BOTS], PASSWORD)
    apis = {n: bots.Api.login(e2e_stack.base_url, n, PASSWORD) for n in [HOST, PLAYER, *BOTS]}
    context, page = open_as(browser, e2e_stack.base_url, PLAYER, PASSWORD, "bell-bella")
    context.grant_permissions(["notifications"])
    context.add_init_script(BACKGROUND_AND_RECORDED)
    yield {"apis": apis, "context": context, "page": page}
    with chromium_watchdog(), contextlib.suppress(Exception):
        context.close()


def live_bell(page: Page) -> Any:
    bell = page.locator("#bell")
    expect(bell).to_have_attribute("data-live", "1", timeout=LIVE_MS)
    return bell


def newest_id(api: Any, kinds: tuple[str, ...] = ()) -> int:
    """The id of the person's newest notification (of these kinds): 0 if none."""
    results = api.get("notifications/")["results"]
    if not results or (kinds and results[0]["kind"] not in kinds):
        return 0
    return results[0]["id"]


def drive_until_my_turn(apis: dict[str, Any], game_id: int, timeout: float = 120) -> dict:
    """Seats pass (or speak) until the table turns to bella (or opens the vote) with a
    notification newer than the open tabs: her turn may be the day's first, already told."""
    host, g = apis[HOST], f"games/{game_id}/"
    known = newest_id(apis[PLAYER])
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        turn = host.get(g + "turn/")
        speaker = (turn.get("speaker") or {}).get("name")
        told = newest_id(apis[PLAYER], ("your_turn", "vote_opened")) > known
        if told and (turn["step"] == "vote" or speaker == PLAYER):
            return turn
        if speaker in apis:
            may = set(apis[speaker].get(g + "turn/")["you_may"])
            with contextlib.suppress(bots.ApiError):  # the turn may just have moved on
                if "pass" in may:
                    apis[speaker].post(g + "turn/pass/")
                else:
                    apis[speaker].post(g + "posts/", {"body": "Nothing to add, next please."})
        time.sleep(0.3)
    raise AssertionError(f"bella's turn did not come within {timeout} s")


def test_background_tabs_get_the_bell_and_the_desktop_notification(people: dict) -> None:
    apis, page = people["apis"], people["page"]
    host = apis[HOST]

    # The settings page: desktop notifications on (the browser already allows them).
    goto(page, "/notifications/settings/")
    expect(page.locator("[data-desktop-status]")).to_contain_text("shows this site's")
    page.get_by_label("Desktop notifications", exact=False).check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#messages")).to_contain_text("settings are saved")

    # A second game she signed up for, and the table game.
    other = host.post("games/", {"title": "E2E: the other game", "setup": "forum-vanilla"})
    apis[PLAYER].post(f"games/{other['id']}/join/")
    table = host.post(
        "games/",
        {
            "title": "E2E: the bell's table",
            "setup": "city-ten",
            "turn_length_seconds": 60,
            "vote_length_seconds": 60,
        },
    )
    assert table["turn_based"], table
    apis[PLAYER].post(f"games/{table['id']}/join/")
    for name in BOTS[: table["player_cap"] - 1]:
        apis[name].post(f"games/{table['id']}/join/")
    host.post(f"games/{table['id']}/start/")

    # Two tabs, both in the background: the table and the other game. (A game page's one
    # socket carries the bell too; test_live_equals_reload's many pages would reach the
    # per-client socket cap if each opened a second one.)
    goto(page, f"/games/{table['id']}/")
    second = people["context"].new_page()
    goto(second, f"/games/{other['id']}/")
    for tab in (page, second):
        live_bell(tab)
        tab.evaluate("window.__shown = []")
    turn = drive_until_my_turn(apis, table["id"])

    mine = apis[PLAYER].get("notifications/")
    newest = mine["results"][0]
    assert newest["kind"] in ("your_turn", "vote_opened"), (turn, newest)
    assert "E2E: the bell's table" in newest["text"] and not newest["read"]
    for tab in (page, second):
        bell = live_bell(tab)
        unread = mine["unread"]
        expect(bell.locator("[data-bell-count]")).to_have_text(str(unread), timeout=LIVE_MS)
        expect(bell).to_contain_text(f"Notifications, {unread} unread")  # screen readers
        expect(tab).to_have_title(re.compile(rf"^\({unread}\) "))
        tab.wait_for_function(
            "text => window.__shown.some(n => n.title === text)", arg=newest["text"]
        )

    # "My games" says the same: the table waits for her, the other game does not.
    overview = people["context"].new_page()
    with overview.expect_websocket(lambda ws: "/ws/inbox/" in ws.url):  # no game socket here
        goto(overview, "/my-games/")
    expect(overview.locator(f"#my-game-{table['id']} .need-your_turn")).to_contain_text(
        "It is your turn at the table"
    )
    expect(overview.locator(f"#my-game-{other['id']}")).to_contain_text("E2E: the other game")
    expect(overview.locator(f"#my-game-{other['id']} .need-your_turn")).to_have_count(0)
    overview.close()

    # Clicking the notification in the other game's tab opens the table; it is then read.
    second.evaluate("text => window.__shown.find(n => n.title === text).onclick()", newest["text"])
    expect(second).to_have_url(f"{second.url.split('/games/')[0]}/games/{table['id']}/")
    after = apis[PLAYER].get("notifications/")
    assert after["results"][0]["read"] is True and after["unread"] == mine["unread"] - 1
    expect(live_bell(page).locator("[data-bell-count]")).to_have_text(
        str(after["unread"]), timeout=LIVE_MS
    )
    second.close()


def test_a_notification_while_the_tab_reloads_still_pops_up(people: dict) -> None:
    """live.js reloads a game page on a phase or access change: it closes the socket, and
    a notification may come before the new page's socket is up. That page's first frame
    carries it; the tab remembers what it had seen (sessionStorage), so the frame still
    pops it up. Only a tab's first frame is old news."""
    apis, context = people["apis"], people["context"]
    host, bella = apis[HOST], apis[PLAYER]
    bella._call("PUT", "notifications/settings/", {"desktop": True})
    game = host.post("games/", {"title": "E2E: the reloading tab", "setup": "forum-vanilla"})
    bella.post(f"games/{game['id']}/join/")
    for name in BOTS[: game["player_cap"] - 1]:
        apis[name].post(f"games/{game['id']}/join/")
    host.post(f"games/{game['id']}/start/")

    tab = context.new_page()
    goto(tab, f"/games/{game['id']}/")
    live_bell(tab)
    known = newest_id(bella)

    # The page is gone (its socket closed) while the host ends the day and the next phase's
    # notification is written; then the tab loads the game again.
    goto(tab, "about:blank")
    host.post(f"games/{game['id']}/host/cut/")
    end = time.monotonic() + 60
    while newest_id(bella, ("phase_started",)) <= known:
        assert time.monotonic() < end, "no phase started within 60 s"
        time.sleep(0.3)
    settled = newest_id(bella)
    while (time.sleep(2) or newest_id(bella)) != settled:  # a night no one acts in ends too
        settled = newest_id(bella)
    newest = bella.get("notifications/")["results"][0]
    assert newest["kind"] == "phase_started" and newest["id"] > known, newest

    goto(tab, f"/games/{game['id']}/")
    live_bell(tab)
    tab.wait_for_function("text => window.__shown.some(n => n.title === text)", arg=newest["text"])
    assert bella.get("notifications/")["results"][0]["id"] == newest["id"]  # none came since
    tab.close()
