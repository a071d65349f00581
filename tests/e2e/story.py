"""People in browsers: the helpers the end-to-end story uses to act and look like a person.

Each person has their own browser context (own cookies, own session) and a main page
(the game thread for players and the spectator, the dashboard for the host) that stays open
and is never reloaded unless the story says so: what changes on it must arrive live.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

PASSWORD = "Red-Herring-e2e-42"
HOST = "hostess"
PLAYERS = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"]
# The window a spectator's vote count has to redraw in, after the vote is on the server.
LIVE_WITHIN_MS = 1_000
# Generous bound for "arrives live" where the issue sets no figure (posts, phase changes).
LIVE_MS = 5_000
# Where every open page reloads at once (the game starts, or ends and everything becomes
# public), each reload is a whole page the server renders while the others wait: under the
# parallel suite's load on two cores, eight of them have taken more than LIVE_MS.
RELOADS_MS = 20_000
# A person's own page load right after such a moment waits behind those reloads (and the
# sockets' reconnects and replays): in CI's parallel run, two loads took more than 15 s.
NAVIGATION_MS = 40_000
MARKER = "window.__e2eNotReloaded"


@dataclass
class Person:
    name: str
    context: Any
    page: Page
    dialogs: list[str]

    def new_page(self) -> Page:
        page = self.context.new_page()
        watch_dialogs(page, self.dialogs)
        watch_console(page, self.name)
        return page


BROWSER_LOG: Any = None  # set by the harness: a directory for each person's console log


def watch_console(page: Page, name: str) -> None:
    """Keep the page's console, script errors and websocket frames for whoever debugs."""
    if BROWSER_LOG is None:
        return
    path = BROWSER_LOG / f"browser-{name}.log"

    def write(line: str) -> None:
        with path.open("a") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {line[:500]}\n")

    page.on("console", lambda m: write(f"console.{m.type} {page.url}: {m.text}"))
    page.on("pageerror", lambda e: write(f"pageerror {page.url}: {e}"))

    def on_ws(ws: Any) -> None:
        write(f"ws open {ws.url}")
        ws.on("framereceived", lambda payload: write(f"ws <- {payload}"))
        ws.on("close", lambda _ws: write(f"ws closed {ws.url}"))

    page.on("websocket", on_ws)


def watch_dialogs(page: Page, dialogs: list[str]) -> None:
    """Any alert/confirm that opens is recorded (an XSS payload that ran) and dismissed."""

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)


