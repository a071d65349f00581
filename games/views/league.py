"""The league page (``/league/``): each standing queue, join and leave buttons, and the
signed-in person's running league games. The same read as ``GET /api/v1/queues/``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from .. import services
from ..errors import GameRuleError
from ..hooks import panels
from ..reads.league import my_league_games, queues
from ..reads.moderation import same_person
from ..reads.reliability import league_cooldown


def league(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "games/league.html",
        {
            "queues": queues(request.user),
            "games": my_league_games(request.user),
            # Said before a Join is refused for it (the join still checks it).
            "cooldown": league_cooldown(same_person(request.user.pk))
            if request.user.is_authenticated
            else None,
            "panels": panels("league", request),
        },
    )


def _in_or_out(
    request: HttpRequest, move: Callable[[Any, str], Any], setup: str, done: str
) -> HttpResponse:
    try:
        move(request.user, setup)
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("games:league")


@require_POST
@login_required
def join(request: HttpRequest, setup: str) -> HttpResponse:
    done = "You are in the queue: the game starts when the table is full."
    return _in_or_out(request, services.join_league_queue, setup, done)


@require_POST
@login_required
def leave(request: HttpRequest, setup: str) -> HttpResponse:
    return _in_or_out(request, services.leave_league_queue, setup, "You left the queue.")
