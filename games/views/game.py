"""The game's pages: sign-ups and the thread (public and private), and the buttons on them."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import display, fragments, ratelimit, services
from ..errors import GameRuleError
from ..forms import PostForm, TargetForm, form_message, reply_hint
from ..models import Game, Post, Thread
from ..reads import post_limit, snapshot, thread_page
from ..reads.access import THREAD_LABELS, Viewer, get_game
from ..reads.paging import page_reach
from ..reads.policy import post_refusal
from ..reads.seats import replaced_out
from ..reads.thread_page import parse_iso, read_thread_page, unknown_seats
from .common import back, run_service, thread_url


# -- reading ------------------------------------------------------------------------------
def _quote_initial(game: Game, thread: str, raw: str | None) -> str:
    try:
        number = int(raw or "")
    except ValueError:
        return ""
    post = (
        Post.objects.filter(game=game, thread=thread, number=number)
        .select_related("author")
        .first()
    )
    if post is None:
        return ""
    return f"[quote={post.author_name} #{post.number}]\n{post.body}\n[/quote]\n"


def _thread_page(request: HttpRequest, game: Game, thread: str) -> HttpResponse:
    # The slots and the current phase once, as of the game's last change of state: the
    # viewer, the vote count, the players panel and the banner all work from them (no
    # queries for them between two changes, whatever the thread's length).
    slots = snapshot.slots(game)
    viewer = Viewer.of(game, request.user, slots)
    viewer.require_read(thread)
    current = snapshot.current_phase(game) if not game.is_signups else None
    asked = request.GET.getlist("iso")
    iso = parse_iso(asked, slots)
    unknown_names = thread_page.unknown_names(asked, slots)
    if unknown_names and not iso:
        iso = [thread_page.NOBODY]
    page, counts = read_thread_page(game, thread, iso, request.GET.get("page"), slots)
    if not iso:  # how far they have read, for "my games" (an ISO view skips posts)
        seen = page.posts[-1].number if page.posts else 0
        services.record_visit(request.user, game.pk, thread, seen)
    # The reply box is shown exactly when the service would take the post (one policy).
    refusal = post_refusal(viewer, thread, current)
    block = refusal.message if refusal is not None else ""
    # Under a post limit the box says what is left today; at the limit it is closed.
    allowance = post_limit.of_viewer(viewer, thread, current) if not block else None
    if allowance is not None and allowance.reached:
        block, allowance = allowance.sentence(), None
    form = None
    if not block:
        form = PostForm(
            initial={"body": _quote_initial(game, thread, request.GET.get("quote"))},
            hint=reply_hint(game, thread, is_host=viewer.is_host),
        )
    vote_count = fragments.vote_count_context(game, current=current, slots=slots)
    context = {
        "game": game,
        "viewer": viewer,
        "thread": thread,
        "thread_label": THREAD_LABELS[thread],
        "threads": viewer.readable_threads(),
        "page": page,
        "posts": page.posts,
        # Rendered as the live layer renders a post (cached by the post's data): the same
        # HTML for every viewer of the thread.
        "posts_html": fragments.render_posts(page.posts),
        "iso": iso,
        "iso_query": "&".join(f"iso={s}" for s in iso if s != thread_page.NOBODY),
        "iso_unknown": thread_page.unknown_iso_line(
            [s for s in unknown_seats(iso, slots) if s != thread_page.NOBODY], unknown_names
        ),
        "iso_counts": counts,
        "form": form,
        "posting_block": block,
        "posts_left": allowance.sentence() if allowance is not None else "",
        # a former player of the game: who replaced them (their seat's secrets are not theirs)
        "replaced": replaced_out(game, request.user) if viewer.slot is None else None,
        "is_last_page": page.number == page.num_pages,
        # How far this URL follows the thread as it grows (``?page=last``: to its end), so
        # the open page moves to a new page only where a reload would (``live.js``).
        "page_reach": page_reach(request.GET.get("page")),
        "slots": slots,
        "live_slots": slots,
        "my_slot": viewer.slot,
        "public_setup": display.public_setup(game),
        "vote_count_html": fragments.vote_count_html(vote_count, whole=viewer.is_host),
        "banner": fragments.phase_banner_context(game, current=current),
        "players_html": fragments.players_html(
            request, game, viewer, current=current, slots=slots, vc=vote_count["vc"]
        ),
    }
    if game.turn_based and not game.is_signups:
        me = viewer.slot if viewer.slot is not None and viewer.slot.alive else None
        context.update(fragments.turn_context(game, me))
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
    return HttpResponseRedirect(fragments.post_url(game_id, number))


# -- posting ------------------------------------------------------------------------------
@login_required
@require_POST
@ratelimit.limited("post")
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
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url + "?page=last#reply")
    post: Post | None  # None: only skip-discussion lines were sent
    try:
        if viewer.is_host:
            post = services.host_post(
                request.user, game_id, body=form.cleaned_data["body"], thread=thread
            )
            vote_message = table_note = ""
        else:
            result = services.submit_post(
                request.user,
                game_id,
                body=form.cleaned_data["body"],
                thread=thread,
                to=form.cleaned_data["to"],
            )
            post = result.post
            vote_message = result.vote_message
            table_note = result.table_note
    except GameRuleError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(url + "?page=last#reply")
    if vote_message:
        messages.warning(request, vote_message)
    if table_note:
        messages.info(request, table_note)
    if post is None:  # only skip-discussion lines: nothing posted
        return HttpResponseRedirect(url + "?page=last")
    return HttpResponseRedirect(
        f"{url}?page={fragments.page_of(post.number)}#post-{thread}-{post.number}"
    )


@login_required
@require_POST
def turn_pass(request: HttpRequest, game_id: int) -> HttpResponse:
    """The Pass button: end your turn without a post."""
    return run_service(
        request,
        lambda: services.pass_turn(request.user, game_id),
        on_error=thread_url(game_id, last=True),
    )


# -- sign-ups -----------------------------------------------------------------------------
@login_required
@require_POST
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.join_game(request.user, game_id),
        success=_("You have joined the game."),
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def leave(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.leave_game(request.user, game_id),
        success=_("You have left the sign-ups."),
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def remove_signup(request: HttpRequest, game_id: int, slot_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.remove_signup(request.user, game_id, slot_id),
        success=_("The player was removed from the sign-ups."),
        on_error=thread_url(game_id),
    )


@login_required
@require_POST
def start(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.start_game(request.user, game_id),
        success=_("The game has started: roles are dealt."),
        on_error=thread_url(game_id),
    )


# -- votes --------------------------------------------------------------------------------
def _target(request: HttpRequest) -> tuple[int | None, str]:
    """(the posted target, "") or (None, why the form was refused)."""
    form = TargetForm(request.POST)
    if not form.is_valid():
        return None, form_message(form)
    return form.cleaned_data["target"], ""


@login_required
@require_POST
@ratelimit.limited("vote")
def vote(request: HttpRequest, game_id: int) -> HttpResponse:
    target, refused = _target(request)
    if refused:
        messages.error(request, refused)
        return back(request, thread_url(game_id, last=True))

    def call() -> Any:
        result = services.cast_vote(request.user, game_id, target)
        if result.day_ended:
            messages.info(request, _("That vote reached majority: the day is over."))
        return result

    return run_service(request, call, on_error=thread_url(game_id, last=True))


@login_required
@require_POST
@ratelimit.limited("vote")
def unvote(request: HttpRequest, game_id: int) -> HttpResponse:
    return run_service(
        request,
        lambda: services.unvote(request.user, game_id),
        on_error=thread_url(game_id, last=True),
    )


@login_required
@require_POST
@ratelimit.limited("vote")
def nominate(request: HttpRequest, game_id: int) -> HttpResponse:
    target, refused = _target(request)
    if refused:
        messages.error(request, refused)
        return back(request, thread_url(game_id, last=True))
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
    "turn_pass",
    "unvote",
    "vote",
]
