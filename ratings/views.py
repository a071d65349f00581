"""The leaderboard of a rule set, and the ratings' part of a player's page: the same reads
as ``GET /api/v1/leaderboard/<ruleset>/`` and ``GET /api/v1/players/<name>/``."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from games.errors import NotFound
from games.hooks import panels
from games.models import Ruleset

from .forms import LeaderboardFilterForm
from .reads import leaderboard, player


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
        "ratings/leaderboard.html",
        {
            "board": board,
            "form": form,
            "rulesets": Ruleset.choices,
            "query": "&".join(f"{k}={v}" for k, v in query.items()),
            "panels": panels("leaderboard", request, ruleset=ruleset),
        },
    )


def player_panel(request: HttpRequest, *, name: str) -> str:
    """The player page's ratings per rule set, their history and the rated games."""
    return render_to_string("ratings/player_panel.html", {"player": player(name)}, request)
