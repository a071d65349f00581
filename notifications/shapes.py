"""What the notifications' API answers (typed; the serializers are made from these: no
``from __future__ import annotations``, the serializers read the annotations)."""

from datetime import datetime
from typing import Annotated, TypedDict

from games.shapes import Doc


class Notification(TypedDict):
    id: int
    game: Annotated[int | None, Doc("The game's id (null: none).")]
    kind: Annotated[str, Doc(choices="notifications.kinds.KIND_CHOICES")]
    text: str
    link: Annotated[str, Doc("What it is about (absolute).", url=True)]
    read: bool
    created_at: datetime
    updated_at: Annotated[datetime, Doc("Its last change (a batched one grows).")]
    count: Annotated[int, Doc("How many things it gathers (batched kinds).")]


class NotificationPage(TypedDict):
    page: int
    num_pages: int
    count: int
    unread: int
    results: list[Notification]


class InboxUnread(TypedDict):
    unread: Annotated[int, Doc("How many of your notifications are unread.")]
