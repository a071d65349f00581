"""A classic table's ties through the revote, in headless Chromium (issue 19, item 7).

Two people (``tess``, ``ugo``) play in browser contexts: their speeches, nominations,
defense and votes go through the page (the reply box, the table panel's *Nominate* and
*Vote*). The eight other seats are played by the test through the public API with
explicit choices (``scripts/reference_bot.py``'s client), so the votes tie as planned:

* day 1, **two players tied**: tess and tiebot0 4 votes each, skip 2: the thread announces
  the tie, both give a defense speech, the revote offers only them and skip, and tiebot0
  is voted out (last words, then the day's end with both ballots);
* day 2, **skip tied with one player**: ugo and skip 4 each, tiebot1 1: a revote between
  ugo and skip only, after ugo's defense; skip wins, so nobody is eliminated.

As the classic rule document says: "If 'skip' ties with exactly one player, a revote
happens between that player and skip", and "If still tied after revote or 'skip' wins, no
one is eliminated". The table's timers are long: nothing here runs out on purpose.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .story import LIVE_MS, goto, open_as, post_reply

pytestmark = pytest.mark.e2e

PASSWORD = "Tied-vote-e2e-19"
HOST = "tiehost"
PEOPLE = ("tess", "ugo")
BOTS = tuple(f"tiebot{i}" for i in range(8))
SKIP = None
TURN_SECONDS = 120  # long: every turn here is taken, none times out
SPEECH = (
    "I have listened to every speech today and I still cannot place the quiet seats. "
    "Some of you changed your reasons twice and nobody explained why. I want to hear a "
    "defense before anyone is voted out, so my nomination is a question, not a verdict, "
    "and I will change my mind if the answers are good."
)

bots = reference_bot()


@dataclass
class Tie:
    base_url: str
    browser: Any
    apis: dict[str, Any] = field(default_factory=dict)
    pages: dict[str, Page] = field(default_factory=dict)
    contexts: list[Any] = field(default_factory=list)
    game_id: int = 0
    slot_ids: dict[str, int] = field(default_factory=dict)

    def open(self, name: str) -> Page:
        context, page = open_as(self.browser, self.base_url, name, PASSWORD, f"tie-{name}")
        self.contexts.append(context)
        return page

    @property
    def g(self) -> str:
        return f"games/{self.game_id}/"

    def url(self, suffix: str = "") -> str:
        return f"/games/{self.game_id}/{suffix}"

    def turn(self) -> dict[str, Any]:
        return self.apis[HOST].get(self.g + "turn/")

    def wait(self, done: Callable[[dict[str, Any]], bool], seconds: float = 30) -> dict[str, Any]:
        end = time.monotonic() + seconds
        while True:
            turn = self.turn()
            if done(turn):
                return turn
            if time.monotonic() > end:
                raise AssertionError(f"the table did not get there in {seconds} s: {turn}")
            time.sleep(0.15)

    def panel(self, name: str) -> Any:
        return self.pages[name].locator("#turn-panel")

    def target(self, name: str | None) -> int | None:
        return None if name is SKIP else self.slot_ids[name]


@pytest.fixture(scope="module")
def tie(e2e_stack: Any, browser: Any) -> Iterator[Tie]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, *PEOPLE, *BOTS], PASSWORD)
    t = Tie(base_url=e2e_stack.base_url, browser=browser)
    for name in [HOST, *PEOPLE, *BOTS]:
        t.apis[name] = bots.Api.login(e2e_stack.base_url, name, PASSWORD)
    for name in PEOPLE:
        t.pages[name] = t.open(name)
    yield t
    if t.game_id:  # nothing left to run on its timers while other modules play
        with contextlib.suppress(bots.ApiError):
            t.apis[HOST].post(t.g + "host/pause/")
    with chromium_watchdog():
        for context in t.contexts:
            with contextlib.suppress(Exception):
                context.close()


# -- acting ----------------------------------------------------------------------------------
def new_game(t: Tie) -> None:
    game = t.apis[HOST].post(
        "games/",
        {
            "title": "E2E: a tied classic table",
            "setup": "classic-ten",
            "turn_length_seconds": TURN_SECONDS,
            "vote_length_seconds": TURN_SECONDS,
        },
    )
    t.game_id = game["id"]
    for name in PEOPLE:  # the people join on the page
        page = t.pages[name]
        goto(page, t.url())
        page.get_by_role("button", name="Join the game").click()
        expect(page.locator("#messages")).to_contain_text("You have joined")
    for name in BOTS:
        t.apis[name].post(t.g + "join/")
    t.apis[HOST].post(t.g + "start/")
    slots = t.apis[HOST].get(t.g + "host/")["slots"]
    t.slot_ids = {s["name"]: s["slot_id"] for s in slots}


def end_night(t: Tie) -> None:
    """The host cuts the night with nobody acting: nobody dies."""
    t.wait(lambda turn: turn["step"] == "night")
    t.apis[HOST].post(t.g + "host/cut/")
    t.wait(lambda turn: turn["step"] == "speech")
    for name in PEOPLE:
        goto(t.pages[name], t.url())


def speeches(t: Tie, nominate: Callable[[str], str | None]) -> None:
    """Every living player speaks in order and nominates ``nominate(speaker)``."""
    while (turn := t.turn())["step"] == "speech":
        speaker = turn["speaker"]["name"]
        target = nominate(speaker)
        if speaker in PEOPLE:
            page, panel = t.pages[speaker], t.panel(speaker)
            expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
            post_reply(page, f"{SPEECH} ({speaker})")
            panel.locator("select[aria-label=Nominate]").select_option(label=target)
            panel.get_by_role("button", name="Nominate").click()
            page.wait_for_load_state("domcontentloaded")
        else:
            t.apis[speaker].post(t.g + "posts/", {"body": SPEECH})
            t.apis[speaker].post(t.g + "nominate/", {"target": t.target(target)})
        t.wait(lambda now, seq=turn["turn_seq"]: now["turn_seq"] != seq)


def vote(t: Tie, ballots: dict[str, str | None], ballot: list[str]) -> None:
    """The people vote on their page (the panel offers exactly ``ballot``), then the bots."""
    for name in PEOPLE:
        if name not in ballots:
            continue
        page, panel = t.pages[name], t.panel(name)
        goto(page, t.url())
        expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
        select = panel.locator("select[aria-label=Vote]")
        expect(select.locator("option")).to_have_text(ballot)
        select.select_option(label=ballots[name] or "skip")
        with page.expect_response(lambda r: r.request.method == "POST" and "/vote/" in r.url):
            panel.get_by_role("button", name="Vote").click()
        page.wait_for_load_state("domcontentloaded")
        expect(page).not_to_have_title(re.compile("Your turn"))
    for name, target in ballots.items():
        if name not in PEOPLE:
            t.apis[name].post(t.g + "vote/", {"target": t.target(target)})


def defense(t: Tie, tied: list[str]) -> None:
    """Each tied player speaks in their defense, in the day's order: people on the page."""
    for name in tied:
        turn = t.wait(lambda now: now["step"] == "defense")
        assert turn["speaker"]["name"] == name, turn
        for person in PEOPLE:  # every page shows who defends now, live
            expect(t.panel(person).locator(".turn-speaker strong")).to_have_text(
                name, timeout=LIVE_MS
            )
        if name in PEOPLE:
            post_reply(t.pages[name], f"In my defense: I voted in the open. ({name})")
        else:
            t.apis[name].post(t.g + "posts/", {"body": f"In my defense: not me. ({name})"})
        t.wait(lambda now, seq=turn["turn_seq"]: now["turn_seq"] != seq)


