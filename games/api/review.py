"""``GET /api/v1/games/{id}/review/``: the game review as data (``reads.review``), 404 until
the game has ended, for everyone (its host and players included)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from .. import shapes
from ..reads import review as reads
from ..reads.agents import current_agent_names
from ..reads.thoughts import thoughts_of
from . import docs
from . import serializers as s
from .views import GameAPIView, phases_data, slot_roles


class ReviewView(GameAPIView):
    @docs.read(s.GameReviewSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """After the game ends: each phase's public posts, acts, results and the resolver's
        explanation; by day the vote count as the day ended and the wagon chart's data (the
        votes on each player after each vote: the count after any post is the last step
        at or before it). 404 until the game has ended, for everyone."""
        game = self.game(game_id)
        try:
            review = reads.read_review(game)
        except reads.NotOver:
            raise NotFound(_("The review opens when the game ends.")) from None
        posts = reads.phase_posts(review)
        records = {
            r["number"]: r
            for r in phases_data(
                game,
                review.slots,
                include_open=True,
                records=list(review.records.values()),
                history=review.history,
            )
        }
        agents = current_agent_names()
        thoughts = thoughts_of(game, history=review.history)
        phases: list[shapes.ReviewPhase] = []
        for phase in review.phases:
            record = records[phase.number]
            phases.append(
                {
                    "number": phase.number,
                    "kind": phase.kind,
                    "label": record["label"],
                    "posts": [
                        {
                            "number": p.number,
                            "author": p.author_name,
                            "seat": review.history.seats.get(p.slot_id) if p.slot_id else None,
                            "is_host": p.is_host,
                            "is_auto": p.is_auto,
                            "html": p.html,
                            "created_at": p.created_at,
                        }
                        for p in posts.get(phase.pk, [])
                    ],
                    "actions": record["actions"],
                    "results": record["results"],
                    "explanation": record["explanation"],
                    "notes": record["notes"],
                    "count": reads.count_at(review, phase) if phase.is_day else None,
                    "wagons": reads.wagon_chart(review, phase) if phase.is_day else None,
                    "thoughts": [t for t in thoughts if t["phase"] == record["label"]],
                }
            )
        data: shapes.GameReview = {
            "game": s.game_data(game, self.viewer(game)),
            "slots": [slot_roles(x, agents) for x in review.slots],
            "phases": phases,
        }
        return Response(data)
