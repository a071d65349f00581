"""The game's slots, current phase and threads' lengths as of its events, read once per
process.

Every change to a slot or a phase (a death, a replacement, a vote, a deadline moved or
paused, the next phase) is made in a game transaction that writes events and ends by
setting the game's ``state_seq`` (``services.common.game_tx``); only a transaction of plain
posts leaves it alone, and moves ``event_seq`` only. So a page that has read the game (with
``state_seq = S``) may use the slots and current phase any request read after seeing ``S``:
they are at least as new as ``S``, exactly as if it had read them itself after the game.
Every post is written with an event (``services.thread.do_post``), so a thread's last post
number is fixed by ``event_seq``. Pages between two changes share one read instead of
three queries each, and a chatty thread's posts do not throw the slots and phase away.

What is handed out are copies: a page can never change (or lazily load a relation into) the
rows another page will be given.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

from django.utils import timezone

from ..lru import ProcessLRU
from ..models import Game, Phase, Slot
from . import thread as thread_read

# (game, its creation, state_seq) -> the game's slots in seat order, with their users.
_SLOTS: ProcessLRU[list[Slot]] = ProcessLRU(512)
# (game, its creation, state_seq, phase number) -> the current phase (or None).
_PHASES: ProcessLRU[tuple[Phase | None]] = ProcessLRU(512)
# (game, its creation, event_seq, thread) -> the thread's last post number.
_LAST_NUMBERS: ProcessLRU[int] = ProcessLRU(2048)


def event_key(game: Game) -> tuple[Any, ...]:
    """The game as of its last event (a post included)."""
    return (game.pk, game.created_at, game.event_seq)


def state_key(game: Game) -> tuple[Any, ...]:
    """The game as of its last change of state (anything but plain posts)."""
    return (game.pk, game.created_at, "state", game.state_seq)


def today_key(game: Game) -> tuple[Any, ...]:
    """``state_key`` and the date (UTC): for what also shows who is away today (V/LA)."""
    today: date = timezone.now().date()
    return (*state_key(game), today)


def slots(game: Game) -> list[Slot]:
    """The game's slots in seat order, each with its user, as of ``game.state_seq``."""
    key = state_key(game)
    held = _SLOTS.get(key)
    if held is None:
        held = list(game.slots.select_related("user").order_by("seat"))
        _SLOTS.put(key, held)
    return [copy.copy(slot) for slot in held]


def current_phase(game: Game) -> Phase | None:
    """``game.current_phase()`` as of ``game.state_seq``."""
    if not game.phase_number:
        return None
    key = (*state_key(game), game.phase_number)
    held = _PHASES.get(key)
    if held is None:
        held = (game.current_phase(),)
        _PHASES.put(key, held)
    phase = held[0]
    return copy.copy(phase) if phase is not None else None


def last_number(game: Game, thread: str) -> int:
    """``reads.thread.last_number`` as of ``game.event_seq``."""
    key = (*event_key(game), thread)
    held = _LAST_NUMBERS.get(key)
    if held is None:
        held = thread_read.last_number(game, thread)
        _LAST_NUMBERS.put(key, held)
    return held
