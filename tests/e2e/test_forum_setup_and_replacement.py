"""Issue 19's forum-game items, in the browser.

* "Add a role row" on the create form: the new row's X-Shot and X-Vote start blank, so an
  added Vanilla Townie stays a Vanilla Townie (not "1-Shot 1-Vote Vanilla Townie").
* A replacement keeps history: after Zoë Smith replaces gus on day 2, the doctor's role PM
  still says they protected gus on night 1; the thread announces the replacement; gus,
  visiting the game, is told he was replaced and sees no role PM of the seat any more.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import chromium_watchdog, create_users, django_shell
from .story import log_in

pytestmark = pytest.mark.e2e

PASSWORD = "Forum-setup-19"
HOST = "fhost19"
PLAYERS = [f"fp19_{i}" for i in range(9)]


@pytest.fixture(scope="module")
def people(e2e_stack: Any, browser: Any) -> Iterator[Any]:
    create_users(e2e_stack.env, [HOST, *PLAYERS, "Zoë Smith"], PASSWORD)
    contexts: dict[str, Any] = {}

    def page_of(name: str) -> Any:
        if name not in contexts:
            context = browser.new_context(
                base_url=e2e_stack.base_url, viewport={"width": 1280, "height": 900}
            )
            context.set_default_timeout(15_000)
            page = context.new_page()
            log_in(page, name, PASSWORD)
            contexts[name] = context
        return contexts[name].pages[0]

    yield page_of
    with chromium_watchdog():
        for context in contexts.values():
            with contextlib.suppress(Exception):
                context.close()


def test_an_added_role_row_starts_blank(people: Any) -> None:
    page = people(HOST)
    page.goto("/games/new/")
    page.get_by_role("link", name="Forum vanilla").click()
    expect(page.locator("h1")).to_contain_text("Host a game")
    page.fill("#id_title", "E2E: an added role row")
    # Four vanilla townies in the setup's row, the fifth in a row added on the page.
    rows = page.locator("#role-rows .role-row")
    before = rows.count()
    for i in range(before):
        if page.locator(f"select[name='roles-{i}-role']").input_value() == "vanilla_townie":
            page.fill(f"input[name='roles-{i}-count']", "4")
    page.get_by_role("button", name="Add a role row").click()
    expect(rows).to_have_count(before + 1)
    page.select_option(f"select[name='roles-{before}-role']", "vanilla_townie")
    added = rows.nth(before)
    numbers = added.locator("input[type=number]")
    for n in range(numbers.count()):
        field = numbers.nth(n)
        name = field.get_attribute("name") or ""
        expected = "1" if name.endswith("-count") else ""
        assert field.input_value() == expected, f"{name} starts at {field.input_value()!r}"
    page.get_by_role("button", name="Open sign-ups").click()
    expect(page.locator("#messages")).to_contain_text("open for sign-ups")
    # The role list (the host's): no modifier on any entry, the added one included.
    role_list = page.locator(".role-list li")
    expect(role_list.first).to_be_visible()
    assert page.locator(".role-list li .badge").count() == 0, page.locator(
        ".role-list"
    ).inner_text()
    text = page.locator(".role-list").inner_text()
    assert "Shot" not in text and "shots" not in text and "vote" not in text.lower()


SETUP_GAME = """
import json
from django.contrib.auth import get_user_model
from games import services
from games.setups import SETUPS
U = get_user_model()
host = U.objects.get(username={host!r})
kwargs = SETUPS["forum-cop-doctor-nine"].game_kwargs()
kwargs.update(starts_with="day")
game = services.create_game(host, title="E2E: a replacement keeps history", seed=3, **kwargs)
for name in {players!r}:
    services.join_game(U.objects.get(username=name), game.pk)
services.start_game(host, game.pk)
slots = list(game.slots.select_related("user").order_by("seat"))
gus = next(s for s in slots if s.role == "vanilla_townie")
doctor = next(s for s in slots if s.role == "doctor")
services.submit_post(gus.user, game.pk, body="**Vote: " + doctor.user.username + "**")
services.cut_deadline_now(host, game.pk)
services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[gus.pk])
services.cut_deadline_now(host, game.pk)
services.replace_player(host, game.pk, gus.pk, U.objects.get(username="Zoë Smith"))
print("RESULT" + json.dumps({{"game": game.pk, "gus": gus.user.username,
                             "doctor": doctor.user.username}}))
"""


def _play_to_day_2(env: dict[str, str]) -> dict[str, Any]:
    code = SETUP_GAME.format(host=HOST, players=PLAYERS)
    out = django_shell(env, code)
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    return json.loads(line[len("RESULT") :])


def test_a_replacement_keeps_the_names_of_the_past(people: Any, e2e_stack: Any) -> None:
    facts = _play_to_day_2(e2e_stack.env)
    game, gus, doctor = facts["game"], facts["gus"], facts["doctor"]
    # The doctor's role PM: night 1's protection names gus, who held the seat then.
    page = people(doctor)
    page.goto(f"/games/{game}/role/")
    past = page.locator("#results")
    expect(past).to_contain_text("Your past actions")
    expect(past).to_contain_text(gus)
    expect(past).not_to_contain_text("Zoë Smith")
    # The thread announces the replacement.
    page.goto(f"/games/{game}/?page=last")
    expect(page.locator("#posts")).to_contain_text("Zoë Smith replaces " + gus + ".")
    # gus is told he was replaced, and has no role PM of the seat any more.
    old = people(gus)
    old.goto(f"/games/{game}/")
    expect(old.locator("#replaced-notice")).to_contain_text("Zoë Smith replaced you")
    expect(old.locator("#game-nav")).not_to_contain_text("Role PM")
    old.goto(f"/games/{game}/role/")
    expect(old.locator("#replaced-notice")).to_be_visible()
    assert not re.search(r"Vanilla Townie|Your results", old.locator("body").inner_text())
