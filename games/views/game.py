"""The game's pages: sign-ups and the thread (public and private), and the buttons on them."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from .. import services
from ..errors import GameRuleError
from ..forms import PostForm
from ..models import Game, Post, Thread
from . import partials
from .access import THREAD_LABELS, Viewer, get_game
from .common import back, run_service, thread_url
from .partials import POSTS_PER_PAGE


# -- reading ------------------------------------------------------------------------------
def parse_iso(values: list[str]) -> list[int]:
    seats = []
    for value in values:
        try:
            seats.append(int(value))
        except (TypeError, ValueError):
            continue
    return sorted(set(seats))


def pick_page(paginator: Paginator, raw: str | None) -> Page:
    """``?page=last`` (and anything past the end) is the newest page; junk is page 1."""
    if raw == "last":
        return paginator.page(paginator.num_pages)
    try:
        number = int(raw or 1)
    except ValueError:
        number = 1
    number = min(max(number, 1), paginator.num_pages)
    return paginator.page(number)


def thread_posts(game: Game, thread: str, iso: list[int]) -> Any:
    posts = Post.objects.filter(game=game, thread=thread).select_related("author")
    if iso:
        posts = posts.filter(slot__seat__in=iso)
    return posts.order_by("number")


def iso_counts(game: Game, thread: str, iso: list[int]) -> list[dict[str, Any]]:
    """Every player of the game with their post count in this thread (for the ISO bar)."""
    counts = dict(
        Post.objects.filter(game=game, thread=thread, slot__isnull=False)
        .values_list("slot__seat")
        .annotate(n=Count("id"))
    )
    return [
        {
            "seat": slot.seat,
            "name": slot.display_name,
            "posts": counts.get(slot.seat, 0),
            "on": slot.seat in iso,
            "query": "&".join(f"iso={s}" for s in sorted(set(iso) ^ {slot.seat})),
        }
        for slot in game.slots.select_related("user").order_by("seat")
    ]


def _quote_initial(game: Game, thread: str, raw: str | None) -> str:
    try:
        number = int(raw or "")
    except ValueError:
        return ""
    post = Post.objects.filter(game=game, thread=thread, number=number).select_related("author")
    post = post.first()
    if post is None:
        return ""
    return f"[quote={post.author.get_username()} #{post.number}]\n{post.body}\n[/quote]\n"


def _thread_page(request: HttpRequest, game: Game, thread: str) -> HttpResponse:
    viewer = Viewer.of(game, request.user)
    viewer.require_read(thread)
    iso = parse_iso(request.GET.getlist("iso"))
    paginator = Paginator(
        thread_posts(game, thread, iso), POSTS_PER_PAGE, allow_empty_first_page=True
    )
    page = pick_page(paginator, request.GET.get("page"))
    block = viewer.posting_block(thread)
    form = None
    if not block:
        form = PostForm(initial={"body": _quote_initial(game, thread, request.GET.get("quote"))})
    context = {
        "game": game,
        "viewer": viewer,
        "thread": thread,
        "thread_label": THREAD_LABELS[thread],
        "threads": viewer.readable_threads(),
        "page": page,
        "posts": page.object_list,
        "iso": iso,
        "iso_query": "&".join(f"iso={s}" for s in iso),
        "iso_counts": iso_counts(game, thread, iso),
        "form": form,
        "posting_block": block,
        "is_last_page": page.number == paginator.num_pages,
        "can_quote": form is not None,
        "slots": list(game.slots.select_related("user").order_by("seat")),
        "my_slot": viewer.slot,
        **partials.vote_count_context(game),
        **partials.phase_banner_context(game),
        **partials.players_context(game, viewer=viewer),
    }
    return render(request, "games/thread.html", context)


def thread(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game's page: sign-ups while they are open, then the public game thread."""
    return _thread_page(request, get_game(game_id), Thread.PUBLIC)


def private_thread(request: HttpRequest, game_id: int, thread: str) -> HttpResponse:
    if thread == Thread.PUBLIC:
        return HttpResponseRedirect(reverse("games:thread", args=[game_id]))
    return _thread_page(request, get_game(game_id), thread)


def post_link(request: HttpRequest, game_id: int, number: int) -> HttpResponse:
    """A permalink to a public post: its page of the thread, at the post."""
    get_game(game_id)
    return HttpResponseRedirect(partials.post_url(game_id, number))


# -- posting ------------------------------------------------------------------------------
@login_required
@require_POST
def reply(request: HttpRequest, game_id: int, thread: str = Thread.PUBLIC) -> HttpResponse:
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    viewer.require_read(thread)  # a non-member learns nothing about a private thread
    url = (
        reverse("games:thread", args=[game_id])
        if thread == Thread.PUBLIC
        else reverse("games:private_thread", args=[game_id, thread])
    )
    form = PostForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The post is empty or too long.")
        return HttpResponseRedirect(url + "?page=last#reply")
    try:
        if viewer.is_host:
            post = services.host_post(
                request.user, game_id, body=form.cleaned_data["body"], thread=thread
            )
            vote_message = ""
        else:
            result = services.submit_post(
                request.user, game_id, body=form.cleaned_data["body"], thread=thread
            )
            post, vote_message = result.post, result.vote_message
    except GameRuleError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(url + "?page=last#reply")
    if vote_message:
        messages.warning(request, vote_message)
    return HttpResponseRedirect(
        f"{url}?page={partials.page_of(post.number)}#post-{thread}-{post.number}"
    )


# -- sign-ups -----------------------------------------------------------------------------
@login_required
@require_POST
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.join_game(request.user, game_id),
        success="You have joined the game.",
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def leave(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.leave_game(request.user, game_id),
        success="You have left the sign-ups.",
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def remove_signup(request: HttpRequest, game_id: int, slot_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.remove_signup(request.user, game_id, slot_id),
        success="The player was removed from the sign-ups.",
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def start(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.start_game(request.user, game_id),
        success="The game has started: roles are dealt.",
        on_error=thread_url(game_id),
    )


# -- votes --------------------------------------------------------------------------------
def _target(request: HttpRequest) -> int | None:
    raw = request.POST.get("target", "")
    if raw == "skip":
        return None
    try:
        return int(raw)
    except ValueError:
        return -1  # no such slot: the service says so


@login_required
@require_POST
def vote(request: HttpRequest, game_id: int) -> HttpResponse:
    target = _target(request)

    def call() -> Any:
        result = services.cast_vote(request.user, game_id, target)
        if result.day_ended:
            messages.info(request, "That vote reached majority: the day is over.")
        return result

    return run_service(request, call, on_error=thread_url(game_id, last=True))


@login_required
@require_POST
def unvote(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.unvote(request.user, game_id),
        on_error=thread_url(game_id, last=True),
    )


@login_required
@require_POST
def nominate(request: HttpRequest, game_id: int) -> HttpResponse:
    target = _target(request)
    return run_service(
        request,
        lambda: services.nominate(request.user, game_id, target),
        on_error=thread_url(game_id, last=True),
    )


__all__ = [
    "back",
    "join",
    "leave",
    "nominate",
    "post_link",
    "private_thread",
    "remove_signup",
    "reply",
    "start",
    "thread",
    "unvote",
    "vote",
]
