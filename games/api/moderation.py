"""Reports to the site's moderators in the JSON API: ``POST /api/v1/reports/``.

The same service (``games.services.moderation.file_report``) as the pages' Report links: a
post is named by its game, thread and number (a thread you cannot read is not there: 404),
a player by their name. The moderators' own work is done on the ``/moderation/`` pages.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from .. import ratelimit
from ..models import Report, ReportReason, Thread
from ..services import moderation as services
from . import docs
from .serializers import InputSerializer
from .views import GameAPIView, _valid


class PostRefSerializer(InputSerializer):
    game = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    thread = serializers.ChoiceField(choices=Thread.choices, default=Thread.PUBLIC)
    number = serializers.IntegerField(min_value=1, max_value=2**31 - 1)


class ReportCreateSerializer(InputSerializer):
    post = PostRefSerializer(required=False, help_text="The post reported; or give `player`.")
    player = serializers.CharField(
        max_length=150, required=False, help_text="The name of the person reported."
    )
    game = serializers.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        help_text="With `player`: the game the report is about.",
    )
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    text = serializers.CharField(max_length=services.MAX_TEXT, required=False, allow_blank=True)


class ReportSerializer(serializers.Serializer):
    post = serializers.DictField(allow_null=True, help_text="game, thread and number; or null.")
    player = serializers.CharField(help_text="The person reported (a post's author).")
    reason = serializers.ChoiceField(choices=ReportReason.choices)
    text = serializers.CharField(allow_blank=True)
    status = serializers.CharField(help_text="open, dismissed or actioned.")
    created_at = serializers.DateTimeField()


def report_data(report: Report) -> dict[str, Any]:
    post = report.post
    return {
        "post": (
            {"game": post.game_id, "thread": post.thread, "number": post.number} if post else None
        ),
        "player": report.player.get_username() if report.player else "",
        "reason": report.reason,
        "text": report.text,
        "status": report.status,
        "created_at": report.created_at,
    }


class ReportsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(ReportSerializer, request=ReportCreateSerializer, status=201)
    @ratelimit.limited("report")
    def post(self, request: Request) -> Response:
        """Report a post or a player to the site's moderators (not the game's host). While
        a game runs, its reports go only to moderators who do not play in it."""
        data = _valid(ReportCreateSerializer, request)
        post = data.get("post")
        report = services.file_report(
            request.user,
            reason=data["reason"],
            text=data.get("text", ""),
            game_id=post["game"] if post else data.get("game"),
            thread=post["thread"] if post else Thread.PUBLIC,
            number=post["number"] if post else None,
            player=data.get("player"),
        )
        return Response(report_data(report), status=status.HTTP_201_CREATED)
