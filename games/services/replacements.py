"""The replacement queue: users sign up to replace in a game; the host swaps the next in
line into a slot in one click, and the site does it itself when a player reaches the prod
limit in a game whose inactivity rule is "replace". The slot keeps its history of names
(``Replacement`` rows). In an anonymous game the queue shows its people by their place in
line while the game runs (``naming.queue_name``), its events too."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from ..errors import ErrorCode, InvalidInput, NotAllowed, WrongPhase
from ..models import GameStatus, ReplacementSignup, Slot
from ..naming import queue_name
from ..reads.access import is_host
from ..reads.policy import require_host_control
from .common import (
    emit,
    game_tx,
    require_admitted,
    require_one_seat_per_person,
    target_slot,
)
from .swap import replace_from_queue


def join_queue(user: Any, game_id: int, *, now: datetime | None = None) -> ReplacementSignup:
    """Sign up to replace in this game."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to sign up as a replacement."), ErrorCode.LOGIN)
    with game_tx(game_id, now) as tx:
        if tx.game.status == GameStatus.FINISHED:
            raise WrongPhase(_("The game is over."), ErrorCode.GAME_OVER)
        if tx.game.status == GameStatus.CANCELLED:
            raise WrongPhase(_("The host cancelled this game."), ErrorCode.CANCELLED)
        if is_host(tx.game, user):
            raise NotAllowed(_("The host cannot replace in their own game."), ErrorCode.HOST)
        if tx.locked.slot_of_user(user.pk) is not None:
            raise InvalidInput(_("You already have a slot in this game."), ErrorCode.IN_GAME)
        require_admitted(tx.game, user)
        require_one_seat_per_person(tx, user)
        if ReplacementSignup.objects.filter(game=tx.game, user=user).exists():
            raise InvalidInput(
                _("You are already in the replacement queue."), ErrorCode.ALREADY_QUEUED
            )
        signup = ReplacementSignup.objects.create(game=tx.game, user=user)
        place = ReplacementSignup.objects.filter(game=tx.game).count()  # the last in line
        emit(tx, "replacement_queue", {"joined": queue_name(tx.game, place, user.get_username())})
        return signup


def leave_queue(user: Any, game_id: int, *, now: datetime | None = None) -> None:
    with game_tx(game_id, now) as tx:
        line = list(
            ReplacementSignup.objects.filter(game=tx.game).values_list("user_id", flat=True)
        )
        deleted, _rows = ReplacementSignup.objects.filter(game=tx.game, user=user).delete()
        if not deleted:
            raise InvalidInput(_("You are not in the replacement queue."), ErrorCode.NOT_QUEUED)
        place = line.index(user.pk) + 1
        emit(tx, "replacement_queue", {"left": queue_name(tx.game, place, user.get_username())})


def replace_with_next(
    user: Any, game_id: int, slot_id: int, *, now: datetime | None = None
) -> Slot:
    """The host's one click: the next in the queue takes over the slot."""
    with game_tx(game_id, now) as tx:
        require_host_control(tx.game, user, "replace", tx.phase)
        slot = target_slot(tx, slot_id)
        if not replace_from_queue(tx, slot):
            raise InvalidInput(_("Nobody is in the replacement queue."), ErrorCode.QUEUE_EMPTY)
        return slot
