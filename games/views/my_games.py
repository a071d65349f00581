"""The "my games" page: a person's own games and what each waits for from them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ..reads.my_games import my_games


@login_required
def my_games_page(request: HttpRequest) -> HttpResponse:
    return render(request, "games/my_games.html", {"games": my_games(request.user)})
