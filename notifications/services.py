"""A person's own notifications: marking them read, opening one, and their settings.

Not game changes (no game row lock): each is one short transaction on the person's own rows,
and the person's bells (every open tab) are redrawn after the commit
(``games.live.inbox.publish_inbox``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.errors import ErrorCode, InvalidInput, NotFound
from games.live.inbox import publish_inbox_on_commit

from .kinds import CHANNELS, NOTIFICATION_KINDS, SETTABLE_KINDS
from .models import Notification, NotificationPrefs
from .reads import unread_count

REMINDER_HOURS = (0, 48)  # 0: no reminder
DIGEST_MINUTES = (1, 1440)
MAX_IDS = 1000  # one request marks at most this many by id


def _user_id(user: Any) -> int:
    if not getattr(user, "is_authenticated", False):
        raise NotFound(_("There is no such notification."), ErrorCode.NO_NOTIFICATION)
    return int(user.pk)


def mark_read(user: Any, ids: Iterable[int] | None = None) -> int:
    """Mark the person's notifications ``ids`` read (all of them when ``ids`` is None);
    the number still unread. Ids that are not theirs are ignored, as if they did not exist."""
    user_id = _user_id(user)
    with transaction.atomic():
        unread = Notification.objects.filter(user_id=user_id, read_at__isnull=True)
        if ids is not None:
            wanted = list(ids)
            if len(wanted) > MAX_IDS:
                raise InvalidInput(
                    _("Mark at most %(n)s notifications at a time (or all of them).")
                    % {"n": MAX_IDS},
                    ErrorCode.NOTIFICATION_IDS,
                    "ids",
                )
            unread = unread.filter(pk__in=wanted)
        if unread.update(read_at=timezone.now()):
            publish_inbox_on_commit({user_id})
        return unread_count(user_id)


def open_notification(user: Any, notification_id: int) -> str:
    """Mark one of the person's notifications read; the site path it is about."""
    user_id = _user_id(user)
    with transaction.atomic():
        found = (
            Notification.objects.select_for_update()
            .filter(pk=notification_id, user_id=user_id)
            .first()
        )
        if found is None:
            raise NotFound(_("There is no such notification."), ErrorCode.NO_NOTIFICATION)
        if found.read_at is None:
            found.read_at = timezone.now()
            found.save(update_fields=["read_at"])
            publish_inbox_on_commit({user_id})
    # A path on this site only (never an open redirect), whatever the row says.
    link = found.link
    return link if link.startswith("/") and not link.startswith("//") else "/notifications/"


def _whole(value: Any, bounds: tuple[int, int], what: Any, code: ErrorCode) -> int:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int | str):
        value = None
    try:
        number = int(value) if value is not None else None
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise InvalidInput(
            _("%(what)s is a whole number from %(low)s to %(high)s.")
            % {"what": what, "low": low, "high": high},
            code,
            code.value,
        )
    return number


def save_prefs(
    user: Any,
    *,
    channels: Mapping[str, Any] | None = None,
    reminder_hours: Any = None,
    digest_minutes: Any = None,
    desktop: bool | None = None,
) -> NotificationPrefs:
    """Save the person's notification settings; what is None stays as it was.

    ``channels``: kind -> one of ``CHANNELS`` (kinds not given keep their choice)."""
    user_id = _user_id(user)
    checked: dict[str, str] = {}
    for kind, channel in (channels or {}).items():
        if kind not in SETTABLE_KINDS:
            raise InvalidInput(
                _("There is no notification kind %(kind)s.") % {"kind": repr(kind)},
                ErrorCode.CHANNEL,
                kind,
            )
        if channel not in CHANNELS:
            label = NOTIFICATION_KINDS[kind].label
            raise InvalidInput(
                _("%(kind)s: choose one of %(channels)s.")
                % {"kind": label, "channels": ", ".join(CHANNELS)},
                ErrorCode.CHANNEL,
                kind,
            )
        checked[kind] = channel
    hours = (
        None
        if reminder_hours is None
        else _whole(
            reminder_hours, REMINDER_HOURS, _("The reminder's hours"), ErrorCode.REMINDER_HOURS
        )
    )
    minutes = (
        None
        if digest_minutes is None
        else _whole(
            digest_minutes, DIGEST_MINUTES, _("The digest's minutes"), ErrorCode.DIGEST_MINUTES
        )
    )
    with transaction.atomic():
        prefs, _created = NotificationPrefs.objects.select_for_update().get_or_create(
            user_id=user_id
        )
        prefs.channels = {**prefs.channels, **checked}
        if hours is not None:
            prefs.reminder_hours = hours
        if minutes is not None:
            prefs.digest_minutes = minutes
        if desktop is not None:
            prefs.desktop = bool(desktop)
        prefs.save()
    return prefs
