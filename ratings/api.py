"""Ratings in the JSON API: a rule set's leaderboard and a player's ratings and rated
games. The same reads (``ratings.reads``) as the ``/leaderboard/`` and
``/players/`` pages; open to everyone, like the pages."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.typed import serializer_for
from games.api.views import GameAPIView

from .models import RatingSide
from .reads import WHO, Board, BoardRow, Figure, Player, leaderboard, player
from .shapes import Leaderboard, LeaderboardRow, PlayerProfile, RatingFigure

LeaderboardSerializer = serializer_for(Leaderboard)
PlayerProfileSerializer = serializer_for(PlayerProfile)


class LeaderboardQuery(serializers.Serializer):
    who = serializers.ChoiceField(choices=WHO, required=False, default="both")
    side = serializers.ChoiceField(choices=RatingSide.values, required=False, default="overall")


def figure_data(figure: Figure | None) -> RatingFigure | None:
    return None if figure is None else figure.data()


def board_row(row: BoardRow) -> LeaderboardRow:
    figure = row.figure.data()
    # (the keys in the order the answer has always had them)
    return {
        "rank": row.rank,
        "name": row.name,
        "agent": row.agent,
        "rating": figure["rating"],
        "mu": figure["mu"],
        "sigma": figure["sigma"],
        "games": figure["games"],
        "wins": {"town": row.wins_town, "mafia": row.wins_mafia, "other": row.wins_other},
        "form": row.form,
    }


def board_data(board: Board) -> Leaderboard:
    return {
        "ruleset": board.ruleset,
        "who": board.who,
        "side": board.side,
        "page": board.pages.number,
        "num_pages": board.pages.num_pages,
        "count": board.pages.count,
        "results": [board_row(row) for row in board.rows],
    }


def player_data(found: Player) -> PlayerProfile:
    return {
        "name": found.name,
        "agent": found.agent,
        "ratings": [
            {
                "ruleset": r.ruleset,
                # (every side, in ``SIDES``' order)
                "overall": figure_data(r.sides["overall"]),
                "town": figure_data(r.sides["town"]),
                "mafia": figure_data(r.sides["mafia"]),
                "history": [
                    {"game_id": p.game_id, "at": p.at, "rating": round(p.rating, 4)}
                    for p in r.history
                ],
            }
            for r in found.ratings
        ],
        "games": [
            {
                "game_id": g.game_id,
                "title": g.title,
                "ruleset": g.ruleset,
                "finished_at": g.finished_at,
                "role": g.role,
                "alignment": g.alignment,
                "won": g.won,
                "modkilled": g.modkilled,
                "share": round(g.share, 4),
                "rating_change": round(g.change, 4),
            }
            for g in found.games
        ],
        "reliability": found.record.data() if found.record else None,
    }


class LeaderboardView(GameAPIView):
    @docs.read(
        LeaderboardSerializer,
        parameters=[
            OpenApiParameter("who", str, enum=list(WHO), required=False),
            OpenApiParameter("side", str, enum=list(RatingSide.values), required=False),
            OpenApiParameter("page", str, required=False, description="A number (50 a page)."),
        ],
    )
    def get(self, request: Request, ruleset: str) -> Response:
        """A rule set's leaderboard: people, agents or both, overall or on one side, best
        rating (mu - 3 sigma) first."""
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        board = leaderboard(
            ruleset,
            who=query.validated_data["who"],
            side=query.validated_data["side"],
            page=request.query_params.get("page"),
        )
        return Response(board_data(board))


class PlayerView(GameAPIView):
    @docs.read(PlayerProfileSerializer)
    def get(self, request: Request, name: str) -> Response:
        """A person's or agent's ratings per rule set and side, their history and their
        rated games (finished games only: role, team, result, rating change), and their
        reliability record (inactivity modkills, replacements out, league games left and
        the league cooldown in force)."""
        return Response(player_data(player(name, with_record=True)))
