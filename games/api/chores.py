"""The host's chores in the JSON API: numbered vote counts and their history, the vote log,
V/LA and the replacement queue. Each change is one service call, as on the pages."""

from __future__ import annotations

from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from .. import services
from ..fragments import post_url
from ..models import Absence
from ..reads import activity
from ..reads.seats import replacement_queue
from ..reads.vote_count import sees_whole_count
from ..shapes import Absence as AbsenceShape
from ..shapes import CountRow, NumberedCount, Ok, Queue, VoteLogEntry, VoteLogRow
from . import docs
from . import serializers as s
from .views import GameAPIView, _seat, _valid


def _url(game_id: int, number: int | None) -> str | None:
    return post_url(game_id, number) if number else None


def _linked(game_id: int, entry: VoteLogRow) -> VoteLogEntry:
    return {**entry, "post_url": _url(game_id, entry["post_number"])}


def _count(game_id: int, entry: CountRow) -> NumberedCount:
    # (the keys in the order the answer has always had them: its link last)
    return {
        "label": entry["label"],
        "post_number": entry["post_number"],
        "at": entry["at"],
        "data": entry["data"],
        "changes": [_linked(game_id, v) for v in entry["changes"]],
        "post_url": _url(game_id, entry["post_number"]),
    }


class VoteCountsView(GameAPIView):
    @docs.read(s.NumberedCountSerializer(many=True))
    def get(self, request: Request, game_id: int) -> Response:
        """Every numbered vote count ("Vote count 2.3"), oldest first, with the votes that
        changed it."""
        game = self.game(game_id)
        whole = sees_whole_count(game, request.user)
        return Response([_count(game.pk, c) for c in activity.count_history(game, whole=whole)])

    @docs.write(s.NumberedCountSerializer, status=201, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """Host: the site posts the numbered vote count in the thread now."""
        if not request.user.is_authenticated:
            self.permission_denied(request)
        posted = services.post_vote_count(request.user, game_id)

        def read() -> NumberedCount:
            history = activity.count_history(self.game(game_id))
            return _count(game_id, next(c for c in history if c["label"] == posted.label))

        return self.answer(game_id, read, status=status.HTTP_201_CREATED)


class VoteLogView(GameAPIView):
    @docs.read(s.VoteLogEntrySerializer(many=True))
    def get(self, request: Request, game_id: int) -> Response:
        """Every vote and unvote of the game's days in order, with links to their posts."""
        game = self.game(game_id)
        whole = sees_whole_count(game, request.user)  # secret votes: the host's till dusk
        return Response([_linked(game.pk, v) for v in activity.vote_log(game, whole=whole)])


def _absence(absence: Absence, mine: bool) -> AbsenceShape:
    return {
        "id": absence.pk,
        "player": _seat(absence.slot),
        "starts": absence.starts,
        "ends": absence.ends,
        "note": absence.note if mine else "",
    }


class AwayView(GameAPIView):
    @docs.read(s.AbsenceSerializer(many=True))
    def get(self, request: Request, game_id: int) -> Response:
        """Every player's V/LA (dates away), by first day."""
        game = self.game(game_id)
        rows = Absence.objects.filter(slot__game=game).select_related("slot__user")
        me = request.user.pk if request.user.is_authenticated else None
        return Response([_absence(a, a.slot.user_id == me) for a in rows.order_by("starts", "pk")])

    @docs.write(s.AbsenceSerializer, request=s.AbsenceCreateSerializer, status=201)
    def post(self, request: Request, game_id: int) -> Response:
        """Mark the days you will be away (V/LA); prods skip you on those days."""
        if not request.user.is_authenticated:
            self.permission_denied(request)
        data = _valid(s.AbsenceCreateSerializer, request)
        absence = services.mark_away(
            request.user,
            game_id,
            starts=data["starts"],
            ends=data["ends"],
            note=data.get("note", ""),
        )
        return Response(_absence(absence, True), status=status.HTTP_201_CREATED)


class AwayDetailView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.OkSerializer)
    def delete(self, request: Request, game_id: int, absence_id: int) -> Response:
        """Cancel one of your V/LAs."""
        services.cancel_absence(request.user, game_id, absence_id)
        ok: Ok = {"ok": True}
        return Response(ok)


def _queue(game_id: int) -> Queue:
    game = GameAPIView().game(game_id)
    # Next in line first; by place in line in an anonymous game (the host's page names them).
    return {"queue": [q.name for q in replacement_queue(game)]}


class QueueView(GameAPIView):
    @docs.read(s.QueueSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """The replacement queue, next in line first."""
        return Response(_queue(self.game(game_id).pk))


class QueueOpView(GameAPIView):
    permission_classes = [IsAuthenticated]
    op = "join"

    @docs.write(s.QueueSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        call = services.join_queue if self.op == "join" else services.leave_queue
        call(request.user, game_id)
        return self.answer(game_id, lambda: _queue(game_id))


class QueueJoinView(QueueOpView):
    """Sign up to replace in this game."""

    op = "join"


class QueueLeaveView(QueueOpView):
    """Leave the replacement queue."""

    op = "leave"


class ReplaceNextView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.GameChangedSerializer, request=s.SlotIdSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """Host: the next in the replacement queue takes over the slot."""
        data = _valid(s.SlotIdSerializer, request)
        services.replace_with_next(request.user, game_id, data["slot_id"])
        return self.answer(game_id, lambda: self.ok_with_game(game_id))
