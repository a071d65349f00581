"""An anonymous game in headless Chromium: three players, the host and a spectator keep the
thread (the host: the dashboard) open while the game starts and the masked names come in
live; a player votes by writing a masked name in bold and the spectator's vote count
shows it under the masks; nobody but the host reads a player's own name anywhere on the
page (the player's own site menu aside); the end reveals "Mask (real name)"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .cast import cast
from .story import LIVE_MS, MARKER, RELOADS_MS, goto, post_reply, wagon

pytestmark = pytest.mark.e2e

PASSWORD = "Masked-ball-e2e-5"
HOST = "maskhost"
# Real names no page writes by chance: seen anywhere by another person, they leak.
PLAYERS = tuple(f"maskreal{c}q" for c in "abcdefg")
SPECTATOR = "maskwatch"
REAL = re.compile(r"maskreal[a-g]q")


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    with cast(
        e2e_stack,
        browser,
        password=PASSWORD,
        host=HOST,
        players=PLAYERS,
        others=(SPECTATOR,),
        watching=(HOST, *PLAYERS[:3], SPECTATOR),
        log="masks",
    ) as people:
        yield people


def no_real_name(page: Page, own: str = "") -> None:
    """No player's own name in the page's HTML, but ``own`` in the site menu's "who"."""
    html = page.content().replace(f'<span class="who">{own}</span>', "") if own else page.content()
    found = set(REAL.findall(html))
    assert not found, (page.url, found)


def test_players_host_and_spectator_in_an_anonymous_game(people: dict) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    game = host.post(
        "games/", {"title": "E2E: masked ball", "setup": "forum-vanilla", "anonymous_names": True}
    )
    g = game["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    a, b, c = (pages[n] for n in PLAYERS[:3])
    spectator, dashboard = pages[SPECTATOR], pages[HOST]
    # Sign-ups show the real names.
    goto(spectator, f"/games/{g}/")
    expect(spectator.locator("#players")).to_contain_text(PLAYERS[0])
    for page in (a, b, c):
        goto(page, f"/games/{g}/")
    goto(dashboard, f"/games/{g}/host/")
    host.post(f"games/{g}/start/")

    # The start redraws every open page: masked names from then on.
    seats = host.get(f"games/{g}/host/")["slots"]
    mask = {s["real_name"]: s["name"] for s in seats}
    assert set(mask) == set(PLAYERS) and not set(mask.values()) & set(PLAYERS)
    for page in (a, b, c, spectator):
        expect(page.locator("#players")).to_contain_text(mask[PLAYERS[3]], timeout=RELOADS_MS)
        expect(page.locator("#bell")).to_have_attribute("data-live", "1", timeout=LIVE_MS)
        page.evaluate(f"{MARKER} = true")
    for name, page in zip(PLAYERS[:3], (a, b, c), strict=True):
        no_real_name(page, own=name)
    no_real_name(spectator, own=SPECTATOR)
    # The host's dashboard names both.
    goto(dashboard, f"/games/{g}/host/")
    expect(dashboard.locator("body")).to_contain_text(f"{mask[PLAYERS[4]]} ({PLAYERS[4]})")

    # A votes B by B's masked name in bold; the spectator's count shows it live, masked.
    post_reply(a, f"I think it is you.\n\n[b]Vote: {mask[PLAYERS[1]]}[/b]")
    expect(wagon(spectator, mask[PLAYERS[1]])).to_contain_text(mask[PLAYERS[0]], timeout=LIVE_MS)
    expect(spectator.locator("#posts")).to_contain_text("I think it is you.", timeout=LIVE_MS)
    expect(spectator.locator("#posts .post .name").last).to_have_text(mask[PLAYERS[0]])
    assert spectator.evaluate(f"Boolean({MARKER})"), "the spectator's page reloaded"
    no_real_name(spectator, own=SPECTATOR)
    no_real_name(b, own=PLAYERS[1])
    # B's own role PM says the name B plays under.
    goto(b, f"/games/{g}/role/")
    expect(b.locator("#mask-name")).to_contain_text(mask[PLAYERS[1]])
    no_real_name(b, own=PLAYERS[1])

    # The end: the host's view knows the goons; the players vote them out by mask.
    roles = {s["real_name"]: s["role"] for s in host.get(f"games/{g}/host/")["slots"]}
    for goon in [n for n in PLAYERS if roles[n] == "goon"]:
        alive = {s["real_name"] for s in host.get(f"games/{g}/host/")["slots"] if s["alive"]}
        for voter in sorted(alive - {goon}):
            state = apis[voter].get(f"games/{g}/")
            if state["status"] != "running" or state["phase"]["kind"] != "day":
                break
            apis[voter].post(f"games/{g}/posts/", {"body": f"[b]Vote: {mask[goon]}[/b]"})
        state = host.get(f"games/{g}/")
        if state["status"] == "running" and state["phase"]["kind"] == "night":
            host.post(f"games/{g}/host/cut/")
    assert host.get(f"games/{g}/")["status"] == "finished"
    goto(spectator, f"/games/{g}/archive/")
    for name in PLAYERS:
        expect(spectator.locator("body")).to_contain_text(f"{mask[name]} ({name})")
