"""Where the channel layer lives, read from the settings.

Its own module because both the publishing side (``events``) and the hub (``live``) need
it, and ``events`` already imports ``live``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def layer_config() -> dict[str, Any]:
    return settings.CHANNEL_LAYERS.get("default", {})


def layer_redis_url() -> str | None:
    """The Redis the channel layer uses (its first host), or None for the in-memory layer."""
    config = layer_config()
    if not config.get("BACKEND", "").startswith("channels_redis"):
        return None
    host = config.get("CONFIG", {}).get("hosts", ["redis://127.0.0.1:6379/0"])[0]
    return host if isinstance(host, str) else host.get("address")
