"""A person's notification inbox, as the page, the API, the bell and the socket read it.

Only ever the person's own rows (every query starts from ``user_id``), and only those meant
for the inbox (``in_inbox``: an e-mail-only notification is not in it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import QuerySet

from ..models import Notification, NotificationPrefs
from ..notification_kinds import NOTIFICATION_KINDS

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
class InboxPage:
    """One page of the inbox and the links around it (``_pagination.html`` reads these)."""

    number: int
    num_pages: int
    count: int
    unread: int
    notifications: list[Notification] = field(default_factory=list)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def links(self) -> list[tuple[int, str]]:
        shown = {1, self.num_pages, *range(self.number - 2, self.number + 3)}
        links: list[tuple[int, str]] = []
        for n in sorted(n for n in shown if 1 <= n <= self.num_pages):
            if links and n > links[-1][0] + 1:
                links.append((n - 1, "gap"))
            links.append((n, "current" if n == self.number else "page"))
        return links


def page_number(raw: object, num_pages: int) -> int:
    """Page 1 is the newest; junk is page 1 and anything past the end is the last page."""
    try:
        number = int(str(raw)) if raw not in (None, "") else 1
    except ValueError:
        number = 1
    return min(max(number, 1), num_pages)


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
