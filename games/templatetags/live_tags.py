"""Tags of the live layer for the game pages: the kind -> parts map and the viewer's
positions for ``static/js/live.js``. Apart from ``mafia_tags`` because they read the live
layer, which sits above the fragments that ``mafia_tags`` serves."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.simple_tag
def live_kinds() -> str:
    """The event-kind registry's kind -> page parts map, for ``live.js`` (as JSON)."""
    from django.utils.html import json_script

    from ..event_kinds import kinds_for_pages

    return json_script(kinds_for_pages(), "live-kinds")


@register.simple_tag(takes_context=True)
def live_positions(context: Any, game: Any) -> str:
    """The viewer's positions in their live feeds, for ``live.js`` to resume from.

    Pages never print the game-wide event seq: its jumps would count hidden events (night
    actions, private results) between public ones.
    """
    from ..live.numbering import page_positions

    request = context.get("request")
    # ``live_slots``: all the game's slots, read after its game (the thread page has them),
    # so the audiences need no further query.
    return page_positions(game, getattr(request, "user", None), context.get("live_slots"))
