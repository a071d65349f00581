"""Secret votes in headless Chromium: a game with ``secret_votes: totals``. Two players vote
(one with the button, one with a bold vote typed in the reply box) while a third player, a
spectator and the host watch their open pages: the players and the spectator see the
wagon's total arrive live and never who voted, the host's page names both voters, the
voter sees "your vote", and when the day ends every page shows the final count naming
every voter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .cast import cast, live
from .story import LIVE_MS, MARKER, RELOADS_MS, click_vote, goto

pytestmark = pytest.mark.e2e

PASSWORD = "Ballot-box-e2e-4"
HOST = "svhost"
PLAYERS = ("sva", "svb", "svc", "svd", "sve", "svf", "svg")
SPECTATOR = "svwatch"


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
        log="secret",
    ) as people:
        yield people


def count(page: Page) -> Any:
    return page.locator("#vote-count, #whole-count")


def test_players_and_spectators_see_totals_the_host_sees_the_voters(people: dict) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    game = host.post(
        "games/",
        {"title": "E2E: secret votes", "setup": "forum-vanilla", "secret_votes": "totals"},
    )
    g = game["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    host.post(f"games/{g}/start/")
    # The target: a player with no browser open, not the voters.
    target = PLAYERS[6]
    a, b, c = (pages[n] for n in PLAYERS[:3])
    watchers = (c, pages[SPECTATOR])
    for page in (a, b, c, pages[SPECTATOR], pages[HOST]):
        goto(page, f"/games/{g}/?page=last")
    for page in (*watchers, pages[HOST]):
        live(page)
    for page in watchers:
        expect(page.locator("#vote-count")).to_contain_text("No votes yet.")
    expect(pages[HOST].locator("#whole-count")).to_contain_text("only you, the host")

    # A votes with the button: nothing is posted; A sees their own vote.
    click_vote(a, target)
    expect(a.locator("#players")).to_contain_text("your vote")
    # B types a bold vote: the post shows "(voted)", not the name.
    b.locator("#reply-body").fill(f"I have a feeling.\n\n**Vote: {target}**")
    with b.expect_response(lambda r: r.request.method == "POST" and "/post/" in r.url):
        b.locator("#reply button[type=submit]").click()
    b.wait_for_load_state("domcontentloaded")
    expect(b.locator("#posts .post", has_text="I have a feeling.")).to_contain_text("(voted)")

    for page in watchers:
        shown = page.locator("#vote-count")
        expect(shown).to_contain_text(f"{target} (2)", timeout=LIVE_MS)
        expect(shown).to_contain_text("each wagon shows its total only")
        for voter in PLAYERS[:2]:
            expect(shown).not_to_contain_text(voter)
        expect(page.locator("#posts")).not_to_contain_text(f"Vote: {target}")
        assert page.evaluate(f"Boolean({MARKER})"), "the page reloaded instead of updating"
    whole = pages[HOST].locator("#whole-count")
    expect(whole).to_contain_text(PLAYERS[0], timeout=LIVE_MS)
    expect(whole).to_contain_text(PLAYERS[1])
    assert pages[HOST].evaluate(f"Boolean({MARKER})"), "the host's page reloaded"

    # Reloaded, the same.
    goto(c, f"/games/{g}/?page=last")
    expect(c.locator("#vote-count")).to_contain_text(f"{target} (2)")
    expect(c.locator("#vote-count")).not_to_contain_text(PLAYERS[0])

    # Two more votes hammer: the day ends and every page names every voter.
    for name in PLAYERS[3:5]:
        apis[name].post(f"games/{g}/vote/", {"target": _slot(host, g, target)})
    for page in (c, pages[SPECTATOR], pages[HOST]):
        shown = count(page)
        expect(shown).to_contain_text("Final vote count", timeout=RELOADS_MS)
        expect(shown).to_contain_text(PLAYERS[0])
        expect(shown).to_contain_text(PLAYERS[1])


def _slot(host: Any, game_id: int, name: str) -> int:
    players = host.get(f"games/{game_id}/")["players"]
    return next(p["slot_id"] for p in players if p["name"] == name)
