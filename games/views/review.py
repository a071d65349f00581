"""The game review: once the game has ended, its thread step by step (``reads.review``).
Server-rendered: ``?phase=N`` picks a phase, ``?post=K`` a point in it (the vote count as
it stood after post K); links step back and forth, no script needed."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from games.hooks import panels

from .. import display
from ..reads import review as reads
from ..reads.access import Viewer, get_game
from ..reads.paging import Pages, page_number
from ..reads.thoughts import thoughts_of
from ..reads.thread import POSTS_PER_PAGE


def _number(request: HttpRequest, key: str) -> int | None:
    value = request.GET.get(key)
    if value is None or value == "":
        return None
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise Http404(_("No such point in the game."))
    return int(value)


def review(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    try:
        data = reads.read_review(game)
    except reads.NotOver:
        raise Http404(_("The review opens when the game ends.")) from None
    if not data.phases:
        raise Http404(_("The game had no phases."))
    wanted = _number(request, "phase")
    phase = data.phase(wanted) if wanted is not None else data.phases[0]
    if phase is None:
        raise Http404(_("No such phase."))
    posts = reads.phase_points(data, phase)
    at_post = _number(request, "post")
    selected = next((p for p in posts if p.number == at_post), None)
    if at_post is not None and selected is None:
        raise Http404(_("No such post in this phase."))
    index = posts.index(selected) if selected is not None else len(posts) - 1
    # A page of the phase's posts at a time, as the thread pages them (a 1,000-post day
    # drawn whole took 460 ms): the page holding the chosen post, shown up to it.
    num_pages = max(1, -(-len(posts) // POSTS_PER_PAGE))
    if selected is not None:
        page = Pages(index // POSTS_PER_PAGE + 1, num_pages, len(posts))
        shown = posts[(page.number - 1) * POSTS_PER_PAGE : index + 1]
    else:
        page = Pages(page_number(request.GET.get("page"), num_pages), num_pages, len(posts))
        shown = posts[(page.number - 1) * POSTS_PER_PAGE : page.number * POSTS_PER_PAGE]
    drawn = (
        reads.phase_posts(data, phase, between=(shown[0].number, shown[-1].number))[phase.pk]
        if shown
        else []
    )
    position = data.phases.index(phase)
    acts = reads.day_acts(data, phase) if phase.is_day else {}
    chart = drawing = None
    count = None
    if phase.is_day:
        at = selected.created_at if selected is not None else None
        count = reads.count_at(data, phase, at_post, at)
        chart = reads.wagon_chart(data, phase)
        drawing = reads.chart_drawing(chart, reads.step_of_post(chart, at_post))
    # Each seat's role as the posts show it, worked out once per seat (not per post).
    roles = {
        s.pk: display.full_title(game.ruleset, s.role, s.modifiers or (), s.alignment)
        for s in data.slots
    }
    viewer = Viewer.of(game, request.user, data.slots)
    return render(
        request,
        "games/review.html",
        {
            "game": game,
            "panels": panels("review", request, game=game),
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "slots": data.slots,
            "phases": data.phases,
            "phase": phase,
            "record": data.records.get(phase.number),
            "posts": [
                (p, roles.get(p.slot_id, "") if p.slot_id else "", acts.get(p.number, []))
                for p in drawn
            ],
            "selected": selected,
            "page": page,
            "page_query": f"phase={phase.number}",
            "at_end": selected is None or index == len(posts) - 1,
            "previous_post": posts[index - 1] if selected is not None and index > 0 else None,
            "next_post": posts[index + 1] if index + 1 < len(posts) else None,
            "first_post": posts[0] if posts and selected is None else None,
            "previous_phase": data.phases[position - 1] if position > 0 else None,
            "next_phase": data.phases[position + 1] if position + 1 < len(data.phases) else None,
            "count": count,
            "chart": chart,
            "drawing": drawing,
            "summary": reads.chart_summary(chart) if chart is not None else "",
            # The players' thoughts sent with their acts in this phase (read by nobody
            # before the end: ``reads.thoughts``).
            "thoughts": thoughts_of(game, history=data.history, phase=phase),
        },
    )
