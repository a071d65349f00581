"""What the games core lets side domains add to its pages, without importing them.

A side domain (analytics, league) registers a panel for a page in its ``AppConfig.ready``;
the core's view asks for the page's panels and its template draws them in order. A panel
is HTML the side domain renders itself from public records: it must show nothing the page's
viewer may not see (the leak scanner reads every page, panels included).

Pages and what their panels are given (keyword arguments):

- ``"setup"``: ``slug`` (the built-in setup's slug, ``""`` for a saved one), ``ruleset``;
- ``"player"``: ``name`` (the username of the person or agent whose page it is);
- ``"agent"``: ``agent`` (a ``games.models.Agent``);
- ``"review"``: ``game`` (a finished ``games.models.Game``);
- ``"leaderboard"``: ``ruleset``;
- ``"league"``: nothing (the league page, ``/league/``).

A side domain may also follow games' ends (``on_game_finished``): its listener is called
with the game's id after the transaction that ended the game commits, never inside it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.utils.safestring import SafeString

Panel = Callable[..., SafeString | str]
PAGES = ("setup", "player", "agent", "review", "leaderboard", "league")
_panels: dict[str, list[Panel]] = {page: [] for page in PAGES}
GameFinished = Callable[[int], None]
_finished: list[GameFinished] = []

log = logging.getLogger(__name__)


def register_panel(page: str, panel: Panel) -> None:
    """Add ``panel(request, **context)`` to ``page``; registering the same one again is a
    no-op (``ready`` may run twice in tests)."""
    if page not in _panels:
        raise ValueError(f"No page {page!r} takes panels; the pages are {', '.join(PAGES)}.")
    if panel not in _panels[page]:
        _panels[page].append(panel)


def panels(page: str, request: HttpRequest, **context: Any) -> list[SafeString]:
    """The page's panels drawn for this request, empty ones left out."""
    drawn = (SafeString(panel(request, **context)) for panel in _panels[page])
    return [html for html in drawn if html.strip()]


def on_game_finished(listener: GameFinished) -> None:
    """Call ``listener(game_id)`` after each game's end commits; registering the same one
    again is a no-op."""
    if listener not in _finished:
        _finished.append(listener)


def game_finished(game_id: int) -> None:
    """Tell the listeners that ``game_id`` ended (``services.phases.end_with``, on commit).
    A listener's fault is logged and never reaches the others, nor the ended game."""
    for listener in list(_finished):
        try:
            listener(game_id)
        except Exception:
            log.exception("game %s: a game-finished listener failed", game_id)
