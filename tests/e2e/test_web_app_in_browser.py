"""The installable web app in a real Chromium at a phone's width: the manifest is linked,
the service worker takes the whole site, a page opened without a network shows the offline
page, and the worker keeps nothing but that page and its stylesheet and icon (the game
pages always come from the network). The bell is an SVG with its accessible name, and the
settings page offers push for this device. Issue 35, part 3."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import chromium_watchdog, create_users
from tests.e2e.story import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
PASSWORD = "a-long-pass-123"
PERSON = "pocketplayer"
KEPT = ["/offline/", "/static/css/site.css", "/static/img/icon-192.png"]


@pytest.fixture
def phone(e2e_stack: Any, browser: Any) -> Iterator[Any]:
    create_users(e2e_stack.env, [PERSON], PASSWORD)
    context = browser.new_context(
        base_url=e2e_stack.base_url, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    log_in(page, PERSON, PASSWORD)
    yield page
    with chromium_watchdog(), contextlib.suppress(Exception):
        context.close()


def test_the_web_app_installs_works_offline_and_caches_no_game_page(phone: Any) -> None:
    page = phone
    page.goto("/")
    manifest = page.evaluate(
        "fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json())"
    )
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    served = page.request.get(page.locator("link[rel=manifest]").get_attribute("href") or "")
    assert served.headers["content-type"].startswith("application/json")
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == page.url.split("/", 3)[0] + "//" + page.url.split("/", 3)[2] + "/"
    page.reload()  # now a page the worker controls
    assert page.evaluate("!!navigator.serviceWorker.controller")

    # The bell: an SVG, named for screen readers by its text.
    bell = page.get_by_role("link", name=re.compile(r"^Notifications, \d+ unread$"))
    expect(bell).to_be_visible()
    assert bell.locator("svg").count() == 1 and "\U0001f514" not in bell.inner_text()

    # Pages visited are not kept: only the offline page and what it needs.
    page.goto("/notifications/")
    kept = page.evaluate(
        "caches.keys().then(names => Promise.all(names.map(n => caches.open(n)"
        ".then(c => c.keys())))).then(all => all.flat().map(r => new URL(r.url).pathname))"
    )
    assert sorted(kept) == sorted(KEPT)

    page.context.set_offline(True)
    try:
        page.goto("/games/new/")
        expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
        assert page.url.endswith("/games/new/")  # shown in the page's place
    finally:
        page.context.set_offline(False)
    page.reload()
    expect(page.get_by_role("heading", name="You are offline")).to_have_count(0)

    # The settings page offers push on this device (the keys are the embedded run's own).
    page.goto("/notifications/settings/")
    box = page.locator("[data-push]")
    assert len(box.get_attribute("data-push-key") or "") > 80
    expect(page.locator("[data-push-status]")).to_have_text(
        "This browser does not get push notifications from this site."
    )
    (button,) = page.get_by_role("button", name=re.compile("push notifications")).all()
    expect(button).to_have_text("Turn on push notifications on this device")
    expect(button).to_be_enabled()
