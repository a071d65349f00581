"""The host's dashboard on a phone (390 px wide): nothing wider than the screen, and the
replacement queue, Replace and Post-as-host reachable by scrolling the page itself (no
sidebar with a scroll of its own). Issue 19, item 13."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import chromium_watchdog, create_users, django_shell
from tests.e2e.story import log_in

pytestmark = pytest.mark.timeout(300)
PASSWORD = "a-long-pass-123"
HOST = "phonehost"
PLAYERS = [f"phone{i}" for i in range(1, 11)]


def start_game(env: dict[str, str]) -> int:
    """A running Vig 10er with a long player name and a modkill with a long reason: the
    dashboard's roles table, forms and records all hold something."""
    code = (
        "from django.contrib.auth import get_user_model\n"
        "from games import services\n"
        "from games.setups import SETUPS\n"
        "U = get_user_model()\n"
        f"host = U.objects.get(username={HOST!r})\n"
        "kw = SETUPS['forum-vig-ten'].game_kwargs()\n"
        "g = services.create_game(host, title='A phone-sized game with a rather long title',"
        " seed=3, **kw)\n"
        f"for n in {PLAYERS!r}:\n"
        "    services.join_game(U.objects.get(username=n), g.pk)\n"
        "services.start_game(host, g.pk)\n"
        "s = g.slots.order_by('seat').first()\n"
        "services.modkill(host, g.pk, s.pk, reason='A long reason for a modkill that wraps')\n"
        "print('GAME', g.pk)\n"
    )
    out = django_shell(env, code)
    return int(out.split("GAME")[-1].split()[0])


@pytest.fixture
def phone(e2e_stack: Any, browser: Any) -> Iterator[Any]:
    create_users(e2e_stack.env, [HOST, *PLAYERS], PASSWORD)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, HOST, PASSWORD, e2e_stack.base_url)
    yield page
    with chromium_watchdog(), contextlib.suppress(Exception):
        context.close()


def wider_than(page: Any, width: int) -> list[str]:
    """The elements that reach past ``width`` px (for the failure message)."""
    return page.evaluate(
        """(width) => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > width + 0.5)
            .slice(0, 15)
            .map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className + ' '
                 + Math.round(e.getBoundingClientRect().right))""",
        width,
    )


def test_the_host_dashboard_fits_a_phone(e2e_stack: Any, phone: Any) -> None:
    game_id = start_game(e2e_stack.env)
    phone.goto(f"{e2e_stack.base_url}/games/{game_id}/host/")
    phone.wait_for_selector("#host-roles")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, (width, wider_than(phone, 390))
    # The sidebar scrolls with the page: no scroll of its own hides its last forms.
    sidebar = phone.locator(".game-sidebar")
    box = sidebar.evaluate(
        "e => ({scroll: e.scrollHeight, client: e.clientHeight,"
        " position: getComputedStyle(e).position})"
    )
    assert box["position"] != "sticky" and box["scroll"] <= box["client"] + 1, box
    for part in ("#replacement-queue", "#host-replace", "#host-post"):
        phone.locator(part).scroll_into_view_if_needed()
        assert phone.locator(part).is_visible(), part


def test_the_host_dashboard_sidebar_scrolls_with_the_page_on_a_wide_screen(
    e2e_stack: Any, browser: Any
) -> None:
    create_users(e2e_stack.env, [HOST, *PLAYERS], PASSWORD)
    game_id = start_game(e2e_stack.env)
    context = browser.new_context(viewport={"width": 1280, "height": 700})
    try:
        page = context.new_page()
        log_in(page, HOST, PASSWORD, e2e_stack.base_url)
        page.goto(f"{e2e_stack.base_url}/games/{game_id}/host/")
        sidebar = page.locator(".game-sidebar")
        box = sidebar.evaluate(
            "e => ({scroll: e.scrollHeight, client: e.clientHeight,"
            " overflow: getComputedStyle(e).overflowY})"
        )
        # Its last forms are reached by scrolling the page, not a box of its own.
        assert box["scroll"] <= box["client"] + 1, box
    finally:
        with chromium_watchdog(), contextlib.suppress(Exception):
            context.close()
