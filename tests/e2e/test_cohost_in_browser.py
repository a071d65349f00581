"""A co-host in the browser (issue 33): the host adds a co-host on the dashboard; the
co-host's open thread page gains the host's dashboard link live (its access changed: the
page reloads itself), and the co-host ends the day from the dashboard while the host only
watches; the host's page follows to the night."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import chromium_watchdog, create_users, django_shell
from .story import log_in

pytestmark = pytest.mark.e2e

PASSWORD = "Co-host-33"
HOST = "chost33"
COHOST = "cohelper33"
PLAYERS = [f"cp33_{i}" for i in range(7)]

SETUP_GAME = """
import json
from django.contrib.auth import get_user_model
from games import services
from games.setups import SETUPS
U = get_user_model()
host = U.objects.get(username={host!r})
kwargs = SETUPS["forum-vanilla"].game_kwargs()
kwargs.update(starts_with="day")
game = services.create_game(host, title="E2E: a co-host ends the day", seed=3, **kwargs)
for name in {players!r}:
    services.join_game(U.objects.get(username=name), game.pk)
services.start_game(host, game.pk)
print("RESULT" + json.dumps({{"game": game.pk}}))
"""


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[Any]:
    create_users(e2e_stack.env, [HOST, COHOST, *PLAYERS], PASSWORD)
    contexts: dict[str, Any] = {}

    def page_of(name: str) -> Any:
        if name not in contexts:
            context = browser.new_context(
                base_url=e2e_stack.base_url, viewport={"width": 1280, "height": 900}
            )
            context.set_default_timeout(15_000)
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())  # "End the phase now?"
            log_in(page, name, PASSWORD)
            contexts[name] = context
        return contexts[name].pages[0]

    yield page_of
    with chromium_watchdog():
        for context in contexts.values():
            with contextlib.suppress(Exception):
                context.close()


def test_the_host_adds_a_cohost_who_ends_the_day(people: Any, e2e_stack: Any) -> None:
    out = django_shell(e2e_stack.env, SETUP_GAME.format(host=HOST, players=PLAYERS))
    game = json.loads(next(x for x in out.splitlines() if x.startswith("RESULT"))[6:])["game"]
    helper = people(COHOST)
    frames: list[Any] = []
    helper.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    helper.goto(f"/games/{game}/")
    for _ in range(150):  # its first frame (hello): the socket has joined the game
        if frames:
            break
        helper.wait_for_timeout(100)
    assert frames, "the page's socket never spoke"
    expect(helper.locator("#phase-banner")).to_contain_text("Day 1")
    nav = helper.locator("#game-nav")
    expect(nav.get_by_role("link", name="Host dashboard")).to_have_count(0)

    helper.evaluate("window.beforeCohost = true")  # gone once the page has reloaded
    host = people(HOST)
    host.goto(f"/games/{game}/host/")
    hosts = host.locator("#host-cohosts")
    hosts.get_by_label("User name").fill(COHOST)
    hosts.get_by_label("As").select_option("cohost")
    hosts.get_by_role("button", name="Add").click()
    expect(host.locator("#messages")).to_contain_text(f"{COHOST} is now a co-host")
    expect(host.locator(f"#host-cohosts [data-cohost='{COHOST}']")).to_be_visible()

    # The co-host's open page learns it on its socket: the dashboard link appears, and the
    # nav names them beside the host.
    expect(nav.get_by_role("link", name="Host dashboard")).to_be_visible(timeout=20_000)
    expect(helper.locator("#game-nav")).to_contain_text(f"{COHOST} (co-host)")
    helper.wait_for_function("() => window.beforeCohost === undefined", timeout=20_000)

    helper.locator("#game-nav").get_by_role("link", name="Host dashboard").click()
    expect(helper.locator("h2", has_text="Players and roles")).to_be_visible()
    # Only the game's host chooses co-hosts: the co-host's dashboard has no such form.
    expect(helper.locator("#cohost-add")).to_have_count(0)
    expect(helper.locator("#hand-over")).to_have_count(0)
    helper.get_by_role("button", name="End phase now").click()
    expect(helper.locator("#messages")).to_contain_text("The phase was ended now.")
    expect(helper.locator("#phase-banner")).to_contain_text("Night 1")

    # The host, who did nothing, sees the night come on their open dashboard.
    expect(host.locator("#phase-banner")).to_contain_text("Night 1", timeout=20_000)
