"""The people of a short browser story (a variant's): their accounts, an API client each for
the host and the players, and a logged-in browser page each for those who watch.

Each story used to write this fixture out again; now it is one ``cast`` and one ``live``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .story import LIVE_MS, MARKER, open_as

bots = reference_bot()


@contextlib.contextmanager
def cast(
    e2e_stack: Any,
    browser: Any,
    *,
    password: str,
    host: str,
    players: Iterable[str],
    others: Iterable[str] = (),
    watching: Iterable[str],
    log: str,
) -> Iterator[dict[str, Any]]:
    """``{"apis": name -> API client (the host and the players), "pages": name -> page}``:
    every account made (the host, the players and ``others``, e.g. a spectator), and a
    logged-in page for each of ``watching``; the pages' contexts are closed after."""
    players = list(players)
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [host, *players, *others], password)
    apis = {n: bots.Api.login(e2e_stack.base_url, n, password) for n in [host, *players]}
    opened = {
        name: open_as(browser, e2e_stack.base_url, name, password, f"{log}-{name}")
        for name in watching
    }
    try:
        yield {"apis": apis, "pages": {name: page for name, (_, page) in opened.items()}}
    finally:
        with chromium_watchdog():
            for context, _ in opened.values():
                with contextlib.suppress(Exception):
                    context.close()


def live(page: Page) -> Page:
    """The page's socket is up (its bell says so): what arrives now arrives live."""
    expect(page.locator("#bell")).to_have_attribute("data-live", "1", timeout=LIVE_MS)
    page.evaluate(f"{MARKER} = true")
    return page
