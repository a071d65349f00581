"""Template context every page gets: the header's notification bell."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.http import HttpRequest

from .reads import unread_count


class Bell:
    """The signed-in person's unread count, read once, and only if the page shows it."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id

    @cached_property
    def unread(self) -> int:
        return unread_count(self.user_id)


def bell(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"bell": Bell(user.pk)}
