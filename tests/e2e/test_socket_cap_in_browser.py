"""A page over the live-socket cap says so, in a real browser (``mafia_site.socket_limits``).

The server takes the socket only to close it with 4429; live.js then shows a notice the
person can see ("Too many open live pages"), no "reconnecting" outage banner, and tries
again slowly: once a place is free (a tab closed elsewhere) the next try gets in and the
notice goes. The page's clock is Playwright's, so the minute between tries passes at once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import pytest
import websockets
from playwright.sync_api import expect

from tests.servers import ROOT, AsgiServer, LoopThread

from .conftest import chromium_watchdog, require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

CAP = 2  # anonymous pages per address


@pytest.fixture(scope="module")
def server(tmp_path_factory: Any) -> Any:
    require_chromium()
    env = {
        "DATABASE_URL": "sqlite:///" + str(tmp_path_factory.mktemp("db") / "db.sqlite3"),
        "REDIS_URL": "",
        "DEBUG": "1",  # static files from the source tree, as in tests/e2e
        "LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS": str(CAP),
    }
    for command in ("migrate", "demo"):
        subprocess.run(
            [sys.executable, "manage.py", command],
            cwd=ROOT,
            env={**os.environ, **env},
            check=True,
            capture_output=True,
            timeout=300,
        )
    server = AsgiServer(env, tmp_path_factory.mktemp("logs") / "asgi.log", lifespan="off")
    yield server
    server.stop()


def test_a_page_over_the_cap_says_so_and_gets_in_once_a_place_is_free(
    server: Any, browser: Any
) -> None:
    # The lane's own Chromium (tests/e2e/conftest.py): a second sync Playwright in the same
    # worker is refused ("Sync API inside the asyncio loop") once another module started one.
    loop = LoopThread()
    url = f"ws://127.0.0.1:{server.port}/ws/games/1/"  # the demo game

    async def open_socket() -> Any:
        ws = await websockets.connect(url, origin=server.url)
        await asyncio.wait_for(ws.recv(), 10)
        return ws

    held = [loop.run(open_socket()) for _ in range(CAP)]  # the address's other tabs
    try:
        with chromium_watchdog(120):
            context = browser.new_context()
            try:
                page = context.new_page()
                page.clock.install()
                page.add_init_script(
                    "document.addEventListener('live:status', e =>"
                    " document.documentElement.setAttribute('data-test-live', e.detail));"
                )
                page.goto(f"{server.url}/games/1/")
                notice = page.locator("#live-notices .live-notice", has_text="Too many open")
                expect(notice).to_be_visible(timeout=15_000)
                expect(notice).to_have_text(
                    "Too many open live pages: close some tabs; this page will not update "
                    "live (it tries again every minute or so)."
                )
                expect(page.locator("html[data-test-live='crowded']")).to_have_count(1)
                # Not an outage: no red "reconnecting" banner, however long it waits.
                page.clock.run_for(5_000)
                expect(page.locator("#outage-banner:not([hidden])")).to_have_count(0)
                # Refused again a minute later (still full): the notice stays, once.
                page.clock.run_for(95_000)
                page.wait_for_timeout(1_000)
                page.clock.run_for(3_000)
                expect(notice).to_have_count(1)

                loop.run(held.pop().close())  # a tab closed elsewhere
                page.wait_for_timeout(500)
                page.clock.run_for(95_000)  # the next try gets in ...
                expect(page.locator("html[data-test-live='live']")).to_have_count(1, timeout=10_000)
                page.wait_for_timeout(500)
                page.clock.run_for(3_000)  # ... and stays: the notice goes
                expect(notice).to_have_count(0, timeout=5_000)
            finally:
                context.close()
    finally:
        for ws in held:
            loop.run(ws.close())
        loop.close()
