"""From a transaction's events to ``Notification`` rows, in the same transaction.

Every rule in ``rules.RULES`` proposes notes for an event; a note reaches its person only
if the event's audience includes them (``reads.access.audiences``), so no rule can tell
anyone more than the site shows them. Each person's settings (``NotificationPrefs``) then
say where it goes: the inbox, e-mail (a digest, ``mail = pending``), both, or nowhere.
A new notification of a desktop kind also goes to the person's push devices, after the
commit (``push``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import F

from games.models import Game, GameEvent, Phase, Slot

from .deadlines import correct
from .kinds import NOTIFICATION_KINDS, OFF, channel_parts
from .models import MailState, Notification, NotificationPrefs
from .notes import Context, Note, Rule
from .push import queue_on_commit as push_on_commit
from .rules import RULES


def may_hear(audience: str, theirs: frozenset[str]) -> bool:
    return audience in theirs


def notes_for(events: list[GameEvent], ctx: Context, rules: dict[str, list[Rule]]) -> list[Note]:
    """The notes the rules propose for ``events``, minus any the audience does not allow."""
    notes: list[Note] = []
    # A league game's host is the system account League: nobody reads its inbox.
    unread_host = ctx.game.host_id if ctx.game.league_setup else None
    for event in events:
        for rule in rules.get(event.kind, ()):
            checked = getattr(rule, "audience_checked", True)
            for note in rule(event, ctx):
                if checked and not may_hear(event.audience, ctx.audiences_of(note.user_id)):
                    continue
                if note.user_id == unread_host:
                    continue
                notes.append(note)
    return notes


def write(notes: list[Note], game: Game | None, now: datetime) -> set[int]:
    """Store ``notes`` as each person's settings say; the ids of the people told."""
    if not notes:
        return set()
    prefs = {
        p.user_id: p
        for p in NotificationPrefs.objects.filter(user_id__in={n.user_id for n in notes})
    }
    fresh: list[Notification] = []
    # Keyed notes already in ``fresh``: a second one in the same batch (two counts in one
    # transaction, two posts) folds into it or, once-only, is dropped.
    fresh_by_key: dict[tuple[int, str], Notification] = {}
    told: set[int] = set()
    for note in notes:
        if note.key and (note.user_id, note.key) in fresh_by_key:
            if NOTIFICATION_KINDS[note.kind].batched:
                row = fresh_by_key[note.user_id, note.key]
                row.count += 1
                if note.text_many:
                    row.text = note.text_many.format(count=row.count)[:500]
            continue
        person = prefs.get(note.user_id)
        channel = person.channel(note.kind) if person else NOTIFICATION_KINDS[note.kind].default
        if channel == OFF:
            continue
        inbox, email = channel_parts(channel)
        mail = MailState.PENDING if email else MailState.NONE
        kind = NOTIFICATION_KINDS[note.kind]
        if note.key and kind.batched:
            added = Notification.objects.filter(
                user_id=note.user_id, key=note.key, read_at__isnull=True
            ).update(count=F("count") + 1, updated_at=now, mail=mail)
            if added:
                _retext(note)
                told.add(note.user_id)
                continue
        elif note.key and Notification.objects.filter(user_id=note.user_id, key=note.key).exists():
            continue  # once only
        row = Notification(
            user_id=note.user_id,
            game=game,
            kind=note.kind,
            text=note.text[:500],
            link=note.link,
            key=note.key,
            created_at=now,
            updated_at=now,
            in_inbox=inbox,
            mail=mail,
        )
        fresh.append(row)
        if note.key:
            fresh_by_key[note.user_id, note.key] = row
        told.add(note.user_id)
    Notification.objects.bulk_create(fresh)
    push_on_commit(fresh)  # to the person's phones, after the commit (``push``)
    return told


def _retext(note: Note) -> None:
    """A batched notification that grew: its text says how many now."""
    if not note.text_many:
        return
    for row in Notification.objects.filter(
        user_id=note.user_id, key=note.key, read_at__isnull=True
    ).only("pk", "count"):
        Notification.objects.filter(pk=row.pk).update(
            text=note.text_many.format(count=row.count)[:500]
        )


def fan_out(
    game: Game, slots: list[Slot], phase: Phase | None, events: list[GameEvent], now: datetime
) -> set[int]:
    """Write the notifications ``events`` call for, and correct those a moved deadline
    made wrong; the ids of the people told (or whose notifications changed)."""
    retold = correct(events, phase)
    if not any(e.kind in RULES for e in events):
        return retold
    ctx = Context(game, slots, phase, now)
    return retold | write(notes_for(events, ctx, RULES), game, now)


def fan_out_tx(tx: Any) -> set[int]:
    """``fan_out`` for a game transaction (``games.hooks.on_events``)."""
    return fan_out(tx.game, tx.slots, tx.phase, tx.events, tx.now)


def tell(user_id: int, kind: str, text: str, link: str, now: datetime) -> set[int]:
    """One note to one person outside any game (``games.hooks.tell``: a sanction)."""
    return write([Note(user_id, kind, text, link)], None, now)