@dataclass
class Story:
    """One game played through by the test functions in order; each records its step."""

    base_url: str
    browser: Any
    shot: Any
    people: dict[str, Person] = field(default_factory=dict)
    game_url: str = ""
    roles: dict[str, str] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    dialogs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    # -- bookkeeping ----------------------------------------------------------------------
    def need(self, *steps: str) -> None:
        self.problems = []  # a chapter that stopped early must not blame the next one
        missing = [s for s in steps if s not in self.done]
        if missing:
            raise AssertionError(
                f"an earlier step of the story did not complete: {', '.join(missing)}"
            )

    @contextmanager
    def soft(self, what: str) -> Iterator[None]:
        """Check something without stopping the story; the test fails at its end."""
        try:
            yield
        except AssertionError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            self.problems.append(f"{what}: {first}")

    def finish(self, step: str) -> None:
        problems, self.problems = self.problems, []
        self.done.add(step)  # the game itself moved on: later steps can go ahead
        if problems:
            raise AssertionError(f"{step}: " + " | ".join(problems))

    # -- people ---------------------------------------------------------------------------
    def person(self, name: str, *, sign_up: bool = True, next_url: str = "") -> Person:
        context = self.browser.new_context(
            base_url=self.base_url, viewport={"width": 1280, "height": 900}
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        person = Person(name, context, page, self.dialogs)
        watch_dialogs(page, self.dialogs)
        watch_console(page, name)
        if sign_up:
            page.goto("/accounts/signup/" + (f"?next={next_url}" if next_url else ""))
            page.fill("#id_username", name)
            page.fill("#id_password1", PASSWORD)
            page.fill("#id_password2", PASSWORD)
            page.get_by_role("button", name="Create account").click()
            expect(page.locator(".site-nav .who")).to_have_text(name)
        self.people[name] = person
        return person

    def player(self, name: str) -> Person:
        return self.people[name]

    @property
    def host(self) -> Person:
        return self.people[HOST]

    @property
    def spectator(self) -> Person:
        return self.people["spectator"]

    def url(self, suffix: str = "") -> str:
        return self.game_url + suffix

    def by_role(self, role: str) -> list[str]:
        return [name for name in PLAYERS if self.roles.get(name) == role]

    def main_pages(self) -> dict[str, Page]:
        return {name: person.page for name, person in self.people.items()}

    def mark_pages(self, names: list[str] | None = None) -> None:
        """Put a marker in the pages' memory: it survives only if the page is not reloaded."""
        for name, page in self.main_pages().items():
            if names is None or name in names:
                page.evaluate(f"{MARKER} = true")

    def wait_for_phase(self, text: str, timeout_ms: int) -> None:
        """Wait for the server to be in a phase, reloading a fresh page (not live)."""
        page = self.spectator.new_page()
        deadline = time.monotonic() + timeout_ms / 1000
        try:
            while True:
                goto(page, self.url())
                if text in banner(page).inner_text():
                    return
                if time.monotonic() > deadline:
                    raise AssertionError(f"the game did not reach {text!r} in {timeout_ms} ms")
                page.wait_for_timeout(1_000)
        finally:
            page.close()

    def not_reloaded(self, page: Page) -> bool:
        return bool(page.evaluate(f"Boolean({MARKER})"))


# -- what a person does -----------------------------------------------------------------
@contextmanager
def pending_requests(page: Page) -> Iterator[dict[str, float]]:
    """The page's requests not yet answered (URL -> seconds since sent), for a load that
    times out to say what it waited for: the page itself, a script, a stylesheet."""
    started: dict[Any, float] = {}
    pending: dict[str, float] = {}

    def sent(request: Any) -> None:
        started[request] = time.monotonic()

    def done(request: Any) -> None:
        started.pop(request, None)

    page.on("request", sent)
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    try:
        yield pending
    finally:
        now = time.monotonic()
        pending.update({r.url: round(now - t, 1) for r, t in started.items()})
        page.remove_listener("request", sent)
        page.remove_listener("requestfinished", done)
        page.remove_listener("requestfailed", done)


def goto(page: Page, url: str) -> Any:
    """Open a URL like a person would; a live reload racing the click is simply redone
    (live.js reloads a page whose access changed, e.g. when the game starts), and so is a
    load that waited for nothing: once in CI's loaded run the browser sat 40 s on a
    navigation with no request outstanding (the server had answered everything), where a
    person would press reload. A load still waiting for the server fails, saying for what."""
    for attempt in range(4):
        try:
            with pending_requests(page) as pending:
                return page.goto(url, timeout=NAVIGATION_MS)
        except PlaywrightError as exc:
            if isinstance(exc, PlaywrightTimeout):
                if pending or attempt == 3:
                    raise AssertionError(
                        f"{url} did not load; still waiting for {pending}"
                    ) from exc
                continue
            raced = "interrupted by another navigation" in str(exc) or "ERR_ABORTED" in str(exc)
            if not raced or attempt == 3:
                raise
            page.wait_for_load_state("load")
    return None


def post_reply(page: Page, body: str, *, append: bool = False) -> None:
    box = page.locator("#reply-body")
    if append:
        box.press("End")
        box.type(body)
    else:
        box.fill(body)
    with page.expect_response(lambda r: r.request.method == "POST" and "/post/" in r.url):
        page.locator("#reply button[type=submit]").click()
    page.wait_for_load_state("domcontentloaded")


def click_vote(page: Page, target: str) -> None:
    row = page.locator("#players li", has=page.locator(".name", has_text=re.compile(f"^{target}$")))
    with page.expect_response(lambda r: r.request.method == "POST" and "/vote/" in r.url):
        row.get_by_role("button", name="Vote").click()
    page.wait_for_load_state("domcontentloaded")


def wagon(page: Page, target: str) -> Any:
    return page.locator(
        "#vote-count li.wagon", has=page.locator(".target", has_text=re.compile(f"^{target}$"))
    )


def banner(page: Page) -> Any:
    return page.locator("#phase-banner")


def messages(page: Page) -> Any:
    return page.locator("#messages")


def visible_text(page: Page) -> str:
    return page.locator("body").inner_text()


def assert_hidden(page: Page, pattern: re.Pattern[str], what: str, dump_to: Any) -> None:
    """The page's visible text must not match; on failure its HTML is kept for the owner."""
    text = visible_text(page)
    found = pattern.search(text)
    if found:
        path = dump_to / f"leak-{re.sub(r'[^a-z0-9]+', '-', what.lower())}.html"
        path.write_text(page.content())
        start = max(found.start() - 120, 0)
        raise AssertionError(
            f"{what}: {found.group(0)!r} is visible at {page.url}: "
            f"...{text[start : found.end() + 60]!r}... (page saved to {path})"
        )


def role_words(role: str) -> re.Pattern[str]:
    """A role named as a word: ``vanilla_townie`` also as "vanilla townie"."""
    spaced = re.escape(role).replace("_", "[ _]")
    return re.compile(rf"\b{spaced}\b", re.IGNORECASE)


class Window:
    """One time window shared by several checks: the first may wait it out, the rest only
    get what is left (pages updated by the same push should all be right by then)."""

    def __init__(self, ms: int) -> None:
        self.end = time.monotonic() + ms / 1000

    def left(self) -> int:
        return max(int((self.end - time.monotonic()) * 1000), 200)


def elapsed_ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def open_as(browser: Any, base_url: str, name: str, password: str, log: str) -> tuple[Any, Page]:
    """A new browser context and page for ``name`` (logged in unless ``password`` is
    empty), with its dialogs and console watched under ``log``."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    watch_dialogs(page, [])
    watch_console(page, log)
    if password:
        log_in(page, name, password)
    return context, page


def log_in(page: Page, name: str, password: str, base_url: str = "") -> None:
    """Sign ``name`` in through the log-in form, as a person does (``base_url`` for a
    context opened without one)."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()
    signed_in(page, name)


def signed_in(page: Page, name: str) -> None:
    """The page after a log-in names its person. A log-in is a whole page load (the form's
    POST, its redirect, the page): under the parallel suite's load on two cores one has
    taken more than the 5 s a live check gets."""
    expect(page.locator(".site-nav .who")).to_have_text(name, timeout=RELOADS_MS)
