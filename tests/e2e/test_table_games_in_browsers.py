"""Whole table games (classic, city, power) in headless Chromium, with their day scripts.

Three people (``ivy``, ``jon``, ``kim``) play in browser contexts beside bots that use the
public API only (``scripts/reference_bot.py``'s client), and a spectator's page stays open,
never reloaded, for the whole of each game: what it shows of the table must arrive live.
The people take their turns through the page: a speech in the reply box, the *Nominate*,
*Vote* and *Pass* buttons, a power question addressed with the reply form's selector. The
host uses the dashboard's turn controls in the classic game.

The table plays to a plan so each game ends in a few days: everyone nominates and votes
the same player (classic day 1: ``ivy``, so a person gives last words in the browser; then
the mafia), nights are cut at once by the host with nobody acting. The turn timers are
short (the API's minimum is 10 s); one turn of a person is left to run out on purpose.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .story import LIVE_MS, MARKER, goto, open_as, post_reply

pytestmark = pytest.mark.e2e

PASSWORD = "Turn-by-turn-e2e-7"
HOST = "tablehost"
PEOPLE = ("ivy", "jon", "kim")  # not the forum story's people: their accounts differ
BOTS = tuple(f"tablebot{i}" for i in range(7))
# A person's turn: long enough for their browser to be told, post and nominate while the
# parallel suite saturates both cores (10 s ran out in a fresh-clone run, load 8-11: "kim
# ran out of time"); the one turn the story lets run out costs the wait.
TURN_SECONDS = 20
VOTE_SECONDS = 20
SPEECH = (
    "I have watched every speech today and the quiet seats worry me most of all. "
    "Nobody has explained why the votes moved the way they did, and I want answers "
    "before we decide anything, so I will listen closely and nominate with care."
)


bots = reference_bot()


@dataclass
class Browser:
    name: str
    context: Any
    page: Page


@dataclass
class Table:
    """The people, the bots' API clients, and the game being played."""

    base_url: str
    browser: Any
    shot: Any
    people: dict[str, Browser] = field(default_factory=dict)
    apis: dict[str, Any] = field(default_factory=dict)
    spectator: Browser | None = None
    game_id: int = 0
    roles: dict[str, str] = field(default_factory=dict)  # name -> role
    slot_ids: dict[str, int] = field(default_factory=dict)  # name -> slot id
    seen: set[str] = field(default_factory=set)  # what the story has checked, for the asserts

    # -- people ---------------------------------------------------------------------------
    def open(self, name: str, *, log_in: bool = True) -> Browser:
        password = PASSWORD if log_in else ""
        context, page = open_as(self.browser, self.base_url, name, password, f"table-{name}")
        return Browser(name, context, page)

    def url(self, suffix: str = "") -> str:
        return f"/games/{self.game_id}/{suffix}"

    @property
    def host(self) -> Any:
        return self.apis[HOST]

    def turn(self, who: str = HOST) -> dict[str, Any]:
        return self.apis[who].get(f"games/{self.game_id}/turn/")

    # -- a game ---------------------------------------------------------------------------
    def new_game(self, setup: str, title: str) -> None:
        game = self.host.post(
            "games/",
            {
                "title": title,
                "setup": setup,
                "turn_length_seconds": TURN_SECONDS,
                "vote_length_seconds": VOTE_SECONDS,
            },
        )
        assert game["turn_based"], game
        self.game_id = game["id"]
        for name in PEOPLE:  # people join on the page
            page = self.people[name].page
            goto(page, self.url())
            page.get_by_role("button", name="Join the game").click()
            expect(page.locator("#messages")).to_contain_text("You have joined")
        for name in BOTS[: game["player_cap"] - len(PEOPLE)]:
            self.apis[name].post(f"games/{self.game_id}/join/")
        spectator = self.spectator
        goto(spectator.page, self.url())
        self.host.post(f"games/{self.game_id}/start/")
        slots = self.host.get(f"games/{self.game_id}/host/")["slots"]
        self.roles = {s["name"]: s["role"] for s in slots}
        self.slot_ids = {s["name"]: s["slot_id"] for s in slots}
        alignments = {s["name"]: s["alignment"] for s in slots}
        self.mafia = [n for n, a in alignments.items() if a == "mafia"]
        self.third = [n for n in self.roles if self.roles[n] in ("maniac",)]
        for name in PEOPLE:  # the main page of each person: the thread, reloaded only by them
            goto(self.people[name].page, self.url())
        # The start reloads open pages once (sign-ups give way to the game); from then on
        # the spectator's page is never reloaded.
        panel = spectator.page.locator("#turn-panel")
        expect(panel).not_to_have_attribute("data-step", "not_started", timeout=LIVE_MS)
        spectator.page.wait_for_load_state("load")
        spectator.page.evaluate(f"{MARKER} = true")

    def panel(self, who: str = "spectator") -> Any:
        page = self.spectator.page if who == "spectator" else self.people[who].page
        return page.locator("#turn-panel")

    def living(self) -> list[str]:
        game = self.host.get(f"games/{self.game_id}/")
        return [p["name"] for p in game["players"] if p["alive"]]

    def plan_target(self, day: int, first_day_target: str | None) -> str:
        """Whom the table puts up today: a given player on day 1, else the mafia, the maniac."""
        living = self.living()
        if day == 1 and first_day_target in living:
            return first_day_target
        for name in [*self.mafia, *self.third, *living]:
            if name in living:
                return name
        raise AssertionError("nobody is alive")

    def spectator_not_reloaded(self) -> None:
        assert self.spectator.page.evaluate(f"Boolean({MARKER})"), "the spectator's page reloaded"