def auto_post(t: Tie, *texts: str) -> Any:
    """The automatic post on the thread's last page that has all of ``texts`` (a fresh page)."""
    page = t.pages[PEOPLE[0]].context.new_page()
    goto(page, t.url("?page=last"))
    post = page.locator(".post.auto-post")
    for text in texts:
        post = post.filter(has_text=text)
    expect(post).to_have_count(1)
    return page, post


def check_tie_shown(t: Tie, day: int, tied: list[str], line: str, ballots: list[str]) -> None:
    """After the tied vote: each page's panel turns to the defense, live, with the vote's
    ballots; the thread announces the tie and what follows."""
    for name in PEOPLE:
        panel = t.panel(name)
        expect(panel).to_have_attribute("data-step", "defense", timeout=LIVE_MS)
        expect(panel.locator(".turn-step")).to_contain_text(f"Defense speeches · day {day}")
        expect(panel.locator(".turn-order li")).to_have_text(tied)
        expect(panel.locator(".turn-ballots")).to_have_count(1)
        for ballot in ballots:
            expect(panel.locator(".turn-ballots li", has_text=ballot)).to_have_count(1)
    page, post = auto_post(t, f"Day {day} is tied: a revote.")
    expect(post).to_contain_text(line)
    page.close()


def check_revote_shown(t: Tie, day: int, tied: list[str]) -> None:
    for name in PEOPLE:
        panel = t.panel(name)
        expect(panel).to_have_attribute("data-step", "vote", timeout=LIVE_MS)
        expect(panel.locator(".turn-step")).to_have_text(f"Vote · day {day} · revote")
        expect(panel).to_contain_text("The vote")


