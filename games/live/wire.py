"""What goes over the wire: frame text, group names, tuning knobs, control messages."""

from __future__ import annotations

import json
import os
from typing import Any

from django.conf import settings
from django.utils import timezone

# No client holds a number this high; larger ones are refused before they reach SQL.
MAX_POSITION = 2**31


def group_name(game_id: int, audience: str) -> str:
    """The channel-layer group of one audience of one game (group names allow no colon).
    No language in it: a group carries the one item of each event, and each socket has it
    rendered in its own language (``localize``); routing never depends on the language."""
    return f"game-{game_id}.{audience.replace(':', '-')}"


def setting(name: str, default: Any) -> Any:
    """A LIVE_* tuning knob: Django settings first, then the environment."""
    return getattr(settings, name, os.environ.get(name, default))


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def layer_state(ok: bool) -> dict[str, Any]:
    """The control message telling a page whether live updates can reach it."""
    return {"type": "live", "state": "live" if ok else "paused"}


def server_time() -> str:
    return timezone.now().isoformat()