# -- driving the table -------------------------------------------------------------------
def key_of(turn: dict[str, Any]) -> str:
    return json.dumps(
        [turn["step"], turn["day"], turn["round"], turn["turn_seq"], turn["speaker"]],
        sort_keys=True,
    )


def wait_for_change(table: Table, before: str, seconds: float) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while True:
        turn = table.turn()
        if key_of(turn) != before or turn["step"] == "over":
            return turn
        if time.monotonic() > end:
            raise AssertionError(f"the table did not move on within {seconds} s: {turn}")
        time.sleep(0.15)


def bot_turn(table: Table, name: str, turn: dict[str, Any], target: str) -> None:
    api, g = table.apis[name], f"games/{table.game_id}/"
    step, may = turn["step"], set(table.turn(name)["you_may"])
    if step == "speech" and "nominate" in may:  # classic: the speech, then the nomination
        api.post(g + "posts/", {"body": SPEECH})
        api.post(g + "nominate/", {"target": table.slot_ids[target]})
    elif step == "question":  # power: one question, to the plan's player (or a neighbour)
        to = target if target != name else next(n for n in table.living() if n != name)
        body = f"{to}, where were you last night?"
        api.post(g + "posts/", {"body": body, "to": table.slot_ids[to]})
    elif step == "discussion":  # power: this table would rather vote
        api.post(g + "posts/", {"body": "VOTE_SKIP_DISCUSSION"})
        if key_of(table.turn()) == key_of(turn) and "pass" in may:
            api.post(g + "turn/pass/")
    elif "post" in may:
        api.post(g + "posts/", {"body": SPEECH})
    else:
        api.post(g + "turn/pass/")


