"""Deadline reminders: "your vote / night action is still missing", N hours before the end.

Not an event but a time, so a sweep (Celery beat each minute, ``games.tasks
.send_deadline_reminders``; the embedded run's loop in ``manage.py runsite``) looks for
running games whose current phase ends within the longest lead time anyone chose, asks
``reads.needs.needs_of`` who still owes a vote (a forum day) or a night action, and writes
one reminder per slot and phase (key ``missing:<phase id>:<slot id>``) for each person whose
own lead time (``NotificationPrefs.reminder_hours``, 0: never) has come. The sweep keeps no
state of its own: the key makes a second sweep, or one after a restart, write nothing new.
A paused phase has no deadline, so no reminder; a table's day has its own "your turn".
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db.models import F, Max
from django.urls import reverse
from django.utils import timezone

from games.models import GameStatus, Phase, Slot
from games.reads.needs import NIGHT_ACTION, VOTE, needs_of

from .deadlines import NIGHT_ACTION as NIGHT_ACTION_WORD
from .deadlines import VOTE as VOTE_WORD
from .deadlines import missing_text
from .fanout import write
from .models import NotificationPrefs
from .notes import Note

log = logging.getLogger(__name__)

DEFAULT_HOURS: int = NotificationPrefs._meta.get_field("reminder_hours").default
# The longest lead time the sweep honours: beyond it a game would be locked each minute
# for days for nothing (the settings page offers less).
MAX_HOURS = 72


def lead_time(hours: int) -> timedelta:
    return timedelta(hours=min(hours, MAX_HOURS))


def due_games(now: datetime) -> list[int]:
    """Running games whose current, open phase ends within the longest lead time chosen."""
    longest = NotificationPrefs.objects.aggregate(h=Max("reminder_hours"))["h"] or 0
    horizon = lead_time(max(longest, DEFAULT_HOURS))
    return list(
        Phase.objects.filter(
            resolved=False,
            deadline__gt=now,
            deadline__lte=now + horizon,
            game__status=GameStatus.RUNNING,
            game__phase_number=F("number"),
        )
        .order_by("deadline")
        .values_list("game_id", flat=True)
    )


def send_reminders(now: datetime | None = None) -> int:
    """Write the reminders that are due; returns how many people were told. Each game is
    its own transaction and its own try: one failing game does not hold up the others."""
    now = now or timezone.now()
    told = 0
    for game_id in due_games(now):
        try:
            told += remind_game(game_id, now)
        except Exception:
            log.exception("Could not write the deadline reminders of game %s", game_id)
    return told


def remind_game(game_id: int, now: datetime) -> int:
    """One game's reminders, under its row lock (a vote cast meanwhile is seen)."""
    from games.services.common import game_tx  # services import the notifications

    with game_tx(game_id, now) as tx:
        phase = tx.phase
        if (
            not tx.game.is_running
            or phase is None
            or phase.resolved
            or phase.deadline is None  # paused
            or phase.deadline <= now
            or phase.is_table_day
        ):
            return 0
        players = [s for s in tx.slots if s.user_id]
        needs = needs_of(tx.game, players, phase)
        owing = [s for s in players if {VOTE, NIGHT_ACTION} & set(needs[s.pk])]
        if not owing:
            return 0
        hours = dict(
            NotificationPrefs.objects.filter(user_id__in=[s.user_id for s in owing]).values_list(
                "user_id", "reminder_hours"
            )
        )
        left = phase.deadline - now
        notes = []
        for slot in owing:
            chosen = hours.get(slot.user_id, DEFAULT_HOURS)
            if chosen and left <= lead_time(chosen):
                notes.append(_note(tx.game.title, phase, slot, needs[slot.pk], tx.game.pk))
        told = write(notes, tx.game, now)
        tx.told |= told
        return len(told)


def _note(title: str, phase: Phase, slot: Slot, codes: list[str], game_id: int) -> Note:
    what = VOTE_WORD if VOTE in codes else NIGHT_ACTION_WORD
    deadline = phase.deadline

    def text() -> str:  # in the person's language (``fanout.write``): the label too
        # ``missing_text``: the words a moved deadline is corrected by (``deadlines.correct``).
        return missing_text(what, title, phase.label, deadline)

    link = reverse("games:role" if what == NIGHT_ACTION_WORD else "games:thread", args=[game_id])
    return Note(slot.user_id, "action_missing", text, link, key=f"missing:{phase.pk}:{slot.pk}")
