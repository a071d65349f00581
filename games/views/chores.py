"""The host's chores as pages: the vote log and the numbered counts' history, the activity
overview per day, multi-ISO (several players' posts side by side), V/LA and the
replacement queue's buttons."""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import services
from ..errors import GameRuleError
from ..forms import AwayForm, form_message
from ..models import Absence, Post, Thread
from ..reads import activity
from ..reads.access import Viewer, get_game
from ..reads.seats import replacement_queue
from ..reads.thread_page import parse_iso, unknown_iso_line, unknown_names, unknown_seats
from ..reads.vote_count import sees_whole_count
from .common import run_service

MAX_ISO_COLUMNS = 6


def votes(request: HttpRequest, game_id: int) -> HttpResponse:
    """Every vote and unvote in order, and every numbered count with what changed it."""
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    whole = sees_whole_count(game, request.user)  # secret votes: the host's alone till dusk
    return render(
        request,
        "games/votes.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "log": activity.vote_log(game, whole=whole),
            "history": list(reversed(activity.count_history(game, whole=whole))),
        },
    )


def activity_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """Per day, each player's posts and votes, and who was away (V/LA)."""
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    my_absences = []
    if viewer.slot is not None:
        my_absences = list(Absence.objects.filter(slot=viewer.slot).order_by("starts"))
    return render(
        request,
        "games/activity.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "overview": activity.activity(game, whole=sees_whole_count(game, request.user)),
            "my_absences": my_absences,
            "queue": replacement_queue(game),  # by place in line in an anonymous game
            "in_queue": request.user.is_authenticated
            and game.replacement_queue.filter(user=request.user).exists(),
            "today": date.today().isoformat(),
        },
    )


def multi_iso(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game thread's posts of several players, one column each (``?iso=3&iso=5``)."""
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    slots = {s.seat: s for s in game.slots.select_related("user")}
    seats = parse_iso(request.GET.getlist("iso"), slots.values())[:MAX_ISO_COLUMNS]
    columns = []
    for seat in seats:
        slot = slots.get(seat)
        if slot is None:
            continue
        posts = Post.objects.filter(game=game, thread=Thread.PUBLIC, slot=slot).order_by("number")
        columns.append({"slot": slot, "posts": list(posts)})
    return render(
        request,
        "games/multi_iso.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "columns": columns,
            "slots": sorted(slots.values(), key=lambda s: s.seat),
            "live_slots": list(slots.values()),
            "seats": seats,
            "unknown": unknown_iso_line(
                unknown_seats(seats, list(slots.values())),
                unknown_names(request.GET.getlist("iso"), slots.values()),
            ),
        },
    )


@login_required
@require_POST
def mark_away(request: HttpRequest, game_id: int) -> HttpResponse:
    url = reverse("games:activity", args=[game_id])
    form = AwayForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url)
    return run_service(
        request,
        lambda: services.mark_away(request.user, game_id, **form.cleaned_data),
        success=_("Your V/LA is marked."),
        on_error=url,
    )


@login_required
@require_POST
def cancel_away(request: HttpRequest, game_id: int, absence_id: int) -> HttpResponse:
    url = reverse("games:activity", args=[game_id])
    return run_service(
        request,
        lambda: services.cancel_absence(request.user, game_id, absence_id),
        success=_("V/LA removed."),
        on_error=url,
    )


@login_required
@require_POST
def queue(request: HttpRequest, game_id: int, op: str) -> HttpResponse:
    if op not in ("join", "leave"):
        raise Http404(_("No such queue action."))
    url = reverse("games:activity", args=[game_id])
    call = services.join_queue if op == "join" else services.leave_queue
    try:
        call(request.user, game_id)
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        if op == "join":
            messages.success(request, _("You are in the replacement queue."))
        else:
            messages.success(request, _("You left the queue."))
    return HttpResponseRedirect(url)