def person_acts(table: Table, name: str, turn: dict[str, Any], target: str) -> None:
    """A person's turn through their page: told live, then a post, a nomination or a pass."""
    page = table.people[name].page
    expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
    expect(table.panel(name).locator("#your-turn")).to_be_visible(timeout=LIVE_MS)
    step = turn["step"]
    if step == "speech" and turn["ends_on_post"] is False:  # classic: speech + nomination
        post_reply(page, f"{SPEECH} ({name}, day {turn['day']})")
        nominate = table.panel(name).locator("select[aria-label=Nominate]")
        expect(nominate).to_be_visible()
        nominate.select_option(label=target)
        table.panel(name).get_by_role("button", name="Nominate").click()
        page.wait_for_load_state("domcontentloaded")
    elif step == "question":
        to = target if target != name else next(n for n in table.living() if n != name)
        page.locator("select[name=to]").select_option(label=to)
        post_reply(page, f"{to}, what did you mean earlier?\nVOTE_SKIP_DISCUSSION")
    elif step == "discussion":
        post_reply(page, "VOTE_SKIP_DISCUSSION")
        if key_of(table.turn()) == key_of(turn):
            table.panel(name).get_by_role("button", name="Pass").click()
    elif step == "last_words":
        post_reply(page, f"My last words: it was never me. ({name})")
    elif step == "defense":
        post_reply(page, f"In my defense: {SPEECH}")
    else:  # a city speech, a statement: post once (the post ends the turn)
        post_reply(page, f"{SPEECH} ({name}, {step})")


def person_votes(table: Table, name: str, target: str) -> None:
    page = table.people[name].page
    panel = table.panel(name)
    expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
    select = panel.locator("select[aria-label=Vote]")
    expect(select).to_be_visible(timeout=LIVE_MS)
    select.select_option(label=target)
    with page.expect_response(lambda r: r.request.method == "POST" and "/vote/" in r.url):
        panel.get_by_role("button", name="Vote").click()
    page.wait_for_load_state("domcontentloaded")


def check_spectator_turn(table: Table, turn: dict[str, Any]) -> None:
    """The never-reloaded spectator page shows this very turn: step, speaker, next, order,
    and the turn's countdown."""
    panel = table.panel()
    speaker = turn["speaker"]["name"]
    expect(panel).to_have_attribute("data-turn-seq", str(turn["turn_seq"]), timeout=LIVE_MS)
    expect(panel.locator(".turn-speaker strong")).to_have_text(speaker)
    if turn["next"]:
        expect(panel.locator(".turn-speaker")).to_contain_text(f"next: {turn['next']['name']}")
    expect(panel.locator(".turn-order li")).to_have_text([r["name"] for r in turn["order"]])
    expect(panel.locator(".turn-order li.now")).to_have_text(speaker)
    countdown = panel.locator("[data-countdown]")
    expect(countdown).to_have_attribute("datetime", turn["deadline"])
    # Shown ticking (hidden from screen readers), and said in words beside it.
    shown = countdown.locator("[aria-hidden=true]")
    expect(shown).to_have_text(re.compile(r"^(in \d+m \d+s|any moment now)$"))
    expect(countdown.locator(".visually-hidden")).to_have_text(re.compile(r"^(in |any moment)"))
    table.spectator_not_reloaded()
    table.seen.add("turn")


def play(
    table: Table,
    *,
    first_day_target: str | None = None,
    time_out_once: bool = False,
    host_controls: bool = False,
    timeout: float = 300,
) -> dict[str, Any]:
    """Play the game to its end; returns the finished game (the API's)."""
    end = time.monotonic() + timeout
    g = f"games/{table.game_id}/"
    timed_out = False
    controlled = False
    refused = False
    while time.monotonic() < end:
        turn = table.turn()
        step = turn["step"]
        if step == "over":
            return table.host.get(g)
        if step == "night":
            with contextlib.suppress(bots.ApiError):  # the night may just have ended
                table.host.post(g + "host/cut/")
            wait_for_change(table, key_of(turn), 30)
            continue
        if step in ("thread", "not_started", "done"):
            time.sleep(0.2)
            continue
        target = table.plan_target(turn["day"], first_day_target)
        before = key_of(turn)
        if step == "vote":
            play_vote(table, turn, target)
            continue
        speaker = turn["speaker"]["name"]
        if speaker in PEOPLE:
            check_spectator_turn(table, turn)
            if not refused:
                refuse_out_of_turn(table, speaker)
                refused = True
            if host_controls and not controlled and step == "speech":
                use_host_controls(table, turn)
                controlled = True
                wait_for_change(table, before, 20)
                continue
            if time_out_once and not timed_out:
                time_runs_out(table, speaker, turn)
                timed_out = True
                continue
            if step == "last_words":  # the player voted out has the floor
                expect(table.panel().locator(".turn-step")).to_contain_text("Last words")
                table.seen.add("last_words")
            person_acts(table, speaker, turn, target)
        else:
            try:
                bot_turn(table, speaker, turn, target)
            except bots.ApiError as error:
                if error.status >= 500:
                    raise
        wait_for_change(table, before, TURN_SECONDS + 15)
    raise AssertionError(f"game {table.game_id} did not end in {timeout} s")


