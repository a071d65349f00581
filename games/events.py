"""Pushing game events to live viewers.

``services`` appends ``GameEvent`` rows inside each transaction and calls
``publish_events(game_id, from_seq)`` on commit. The live layer replaces the body of
``publish_events`` to fan the events out over the channel layer; until then it is a no-op.
"""

from __future__ import annotations


def publish_events(game_id: int, from_seq: int) -> None:
    """Send the game's events with ``seq >= from_seq`` to connected viewers (stub)."""
    return None
