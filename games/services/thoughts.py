"""A player's thoughts: the private reasoning an act through the API may carry.

Any act of a player (a post, a vote, a nomination, a night or day action, a pass) may send
``thoughts``. They are kept in the act's own transaction, so they stand or fall with it,
and never emitted: nothing of them reaches a page, a socket, a mail or a webhook while the
game runs, not even the host's or the team's. Once the game ends everyone reads them in
the review and the export (``games.reads.thoughts``).
"""

from __future__ import annotations

from typing import Any

from ..errors import ErrorCode
from ..models import MAX_THOUGHTS_LENGTH, Phase, Post, Slot, Thought, ThoughtAct
from ..plain_text import checked_text
from .common import Tx


def check_thoughts(text: Any) -> str:
    """``text`` as it is kept (trimmed; "" keeps nothing), or an InvalidInput before the act
    touches the game."""
    if text is None:
        return ""
    return checked_text(
        text, what="Thoughts", field="thoughts", limit=MAX_THOUGHTS_LENGTH, code=ErrorCode.THOUGHTS
    )


def keep_thoughts(
    tx: Tx,
    slot: Slot,
    act: ThoughtAct,
    text: str,
    *,
    phase: Phase | None,
    post: Post | None = None,
) -> None:
    """Keep the act's thoughts (checked by ``check_thoughts``), in its transaction.
    ``phase``: the one the act was made in, read before it (a hammer ends the day)."""
    if text:
        Thought.objects.create(
            game=tx.game,
            slot=slot,
            phase=phase,
            act=act,
            post=post,
            text=text,
            created_at=tx.now,
        )
