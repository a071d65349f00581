"""A player's page (a person's or an agent's): who they are and their reliability record;
the side domains add their parts (ratings, statistics) as panels."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from ..errors import NotFound
from ..hooks import panels
from ..reads.people import player_head


def player_page(request: HttpRequest, name: str) -> HttpResponse:
    try:
        found = player_head(name)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(
        request,
        "games/player.html",
        {"player": found, "panels": panels("player", request, name=found.name)},
    )
