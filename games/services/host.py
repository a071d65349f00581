"""The host's controls: deadlines (extend, end now, pause, resume), modkills and
replacements."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _

from ..errors import ErrorCode, InvalidInput
from ..i18n import in_game_language
from ..models import (
    Phase,
    Slot,
)
from ..reads.access import host_ids
from ..reads.policy import require_host_control
from . import announcements
from .common import (
    MAX_PHASE_LENGTH,
    Tx,
    emit,
    game_tx,
    require_admitted,
    require_one_seat_per_person,
    target_slot,
)
from .phases import advance, do_modkill
from .swap import do_replace


def extend_deadline(
    user: Any, game_id: int, *, by: timedelta, now: datetime | None = None
) -> Phase:
    """Push the current phase's deadline back by ``by``."""
    with game_tx(game_id, now) as tx:
        phase = _hosts_phase(tx, user, "extend")
        if not timedelta(0) < by <= MAX_PHASE_LENGTH:
            raise InvalidInput(
                _("Extend by a positive time of at most fourteen days."), ErrorCode.BY, "by"
            )
        was = phase.deadline
        if phase.paused_remaining is not None:  # phase.is_paused, said so mypy narrows it
            phase.paused_remaining += by
        else:
            assert phase.deadline is not None  # a phase in progress, not paused, has one
            phase.deadline += by
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "deadline_changed", was)
        with in_game_language(tx.game):
            announcements.announce(tx, announcements.deadline_extended(phase, by))
        return phase


def cut_deadline_now(user: Any, game_id: int, *, now: datetime | None = None) -> bool:
    """The host ends the current phase now (the same transition as the deadline)."""
    with game_tx(game_id, now) as tx:
        phase = _hosts_phase(tx, user, "cut")
        return advance(tx, phase.number, force=True)


def pause_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Stop the clock: the phase keeps its remaining time until resumed."""
    with game_tx(game_id, now) as tx:
        phase = _hosts_phase(tx, user, "pause")
        was = phase.deadline
        assert was is not None  # a phase in progress, not paused, has a deadline
        phase.paused_remaining = max(was - tx.now, timedelta(0))
        phase.deadline = None
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "paused", was)
        with in_game_language(tx.game):
            announcements.announce(tx, announcements.paused(phase))
        return phase


def resume_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Restart the clock with the time that was left."""
    with game_tx(game_id, now) as tx:
        phase = _hosts_phase(tx, user, "resume")
        assert phase.paused_remaining is not None  # paused: the policy said so
        phase.deadline = tx.now + phase.paused_remaining
        phase.paused_remaining = None
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "resumed", None)
        with in_game_language(tx.game):
            announcements.announce(tx, announcements.resumed(phase))
        return phase


def _hosts_phase(tx: Tx, user: Any, control: str) -> Phase:
    """The clock's controls: what the policy allows (a host, a phase in progress, paused
    or not as the control needs), and that phase."""
    require_host_control(tx.game, user, control, tx.phase)
    assert tx.phase is not None  # every clock control needs one: the policy said so
    return tx.phase


def _emit_deadline(tx: Tx, kind: str, was: datetime | None) -> None:
    """The clock event; ``was`` (the deadline before, None: paused) lets the notifications
    that stated it be told the new one (``notifications.deadlines``)."""
    phase = tx.current
    emit(
        tx,
        kind,
        {
            "number": phase.number,
            "deadline": phase.deadline.isoformat() if phase.deadline else None,
            "paused_remaining": phase.paused_remaining.total_seconds()
            if phase.paused_remaining is not None
            else None,
            "was": was.isoformat() if was else None,
        },
    )


def modkill(
    user: Any, game_id: int, slot_id: int, *, reason: str = "", now: datetime | None = None
) -> Slot:
    """The host removes a player from the game; the win check runs at once.

    A modkill does not reveal the role (the host may post it); the player's votes stop
    counting and their night actions are dropped.
    """
    with game_tx(game_id, now) as tx:
        require_host_control(tx.game, user, "modkill", tx.phase)
        slot = target_slot(tx, slot_id)
        if not slot.alive:
            raise InvalidInput(
                _("%(name)s is already dead.") % {"name": slot.display_name},
                ErrorCode.DEAD_TARGET,
            )
        do_modkill(tx, slot, reason)
        return slot


def replace_player(
    user: Any, game_id: int, slot_id: int, new_user: Any, *, now: datetime | None = None
) -> Slot:
    """A new person takes over the slot: same seat, role, votes and history."""
    with game_tx(game_id, now) as tx:
        game = tx.game
        require_host_control(game, user, "replace", tx.phase)
        slot = target_slot(tx, slot_id)
        if new_user is None or not getattr(new_user, "pk", None):
            raise InvalidInput(_("Choose the replacement player."), ErrorCode.NO_USER, "new_user")
        if new_user.pk in host_ids(game):
            raise InvalidInput(
                _("The host cannot play in their own game."), ErrorCode.HOST, "new_user"
            )
        if tx.locked.slot_of_user(new_user.pk) is not None:
            raise InvalidInput(
                _("%(name)s already has a slot in this game.") % {"name": new_user.get_username()},
                ErrorCode.IN_GAME,
            )
        require_admitted(game, new_user, you=False, field="new_user")
        require_one_seat_per_person(tx, new_user, you=False, field="new_user")
        do_replace(tx, slot, new_user)
        return slot
