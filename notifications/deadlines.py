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

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games.display import moment_label
from games.models import GameEvent, Phase

from .mail import render
from .models import DigestStatus, EmailDigest, MailState, Notification
from .notes import phase_name

CLOCK_EVENTS = ("deadline_changed", "paused", "resumed")
# The reminder says "Day 3 ends …"; the others "… Deadline: …".
_ENDS = "action_missing"
DEADLINE_KINDS = ("phase_started", "your_turn", "vote_opened", _ENDS)
VOTE, NIGHT_ACTION = "vote", "night action"


def stated(kind: str, deadline: datetime | str | None) -> str:
    """The sentence (with a space before it) that ends a notification of ``kind`` stating
    ``deadline`` (None: paused), in the active language; the rules write it with this, and
    a correction finds it by it. (The reminder, ``action_missing``, is one sentence of its
    own: ``missing_text``.)"""
    if deadline is None:
        return " " + _("Deadline: none while the game is paused.")
    return " " + _("Deadline: %(moment)s.") % {"moment": moment_label(deadline)}


def missing_text(what: str, title: str, label: str, deadline: datetime | str | None) -> str:
    """The reminder "Your vote in T is still missing: Day 3 ends …" (``what``: ``VOTE`` or
    ``NIGHT_ACTION``; ``deadline`` None: paused), in the active language."""
    values = {"title": title, "phase": phase_name(label)}
    if deadline is None:
        if what == VOTE:
            return _("Your vote in %(title)s is still missing: %(phase)s is paused.") % values
        return _("Your night action in %(title)s is still missing: %(phase)s is paused.") % values
    values["moment"] = moment_label(deadline)
    if what == VOTE:
        return _("Your vote in %(title)s is still missing: %(phase)s ends %(moment)s.") % values
    return _("Your night action in %(title)s is still missing: %(phase)s ends %(moment)s.") % values


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


def _retold(
    game_title: str, phase: Phase, was: str | None, now: str | None
) -> dict[str, list[tuple[str, str, bool]]]:
    """Per kind, (the old words, the new words, whole text or its end) in every language
    the site writes: a notification is in its person's language, whichever that was."""
    out: dict[str, list[tuple[str, str, bool]]] = {kind: [] for kind in DEADLINE_KINDS}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            for kind in DEADLINE_KINDS:
                if kind == _ENDS:
                    for what in (VOTE, NIGHT_ACTION):
                        old = missing_text(what, game_title, phase.label, was)
                        new = missing_text(what, game_title, phase.label, now)
                        out[kind].append((old, new, True))
                else:
                    out[kind].append((stated(kind, was), stated(kind, now), False))
    return out


def _retell(game_id: int, phase: Phase, was: str | None, now: str | None) -> set[int]:
    # Locked in the digest builder's order (``mail.build_digest``): a digest being built
    # meanwhile is waited for, and then seen (its notifications ``queued``).
    rows = list(
        Notification.objects.select_for_update()
        .filter(game_id=game_id, kind__in=DEADLINE_KINDS, created_at__gte=phase.started_at)
        .order_by("created_at", "pk")
    )
    if not rows:
        return set()
    retold = _retold(phase.game.title, phase, was, now)
    told: set[int] = set()
    digests: set[int] = set()
    for row in rows:
        for old, new, whole in retold[row.kind]:
            if whole and row.text == old[:500]:
                row.text = new[:500]
                break
            if not whole and row.text.endswith(old):
                row.text = (row.text.removesuffix(old) + new)[:500]
                break
        else:
            continue  # another deadline: an earlier turn's, or cut short at 500 characters
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
