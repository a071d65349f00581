"""What a person's bell shows: the frame ``games.live.inbox`` pushes to their sockets, and
the unread count in every page's header (``games.hooks.set_bell``)."""

from __future__ import annotations

from typing import Any

from .reads import desktop_on, is_desktop_kind, newest, open_link, unread_count


def bell_frame(user_id: int, fresh: bool) -> dict[str, Any]:
    """What the person's bell shows now; ``fresh``: sent because something changed (a page
    may then pop up the newest as a desktop notification), not on (re)connect."""
    top = newest(user_id)
    return {
        "type": "inbox",
        "unread": unread_count(user_id),
        "fresh": fresh,
        "desktop_on": desktop_on(user_id),
        "newest": None
        if top is None
        else {
            "id": top.pk,
            "kind": top.kind,
            "text": top.text,
            "link": open_link(top.pk),
            "desktop": is_desktop_kind(top.kind),
            "read": top.read_at is not None,
            "count": top.count,
        },
    }
