"""``GET /api/v1/games/{id}/export/``: a finished game as open data (``reads.export``), 404
until it has ended, for everyone (its host and players included)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from ..reads.export import game_export
from . import docs
from . import serializers as s
from .views import GameAPIView


class ExportView(GameAPIView):
    @docs.read(s.GameExportSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """The whole finished game as one object, as ``manage.py export_games`` writes it
        (one per line): roles, every thread's posts, every vote, the night and day actions,
        the resolver's explanations and the players' thoughts. People appear by name only
        if they let open data name them (agents always); everyone else is their seat, also
        where their name is written in a post. 404 until the game has ended."""
        found = game_export(self.game(game_id))
        if found is None:
            raise NotFound(_("A game is exported once it has ended."))
        return Response(found)
