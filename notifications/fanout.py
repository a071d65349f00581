"""From a transaction's events to ``Notification`` rows, in the same transaction.

Every rule in ``rules.RULES`` proposes notes for an event; a note reaches its person only
if the event's audience includes them (``reads.access.audiences``), so no rule can tell
anyone more than the site shows them. Each person's settings (``NotificationPrefs``) then
say where it goes: the inbox, e-mail (a digest, ``mail = pending``), both, or nowhere.
A new notification of a desktop kind also goes to the person's push devices, after the
commit (``push``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import F

from games.i18n import in_language_of
from games.models import Game, GameEvent, Phase, Slot

from .deadlines import correct
from .kinds import NOTIFICATION_KINDS, OFF, channel_parts
from .models import MailState, Notification, NotificationPrefs
from .notes import Context, Note, Rule, Text
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


def recipients(user_ids: set[int]) -> dict[int, Any]:
    """The people ``user_ids`` with their language choice (``games.i18n.language_of``)."""
    return {
        u.pk: u
        for u in get_user_model().objects.filter(pk__in=user_ids).select_related("account_settings")
    }


def write(notes: list[Note], game: Game | None, now: datetime) -> set[int]:
    """Store ``notes`` as each person's settings say, each written in its person's language
    (``games.i18n.in_language_of``); the ids of the people told."""
    if not notes:
        return set()
    people = recipients({n.user_id for n in notes})

    def words(note: Note) -> str:
        with in_language_of(people.get(note.user_id)):
            return note.words()[:500]

    def many(note: Note, count: int) -> str:
        assert note.text_many is not None
        with in_language_of(people.get(note.user_id)):
            return note.text_many(count)[:500]

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
                    row.text = many(note, row.count)
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
                _retext(note, partial(many, note))
                told.add(note.user_id)
                continue
        elif note.key and Notification.objects.filter(user_id=note.user_id, key=note.key).exists():
            continue  # once only
        row = Notification(
            user_id=note.user_id,
            game=game,
            kind=note.kind,
            text=words(note),
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


def _retext(note: Note, many: Callable[[int], str]) -> None:
    """A batched notification that grew: its text says how many now (``many``: in its
    person's language)."""
    if not note.text_many:
        return
    for row in Notification.objects.filter(
        user_id=note.user_id, key=note.key, read_at__isnull=True
    ).only("pk", "count"):
        Notification.objects.filter(pk=row.pk).update(text=many(row.count))


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


def tell(user_id: int, kind: str, text: Text, link: str, now: datetime) -> set[int]:
    """One note to one person outside any game (``games.hooks.tell``: a sanction). A
    function as ``text`` is written in the person's language (``notes.Text``)."""
    return write([Note(user_id, kind, text, link)], None, now)
