"""E-mail digests: a person's pending notifications, gathered into one mail and sent once.

The fan-out writes a notification whose channel includes e-mail with ``mail = pending``.
Then, on every sweep (Celery beat each ``DIGEST_SCAN_SECONDS``; ``manage.py runsite``'s
loop without Celery):

1. **Build** (``build_due_digests``): a person's pending notifications become one
   ``EmailDigest`` once the oldest of them is ``digest_minutes`` old (their
   ``NotificationPrefs``; 15 by default): never one mail per post. One transaction per
   person, under a lock on the person's row taken with ``skip_locked``, so two sweepers never
   build the same digest; the notifications go ``queued`` and point at it. A notification
   about a game the person has open (or looked at after it was written:
   ``games.presence``) is ``skipped``, as is everything for a person without an address.
2. **Send** (``send_digest``, one Celery task per digest): claim it in a short transaction
   (``sending``, with a lease), send it over SMTP, mark it ``sent`` (and its notifications).
   A worker that dies mid-send leaves a lease that runs out; the next sweep sends it again.
   Its Message-ID is fixed when it is built, so the one resend that can still happen — the
   worker died after the SMTP server's 250 and before our commit — is the same message, and
   mail clients show it once. An SMTP error puts it back to ``pending`` with a growing wait
   (in ``lease_until``); after ``DIGEST_MAX_ATTEMPTS`` it is ``failed`` with ``last_error``.

A digest says exactly what its notifications say: the fan-out wrote them for the event's
audience only, so a mail never tells more than the site shows its reader.
"""

from __future__ import annotations

import email.policy
import logging
import smtplib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives, mailers
from django.db import transaction
from django.db.models import Min, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import presence
from games.accounts import verified_email
from games.i18n import in_language_of

from .kinds import BOTH, EMAIL, INBOX, NOTIFICATION_KINDS, OFF, SETTABLE_KINDS
from .models import DigestStatus, EmailDigest, MailState, Notification, NotificationPrefs

log = logging.getLogger(__name__)

ALL = "all"  # an unsubscribe token's kind: every kind of notification e-mail
_SALT = "games.notifications.unsubscribe"
DEFAULT_DIGEST_MINUTES: int = NotificationPrefs._meta.get_field("digest_minutes").default


def recipient_address(user: Any) -> str | None:
    """Where a person's mail goes, or None: nothing is mailed then. Only a verified address
    counts: mail never goes to an address its owner has not confirmed."""
    return verified_email(user)


# -- settings --------------------------------------------------------------------------------
def lease() -> timedelta:
    """How long a worker holds a digest it is sending: longer than any send can take (the
    SMTP timeout applies to each step), else a slow send would be sent twice."""
    return timedelta(seconds=float(getattr(settings, "DIGEST_LEASE_SECONDS", 300)))