def refuse_out_of_turn(table: Table, speaker: str) -> None:
    """Someone else posts during a person's turn: refused, with whose turn it is."""
    other = next(n for n in PEOPLE if n != speaker and n in table.living())
    page = table.people[other].page
    post_reply(page, "May I say something out of turn?")
    expect(page.locator("#messages")).to_contain_text(f"It is {speaker}'s turn")
    goto(page, table.url())  # back to the thread's first page, like after any action
    table.seen.add("refused")


def time_runs_out(table: Table, speaker: str, turn: dict[str, Any]) -> None:
    """The person does nothing: the turn's timer passes it (exactly once) and says so."""
    before = key_of(turn)
    after = wait_for_change(table, before, TURN_SECONDS + 15)
    assert after["turn_seq"] == turn["turn_seq"] + 1 or after["step"] != turn["step"], after
    expect(table.panel()).not_to_have_attribute("data-turn-seq", str(turn["turn_seq"]))
    page = table.people[speaker].page
    expect(page).not_to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
    if turn["step"] == "speech" and not turn["ends_on_post"]:  # classic: a random nomination
        mine = [n for n in after["nominations"] if n["nominator"]["name"] == speaker]
        assert len(mine) == 1, after["nominations"]
    table.seen.add("timeout")


def use_host_controls(table: Table, turn: dict[str, Any]) -> None:
    """The host pauses the turn, resumes it, extends it, then skips the speaker."""
    host = table.people[HOST].page
    goto(host, table.url("host/"))
    host.get_by_role("button", name="Pause the turn").click()
    expect(table.panel().locator(".deadline")).to_have_text("Paused.", timeout=LIVE_MS)
    speaker = turn["speaker"]["name"]
    page = table.people[speaker].page
    post_reply(page, "Can I speak while the game is paused?")
    expect(page.locator("#messages")).to_contain_text("paused")
    host.get_by_role("button", name="Resume").click()
    expect(table.panel().locator("[data-countdown]")).to_be_visible(timeout=LIVE_MS)
    deadline = table.turn()["deadline"]
    host.fill("#id_amount", "2")
    host.select_option("#id_unit", "minutes")
    host.get_by_role("button", name="Extend").click()
    expect(table.panel().locator("[data-countdown]")).not_to_have_attribute(
        "datetime", deadline, timeout=LIVE_MS
    )
    assert table.turn()["deadline"] > deadline
    host.get_by_role("button", name="Skip this turn").click()
    expect(table.panel().locator(".turn-nominations")).to_contain_text(
        f"{speaker} →", timeout=LIVE_MS
    )
    table.seen.add("host_controls")


def hold_the_vote_list(table: Table, name: str, choice: str) -> str:
    """The person picks a name in their vote list and keeps it (not yet voting); returns
    the value picked."""
    select = table.panel(name).locator("select[aria-label=Vote]")
    expect(select).to_be_visible(timeout=LIVE_MS)
    options = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    value = options[-1] if options[-1] != table.slot_ids.get(choice) else options[0]
    select.select_option(value)
    table.people[name].page.evaluate("window.heldVoteList = document.getElementById('turn-vote')")
    return value


