"""The live regions of the game pages, as (context builder, template) pairs.

The live layer re-renders these on websocket pushes, per viewer, with exactly what the
page itself renders::

    from games.views import partials
    html = partials.render_vote_count(game)               # public: same for everyone
    html = partials.render_phase_banner(game)             # public
    html = partials.render_players(game, user)            # buttons depend on the viewer
    # The templates also render from just ``game`` (+ ``count`` / ``phase`` / ``viewer``):
    # _players.html then builds the rows itself for ``viewer`` (anonymous if absent).
    html = partials.render_post(post)                     # one post (check the thread's
                                                          # audience before sending it!)

Each rendered partial's outermost element carries a stable id (``vote-count``,
``phase-banner``, ``players``, ``post-<thread>-<number>``) so it can replace itself.
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse

from .. import services
from ..models import Game, Phase, PhaseKind, Post, Thread
from .access import Viewer

POSTS_PER_PAGE = 25


def page_of(number: int) -> int:
    """The page of the (unfiltered) thread a post number is on."""
    return (max(number, 1) - 1) // POSTS_PER_PAGE + 1


def post_url(game_id: int, number: int, thread: str = Thread.PUBLIC) -> str:
    if thread == Thread.PUBLIC:
        base = reverse("games:thread", args=[game_id])
    else:
        base = reverse("games:private_thread", args=[game_id, thread])
    return f"{base}?page={page_of(number)}#post-{thread}-{number}"


# -- the vote count ---------------------------------------------------------------------
def counted_phase(game: Game) -> Phase | None:
    """The day whose vote count is shown: today, or (by night / after the end) the last."""
    if game.is_signups:
        return None
    phase = game.current_phase()
    if phase is not None and phase.kind == PhaseKind.DAY:
        return phase
    return game.phases.filter(kind=PhaseKind.DAY).order_by("-number").first()


def vote_count_context(game: Game) -> dict[str, Any]:
    """``vc``: ``services.vote_count`` of the counted day (None before the first day).

    The template also accepts the same dict as ``count`` and needs nothing else but
    ``game``: links, finality and the deadline's display are worked out in the template.
    """
    phase = counted_phase(game)
    return {"game": game, "vc": services.vote_count(phase) if phase is not None else None}


def render_vote_count(game: Game) -> str:
    return render_to_string("games/_vote_count.html", vote_count_context(game))


# -- the phase banner -------------------------------------------------------------------
def phase_banner_context(game: Game) -> dict[str, Any]:
    phase = game.current_phase() if game.is_running else None
    return {"game": game, "phase": phase}


def render_phase_banner(game: Game) -> str:
    return render_to_string("games/_phase_banner.html", phase_banner_context(game))


# -- the players ------------------------------------------------------------------------
def players_context(game: Game, user: Any = None, viewer: Viewer | None = None) -> dict[str, Any]:
    viewer = viewer or Viewer.of(game, user)
    phase = game.current_phase() if game.is_running else None
    is_day = phase is not None and phase.is_day and not phase.resolved and not phase.is_paused
    can_vote = is_day and viewer.is_alive_player
    vc = services.vote_count(phase) if is_day else None
    my_vote = None
    nominated: set[int] = set()
    i_nominated = False
    uses_nominations = False
    if vc is not None:
        for wagon in vc["wagons"]:
            if any(v["slot_id"] == getattr(viewer.slot, "pk", None) for v in wagon["voters"]):
                my_vote = wagon["target"]["slot_id"] if wagon["target"] else "skip"
        if "nominated" in vc:
            uses_nominations = True
            nominated = {n["slot_id"] for n in vc["nominated"] if n}
            if viewer.slot is not None:
                i_nominated = phase.nominations.filter(nominator=viewer.slot).exists()
    revote_ids = set(phase.revote or []) if phase is not None and phase.in_revote else None
    rows = []
    for slot in game.slots.select_related("user").order_by("seat"):
        votable = can_vote and slot.alive
        if votable and slot.pk == getattr(viewer.slot, "pk", None):
            votable = game.self_vote_allowed
        if votable and revote_ids is not None:
            votable = slot.pk in revote_ids
        elif votable and uses_nominations:
            votable = slot.pk in nominated
        rows.append(
            {
                "slot": slot,
                "name": slot.display_name,
                "seat": slot.seat,
                "alive": slot.alive,
                "role": viewer.public_role(slot),
                "alignment": slot.alignment if viewer.sees_everything else "",
                "death": slot.get_death_cause_display() if not slot.alive else "",
                "is_you": viewer.slot is not None and slot.pk == viewer.slot.pk,
                "votable": votable and my_vote != slot.pk,
                "voted": my_vote == slot.pk,
                "nominatable": (
                    can_vote
                    and uses_nominations
                    and revote_ids is None
                    and not i_nominated
                    and slot.alive
                    and slot.pk not in nominated
                ),
                "nominated": slot.pk in nominated,
            }
        )
    return {
        "game": game,
        "viewer": viewer,
        "rows": rows,
        "alive_rows": [r for r in rows if r["alive"]],
        "dead_rows": [r for r in rows if not r["alive"]],
        "can_vote": can_vote,
        "my_vote": my_vote,
        "skip_votable": can_vote and game.skip_vote_allowed and my_vote != "skip",
        # Classic: "skip" may be nominated on the first day only (no night played yet).
        "skip_nominatable": can_vote
        and uses_nominations
        and revote_ids is None
        and not i_nominated
        and not (game.resolver_state or {}).get("night_number", 0),
        "can_unvote": can_vote and my_vote is not None,
    }


def render_players(game: Game, user: Any = None) -> str:
    return render_to_string("games/_players.html", players_context(game, user))


# -- posts ------------------------------------------------------------------------------
def post_context(post: Post, can_quote: bool = True) -> dict[str, Any]:
    return {"post": post, "game_id": post.game_id, "can_quote": can_quote}


def render_post(post: Post, can_quote: bool = True) -> str:
    return render_to_string("games/_post.html", post_context(post, can_quote))
