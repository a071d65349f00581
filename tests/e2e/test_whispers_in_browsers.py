"""Whispers in headless Chromium: two players whisper to each other from their whispers
pages, each seeing the other's whisper arrive live (no reload), while a third player's
whispers page and a spectator's game thread show nothing of it (a ``private`` game: not
even that it happened), and the spectator cannot open the whispers page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .cast import cast, live
from .story import LIVE_MS, MARKER, goto

pytestmark = pytest.mark.e2e

PASSWORD = "Hush-hush-e2e-7"
HOST = "wisphost"
PLAYERS = ("wispa", "wispb", "wispc", "wispd", "wispe", "wispf", "wispg")
SPECTATOR = "wispwatch"
FIRST = "E2E-WHISPER-ONE-7f3a"
REPLY = "E2E-WHISPER-TWO-9c1d"


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[dict[str, Any]]:
    with cast(
        e2e_stack,
        browser,
        password=PASSWORD,
        host=HOST,
        players=PLAYERS,
        others=(SPECTATOR,),
        watching=(*PLAYERS[:3], SPECTATOR),
        log="whisper",
    ) as people:
        yield people


def whisper(page: Page, to: str, body: str) -> None:
    page.locator("#whisper-to").select_option(label=to)
    page.locator("#whisper-body").fill(body)
    with page.expect_response(lambda r: r.request.method == "POST" and "/whispers/" in r.url):
        page.get_by_role("button", name="Whisper", exact=True).click()
    page.wait_for_load_state("domcontentloaded")


def test_two_players_whisper_while_a_third_and_a_spectator_see_nothing(people: dict) -> None:
    apis, pages = people["apis"], people["pages"]
    host = apis[HOST]
    game = host.post(
        "games/",
        {"title": "E2E: whispers", "setup": "forum-vanilla", "whispers": "private"},
    )
    g = game["id"]
    for name in PLAYERS:
        apis[name].post(f"games/{g}/join/")
    host.post(f"games/{g}/start/")
    a, b, c = (pages[n] for n in PLAYERS[:3])
    spectator = pages[SPECTATOR]
    for page in (a, b, c):
        goto(page, f"/games/{g}/")
        page.get_by_role("link", name="Whispers", exact=True).click()  # from the game's navigation
        expect(page.locator("#whispers")).to_contain_text("No whispers yet.")
    goto(spectator, f"/games/{g}/")
    expect(spectator.get_by_role("link", name="Whispers", exact=True)).to_have_count(0)
    for page in (b, c, spectator):
        live(page)

    # A whispers to B: it shows on B's open page, live.
    whisper(a, PLAYERS[1], f"Meet me at dawn {FIRST}")
    expect(a.locator("#messages")).to_contain_text(f"You whispered to {PLAYERS[1]}.")
    expect(a.locator("#whispers")).to_contain_text(FIRST)
    expect(b.locator("#whispers")).to_contain_text(FIRST, timeout=LIVE_MS)
    expect(b.locator("#whispers")).to_contain_text(f"With {PLAYERS[0]}")
    assert b.evaluate(f"Boolean({MARKER})"), "B's page reloaded instead of updating live"

    # B answers from the same page; A's page (loaded after the send) gets it live.
    live(a)
    whisper(b, PLAYERS[0], f"Agreed {REPLY}")
    expect(a.locator("#whispers")).to_contain_text(REPLY, timeout=LIVE_MS)
    assert a.evaluate(f"Boolean({MARKER})"), "A's page reloaded instead of updating live"

    # B's notification says who, never what.
    notes = apis[PLAYERS[1]].get("notifications/")["results"]
    told = [n for n in notes if n["kind"] == "whispered"]
    assert told and PLAYERS[0] in told[0]["text"] and FIRST not in told[0]["text"]

    # The third player and the spectator: nothing, live or reloaded.
    for page in (c, spectator):
        for secret in (FIRST, REPLY, "whispered to"):
            assert secret not in page.content(), (page.url, secret)
    expect(c.locator("#whispers")).to_contain_text("No whispers yet.")
    for page, url in ((c, f"/games/{g}/whispers/"), (spectator, f"/games/{g}/")):
        goto(page, url)
        for secret in (FIRST, REPLY, "whispered to"):
            assert secret not in page.content(), (url, secret)
    answer = goto(spectator, f"/games/{g}/whispers/")
    assert answer is not None and answer.status == 404