# -- the test ----------------------------------------------------------------------------------
def test_classic_ties_through_the_revote_in_browsers(tie: Tie) -> None:
    t = tie
    new_game(t)
    end_night(t)  # night zero

    # Day 1: two players tied (tess and tiebot0, 4 each; skip 2), then the revote.
    order = [r["name"] for r in t.turn()["order"]]
    speeches(t, lambda speaker: "tiebot0" if speaker == "tess" else "tess")
    day_1 = {
        "tess": "tiebot0",
        "ugo": "tess",
        **dict.fromkeys(["tiebot1", "tiebot2", "tiebot3"], "tess"),
        **dict.fromkeys(["tiebot4", "tiebot5", "tiebot6"], "tiebot0"),
        **dict.fromkeys(["tiebot0", "tiebot7"], SKIP),
    }
    # The ballot lists the nominees in the order they were first nominated, then skip.
    nominated = ["tiebot0", "tess"] if order[0] == "tess" else ["tess", "tiebot0"]
    vote(t, day_1, [*nominated, "skip"])
    tied = [n for n in order if n in ("tess", "tiebot0")]
    check_tie_shown(
        t,
        1,
        tied,
        f"{tied[0]} and {tied[1]} have 4 votes each. First {tied[0]} and {tied[1]} speak "
        f"in their defense; then everyone votes again between {tied[0]}, {tied[1]} or skip.",
        ["tess → tiebot0", "ugo → tess", "tiebot6 → tiebot0", "tiebot7 → skip"],
    )
    defense(t, tied)
    check_revote_shown(t, 1, tied)
    revote_1 = {name: "tiebot0" for name in [*PEOPLE, *BOTS]} | {
        "tiebot0": "tess",
        "tiebot1": "tess",
        "tiebot2": SKIP,
        "tiebot3": SKIP,
    }
    vote(t, revote_1, [*tied, "skip"])
    # The result: tiebot0 is voted out (6 of 10) and has the floor for last words.
    turn = t.wait(lambda now: now["step"] == "last_words")
    assert turn["speaker"]["name"] == "tiebot0"
    for name in PEOPLE:
        expect(t.panel(name).locator(".turn-step")).to_contain_text("Last words", timeout=LIVE_MS)
        expect(t.panel(name).locator(".turn-ballots")).to_have_count(2)  # the vote, the revote
    t.apis["tiebot0"].post(t.g + "posts/", {"body": "My last words: you tied me, then got me."})
    t.wait(lambda now: now["step"] == "night")
    page, post = auto_post(t, "Day 1 ends: tiebot0 has been eliminated.")
    expect(post).to_contain_text("The vote:")
    expect(post).to_contain_text("The revote:")
    expect(post.locator("li", has_text="tess → tiebot0")).to_have_count(2)  # both votes
    expect(post.locator("li", has_text="tiebot0 → skip")).to_have_count(1)  # the first vote
    page.close()
    end_night(t)

    # Day 2: skip tied with one player (ugo and skip, 4 each; tiebot1 1), then the revote.
    order = [r["name"] for r in t.turn()["order"]]
    first = order[0]
    speeches(t, lambda speaker: "tiebot1" if speaker == first else "ugo")
    day_2 = {
        **dict.fromkeys(["tiebot1", "tiebot2", "tiebot3", "tiebot4"], "ugo"),
        **dict.fromkeys(["tess", "ugo", "tiebot5", "tiebot6"], SKIP),
        "tiebot7": "tiebot1",
    }
    vote(t, day_2, ["tiebot1", "ugo", "skip"])
    check_tie_shown(
        t,
        2,
        ["ugo"],
        "ugo and skip have 4 votes each. First ugo speaks in their defense; then everyone "
        "votes again between ugo or skip.",
        ["tess → skip", "tiebot1 → ugo", "tiebot7 → tiebot1"],
    )
    defense(t, ["ugo"])
    check_revote_shown(t, 2, ["ugo"])
    revote_2 = dict.fromkeys([*PEOPLE, *BOTS[1:]], SKIP) | dict.fromkeys(
        ["tiebot1", "tiebot2", "tiebot3"], "ugo"
    )
    vote(t, revote_2, ["ugo", "skip"])
    # The result: skip wins the revote (6 to 3), nobody is eliminated, the night begins.
    for name in PEOPLE:
        expect(t.panel(name)).to_have_attribute("data-step", "night", timeout=LIVE_MS)
    page, post = auto_post(t, "Day 2 ends with no elimination.")
    expect(post).to_contain_text("The revote:")
    expect(post.locator("li", has_text="ugo → skip")).to_have_count(2)
    expect(post.locator("li", has_text="tiebot3 → ugo")).to_have_count(2)
    page.close()
    game = t.apis[HOST].get(t.g)
    alive = {p["name"] for p in game["players"] if p["alive"]}
    assert alive == {*PEOPLE, *BOTS} - {"tiebot0"}, alive
