"""Accessibility as a standard: axe-core on every page, and a day and a night by keyboard.

``test_no_serious_violation`` runs axe-core (axe-playwright-python, which bundles
``axe.min.js``: nothing is fetched) on every page of the site, once at 1280 px wide and
once more at a phone's 390 px (the same page load, the window narrowed), for every
kind of viewer (anonymous, a user not in the game, the host, a living town player, a mafia
player, a dead player) and every phase of a forum game (sign-ups, day, night, ended), a
classic table day, and the pages outside a game (lobby, log in, sign up, new game, a setup,
a simulation, a 404). A violation of impact "serious" or "critical" fails its case, naming
the rule, the elements (CSS selectors), the page and the viewer. The games are played
through the JSON API on one stack, the pages audited as each phase is reached.

``test_day_and_night_by_keyboard`` plays a forum day and night with the keyboard alone
(Tab, Shift+Tab, Enter, Space, arrow keys; no click): log in, post in the thread, vote,
unvote, send a night action; every control reached shows a visible focus outline. And
``test_table_turn_by_keyboard`` plays a classic speech and its nomination the same way.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users, django_shell

pytestmark = pytest.mark.e2e

PASSWORD = "Accessible-to-all-15"
HOST = "a11yhost"
PLAYERS = tuple(f"axe{i}" for i in range(10))
OUTSIDER = "a11yguest"
LONG = 600  # minutes: no deadline passes while the pages are audited
BLOCKING = ("serious", "critical")

bots = reference_bot()

# -- what is audited ----------------------------------------------------------------------
# (page, URL suffix inside the game, viewers). A viewer is a kind of person: "anonymous"
# (not logged in), "user" (logged in, not in the game), "host", "player" (living town),
# "mafia", "dead"; "speaker" at a table is the player whose turn it is.
GAME_PAGES: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
    "sign-ups": [
        ("thread", "", ("anonymous", "user", "host", "player")),
        ("host dashboard", "host/", ("host",)),
    ],
    "day": [
        ("thread", "", ("anonymous", "host", "player", "mafia", "dead")),
        ("ISO", "?iso=1", ("anonymous",)),
        ("role PM", "role/", ("player", "mafia", "dead")),
        ("mafia thread", "t/mafia/", ("mafia", "host")),
        ("dead thread", "t/dead/", ("dead",)),
        ("votes", "votes/", ("anonymous", "player")),
        ("activity", "activity/", ("anonymous", "player", "host")),
        ("multi-ISO", "iso/?iso=1&iso=2", ("anonymous",)),
        ("host dashboard", "host/", ("host",)),
        ("whispers", "whispers/", ("player", "host")),
        ("bookmark a post", "posts/1/bookmark/", ("player",)),
        # Belief probes (analytics): the player's form; anyone else is told who may send.
        ("belief probes", "probes/", ("player", "anonymous")),
    ],
    "night": [
        ("thread", "", ("anonymous", "host", "player", "mafia", "dead")),
        ("role PM", "role/", ("player", "mafia", "dead")),
        ("mafia thread", "t/mafia/", ("mafia", "host")),
        ("votes", "votes/", ("anonymous",)),
        ("activity", "activity/", ("player",)),
        ("host dashboard", "host/", ("host",)),
    ],
    "ended": [
        ("thread", "", ("anonymous", "host", "player", "mafia", "dead")),
        ("role PM", "role/", ("player",)),
        ("votes", "votes/", ("anonymous",)),
        ("activity", "activity/", ("anonymous",)),
        ("multi-ISO", "iso/?iso=1&iso=2", ("anonymous",)),
        ("archive", "archive/", ("anonymous", "host")),
        ("review", "review/", ("anonymous", "host")),
        ("review of a night", "review/?phase=2", ("anonymous",)),
        ("whispers", "whispers/", ("anonymous",)),
        ("host dashboard", "host/", ("host",)),
    ],
    "table day": [
        ("thread", "", ("anonymous", "speaker", "player", "host")),
        ("role PM", "role/", ("speaker",)),
        ("host dashboard", "host/", ("host",)),
    ],
}
# Pages outside a game: (page, URL, viewers). The simulation's URL is known at run time.
SITE_PAGES: list[tuple[str, str, tuple[str, ...]]] = [
    ("lobby", "/", ("anonymous", "host")),
    ("my games", "/my-games/", ("host",)),
    ("my agents", "/agents/", ("host",)),
    ("agent's page", "/agents/a11ybot/", ("anonymous", "host")),  # the host owns it
    ("league", "/league/", ("anonymous", "host")),
    ("log in", "/accounts/login/", ("anonymous",)),
    # The manual (mafia_site/help.py): the built pages where var/help holds them, else the
    # page saying how to build it.
    ("manual", "/help/", ("anonymous",)),
    ("manual page", "/help/hosts/hosting/", ("anonymous",)),
    ("sign up", "/accounts/signup/", ("anonymous",)),
    ("e-mail addresses", "/accounts/email/", ("host",)),
    ("change password", "/accounts/password/change/", ("host",)),
    ("reset password", "/accounts/password/reset/", ("anonymous",)),
    ("reset mail sent", "/accounts/password/reset/done/", ("anonymous",)),
    ("reset link not valid", "/accounts/password/reset/key/1-bad/", ("anonymous",)),
    ("verification link not valid", "/accounts/confirm-email/bad-key/", ("anonymous",)),
    ("new game", "/games/new/", ("host",)),
    ("new forum game form", "/games/new/?setup=forum-cop-nine", ("host",)),
    ("new table game form", "/games/new/?setup=classic-ten", ("host",)),
    ("setup", "/setups/forum-cop-nine/", ("anonymous", "host")),
    ("simulation", "simulation", ("host",)),
    ("not found", "/games/999999/", ("anonymous",)),
    ("notifications", "/notifications/", ("host",)),
    ("notification settings", "/notifications/settings/", ("host",)),
    ("my bookmarks", "/bookmarks/", ("host",)),
    ("leaderboard", "/leaderboard/forum/", ("anonymous",)),
    ("leaderboard, bad filter", "/leaderboard/forum/?side=nope", ("anonymous",)),
    ("player's page", "/players/host/", ("anonymous",)),
    ("setup statistics", "/setups/forum-cop-nine/stats/", ("anonymous",)),
    ("player statistics", "/players/host/stats/", ("anonymous",)),
    ("behaviour leaderboard", "/leaderboard/forum/behaviour/?sort=survival", ("anonymous",)),
    ("duplicate series", "/league/series/", ("anonymous", "host")),
    # Moderation (``moderation_state``: the host is a site moderator, with a report, a
    # sanction and its appeal, and a declared alternate waiting).
    ("report a player", f"/players/{OUTSIDER}/report/", ("host",)),
    ("moderators' queue", "/moderation/", ("host",)),
    ("moderation log", "/moderation/log/", ("host",)),
    ("moderation record", f"/moderation/people/{OUTSIDER}/", ("host",)),
    ("appeal page", "appeal", ("anonymous",)),
    ("declare an alternate", "/accounts/alt/", ("host",)),
    # The web app's offline page (notifications.pwa: what the service worker shows).
    ("offline page", "/offline/", ("anonymous",)),
]
CASES = [
    (phase, page, viewer)
    for phase, pages in GAME_PAGES.items()
    for page, _, viewers in pages
    for viewer in viewers
] + [("site", page, viewer) for page, _, viewers in SITE_PAGES for viewer in viewers]


@dataclass
class Audit:
    url: str
    violations: list[dict[str, Any]]  # at the desktop's width
    narrow: list[dict[str, Any]] = field(default_factory=list)  # at a phone's

    def __bool__(self) -> bool:
        """True if it found something at either width."""
        return bool(self.violations or self.narrow)


@dataclass
class Run:
    base_url: str
    env: dict[str, str]
    browser: Any
    contexts: dict[str, Any] = field(default_factory=dict)
    apis: dict[str, Any] = field(default_factory=dict)
    audits: dict[tuple[str, str, str], Audit] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    page: dict[str, Page] = field(default_factory=dict)
    played: set[str] = field(default_factory=set)

    def need(self, play: Callable[[Run], None]) -> None:
        """Play a game (or tour the site's pages) when the first case needs it: so each
        test's time holds at most one play, not the fixture's setup all three (287 s of its
        600 under the parallel suite on two cores)."""
        if play.__name__ in self.played:
            return
        self.played.add(play.__name__)
        try:
            play(self)
        except Exception as exc:
            self.errors.append(f"{play.__name__}: {type(exc).__name__}: {exc}")
        lines = [describe(*key, a) for key, a in self.audits.items() if a]
        (LOGS / "accessibility.txt").write_text("\n".join(lines + self.errors) + "\n")


def login(page: Page, name: str) -> None:
    story_module.log_in(page, name, PASSWORD)


WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # the narrowest phones in common use


def new_context(run: Run) -> Any:
    context = run.browser.new_context(base_url=run.base_url, viewport=WIDE)
    context.set_default_timeout(15_000)
    return context


def page_of(run: Run, name: str) -> Page:
    """One tab per person, reused for every page they look at; "anonymous" is logged out."""
    if name not in run.page:
        context = new_context(run)
        page = context.new_page()
        story_module.watch_console(page, f"a11y-{name}")
        if name != "anonymous":
            login(page, name)
        run.contexts[name] = context
        run.page[name] = page
    return run.page[name]


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it stands."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]})
    return [v for v in results.response["violations"] if v.get("impact") in BLOCKING]


def audited(page: Page) -> Audit:
    """axe at the desktop's width, then at a phone's on the same load (no second visit: the
    narrow layout is the stylesheet's, and the page's state stays what was audited)."""
    wide = axe_violations(page)
    page.set_viewport_size(PHONE)
    try:
        # Two frames: the page's resize observers (static/js/scroll-regions.js) have run.
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        return Audit(page.url, wide, axe_violations(page))
    finally:
        page.set_viewport_size(WIDE)


# The manual's screenshots (docs/img/), taken of these pages as audited, only when asked
# (MANUAL_SCREENSHOTS=1), so an ordinary run never rewrites the committed images.
MANUAL_SHOTS = {
    ("day", "thread", "player"): "game-thread.png",
    ("night", "role PM", "mafia"): "role-pm.png",
    ("day", "host dashboard", "host"): "host-dashboard.png",
    ("ended", "review", "anonymous"): "review.png",
}
MANUAL_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def audit(run: Run, key: tuple[str, str, str], person: str, url: str) -> None:
    page = page_of(run, person)
    attempts = 6
    for attempt in range(attempts):
        try:
            page.goto(url, wait_until="load")
            run.audits[key] = audited(page)
            if os.environ.get("MANUAL_SCREENSHOTS") == "1" and key in MANUAL_SHOTS:
                page.screenshot(path=str(MANUAL_IMG / MANUAL_SHOTS[key]))
            return
        except Exception as exc:  # one page that broke must not hide the others
            # live.js reloading the page (a change of access) under the navigation or the
            # audit is no fault of the page: audit it again, once the reloads have settled
            # (bots moving a game on can change access several times in a few seconds).
            if isinstance(exc, PlaywrightError) and attempt < attempts - 1:
                page.wait_for_timeout(500 * (attempt + 1))
                continue
            run.errors.append(f"{key}: {url}: {exc}")
            return


def describe(phase: str, page: str, viewer: str, a: Audit) -> str:
    lines = [f"{page} ({phase}) seen by {viewer} at {a.url}:"]
    for width, violations in ((WIDE["width"], a.violations), (PHONE["width"], a.narrow)):
        if violations:
            lines.append(f" {width} px wide:")
            lines += _described(violations)
    return "\n".join(lines)


def _described(violations: list[dict[str, Any]]) -> list[str]:
    lines = []
    for v in violations:
        targets = [
            ", ".join(n["target"]) if isinstance(n["target"], list) else str(n["target"])
            for n in v["nodes"]
        ]
        lines.append(f"  [{v['impact']}] {v['id']}: {v['help']}")
        for n, t in zip(v["nodes"][:10], targets[:10], strict=False):
            summary = (n.get("failureSummary") or "").replace("\n", " ")[:220]
            lines.append(f"      {t}  — {summary}")
        if len(targets) > 10:
            lines.append(f"      … and {len(targets) - 10} more")
    return lines


# -- the games ----------------------------------------------------------------------------
@dataclass
class Game:
    run: Run
    game_id: int = 0
    slots: dict[str, int] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    teams: dict[str, str] = field(default_factory=dict)
    cast: dict[str, str] = field(default_factory=dict)  # viewer kind -> username

    def call(self, name: str, method: str, suffix: str, data: dict | None = None) -> Any:
        api, path = self.run.apis[name], f"games/{self.game_id}/{suffix}"
        if method == "PUT":
            return api._call("PUT", path, data)
        return api.get(path) if method == "GET" else api.post(path, data)

    def read_roles(self) -> None:
        slots = self.call(HOST, "GET", "host/")["slots"]
        self.roles = {s["name"]: s["role"] for s in slots}
        self.teams = {s["name"]: s["alignment"] for s in slots}
        self.slots = {s["name"]: s["slot_id"] for s in slots}

    def audit_phase(self, phase: str) -> None:
        for page, suffix, viewers in GAME_PAGES[phase]:
            for viewer in viewers:
                person = {"anonymous": "anonymous", "user": OUTSIDER, "host": HOST}.get(
                    viewer
                ) or self.cast[viewer]
                url = f"/games/{self.game_id}/{suffix}"
                audit(self.run, (phase, page, viewer), person, url)


def new_game(run: Run, body: dict[str, Any], players: tuple[str, ...]) -> Game:
    game = Game(run)
    game.game_id = run.apis[HOST].post("games/", {"title": "Accessible game", **body})["id"]
    for name in players:
        game.call(name, "POST", "join/")
    return game


def forum_game(run: Run) -> None:
    """Sign-ups, a day with posts and votes, a night with actions, and the end."""
    game = new_game(
        run,
        {
            "ruleset": "forum",
            "role_list": [
                {"role": "goon", "count": 2},
                {"role": "cop"},
                {"role": "vanilla_townie", "count": 4},
            ],
            "vote_rule": "majority_hammer",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
            "min_posts_per_day": 1,
            "whispers": "private",
            "post_limit": 2,  # the reply box says how many posts are left today
            "last_wills": True,  # the role PM's will box; the dead player's posted will
        },
        PLAYERS[:7],
    )
    game.cast = {"player": PLAYERS[0]}
    game.audit_phase("sign-ups")

    game.call(HOST, "POST", "start/")
    game.read_roles()
    town = [n for n, r in game.roles.items() if r == "vanilla_townie"]
    mafia = [n for n, t in game.teams.items() if t == "mafia"]
    cop = next(n for n, r in game.roles.items() if r == "cop")
    game.cast = {"player": town[0], "mafia": mafia[0], "dead": town[1]}
    game.call(town[0], "PUT", "will/", {"text": "I was *town*."})
    game.call(town[1], "PUT", "will/", {"text": "Goodbye."})
    game.call(HOST, "POST", "host/modkill/", {"slot_id": game.slots[town[1]], "reason": "a11y"})
    game.call(
        town[0],
        "POST",
        "posts/",
        {
            "body": "Morning. [quote=Someone]Hi[/quote] [spoiler]secret[/spoiler] **Vote: "
            + town[2]
            + "**"
        },
    )
    game.call(mafia[0], "POST", "posts/", {"body": "**Vote: nobody-of-that-name**"})
    game.call(mafia[0], "POST", "vote/", {"target": game.slots[town[2]]})
    game.call(mafia[0], "POST", "posts/", {"body": "Us.", "thread": "mafia"})
    game.call(town[0], "POST", "whispers/", {"to": game.slots[cop], "body": "Just *us*."})
    game.call(HOST, "POST", "vote-counts/")
    game.audit_phase("day")  # the player's reply box: "1 of 2 posts left today."

    # Six alive: four votes hammer town[2]; the night follows.
    for name in (mafia[1], cop):
        game.call(name, "POST", "vote/", {"target": game.slots[town[2]]})
    check = {"ability": "investigate", "targets": [game.slots[mafia[0]]]}
    game.call(cop, "POST", "actions/", check)
    game.call(mafia[0], "POST", "actions/", {"ability": "kill", "targets": [game.slots[cop]]})
    game.audit_phase("night")

    # The cop dies: two mafia, two town: the mafia win at dawn.
    game.call(HOST, "POST", "host/cut/")
    deadline = time.monotonic() + 30
    while game.call(HOST, "GET", "")["status"] != "finished":
        assert time.monotonic() < deadline, "the forum game did not end"
        time.sleep(0.5)
    game.audit_phase("ended")


def table_game(run: Run) -> None:
    """A classic table's first speech."""
    game = new_game(
        run,
        {"setup": "classic-ten", "turn_length_seconds": 600, "vote_length_seconds": 600},
        PLAYERS,
    )
    game.call(HOST, "POST", "start/")
    game.read_roles()
    game.call(HOST, "POST", "host/cut/")  # night zero ends: day 1's speeches
    deadline = time.monotonic() + 30
    while (turn := game.call(HOST, "GET", "turn/"))["step"] != "speech":
        assert time.monotonic() < deadline, f"no speech: {turn}"
        time.sleep(0.5)
    speaker = turn["speaker"]["name"]
    other = next(n for n in PLAYERS if n != speaker)
    game.cast = {"speaker": speaker, "player": other}
    run.facts = {"table": game}  # type: ignore[attr-defined]
    game.audit_phase("table day")


def site_pages(run: Run) -> None:
    page = page_of(run, HOST)
    page.goto("/setups/forum-cop-nine/")
    page.fill("#simulate-form input[name=games]", "20")
    page.locator("#simulate-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/simulations/\d+/"))
    simulation = page.url
    with contextlib.suppress(AssertionError):  # audited done if it ends in time, else running
        expect(page.locator("body")).to_contain_text("done", timeout=20_000)
    known = {"simulation": simulation, "appeal": moderation_state(run)}
    for name, url, viewers in SITE_PAGES:
        for viewer in viewers:
            person = {"anonymous": "anonymous", "host": HOST}[viewer]
            audit(run, ("site", name, viewer), person, known.get(url, url))


