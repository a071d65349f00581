"""The pages a side domain may add panels to draw them, in order, for each viewer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.http import HttpRequest
from django.test import Client
from django.utils.html import escape

from games import hooks, services
from games.models import Agent

pytestmark = pytest.mark.django_db


@pytest.fixture
def seen() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """A panel on every page that says what it was given; removed afterwards."""
    calls: list[tuple[str, dict[str, Any]]] = []
    added = []
    for page in hooks.PAGES:

        def panel(request: HttpRequest, _page: str = page, **context: Any) -> str:
            calls.append((_page, context))
            shown = ",".join(f"{k}={context[k]}" for k in sorted(context))
            return f'<section id="test-panel">{escape(_page)}: {escape(shown)}</section>'

        hooks.register_panel(page, panel)
        added.append((page, panel))
    yield calls
    for page, panel in added:
        hooks._panels[page].remove(panel)


def test_each_page_draws_its_panels(
    client: Client, seen: list[tuple[str, dict[str, Any]]], django_user_model: Any
) -> None:
    person = django_user_model.objects.create_user("quinn", password="pw-Quinn-9x")
    agent_user = django_user_model.objects.create_user("botty", password="pw-Botty-9x")
    Agent.objects.create(user=agent_user, owner=person)
    for url, expected in [
        ("/players/quinn/", "player: name=quinn"),
        ("/agents/botty/", "agent: agent="),
        ("/setups/classic-ten/", "setup: ruleset=classic,slug=classic-ten"),
        ("/leaderboard/classic/", "leaderboard: ruleset=classic"),
        ("/league/", "league: "),
    ]:
        page = client.get(url).content.decode()
        assert f'<section id="test-panel">{expected}' in page, url
    assert [page for page, _ in seen] == ["player", "agent", "setup", "leaderboard", "league"]


def test_an_empty_panel_is_left_out_and_a_panel_counts_once() -> None:
    def empty(request: HttpRequest, **context: Any) -> str:
        return "  "

    hooks.register_panel("setup", empty)
    hooks.register_panel("setup", empty)
    try:
        assert hooks._panels["setup"].count(empty) == 1
        assert hooks.panels("setup", HttpRequest(), slug="", ruleset="classic") == []
    finally:
        hooks._panels["setup"].remove(empty)


def test_a_page_that_takes_no_panels_is_refused() -> None:
    with pytest.raises(ValueError, match="No page 'thread' takes panels"):
        hooks.register_panel("thread", lambda request, **context: "")


def test_a_games_end_is_told_to_its_listeners_after_the_commit(
    make_game: Any, host: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """``on_game_finished``: each listener hears the game's id once its end commits; one
    that fails is logged and neither the others nor the game suffer."""
    heard: list[int] = []

    def failing(game_id: int) -> None:
        raise RuntimeError("a side domain's bug")

    hooks.on_game_finished(failing)
    hooks.on_game_finished(heard.append)
    hooks.on_game_finished(heard.append)  # counted once
    try:
        game = make_game("forum-vanilla")
        goons = list(game.slots.filter(alignment="mafia"))
        with django_capture_on_commit_callbacks(execute=False) as pending:
            services.modkill(host, game.pk, goons[0].pk)
        assert heard == []  # the game goes on: nobody is told
        with django_capture_on_commit_callbacks(execute=False) as pending:
            services.modkill(host, game.pk, goons[1].pk)
            assert heard == []  # not inside the transaction that ends it
        for callback in pending:
            callback()
        game.refresh_from_db()
        assert game.is_finished
        assert heard == [game.pk]
    finally:
        hooks._finished.remove(failing)
        hooks._finished.remove(heard.append)
