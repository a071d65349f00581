"""The leaderboard of a rule set and a player's page (a person's or an agent's): the same
reads as ``GET /api/v1/leaderboard/<ruleset>/`` and ``GET /api/v1/players/<name>/``."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from games.hooks import panels

from ..errors import NotFound
from ..forms import LeaderboardFilterForm
from ..models import Ruleset
from ..reads.ratings import leaderboard, player


def leaderboard_page(request: HttpRequest, ruleset: str) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET or None)
    try:
        board = leaderboard(
            ruleset,
            who=form.choice("who"),
            side=form.choice("side"),
            page=request.GET.get("page"),
        )
    except NotFound as exc:
        raise Http404(exc.message) from None
    query = {"who": board.who, "side": board.side}
    return render(
        request,
        "games/leaderboard.html",
        {
            "board": board,
            "form": form,
            "rulesets": Ruleset.choices,
            "query": "&".join(f"{k}={v}" for k, v in query.items()),
            "panels": panels("leaderboard", request, ruleset=ruleset),
        },
    )


def player_page(request: HttpRequest, name: str) -> HttpResponse:
    try:
        found = player(name)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(
        request,
        "games/player.html",
        {"player": found, "panels": panels("player", request, name=found.name)},
    )