def moderation_state(run: Run) -> str:
    """Make the host a site moderator with something in each part of the queue, and the
    owner of an agent; the URL of the appeal page (its signed link) of the sanction made."""
    code = (
        "from games.reads.people import user_called as u\n"
        "from games.reads.moderation import appeal_token\n"
        "from games.services import moderation as m\n"
        f"m.set_moderator(u({HOST!r}))\n"
        f"m.file_report(u({PLAYERS[1]!r}), reason='abuse', text='rude', player={OUTSIDER!r})\n"
        f"s = m.sanction(u({HOST!r}), u({OUTSIDER!r}), 'warn', reason='spam', note='Stop.')\n"
        "m.appeal(None, s.pk, text='Sorry.')\n"
        f"m.declare_alt(u({OUTSIDER!r}), {PLAYERS[9]!r})\n"
        # An agent of the host's, with its provenance (its page: the owner's form too).
        "from agents import services as a\n"
        f"a.register_agent(u({HOST!r}), 'a11ybot', model_name='gpt-5', model_version='1')\n"
        "print(appeal_token(s.pk))\n"
    )
    return f"/appeal/{django_shell(run.env, code).strip()}/"


# What plays each phase's pages (every other phase is the forum game's).
PLAYS: dict[str, Callable[[Run], None]] = {"site": site_pages, "table day": table_game}