def still_held(table: Table, name: str, voter: str, value: str) -> None:
    """Another seat's ballot redrew the person's table (the list of who has voted), and
    the list they are using is the same element, still on their pick: the panel is brought
    up to date around it, not replaced from under them."""
    page = table.people[name].page
    expect(table.panel(name).locator(".turn-voted")).to_contain_text(voter, timeout=LIVE_MS)
    assert page.evaluate("window.heldVoteList === document.getElementById('turn-vote')")
    assert page.evaluate("document.getElementById('turn-vote').value") == value
    table.seen.add("vote_list_kept")


def play_vote(table: Table, turn: dict[str, Any], target: str) -> None:
    """Everyone votes for the plan's player: bots over the API, people on their page; the
    spectator sees who has voted, never for whom, until the vote closes."""
    panel = table.panel()
    expect(panel.locator(".turn-step")).to_contain_text("Vote", timeout=LIVE_MS)
    table.spectator_not_reloaded()
    living = [n for n in table.living() if n not in {r["name"] for r in turn["voted"]}]
    voters = [n for n in living if n not in PEOPLE]
    people = [n for n in living if n in PEOPLE]
    ballot = {o.get("name") for o in turn["ballot"] if not o.get("skip")}
    choice = target if target in ballot else sorted(ballot)[0]
    # Nobody votes for themself here (city's and power's self_vote_allowed is false: their
    # own name is not on their list): the first voter is someone else than the choice.
    voters.sort(key=lambda n: n == choice)
    first, *rest = voters
    held = hold_the_vote_list(table, people[0], choice) if people else None
    table.apis[first].post(f"games/{table.game_id}/vote/", {"target": table.slot_ids[choice]})
    expect(panel.locator(".turn-voted")).to_contain_text(first, timeout=LIVE_MS)
    if held:
        still_held(table, people[0], first, held)
    ballots = panel.locator(".turn-ballots")
    closed_before = len(turn["closed_votes"])
    expect(ballots).to_have_count(closed_before)  # the open vote's ballots are not shown
    expect(panel.locator(".turn-voted")).not_to_contain_text("→")
    expect(panel).to_contain_text("Ballots are shown when the vote closes")
    table.seen.add("voted")
    for name in people:
        mine = choice if choice != name else next((n for n in sorted(ballot) if n != name), "skip")
        person_votes(table, name, mine)
    for name in rest:
        with contextlib.suppress(bots.ApiError):
            table.apis[name].post(
                f"games/{table.game_id}/vote/", {"target": table.slot_ids[choice]}
            )
    after = wait_for_change(table, key_of(turn), VOTE_SECONDS + 15)
    ballot_line = f"{first} → {choice}"
    if after["step"] in ("defense", "last_words", "vote") and after["day"] == turn["day"]:
        # The day goes on: the table shows the closed vote's ballots.
        expect(ballots).to_have_count(closed_before + 1, timeout=LIVE_MS)
        expect(ballots.last).to_contain_text(ballot_line)
        table.seen.add("ballots")
    else:  # the vote ended the day: its announcement in the thread keeps the ballots
        expect(panel).not_to_have_attribute("data-step", "vote", timeout=LIVE_MS)
        assert announced(table, f"{turn['day']} ends", ballot_line)
        table.seen.add("ballots_announced")


def announced(table: Table, *texts: str) -> bool:
    """Is there an automatic post with all of ``texts`` on the thread's last two pages?"""
    page = table.spectator.context.new_page()
    try:
        goto(page, table.url("?page=last"))
        last = int(page.locator("body").get_attribute("data-page") or 1)
        for number in (last, last - 1):
            if number < 1:
                break
            goto(page, table.url(f"?page={number}"))
            post = page.locator(".post.auto-post")
            for text in texts:
                post = post.filter(has_text=text)
            if post.count():
                return True
        return False
    finally:
        page.close()


