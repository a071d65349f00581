"""The tables' own rules in headless Chromium: the seats as dealt, shown from the first
night; a power question's addressee on the post (live and after a reload) and told to them;
and an act after its turn's deadline refused on the page, whatever the timer's lag.

Two people (``sal``, ``tom``) play through their pages beside bots that use the public API
(``scripts/reference_bot.py``'s client); a spectator watches without an account. Turns are
long (two minutes): nothing times out unless the story makes it. To show the deadline as
the rule, the story stops the deadline worker (SIGSTOP to its process group), moves the
turn's deadline into the past in the database, lets a person post, then lets the worker go
on: the post is refused, and the worker then ends the turn as usual.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .story import LIVE_MS, goto, open_as

pytestmark = pytest.mark.e2e

PASSWORD = "Table-rules-e2e-3"
HOST = "ruleshost"
PEOPLE = ("sal", "tom")
BOTS = tuple(f"rulesbot{i}" for i in range(8))
TURN_SECONDS = 120

bots = reference_bot()


@dataclass
class Rules:
    base_url: str
    env: dict[str, str]
    worker_pid: int
    browser: Any
    apis: dict[str, Any] = field(default_factory=dict)
    pages: dict[str, Page] = field(default_factory=dict)
    contexts: list[Any] = field(default_factory=list)
    game_id: int = 0

    def open(self, name: str, *, log_in: bool = True) -> Page:
        password = PASSWORD if log_in else ""
        context, page = open_as(self.browser, self.base_url, name, password, f"rules-{name}")
        self.contexts.append(context)
        self.pages[name] = page
        return page

    def url(self, suffix: str = "") -> str:
        return f"/games/{self.game_id}/{suffix}"

    def turn(self) -> dict[str, Any]:
        return self.apis[HOST].get(f"games/{self.game_id}/turn/")

    def new_game(self, setup: str, title: str) -> None:
        game = self.apis[HOST].post(
            "games/",
            {
                "title": title,
                "setup": setup,
                "turn_length_seconds": TURN_SECONDS,
                "vote_length_seconds": TURN_SECONDS,
            },
        )
        self.game_id = game["id"]
        for name in PEOPLE:
            page = self.pages[name]
            goto(page, self.url())
            page.get_by_role("button", name="Join the game").click()
            expect(page.locator("#messages")).to_contain_text("You have joined")
        for name in BOTS[: game["player_cap"] - len(PEOPLE)]:
            self.apis[name].post(f"games/{self.game_id}/join/")
        goto(self.pages["spectator"], self.url())
        self.apis[HOST].post(f"games/{self.game_id}/start/")
        for name in [*PEOPLE, "spectator"]:
            goto(self.pages[name], self.url())

    def speaker(self) -> str:
        return self.turn()["speaker"]["name"]

    def bots_pass_until_a_person_speaks(self) -> str:
        while (name := self.speaker()) not in PEOPLE:
            self.apis[name].post(f"games/{self.game_id}/turn/pass/")
        return name


@contextlib.contextmanager
def worker_stopped(rules: Rules) -> Iterator[None]:
    """The deadline worker (and its beat) frozen: the timer lags as long as we like."""
    os.killpg(rules.worker_pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(rules.worker_pid, signal.SIGCONT)


def deadline_passed(rules: Rules) -> None:
    """The current turn's deadline a second ago, in the stack's database."""
    with psycopg.connect(rules.env["DATABASE_URL"]) as db:
        db.execute(
            "UPDATE games_phase SET deadline = now() - interval '1 second' "
            "WHERE game_id = %s AND NOT resolved",
            (rules.game_id,),
        )


@pytest.fixture(scope="module")
def rules(e2e_stack: Any, browser: Any) -> Iterator[Rules]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, *PEOPLE, *BOTS], PASSWORD)
    r = Rules(e2e_stack.base_url, e2e_stack.env, e2e_stack.processes["celery"].pid, browser)
    for name in [HOST, *PEOPLE, *BOTS]:
        r.apis[name] = bots.Api.login(e2e_stack.base_url, name, PASSWORD)
    for name in PEOPLE:
        r.open(name)
    r.open("spectator", log_in=False)
    yield r
    with chromium_watchdog():
        for context in r.contexts:
            with contextlib.suppress(Exception):
                context.close()


def test_the_table_shows_the_seats_as_dealt_from_the_first_night(rules: Rules) -> None:
    rules.new_game("classic-ten", "E2E: seats at a classic table")
    seats = rules.turn()["seats"]
    assert [s["seat"] for s in seats] == list(range(1, 11))
    # Sign-up order was sal, tom, then the bots: the seats are the deal's, whatever it is.
    slots = rules.apis[HOST].get(f"games/{rules.game_id}/host/")["slots"]
    assert sorted((s["seat"], s["name"]) for s in slots) == [(s["seat"], s["name"]) for s in seats]
    expected = "Seats: " + " · ".join(f"{s['seat']}\u00a0{s['name']}" for s in seats)
    for who in ("spectator", *PEOPLE):
        panel = rules.pages[who].locator("#turn-panel")
        expect(panel).to_contain_text("Night zero", timeout=LIVE_MS)
        expect(panel.locator("#turn-seats")).to_have_text(expected)


def test_a_question_names_its_addressee_on_the_post_and_to_them(rules: Rules) -> None:
    rules.new_game("power-nine", "E2E: questions at a power table")
    spectator = rules.pages["spectator"]
    expect(spectator.locator("#turn-panel .turn-step")).to_contain_text("Question round")

    asker = rules.bots_pass_until_a_person_speaks()
    addressee = next(p for p in PEOPLE if p != asker)
    page = rules.pages[asker]
    expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
    page.locator("select[name=to]").select_option(label=addressee)
    page.locator("#reply-body").fill(f"{addressee}, why so quiet yesterday?")
    with page.expect_response(lambda r: r.request.method == "POST" and "/post/" in r.url):
        page.locator("#reply button[type=submit]").click()
    page.wait_for_load_state("domcontentloaded")
    asked = spectator.locator(".post", has_text="why so quiet yesterday?")
    expect(asked.locator(".question-to")).to_have_text(f"Question for {addressee}", timeout=LIVE_MS)
    number = int(asked.get_attribute("data-number"))
    expect(rules.pages[addressee].locator("#live-notices")).to_contain_text(
        f"{asker} asked you a question (post #{number}).", timeout=LIVE_MS
    )
    posts = rules.apis[addressee].get(f"games/{rules.game_id}/posts/?page=last")["results"]
    [listed] = [p for p in posts if p["number"] == number]
    assert listed["to"]["name"] == addressee, listed
    fresh = spectator.context.new_page()  # a reload shows what the live page shows
    goto(fresh, rules.url("?page=last"))
    expect(fresh.locator(f"#post-public-{number} .question-to")).to_have_text(
        f"Question for {addressee}"
    )
    fresh.close()


def test_a_post_after_the_turn_s_deadline_is_refused_whatever_the_timer_s_lag(
    rules: Rules,
) -> None:
    rules.new_game("power-nine", "E2E: deadlines at a power table")
    spectator = rules.pages["spectator"]
    late = rules.bots_pass_until_a_person_speaks()
    page = rules.pages[late]
    goto(page, rules.url("?page=last"))
    turn = rules.turn()
    if page.locator("select[name=to]").count():
        page.locator("select[name=to]").select_option(index=0)
    page.locator("#reply-body").fill("Too late for this one, I suppose.")
    with worker_stopped(rules):
        deadline_passed(rules)
        with page.expect_response(lambda r: r.request.method == "POST" and "/post/" in r.url):
            page.locator("#reply button[type=submit]").click()
        page.wait_for_load_state("domcontentloaded")
        expect(page.locator("#messages")).to_contain_text(
            "The turn ended: its deadline has passed."
        )
        assert rules.turn()["turn_seq"] == turn["turn_seq"]  # nothing moved the turn
    # The worker goes on: the turn ends as the rules say, on every open page.
    expect(spectator.locator("#turn-panel")).not_to_have_attribute(
        "data-turn-seq", str(turn["turn_seq"]), timeout=LIVE_MS * 3
    )
    assert spectator.locator(".post", has_text="Too late for this one").count() == 0