@pytest.fixture(scope="module")
def a11y(e2e_stack: Any, browser: Any) -> Iterator[Run]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, *PLAYERS, OUTSIDER], PASSWORD)
    run = Run(base_url=e2e_stack.base_url, env=e2e_stack.env, browser=browser)
    for name in (HOST, *PLAYERS):
        run.apis[name] = bots.Api.login(e2e_stack.base_url, name, PASSWORD)
    yield run
    with chromium_watchdog():
        for context in run.contexts.values():
            with contextlib.suppress(Exception):
                context.close()


@pytest.mark.parametrize(("phase", "page", "viewer"), CASES)
def test_no_serious_violation(a11y: Run, phase: str, page: str, viewer: str) -> None:
    a11y.need(PLAYS.get(phase, forum_game))
    found = a11y.audits.get((phase, page, viewer))
    assert found is not None, f"{page} ({phase}) for {viewer} was not audited: {a11y.errors}"
    if found:
        pytest.fail("axe-core found:\n" + describe(phase, page, viewer, found), pytrace=False)


# -- the keyboard -------------------------------------------------------------------------
FOCUS_SHOWN = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "nothing has the focus";
  const s = getComputedStyle(el);
  const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1;
  const ring = s.boxShadow && s.boxShadow !== "none";
  return outline || ring ? "" : `no visible focus on ${el.outerHTML.slice(0, 120)}`;
}"""


def tab_to(page: Page, selector: str, *, limit: int = 120) -> None:
    """Press Tab until the element matching ``selector`` has the focus (never a click)."""
    for _ in range(limit):
        try:
            there = page.evaluate("(s) => !!document.activeElement?.matches(s)", selector)
        except PlaywrightError:  # live.js reloaded the page: start again from its top
            page.wait_for_load_state("load")
            continue
        if there:
            problem = page.evaluate(FOCUS_SHOWN)
            assert not problem, problem
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with Tab on {page.url}")


def keyboard_login(page: Page, name: str) -> None:
    page.goto("/accounts/login/")
    tab_to(page, "#id_username")
    page.keyboard.type(name)
    tab_to(page, "#id_password")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    story_module.signed_in(page, name)


def by_keyboard(run: Run, name: str) -> Page:
    context = new_context(run)
    run.contexts[f"keyboard-{name}"] = context
    page = context.new_page()
    story_module.watch_console(page, f"a11y-keyboard-{name}")
    keyboard_login(page, name)
    return page


def press_and_wait(page: Page, key: str, url_part: str) -> None:
    with page.expect_response(lambda r: r.request.method == "POST" and url_part in r.url):
        page.keyboard.press(key)
    page.wait_for_load_state("load")


def test_day_and_night_by_keyboard(a11y: Run) -> None:
    run = a11y
    game = new_game(
        run,
        {
            "ruleset": "forum",
            "role_list": [{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 5}],
            "vote_rule": "majority_hammer",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        PLAYERS[:7],
    )
    game.call(HOST, "POST", "start/")
    game.read_roles()
    me = next(n for n, t in game.teams.items() if t == "mafia")
    town = [n for n, t in game.teams.items() if t == "town"]
    page = by_keyboard(run, me)
    page.goto(f"/games/{game.game_id}/")

    # The vote count is announced as it changes; the countdown is read in words, never
    # announced every second.
    expect(page.locator("#vote-count")).to_have_attribute("aria-live", "polite")
    clock = page.locator("#vote-count time[data-countdown]")
    expect(clock).to_have_attribute("aria-live", "off")
    expect(clock.locator(".visually-hidden")).to_have_text(re.compile(r"^in about \d+ hours \("))

    # Post in the thread.
    tab_to(page, "#reply-body")
    page.keyboard.type("Typed without a mouse.")
    tab_to(page, "#reply button[type=submit]")
    press_and_wait(page, "Enter", "/post/")
    expect(page.locator("#posts")).to_contain_text("Typed without a mouse.")

    # Vote with Space on the vote button, then unvote with Enter.
    target = town[0]
    tab_to(page, f"#players button[data-vote='{game.slots[target]}']")
    press_and_wait(page, "Space", "/vote/")
    expect(page.locator("#vote-count .wagon .target")).to_have_text([target])
    tab_to(page, "#players button[data-unvote]")
    press_and_wait(page, "Enter", "/unvote/")
    expect(page.locator("#vote-count")).to_contain_text("No votes yet.")

    # The others hammer a townie (four of seven); the night starts.
    for name in [n for n in town if n != target][:4]:
        game.call(name, "POST", "vote/", {"target": game.slots[target]})
    page.goto(f"/games/{game.game_id}/")
    expect(page.locator("#phase-banner")).to_contain_text("Night 1")

    # The role PM by its link, the kill by the arrow keys, sent with Enter.
    tab_to(page, "#game-nav a[href$='/role/']")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/role/$"))
    select = "#action-kill select"
    tab_to(page, select)
    page.keyboard.press("ArrowDown")
    chosen = page.evaluate(
        "(s) => { const e = document.querySelector(s); return e.options[e.selectedIndex].text; }",
        select,
    )
    tab_to(page, "#action-kill button[type=submit]")
    press_and_wait(page, "Enter", "/role/")
    expect(page.locator("#action-kill")).to_contain_text("submitted")
    sent = game.call(me, "GET", "role/")
    assert any(chosen.strip() in str(a) for a in sent["my_actions"]), (chosen, sent["my_actions"])


def test_table_turn_by_keyboard(a11y: Run) -> None:
    """The classic table's speaker speaks and nominates with the keyboard alone."""
    a11y.need(table_game)
    game: Game | None = getattr(a11y, "facts", {}).get("table")
    assert game is not None, f"the table game was not set up: {a11y.errors}"
    speaker = game.cast["speaker"]
    page = by_keyboard(a11y, speaker)
    page.goto(f"/games/{game.game_id}/")
    expect(page.locator("#your-turn")).to_be_visible()
    tab_to(page, "#reply-body")
    page.keyboard.type(
        "I listened to everyone and I think the quiet ones deserve a closer look today."
    )
    tab_to(page, "#reply button[type=submit]")
    press_and_wait(page, "Enter", "/post/")
    tab_to(page, "#turn-nominate")
    page.keyboard.press("ArrowDown")
    tab_to(page, "#turn-panel form[action$='/nominate/'] button[type=submit]")
    press_and_wait(page, "Space", "/nominate/")
    turn = game.call(HOST, "GET", "turn/")
    assert any(n["nominator"]["name"] == speaker for n in turn["nominations"]), turn


def test_notifications_by_keyboard(a11y: Run) -> None:
    """The settings saved, the bell followed and a notification opened, with keys only."""
    page = by_keyboard(a11y, HOST)
    page.goto("/notifications/settings/")
    tab_to(page, "#id_reminder_hours")
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    tab_to(page, ".notification-settings button[type=submit]")
    press_and_wait(page, "Enter", "/notifications/settings/")
    expect(page.locator("#messages")).to_contain_text("settings are saved")
    expect(page.locator("#id_reminder_hours")).to_have_value("3")
    tab_to(page, "#bell")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/notifications/$"))
    if page.locator(".notification-list a").count():  # the host's "sign-ups are full"
        tab_to(page, ".notification-list a")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"/games/\d+/"))