def retry_wait(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed try: doubling, at most an hour."""
    base = float(getattr(settings, "DIGEST_RETRY_SECONDS", 60))
    return timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), 3600.0))


def max_attempts() -> int:
    return int(getattr(settings, "DIGEST_MAX_ATTEMPTS", 12))


# -- unsubscribe tokens ----------------------------------------------------------------------
class BadToken(ValueError):
    """An unsubscribe token that is tampered with, truncated or names no kind."""


def unsubscribe_token(user_id: int, kind: str) -> str:
    """A signed token: stop ``kind`` (or ``ALL``) e-mails for this person. It never expires:
    an old mail's link must still work."""
    return signing.dumps([user_id, kind], salt=_SALT, compress=False)


def read_token(token: str) -> tuple[int, str]:
    try:
        user_id, kind = signing.loads(token, salt=_SALT)
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise BadToken(token) from exc
    if not isinstance(user_id, int) or (kind != ALL and kind not in SETTABLE_KINDS):
        raise BadToken(token)
    return user_id, kind


def unsubscribe_url(user_id: int, kind: str) -> str:
    path = reverse("notifications:unsubscribe", args=[unsubscribe_token(user_id, kind)])
    return settings.SITE_URL + path


def kind_label(kind: str) -> str:
    """What an unsubscribe link stops, in the active language (the page's reader's)."""
    return _("all notifications") if kind == ALL else str(NOTIFICATION_KINDS[kind].label)


def stop_email(user_id: int, kind: str) -> list[str]:
    """Take the e-mail part off ``kind``'s channel (or every kind's): both -> inbox,
    e-mail -> off; its pending notifications are not mailed. Returns the kinds changed."""
    kinds = list(SETTABLE_KINDS) if kind == ALL else [kind]
    with transaction.atomic():
        NotificationPrefs.objects.get_or_create(user_id=user_id)
        prefs = NotificationPrefs.objects.select_for_update().get(user_id=user_id)
        changed = []
        for name in kinds:
            channel = prefs.channel(name)
            if channel in (BOTH, EMAIL):
                prefs.channels[name] = INBOX if channel == BOTH else OFF
                changed.append(name)
        if changed:
            prefs.save(update_fields=["channels"])
        Notification.objects.filter(user_id=user_id, kind__in=kinds, mail=MailState.PENDING).update(
            mail=MailState.SKIPPED
        )
    return changed


# -- building --------------------------------------------------------------------------------
def due_people(now: datetime) -> list[int]:
    """People whose oldest pending notification is older than their digest window."""
    oldest = dict(
        Notification.objects.filter(mail=MailState.PENDING, updated_at__lte=now)
        .values("user_id")
        .annotate(oldest=Min("updated_at"))
        .values_list("user_id", "oldest")
    )
    windows = dict(
        NotificationPrefs.objects.filter(user_id__in=list(oldest)).values_list(
            "user_id", "digest_minutes"
        )
    )
    return sorted(
        user_id
        for user_id, at in oldest.items()
        if at <= now - timedelta(minutes=windows.get(user_id, DEFAULT_DIGEST_MINUTES))
    )


def build_digest(user_id: int, now: datetime | None = None) -> EmailDigest | None:
    """One person's digest, if it is due; None if nothing is to be mailed (or another
    sweeper is building it right now)."""
    now = now or timezone.now()
    with transaction.atomic():
        # The person's row is the digest's lock. NO KEY UPDATE: a fan-out inserting a
        # notification for them (a key-share lock on the same row) is not held up.
        user = (
            get_user_model()
            .objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=user_id)
            .first()
        )
        if user is None:
            return None
        rows = list(
            Notification.objects.select_for_update(of=("self",))
            .filter(user_id=user_id, mail=MailState.PENDING)
            .select_related("game")
            .order_by("created_at", "pk")
        )
        window = (
            NotificationPrefs.objects.filter(user_id=user_id)
            .values_list("digest_minutes", flat=True)
            .first()
        )
        window = DEFAULT_DIGEST_MINUTES if window is None else window
        if not rows or min(n.updated_at for n in rows) > now - timedelta(minutes=window):
            return None  # sent by another sweeper meanwhile, or not due yet
        seen = presence.last_seen(user_id, now)
        address = recipient_address(user)
        mailed: list[int] = []
        skipped: list[int] = []
        for n in rows:
            found = seen.get(n.game_id) if n.game_id is not None else None
            at, open_now = found if found is not None else (None, False)
            seen_on_site = open_now or (at is not None and at >= n.updated_at)
            (skipped if address is None or seen_on_site else mailed).append(n.pk)
        if skipped:
            Notification.objects.filter(pk__in=skipped).update(mail=MailState.SKIPPED)
        if not mailed:
            return None
        assert address is not None  # without one, every note was skipped above
        notes = [n for n in rows if n.pk in set(mailed)]
        subject, text, html = render(user, notes)
        digest = EmailDigest.objects.create(
            user=user,
            to=address,
            subject=subject,
            text=text,
            html=html,
            message_id=f"<digest.{uuid.uuid4().hex}@{_domain()}>",
            created_at=now,
        )
        Notification.objects.filter(pk__in=mailed).update(digest=digest, mail=MailState.QUEUED)
    return digest


def build_due_digests(now: datetime | None = None) -> list[int]:
    """Build every due digest; a person whose digest fails is logged and retried next time."""
    now = now or timezone.now()
    built = []
    for user_id in due_people(now):
        try:
            digest = build_digest(user_id, now)
        except Exception:
            log.exception("Could not build the e-mail digest of user %s", user_id)
            continue
        if digest is not None:
            built.append(digest.pk)
    return built


# -- the words -------------------------------------------------------------------------------
@dataclass
class Group:
    title: str
    items: list[dict[str, str]]


def render(user: Any, notes: Iterable[Notification]) -> tuple[str, str, str]:
    """(subject, text, html) of a digest of ``notes``, grouped by game, in the person's
    language (``games.i18n.in_language_of``: their account's choice). The notifications'
    own texts were written in it when they were made."""
    with in_language_of(user):
        return _render(user, list(notes))


def _render(user: Any, notes: list[Notification]) -> tuple[str, str, str]:
    groups: dict[int | None, Group] = {}
    for n in notes:
        title = n.game.title if n.game is not None else _("On the site")
        group = groups.setdefault(n.game_id, Group(title, []))
        group.items.append({"text": n.text, "url": settings.SITE_URL + n.link})
    kinds = sorted({n.kind for n in notes}, key=list(NOTIFICATION_KINDS).index)
    titles = [g.title for key, g in groups.items() if key is not None]
    shown = ", ".join(titles[:3])
    if len(titles) > 3:
        shown = _("%(games)s and %(more)s more") % {"games": shown, "more": len(titles) - 3}
    count = len(notes)
    if shown:
        subject = ngettext("%(count)s update: %(games)s", "%(count)s updates: %(games)s", count) % {
            "count": count,
            "games": shown,
        }
    else:
        subject = ngettext("%(count)s update", "%(count)s updates", count) % {"count": count}
    context = {
        "name": user.get_username(),
        "groups": list(groups.values()),
        "stop": [
            {"label": str(NOTIFICATION_KINDS[k].label), "url": unsubscribe_url(user.pk, k)}
            for k in kinds
            if k in SETTABLE_KINDS
        ],
        "stop_all": unsubscribe_url(user.pk, ALL),
        "site_url": settings.SITE_URL,
    }
    text = render_to_string("email/digest.txt", context)
    html = render_to_string("email/digest.html", context)
    return subject[:300], text, html


