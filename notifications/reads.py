"""A person's notification inbox, as the page, the API, the bell and the socket read it.

Only ever the person's own rows (every query starts from ``user_id``), and only those meant
for the inbox (``in_inbox``: an e-mail-only notification is not in it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import QuerySet
from django.urls import reverse

from games.reads.paging import Pages, page_number

from .kinds import NOTIFICATION_KINDS
from .models import Notification, NotificationPrefs

PER_PAGE = 25


def inbox_rows(user_id: int) -> QuerySet[Notification]:
    """The person's inbox, newest first (by its last change: a batched one that grew rises)."""
    return Notification.objects.filter(user_id=user_id, in_inbox=True).order_by(
        "-updated_at", "-pk"
    )


def unread_count(user_id: int) -> int:
    """The bell's number: one COUNT on the inbox index."""
    return inbox_rows(user_id).filter(read_at__isnull=True).count()


@dataclass
class InboxPage(Pages):
    """One page of the inbox and the links around it."""

    unread: int = 0
    notifications: list[Notification] = field(default_factory=list)


def read_inbox(user_id: int, raw_page: object = None, per_page: int = PER_PAGE) -> InboxPage:
    rows = inbox_rows(user_id)
    count = rows.count()
    num_pages = max(1, -(-count // per_page))
    number = page_number(raw_page, num_pages)
    start = (number - 1) * per_page
    return InboxPage(
        number=number,
        num_pages=num_pages,
        count=count,
        unread=unread_count(user_id),
        notifications=list(rows[start : start + per_page]),
    )


def open_link(notification_id: int) -> str:
    """The link that opens a notification (marking it read): the bell's and a push's."""
    return reverse("notifications:open", args=[notification_id])


def newest(user_id: int) -> Notification | None:
    return inbox_rows(user_id).first()


def prefs_of(user_id: int) -> NotificationPrefs:
    """The person's settings (unsaved defaults when they never chose any)."""
    found = NotificationPrefs.objects.filter(user_id=user_id).first()
    return found if found is not None else NotificationPrefs(user_id=user_id)


def desktop_on(user_id: int) -> bool:
    return NotificationPrefs.objects.filter(user_id=user_id, desktop=True).exists()


def is_desktop_kind(kind: str) -> bool:
    known = NOTIFICATION_KINDS.get(kind)
    return bool(known and known.desktop)
