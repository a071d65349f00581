"""Statistics from real games on the site: a setup's and a player's full page, their
panels on the core's setup, player and agent pages (``games.hooks``), and the JSON API's
``GET /api/v1/setups/{slug}/stats/`` and ``GET /api/v1/players/{name}/stats/``. All of
them draw ``analytics.stats`` (finished games only), so they agree; all are public, like
the ratings."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.typed import serializer_for
from games.api.views import GameAPIView
from games.errors import NotFound
from games.models import Agent, Ruleset

from .behaviour_board import BehaviourBoard, behaviour_board
from .probes import PersonProbes, person_probes
from .stats import (
    PANEL_OPPONENTS,
    SIDE_LABELS,
    PlayerStats,
    SetupStats,
    WinRate,
    player_stats,
    setup_stats,
)
from .stats_shapes import PlayerProbes, PlayerStatistics, SetupStatistics, WinRateFigure


# -- the answers -------------------------------------------------------------------------------
def rate_data(rate: WinRate) -> WinRateFigure:
    return {
        "wins": rate.wins,
        "games": rate.games,
        "rate": round(rate.rate, 4),
        "low": round(rate.low, 4),
        "high": round(rate.high, 4),
    }


def setup_data(stats: SetupStats) -> SetupStatistics:
    prediction = stats.prediction
    return {
        "slug": stats.slug,
        "name": stats.name,
        "ruleset": stats.ruleset,
        "games": stats.games,
        "prediction": None
        if prediction is None
        else {"run_id": prediction.run_id, "games": prediction.games, "at": prediction.at},
        "rulesets": [
            {
                "ruleset": r.ruleset,
                "games": r.games,
                "sides": [
                    {
                        "side": side.side,
                        "label": str(side.label),
                        "real": rate_data(side.real),
                        "predicted": None if side.predicted is None else rate_data(side.predicted),
                    }
                    for side in r.sides
                ],
                "roles": [
                    {
                        "role": role.role,
                        "alignment": role.alignment,
                        "title": role.title,
                        "rate": rate_data(role.rate),
                    }
                    for role in r.roles
                ],
            }
            for r in stats.rulesets
        ],
    }


def probes_figure(figures: PersonProbes) -> PlayerProbes:
    return {
        "probes": figures.probes,
        "games": figures.games,
        "brier": None if figures.brier is None else round(figures.brier, 4),
    }


def player_data(stats: PlayerStats, probes: PersonProbes) -> PlayerStatistics:
    """``stats`` with ``probes`` (``person_probes`` of the same person) as the API says it."""
    return {
        "name": stats.name,
        "agent": stats.agent,
        "overall": rate_data(stats.overall),
        "sides": [{"side": s.side, "rate": rate_data(s.rate)} for s in stats.sides],
        "roles": [
            {
                "ruleset": r.ruleset,
                "role": r.role,
                "alignment": r.alignment,
                "rate": rate_data(r.rate),
            }
            for r in stats.roles
        ],
        "recent": [
            {
                "game_id": g.game_id,
                "title": g.title,
                "ruleset": g.ruleset,
                "setup": g.setup,
                "finished_at": g.finished_at,
                "role": g.role,
                "alignment": g.alignment,
                "won": g.won,
                "share": round(g.share, 4),
            }
            for g in stats.recent
        ],
        "head_to_head": [
            {
                "name": h.name,
                "agent": h.agent,
                "together": rate_data(h.together),
                "against": rate_data(h.against),
            }
            for h in stats.opponents
        ],
        "behaviour": [
            {
                "ruleset": row.ruleset,
                "side": row.side,
                "games": row.games,
                "metrics": [
                    {
                        "metric": f.key,
                        "label": str(f.label),
                        "n": f.n,
                        "d": f.d,
                        "rate": round(f.rate, 4),
                        "per_post": f.per_post,
                    }
                    for f in row.figures
                ],
            }
            for row in stats.behaviour
        ],
        "probes": probes_figure(probes),
    }


SetupStatisticsSerializer = serializer_for(SetupStatistics)
PlayerStatisticsSerializer = serializer_for(PlayerStatistics)


class SetupStatsView(GameAPIView):
    @docs.read(SetupStatisticsSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """A ready-made setup's finished games: each side's wins with a 95% Wilson
        interval beside the balance simulator's latest prediction, and each role's, per
        rule set (404 ``unknown_setup`` for a slug that is no setup)."""
        return Response(setup_data(setup_stats(slug)))


class PlayerStatsView(GameAPIView):
    @docs.read(PlayerStatisticsSerializer)
    def get(self, request: Request, name: str) -> Response:
        """A person's or agent's finished games: wins by side and by role with 95% Wilson
        intervals, their latest games, and their record with and against everyone they
        played with (a replaced player counts the games they held a seat in for part of
        them), their behaviour metrics and their belief probes' Brier score (404
        ``no_user`` for no such player)."""
        stats = player_stats(name)
        return Response(player_data(stats, person_probes(stats.user_id)))


# -- the pages ---------------------------------------------------------------------------------
def setup_stats_page(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        stats = setup_stats(slug)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(request, "analytics/stats_setup.html", {"stats": stats})


def player_stats_page(request: HttpRequest, name: str) -> HttpResponse:
    try:
        stats = player_stats(name)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(request, "analytics/stats_player.html", {"stats": stats})


def _board_query(board: BehaviourBoard, **change: str) -> str:
    """The board's query string with ``change`` made (the links keep the side and sort)."""
    query = {"side": board.side, "sort": board.sort, "order": board.order, **change}
    return "&".join(f"{k}={v}" for k, v in query.items())


