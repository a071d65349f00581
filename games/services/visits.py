"""How far a person has read a thread: one upsert when they open it, never in the way.

A visit is not game state (no lock, no event): it only feeds "my games"' unread counts, so
it is written outside any game transaction, and a failure to write it is logged and
forgotten rather than failing the page that was being read.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from ..models import ThreadVisit

log = logging.getLogger(__name__)

# One statement, whatever was there: a page further back never lowers the mark. A CASE
# rather than GREATEST(), which SQLite (the embedded run's database) does not have: there
# every visit failed and "my games" never marked a thread read.
_TABLE = ThreadVisit._meta.db_table
_UPSERT = f"""
INSERT INTO {_TABLE} (user_id, game_id, thread, last_post_number, visited_at)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (user_id, game_id, thread) DO UPDATE
SET last_post_number = CASE
        WHEN EXCLUDED.last_post_number > {_TABLE}.last_post_number
        THEN EXCLUDED.last_post_number
        ELSE {_TABLE}.last_post_number
    END,
    visited_at = EXCLUDED.visited_at
"""


def record_visit(user: Any, game_id: int, thread: str, last_post_number: int) -> None:
    """``user`` has been shown ``thread`` of the game up to post ``last_post_number``."""
    if not getattr(user, "is_authenticated", False):
        return
    params = [user.pk, game_id, thread, last_post_number, timezone.now()]
    try:
        if connection.in_atomic_block:  # a savepoint: a failed write must not poison it
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(_UPSERT, params)
        else:
            with connection.cursor() as cursor:
                cursor.execute(_UPSERT, params)
    except DatabaseError:
        log.warning("thread visit of user %s to game %s not recorded", user.pk, game_id)
