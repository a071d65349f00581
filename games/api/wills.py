"""A player's last will in the JSON API (the ``last_wills`` variant): read it, keep it. Only
its writer reads it here; the thread gets it when they die (``services.wills``)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from .. import services
from ..models import Game, Slot
from ..reads import policy
from ..reads.wills import MAX_WILL_LENGTH, Will, will_of
from . import docs
from .serializers import InputSerializer
from .views import GameAPIView, _player_slot, _valid


class WillSerializer(serializers.Serializer):
    text = serializers.CharField(allow_blank=True, help_text="Your will ('' : none yet).")
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="When you last changed it (null: never)."
    )
    editable = serializers.BooleanField(
        help_text="You may change it now (alive, the game running)."
    )
    fate = serializers.ChoiceField(
        choices=["kept", "posted", "hidden"],
        help_text="kept (you are alive), posted (in the thread at your death) or hidden "
        "(you were cleaned: the thread was told no will could be found).",
    )
    max_length = serializers.IntegerField(help_text="The longest will, in characters.")


class WillWriteSerializer(InputSerializer):
    text = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        max_length=MAX_WILL_LENGTH,
        help_text=f"Your will, at most {MAX_WILL_LENGTH} characters ('': no will). Posted in "
        "the thread when you die; until then only you and the host read it.",
    )


def will_data(will: Will) -> dict[str, Any]:
    return {
        "text": will.text,
        "updated_at": will.updated_at,
        "editable": will.editable,
        "fate": will.fate,
        "max_length": will.max_length,
    }


def _will(game: Game, slot: Slot) -> Will:
    will = will_of(game, slot)
    if will is None:
        raise policy.NO_WILLS.error()
    return will


class WillView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(WillSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Your last will (games with last wills)."""
        game = self.game(game_id)
        return Response(will_data(_will(game, _player_slot(game, request.user))))

    @docs.write(
        WillSerializer, request=WillWriteSerializer, after_commit=True, refusals=policy.WILLS
    )
    def put(self, request: Request, game_id: int) -> Response:
        """Keep (or change) your last will: while you are alive and the game runs."""
        data = _valid(WillWriteSerializer, request)
        services.write_will(request.user, game_id, data["text"])

        def read() -> dict[str, Any]:
            game = self.game(game_id)
            return will_data(_will(game, _player_slot(game, request.user)))

        return self.answer(game_id, read)