def behaviour_board_page(request: HttpRequest, ruleset: str) -> HttpResponse:
    """The rule set's behaviour leaderboard: each column header a plain link that sorts by
    it (descending first, then the other way), the sorted one marked with ``aria-sort``."""
    try:
        board = behaviour_board(
            ruleset,
            side=request.GET.get("side", "town"),
            sort=request.GET.get("sort"),
            order=request.GET.get("order"),
            page=request.GET.get("page"),
        )
    except NotFound as exc:
        raise Http404(exc.message) from None

    def header(key: str, label: Any, definition: Any = "") -> dict[str, str]:
        sorted_here = key == board.sort
        order = "asc" if sorted_here and board.order == "desc" else "desc"
        return {
            "key": key,
            "label": str(label),
            "definition": str(definition),
            "href": "?" + _board_query(board, sort=key, order=order),
            "aria_sort": ("descending" if board.order == "desc" else "ascending")
            if sorted_here
            else "",
        }

    headers = [
        header("name", _("Player")),
        header("games", _("Games")),
        *(header(m.key, m.label, m.definition) for m in board.columns),
    ]
    return render(
        request,
        "analytics/behaviour_board.html",
        {
            "board": board,
            "headers": headers,
            "sides": [
                (side, label, "?" + _board_query(board, side=side, sort=board.sort))
                for side, label in SIDE_LABELS.items()
            ],
            "rulesets": Ruleset.choices,
            "query": _board_query(board),
        },
    )


# -- the panels (``games.hooks``) --------------------------------------------------------------
def setup_panel(request: HttpRequest, *, slug: str, ruleset: str, **_: Any) -> str:
    """The setup page's: each side's real wins beside the prediction (a saved setup,
    ``slug`` blank, has no games of its own to count)."""
    if not slug:
        return ""
    try:
        stats = setup_stats(slug)
    except NotFound:
        return ""
    own = next((r for r in stats.rulesets if r.ruleset == ruleset), None)
    return render_to_string(
        "analytics/stats_setup_panel.html", {"stats": stats, "own": own}, request=request
    )


def player_panel(request: HttpRequest, *, name: str, **_: Any) -> str:
    """The player's page's: wins by side, and the people met most."""
    try:
        stats = player_stats(name, opponents=PANEL_OPPONENTS)
    except NotFound:
        return ""
    return render_to_string("analytics/stats_player_panel.html", {"stats": stats}, request=request)


def agent_panel(request: HttpRequest, *, agent: Agent, **_: Any) -> str:
    """The agent's page's: the same as its player's page's."""
    return player_panel(request, name=agent.user.get_username())


def leaderboard_panel(request: HttpRequest, *, ruleset: str, **_: Any) -> str:
    """The core leaderboard's: a link to the rule set's behaviour leaderboard."""
    return render_to_string(
        "analytics/behaviour_board_panel.html", {"ruleset": ruleset}, request=request
    )
