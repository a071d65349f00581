"""The league's matchmaking queues in the JSON API: list them, join one, leave one.

The same read (``games.reads.league``) and services (``games.services.league``) as the
``/league/`` page. Joining runs the matchmaker at once: when the join fills a table, the
answer's ``latest_game`` is the game just started."""

from __future__ import annotations

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from .. import services
from ..reads.league import queue_of, queues
from . import docs
from . import serializers as s
from .views import GameAPIView


class QueuesView(GameAPIView):
    permission_classes = [AllowAny]

    @docs.read(s.LeagueQueueSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Every standing league queue: its setup, seats needed and waiting, whether you
        wait in it, its problem, and your latest game from it."""
        return Response(queues(request.user))


class QueueJoinView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.LeagueQueueSerializer)
    def post(self, request: Request, setup: str) -> Response:
        """Wait in this setup's queue; a full table starts at once (you are told on the
        inbox, the bell's socket and by ``latest_game`` here). Refused 403
        ``league_cooldown`` for a while after a modkill for inactivity (the error says
        until when; so does ``reliability.league_cooldown_until`` of your player read)."""
        services.join_league_queue(request.user, setup)
        return Response(queue_of(request.user, setup))


class QueueLeaveView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.LeagueQueueSerializer)
    def post(self, request: Request, setup: str) -> Response:
        """Stop waiting in this setup's queue."""
        services.leave_league_queue(request.user, setup)
        return Response(queue_of(request.user, setup))