def _domain() -> str:
    return urlsplit(settings.SITE_URL).hostname or "localhost"


class DigestMail(EmailMultiAlternatives):
    # django-stubs lets policy be None; Django's default is email.policy.default, never None.
    def message(self, *, policy: email.policy.Policy = email.policy.default) -> Any:  # type: ignore[override]
        # Headers folded at 78 characters would turn the long one-click URL into RFC 2047
        # encoded words, which no mail client reads as a URL; RFC 5322 allows 998.
        return super().message(policy=policy.clone(max_line_length=998))


def message(digest: EmailDigest) -> EmailMultiAlternatives:
    """The digest as a mail: the same bytes' worth on every attempt, Message-ID included."""
    one_click = unsubscribe_url(digest.user_id, ALL)
    mail = DigestMail(
        subject=digest.subject,
        body=digest.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[digest.to],
        headers={
            "Message-ID": digest.message_id,
            # RFC 8058 one-click unsubscribe: the mail client POSTs to the link.
            "List-Unsubscribe": f"<{one_click}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    mail.attach_alternative(digest.html, "text/html")
    return mail


# -- sending ---------------------------------------------------------------------------------
def _claimable(now: datetime) -> Q:
    waiting = Q(status=DigestStatus.PENDING) & (
        Q(lease_until__isnull=True) | Q(lease_until__lte=now)
    )
    return waiting | Q(status=DigestStatus.SENDING, lease_until__lte=now)


def sendable(now: datetime | None = None, limit: int = 500) -> list[int]:
    """Digests to send now: new, due for a retry, or left by a worker whose lease ran out."""
    now = now or timezone.now()
    return list(
        EmailDigest.objects.filter(_claimable(now))
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def _claim(digest_id: int, now: datetime) -> EmailDigest | None:
    with transaction.atomic():
        digest = (
            EmailDigest.objects.select_for_update(skip_locked=True)
            .filter(_claimable(now), pk=digest_id)
            .first()
        )
        if digest is None:
            return None
        if digest.attempts >= max_attempts():  # workers kept dying under it
            _give_up(digest, digest.last_error or "the worker was lost mid-send")
            return None
        digest.status = DigestStatus.SENDING
        digest.attempts += 1
        digest.lease_until = now + lease()
        digest.save(update_fields=["status", "attempts", "lease_until"])
    return digest


def _give_up(digest: EmailDigest, error: str) -> None:
    EmailDigest.objects.filter(pk=digest.pk).update(
        status=DigestStatus.FAILED, lease_until=None, last_error=error[:500]
    )
    log.error(
        "E-mail digest %s to user %s failed after %s attempt(s): %s",
        digest.pk,
        digest.user_id,
        digest.attempts,
        error,
    )


def _permanent(exc: Exception) -> bool:
    """The server refused every recipient for good (5xx): trying again changes nothing."""
    return isinstance(exc, smtplib.SMTPRecipientsRefused) and all(
        code >= 500 for code, _ in exc.recipients.values()
    )


def send_digest(digest_id: int, now: datetime | None = None) -> str:
    """Send one digest if it is due: "sent", "retry", "failed" or "not due"."""
    now = now or timezone.now()
    digest = _claim(digest_id, now)
    if digest is None:
        return "not due"
    try:
        sent = mailers.default.send_messages([message(digest)])
        if not sent:
            raise smtplib.SMTPException("the mail backend sent nothing")
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
        if _permanent(exc) or digest.attempts >= max_attempts():
            _give_up(digest, error)
            return "failed"
        wait = retry_wait(digest.attempts)
        EmailDigest.objects.filter(pk=digest.pk, status=DigestStatus.SENDING).update(
            status=DigestStatus.PENDING, lease_until=now + wait, last_error=error
        )
        log.warning(
            "E-mail digest %s: attempt %s failed (%s); next try in %s",
            digest.pk,
            digest.attempts,
            error,
            wait,
        )
        return "retry"
    with transaction.atomic():
        EmailDigest.objects.filter(pk=digest.pk).update(
            status=DigestStatus.SENT, sent_at=timezone.now(), lease_until=None, last_error=""
        )
        Notification.objects.filter(digest_id=digest.pk, mail=MailState.QUEUED).update(
            mail=MailState.SENT
        )
    return "sent"


def sweep(dispatch: Callable[[int], Any], now: datetime | None = None) -> int:
    """Build the due digests and hand each sendable one to ``dispatch`` (a Celery task's
    ``delay``, or ``send_digest`` itself in the embedded run); returns how many."""
    now = now or timezone.now()
    build_due_digests(now)
    due = sendable(now)
    for digest_id in due:
        try:
            dispatch(digest_id)
        except Exception:  # the broker is away: the next sweep finds them still pending
            log.warning("Could not queue e-mail digest %s", digest_id, exc_info=True)
            return 0
    return len(due)
