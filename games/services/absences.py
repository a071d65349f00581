"""V/LA ("vacation / limited access"): a player marks the dates they will be away. The vote
count and the activity view show it; the inactivity prods skip a player away that day."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _

from ..errors import ErrorCode, InvalidInput, NotFound
from ..models import Absence
from ..naming import slot_ref
from .ballots import emit_vote_count
from .common import emit, game_tx, require_player, require_running

MAX_ABSENCE = timedelta(days=30)


def mark_away(
    user: Any,
    game_id: int,
    *,
    starts: date,
    ends: date,
    note: str = "",
    now: datetime | None = None,
) -> Absence:
    """Record that the player is away from ``starts`` to ``ends`` (inclusive)."""
    with game_tx(game_id, now) as tx:
        require_running(tx.game)
        slot = require_player(tx, user)
        if not isinstance(starts, date) or not isinstance(ends, date):
            raise InvalidInput(
                _("Give the first and last day away as dates."), ErrorCode.DATES, "starts"
            )
        if ends < starts:
            raise InvalidInput(_("The last day away is before the first."), ErrorCode.DATES, "ends")
        if ends < tx.now.date():
            raise InvalidInput(_("Those days are already over."), ErrorCode.DATES, "ends")
        if ends - starts > MAX_ABSENCE:
            raise InvalidInput(
                _("V/LA is for at most 30 days; ask the host for a replacement."),
                ErrorCode.DATES,
                "ends",
            )
        absence = Absence.objects.create(
            slot=slot, starts=starts, ends=ends, note=(note or "").strip()[:200]
        )
        emit(
            tx,
            "absence",
            {**slot_ref(slot), "starts": starts.isoformat(), "ends": ends.isoformat()},
        )
        emit_vote_count(tx)  # the count lists who is away
        return absence


def cancel_absence(
    user: Any, game_id: int, absence_id: int, *, now: datetime | None = None
) -> None:
    with game_tx(game_id, now) as tx:
        slot = require_player(tx, user, alive=False)
        deleted, _rows = Absence.objects.filter(pk=absence_id, slot=slot).delete()
        if not deleted:
            raise NotFound(_("You have no such V/LA."), ErrorCode.NO_ABSENCE, "absence")
        emit(tx, "absence_cancelled", {**slot_ref(slot), "absence_id": absence_id})
        emit_vote_count(tx)
