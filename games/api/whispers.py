"""Whispers in the JSON API (the ``whispers`` variant): sending one, and reading those the
caller may read, by the same service and reads as the whispers page."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from .. import ratelimit
from ..reads import policy, snapshot
from ..reads.access import Viewer
from ..reads.whispers import readable, whisper_data
from ..services.whispers import MAX_WHISPER_LENGTH, send_whisper
from . import docs
from . import serializers as s
from .views import GameAPIView, _valid


class WhisperCreateSerializer(s.InputSerializer):
    to = serializers.IntegerField(help_text="The slot id of the living player to whisper to.")
    body = serializers.CharField(
        max_length=MAX_WHISPER_LENGTH, help_text="The whisper (Markdown/BBCode)."
    )


class WhisperSerializer(serializers.Serializer):
    number = serializers.IntegerField(
        allow_null=True,
        help_text="Its number within the game, for the host and after the game; null for a "
        "player while the game runs (its gaps would count the whispers of others).",
    )
    phase = serializers.IntegerField(allow_null=True, help_text="The day it was sent in.")
    sender = s.SlotRefSerializer()
    recipient = s.SlotRefSerializer()
    body = serializers.CharField(help_text="The source text (Markdown/BBCode).")
    html = serializers.CharField(help_text="The rendered, sanitised HTML.")
    created_at = serializers.DateTimeField()


class WhispersView(GameAPIView):
    @docs.read(WhisperSerializer(many=True))
    def get(self, request: Request, game_id: int) -> Response:
        """The whispers you may read, oldest first: while the game runs a player's own (sent
        and received) and the host's all; everyone's all once it is over; none in a game
        without whispers or for anyone else."""
        game = self.game(game_id)
        slots = snapshot.slots(game)
        viewer = Viewer.of(game, request.user, slots)
        by_id = {slot.pk: slot for slot in slots}
        return Response([whisper_data(w, viewer, by_id) for w in readable(viewer)])

    @docs.write(
        WhisperSerializer,
        request=WhisperCreateSerializer,
        status=201,
        refusals=policy.WHISPERING,
    )
    @ratelimit.limited("post")  # a whisper is talk: it counts against the posts' limit
    def post(self, request: Request, game_id: int) -> Response:
        """Whisper to another living player, by day, in a game with whispers. Only the two
        of you and the host read it until the game ends; in an ``announced`` game the
        thread says that you whispered to them, never what."""
        if not request.user.is_authenticated:
            self.permission_denied(request)
        data = _valid(WhisperCreateSerializer, request)
        whisper = send_whisper(request.user, game_id, to=data["to"], body=data["body"])

        def known() -> dict[str, Any]:
            game = whisper.game
            return whisper_data(whisper, Viewer(game, request.user, whisper.sender))

        return self.answer(game_id, known, known, status=status.HTTP_201_CREATED)
