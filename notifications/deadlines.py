"""Notifications that state a deadline, and their correction when the deadline moves.

"Day 3 has started … Deadline: Fri 27 Nov, 14:00 UTC." must not go on saying 14:00 once the
host extends, pauses or resumes: a player in the middle of a game reads the bell, not the
history. So when a clock event (``deadline_changed``, ``paused``, ``resumed``) is written,
the current phase's notifications whose text ends with the old deadline are rewritten, in
the same transaction, to end with the new one (or to say the game is paused): read or not,
in the inbox and the notifications page alike. Nothing new rings the bell: the thread's
announcement (``services.announcements``) is the news, and a correction is not.

Mail: a notification still waiting for its digest is mailed with its new text; a digest
already built but never tried is written again from its notifications (its Message-ID is
kept: no copy of it went out); one a worker has tried may be in someone's inbox and stays
as it was. Mail already sent cannot change.
"""

from __future__ import annotations

from datetime import datetime

from games.display import moment_label
from games.models import GameEvent, Phase

from .mail import render
from .models import DigestStatus, EmailDigest, MailState, Notification

CLOCK_EVENTS = ("deadline_changed", "paused", "resumed")
# The reminder says "Day 3 ends …"; the others "… Deadline: …".
_ENDS = "action_missing"
DEADLINE_KINDS = ("phase_started", "your_turn", "vote_opened", _ENDS)


def stated(kind: str, deadline: datetime | str | None) -> str:
    """How a notification of ``kind`` ends when it states ``deadline`` (None: paused); the
    rules and the reminders write it with this, and a correction finds it by it."""
    if kind == _ENDS:
        return f" ends {moment_label(deadline)}." if deadline else " is paused."
    if deadline is None:
        return " Deadline: none while the game is paused."
    return f" Deadline: {moment_label(deadline)}."


def correct(events: list[GameEvent], phase: Phase | None) -> set[int]:
    """Retell the current phase's notifications that state a deadline these events moved;
    the ids of the people whose notifications changed (their bells are redrawn)."""
    told: set[int] = set()
    for event in events:
        p = event.payload
        if event.kind not in CLOCK_EVENTS or "was" not in p:
            continue
        if phase is None or p["number"] != phase.number:
            continue
        if p["was"] == p["deadline"]:
            continue  # extended while paused: "none while paused" still holds
        told |= _retell(event.game_id, phase, p["was"], p["deadline"])
    return told


def _retell(game_id: int, phase: Phase, was: str | None, now: str | None) -> set[int]:
    old = {kind: stated(kind, was) for kind in DEADLINE_KINDS}
    # Locked in the digest builder's order (``mail.build_digest``): a digest being built
    # meanwhile is waited for, and then seen (its notifications ``queued``).
    rows = list(
        Notification.objects.select_for_update()
        .filter(game_id=game_id, kind__in=DEADLINE_KINDS, created_at__gte=phase.started_at)
        .order_by("created_at", "pk")
    )
    told: set[int] = set()
    digests: set[int] = set()
    for row in rows:
        if not row.text.endswith(old[row.kind]):
            continue  # another deadline: an earlier turn's, or cut short at 500 characters
        row.text = (row.text.removesuffix(old[row.kind]) + stated(row.kind, now))[:500]
        Notification.objects.filter(pk=row.pk).update(text=row.text)
        told.add(row.user_id)
        if row.mail == MailState.QUEUED and row.digest_id is not None:
            digests.add(row.digest_id)
    for digest_id in sorted(digests):
        _rewrite_digest(digest_id)
    return told


def _rewrite_digest(digest_id: int) -> None:
    """A digest built but never handed to the mail server says the new text. One a worker
    holds (``skip_locked``) or has tried is left alone: it may already be delivered."""
    digest = (
        EmailDigest.objects.select_for_update(skip_locked=True)
        .filter(pk=digest_id, status=DigestStatus.PENDING, attempts=0, lease_until__isnull=True)
        .select_related("user")
        .first()
    )
    if digest is None:
        return
    notes = list(
        Notification.objects.filter(digest_id=digest.pk, mail=MailState.QUEUED)
        .select_related("game")
        .order_by("created_at", "pk")
    )
    digest.subject, digest.text, digest.html = render(digest.user, notes)
    digest.save(update_fields=["subject", "text", "html"])
