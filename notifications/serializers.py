"""What the notifications' API takes and answers."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from games.api.serializers import InputSerializer
from games.api.typed import serializer_for
from games.errors import ErrorCode

from .kinds import CHANNEL_CHOICES, SETTABLE_KINDS
from .shapes import InboxUnread, Notification, NotificationPage

NotificationSerializer = serializer_for(Notification)
NotificationPageSerializer = serializer_for(NotificationPage)


class MarkReadIdsSerializer(InputSerializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        max_length=1000,
        help_text="Your notifications to mark read (ids not yours are ignored).",
    )


class MarkReadAllSerializer(InputSerializer):
    all = serializers.BooleanField(help_text="true: mark every one of yours read.")


class MarkReadSerializer(InputSerializer):
    """What ``POST notifications/read/`` takes: ``{"ids": [...]}`` or ``{"all": true}``
    (documented as one of ``MarkReadIds`` and ``MarkReadAll``)."""

    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        max_length=1000,
        required=False,
    )
    all = serializers.BooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("ids" in attrs) == ("all" in attrs):
            raise serializers.ValidationError(
                _('Send either {"ids": [...]} or {"all": true}.'), ErrorCode.NOTIFICATION_IDS
            )
        return attrs


InboxUnreadSerializer = serializer_for(InboxUnread)


# One optional channel per kind of the registry (other keys are ignored, as elsewhere).
NotificationChannelsSerializer = type(
    "NotificationChannelsSerializer",
    (serializers.Serializer,),
    {
        kind: serializers.ChoiceField(choices=CHANNEL_CHOICES, required=False, help_text=label)
        for kind, label in ((k.name, k.label) for k in SETTABLE_KINDS.values())
    },
)


class NotificationPrefsSerializer(InputSerializer):
    channels = NotificationChannelsSerializer(
        required=False,
        help_text="Kind -> inbox, email, both or off (kinds not sent keep their channel).",
    )
    reminder_hours = serializers.IntegerField(
        min_value=0, max_value=48, required=False, help_text="0: no reminder."
    )
    digest_minutes = serializers.IntegerField(min_value=1, max_value=1440, required=False)
    desktop = serializers.BooleanField(required=False)