# -- the fixture and the three games ------------------------------------------------------
@pytest.fixture(scope="module")
def table(e2e_stack: Any, browser: Any, shot: Any) -> Iterator[Table]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, *PEOPLE, *BOTS], PASSWORD)
    t = Table(base_url=e2e_stack.base_url, browser=browser, shot=shot)
    for name in [HOST, *PEOPLE, *BOTS]:
        t.apis[name] = bots.Api.login(e2e_stack.base_url, name, PASSWORD)
    for name in [HOST, *PEOPLE]:
        t.people[name] = t.open(name)
    t.spectator = t.open("spectator", log_in=False)
    yield t
    with chromium_watchdog():
        for person in [*t.people.values(), t.spectator]:
            with contextlib.suppress(Exception):
                person.context.close()


def check_the_end(table: Table, game: dict[str, Any]) -> None:
    assert game["status"] == "finished" and game["winner"], game
    page = table.spectator.page
    expect(page.locator("#turn-panel")).to_contain_text("The game is over", timeout=LIVE_MS)
    expect(page.locator("#phase-banner")).to_contain_text(re.compile("wins", re.I))
    # (The end opens every role to everyone: the open pages reload then, by design; until
    # the last vote the spectator's page was checked to be the same one.)
    fresh = table.spectator.context.new_page()
    goto(fresh, table.url("?page=last"))
    expect(fresh.locator(".post.auto-post", has_text="The game is over")).to_have_count(1)
    table.shot(fresh, f"table-{game['ruleset']}-over")
    fresh.close()


def test_classic_table_in_browsers(table: Table) -> None:
    table.new_game("classic-ten", "E2E: a classic table")
    page = table.spectator.page
    expect(table.panel()).to_contain_text("Night zero", timeout=LIVE_MS)
    game = play(table, first_day_target="ivy", time_out_once=True, host_controls=True)
    check_the_end(table, game)
    fresh = table.spectator.context.new_page()
    goto(fresh, table.url())
    day_1 = fresh.locator(".post.auto-post", has_text="Day 1 ends: ivy has been eliminated")
    expect(day_1).to_have_count(1)
    last_words = fresh.locator(".post", has_text="My last words: it was never me. (ivy)")
    expect(last_words).to_have_count(1)
    fresh.close()
    assert {
        "turn",
        "refused",
        "timeout",
        "host_controls",
        "voted",
        "vote_list_kept",
        "ballots",
        "last_words",
    } <= (table.seen), table.seen
    table.shot(page, "table-classic-spectator")


def test_city_table_in_browsers(table: Table) -> None:
    table.seen.clear()
    table.new_game("city-ten", "E2E: a city table")
    expect(table.panel().locator(".turn-step")).to_contain_text("Speeches", timeout=LIVE_MS)
    game = play(table, time_out_once=True)
    check_the_end(table, game)
    assert {"turn", "refused", "timeout", "voted"} <= table.seen, table.seen
    assert table.seen & {"ballots", "ballots_announced"}, table.seen


def test_power_table_in_browsers(table: Table) -> None:
    table.seen.clear()
    table.new_game("power-nine", "E2E: a power table")
    expect(table.panel().locator(".turn-step")).to_contain_text("Question round", timeout=LIVE_MS)
    game = play(table)
    check_the_end(table, game)
    fresh = table.spectator.context.new_page()
    goto(fresh, table.url())
    asked = fresh.locator(".post", has_text="what did you mean earlier?")
    expect(asked.first).to_be_visible()
    assert "VOTE_SKIP_DISCUSSION" not in fresh.locator("#posts").inner_text()
    fresh.close()
    assert {"turn", "refused", "voted", "ballots_announced"} <= table.seen, table.seen
