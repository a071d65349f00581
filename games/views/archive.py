"""The archive: once the game is over, every role, action, result and explanation."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from ..reads.access import Viewer, get_game
from ..reads.phase_history import phase_records


def archive(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    if not game.is_finished:
        raise Http404(_("The archive opens when the game ends."))
    viewer = Viewer.of(game, request.user)
    slots = list(
        game.slots.select_related("user")
        .prefetch_related("replacements__old_user", "replacements__new_user")
        .order_by("seat")
    )
    co_winners = [s for s in slots if s.pk in set(game.co_winners or [])]
    return render(
        request,
        "games/archive.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "slots": slots,
            "co_winners": co_winners,
            "records": phase_records(game, slots, include_open=False),
        },
    )
