"""Who has a game's page open right now: no e-mail about a game the person is looking at.

The game socket (``games.live.consumers``) calls ``seen`` when it connects, on a ping
when its last call is ``REFRESH_SECONDS`` old (the page pings every 30 s) and when it
closes. Nothing counts sockets: a web process that
crashes leaves a row that simply grows old, and "open" is ``open`` *and* seen within
``OPEN_WINDOW``. A notification is also "seen on the site" when the person was on the game's
page at or after the moment it was written (``last_seen`` then), even if they left since.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from .models import GamePresence

log = logging.getLogger(__name__)

# Three missed pings (every 30 s) and a page counts as closed.
OPEN_WINDOW = timedelta(seconds=90)
# A page's pings refresh its row at most this often: every other ping, so the row is never
# more than 60 s old while the page is open, well inside ``OPEN_WINDOW``. (An upsert per
# ping was 9 % of the web processes' time at 250 games, on the sockets' database threads.)
REFRESH_SECONDS = 45.0


def seen(user_id: int, game_id: int, *, open: bool, now: datetime | None = None) -> bool:
    """Record that the person is (``open``) or was until now on the game's page; False if
    the database could not be written (bookkeeping: never an error for the socket)."""
    try:
        GamePresence.objects.bulk_create(
            [
                GamePresence(
                    user_id=user_id, game_id=game_id, last_seen=now or timezone.now(), open=open
                )
            ],
            update_conflicts=True,
            unique_fields=["user", "game"],
            update_fields=["last_seen", "open"],
        )
    except Exception:
        log.warning(
            "Could not record that user %s has game %s open", user_id, game_id, exc_info=True
        )
        return False
    return True


def last_seen(user_id: int, now: datetime) -> dict[int, tuple[datetime, bool]]:
    """game id -> (when the person was last on its page, whether it is open now)."""
    return {
        game_id: (at, is_open and at >= now - OPEN_WINDOW)
        for game_id, at, is_open in GamePresence.objects.filter(user_id=user_id).values_list(
            "game_id", "last_seen", "open"
        )
    }
