"""The signed-in person's own notifications in the JSON API: the inbox, marking read, settings.

The same reads (``notifications.reads``) and services (``notifications.services``) as the
``/notifications/`` pages; only ever the caller's own rows."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.views import GameAPIView, _valid, absolute

from . import serializers as s
from . import services as inbox_services
from . import shapes
from .kinds import SETTABLE_KINDS
from .models import Notification
from .reads import prefs_of, read_inbox


def notification_data(request: Request, note: Notification) -> shapes.Notification:
    return {
        "id": note.pk,
        "game": note.game_id,
        "kind": note.kind,
        "text": note.text,
        "link": absolute(request, note.link),
        "read": note.read_at is not None,
        "created_at": note.created_at,
        "updated_at": note.updated_at,
        "count": note.count,
    }


MARK_READ = PolymorphicProxySerializer(
    component_name="MarkRead",
    serializers=[s.MarkReadIdsSerializer, s.MarkReadAllSerializer],
    resource_type_field_name=None,
)


class NotificationsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(
        s.NotificationPageSerializer,
        parameters=[
            OpenApiParameter(
                "page",
                str,
                required=False,
                description="A number; page 1 is the newest (past the end: the last page; "
                "anything else: the first).",
            )
        ],
    )
    def get(self, request: Request) -> Response:
        """Your notifications, newest first (by their last change), 25 a page."""
        page = read_inbox(_person(request), request.query_params.get("page"))
        data: shapes.NotificationPage = {
            "page": page.number,
            "num_pages": page.num_pages,
            "count": page.count,
            "unread": page.unread,
            "results": [notification_data(request, n) for n in page.notifications],
        }
        return Response(data)


class MarkReadView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.InboxUnreadSerializer, request=MARK_READ)
    def post(self, request: Request) -> Response:
        """Mark some of your notifications read (``ids``), or all of them (``all``)."""
        data = _valid(s.MarkReadSerializer, request)
        # {"all": true}: every one; {"all": false}: nothing to mark.
        ids = data.get("ids", None if data.get("all") else [])
        unread: shapes.InboxUnread = {"unread": inbox_services.mark_read(request.user, ids)}
        return Response(unread)


def prefs_data(user_id: int) -> dict[str, Any]:
    prefs = prefs_of(user_id)
    return {
        # The kinds a person chooses for (a moderator's notice always goes by both).
        "channels": {kind: prefs.channel(kind) for kind in SETTABLE_KINDS},
        "reminder_hours": prefs.reminder_hours,
        "digest_minutes": prefs.digest_minutes,
        "desktop": prefs.desktop,
    }


class NotificationSettingsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(s.NotificationPrefsSerializer)
    def get(self, request: Request) -> Response:
        """Your notification settings: a channel per kind, the reminder, the digest, desktop."""
        return Response(prefs_data(_person(request)))

    @docs.write(s.NotificationPrefsSerializer, request=s.NotificationPrefsSerializer)
    def put(self, request: Request) -> Response:
        """Change your notification settings (what is not sent stays as it was)."""
        data = _valid(s.NotificationPrefsSerializer, request)
        inbox_services.save_prefs(
            request.user,
            channels=data.get("channels"),
            reminder_hours=data.get("reminder_hours"),
            digest_minutes=data.get("digest_minutes"),
            desktop=data.get("desktop"),
        )
        return Response(prefs_data(_person(request)))


def _person(request: Request) -> int:
    """The signed-in person's id (the views' IsAuthenticated let only them in)."""
    user_id = request.user.pk
    assert user_id is not None
    return user_id
