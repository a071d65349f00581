"""Last wills (the ``last_wills`` variant): a living player keeps a will while the game runs;
when they die it is posted in the game thread right after their death's announcement, and
a survivor's when the game ends, right after the game-over announcement.

Until then it is its writer's and the host's alone: its event (``will_written``) goes to
the player's own feed and the host's, never to the thread. A will is the seat's, as the
role PM's results are: a replacement takes it over with the seat.

A janitor's clean hides the will with the role (the forum and Town of Salem convention:
what the clean hides is the whole flip). The thread learns only that no will could be
found, which the role's "could not be determined" has already told; the host still reads
it. A forger forges the role only: the will stays the player's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from ..errors import ErrorCode
from ..i18n import in_game_language
from ..markup import escape_markdown
from ..models import Slot
from ..naming import slot_ref
from ..plain_text import checked_text
from ..reads.policy import require, will_refusal
from ..reads.wills import MAX_WILL_LENGTH, will_hidden
from .announcements import announce
from .common import Tx, emit, game_tx


def write_will(user: Any, game_id: int, text: str, *, now: datetime | None = None) -> Slot:
    """Keep ``text`` as the player's will (empty: no will), replacing the one before."""
    with game_tx(game_id, now) as tx:
        authenticated = getattr(user, "is_authenticated", False)
        slot = tx.locked.slot_of_user(user.pk) if authenticated else None
        require(will_refusal(tx.game, slot))  # the role PM's form asks it too
        assert slot is not None  # the policy refuses anyone else (said so to mypy)
        text = check_will(text)
        slot.will = text
        slot.will_updated_at = tx.now
        slot.save(update_fields=["will", "will_updated_at"])
        payload = {**slot_ref(slot), "updated_at": tx.now.isoformat()}
        emit(tx, "will_written", payload, f"slot:{slot.pk}")
        emit(tx, "will_written", payload, "host")
        return slot


def check_will(text: Any) -> str:
    """``text`` as a will is kept (surrounding whitespace trimmed), or an InvalidInput."""
    return checked_text(
        text,
        what="A will",
        field="text",
        limit=MAX_WILL_LENGTH,
        code=ErrorCode.INVALID,
        too_long=ErrorCode.TOO_LONG,
    )


def will_post(slot: Slot) -> str:
    """What the thread says of a dead player's will."""
    name = escape_markdown(slot.display_name)
    if will_hidden(slot):
        return _("**%(name)s's last will could not be found.**") % {"name": name}
    if not slot.will:
        return _("**%(name)s left no will.**") % {"name": name}
    # A quote of its own: whatever the will says, it cannot pass for the host's words.
    quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in slot.will.split("\n"))
    return _("**%(name)s's last will:**") % {"name": name} + f"\n\n{quoted}"


def post_wills(tx: Tx, dead: Iterable[Slot]) -> None:
    """After a death's announcement: each dead player's will, in the game thread."""
    if not tx.game.last_wills:
        return
    for slot in dead:
        with in_game_language(tx.game):
            announce(tx, will_post(slot))


def post_surviving_wills(tx: Tx) -> None:
    """After the game-over announcement: each survivor's will (those who kept one), in the
    game thread. The game is over, so nothing is hidden any more: what only its writer and
    the host read while the game ran is everyone's now, as a dead player's was at death."""
    if not tx.game.last_wills:
        return
    for slot in sorted(tx.slots, key=lambda s: s.seat):
        if slot.alive and slot.will:
            with in_game_language(tx.game):
                announce(tx, will_post(slot))
