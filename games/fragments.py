"""Page parts rendered from the reads: the same HTML on the page and over the live socket.

The pages and the live layer render these with exactly the same context builders and
templates, per viewer where a part depends on who looks::

    from games import fragments
    html = fragments.render_vote_count(game)               # public: same for everyone
    html = fragments.render_phase_banner(game)             # public
    html = fragments.render_players(game, user)            # buttons depend on the viewer
    # The templates also render from just ``game`` (+ ``count`` / ``phase`` / ``viewer``):
    # _players.html then builds the rows itself for ``viewer`` (anonymous if absent).
    html = fragments.render_post(post)                     # one post (check the thread's
                                                           # audience before sending it!)

Each rendered part's outermost element carries a stable id (``vote-count``,
``phase-banner``, ``players``, ``post-<thread>-<number>``) so it can replace itself.
What may be seen and done is decided in ``games.reads``; this module only renders.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from . import display
from .lru import ProcessLRU
from .models import Game, Phase, Post, SecretVotes, Slot, Thread
from .reads import snapshot
from .reads import thread as thread_read
from .reads.access import Viewer
from .reads.options import SKIP, vote_options
from .reads.table import turn_view
from .reads.thread import POSTS_PER_PAGE
from .reads.vote_count import UNREAD, counted_phase, day_count, public_count, vote_count

__all__ = ["POSTS_PER_PAGE", "counted_phase"]  # re-exported: they belong to the reads


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
# (game, its creation, state_seq, date, day) -> that day's vote count, for pages.
_COUNTS: ProcessLRU[dict[str, Any]] = ProcessLRU(1024)
# The same key and the game's phase number -> the vote count's HTML (the same for everyone).
_COUNT_HTML: ProcessLRU[str] = ProcessLRU(1024)
# (game, its creation, state_seq, current phase, viewer's user id) -> the players panel's
# HTML, with ``_CSRF_SLOT`` where each request's own CSRF token goes.
_PANELS: ProcessLRU[str] = ProcessLRU(2048)
_CSRF_SLOT = "csrf0slot0of0a0cached0panel"


def _state_key(game: Game, phase: Phase | None) -> tuple[Any, ...]:
    """What versions everything the sidebar shows of ``phase``: every change it can show (a
    vote, a death, V/LA, a replacement, a deadline moved or paused, the next phase) sets
    the game's ``state_seq`` (``games.reads.snapshot``; plain posts do not); the date too, for
    who is away today. A busy thread's readers between two changes share one count instead
    of four queries and a render each. The reader's language too: what is kept is words."""
    return (
        *snapshot.today_key(game),
        phase.pk if phase is not None else None,
        translation.get_language(),
    )


def vote_count_context(
    game: Game, *, current: Phase | None = UNREAD, slots: list[Slot] | None = None
) -> dict[str, Any]:
    """``vc``: ``vote_count`` of the counted day (None before the first day).

    The template also accepts the same dict as ``count`` and needs nothing else but
    ``game``: links, finality and the deadline's display are worked out in the template.
    ``current`` and ``slots`` (in seat order) save the reads when a page already has them.
    """
    phase = counted_phase(game, current)
    if phase is None:
        return {"game": game, "vc": None}
    key = _state_key(game, phase)
    vc = _COUNTS.get(key)
    if vc is None:
        vc = day_count(phase, slots=slots)
        _COUNTS.put(key, vc)
    return {"game": game, "vc": vc}


def vote_count_html(context: dict[str, Any], *, whole: bool = False) -> str:
    """``_vote_count.html`` rendered from ``vote_count_context``'s dict, once per change
    (what it shows depends on the count and the game's phase, nothing of the viewer's but
    ``whole``: the host's whole count where votes are secret, ``count_context``)."""
    game, vc = context["game"], context["vc"]
    context = count_context(game, vc, whole=whole)
    if vc is None:
        return render_to_string("games/_vote_count.html", context)
    key = (*_state_key(game, None), game.phase_number, vc.get("phase"), "whole_part" in context)
    html = _COUNT_HTML.get(key)
    if html is None:
        html = render_to_string("games/_vote_count.html", context)
        _COUNT_HTML.put(key, html)
    return html


def count_context(game: Game, vc: dict[str, Any] | None, *, whole: bool) -> dict[str, Any]:
    """The vote count's template context for a viewer. In a game with secret votes everyone
    but the host sees ``public_count`` (totals or nothing until the day ends); the host's
    page has the whole count as a part of its own (``whole-count``: pushed by the host's
    socket, never carried by the items everyone gets)."""
    if game.secret_votes == SecretVotes.OFF:
        return {"game": game, "vc": vc}
    if whole:
        return {"game": game, "vc": vc, "whole_part": True}
    return {"game": game, "vc": None if vc is None else public_count(game, vc)}


def render_vote_count(game: Game) -> str:
    """The count as the spectators see it (the items' ``vote_count`` field)."""
    vc = vote_count_context(game)["vc"]
    return render_to_string("games/_vote_count.html", count_context(game, vc, whole=False))


# -- the phase banner -------------------------------------------------------------------
def phase_banner_context(game: Game, *, current: Phase | None = UNREAD) -> dict[str, Any]:
    """``phase`` (the running one) and ``announcements``: links to the site's posts about
    the latest change (the phase's start, the night's deaths, the end of the game...).
    ``current``: the game's current phase when the caller has already read it."""
    if game.is_signups:
        current = None
    elif current is UNREAD:
        current = game.current_phase()
    links = [
        {"number": n, "href": post_url(game.pk, n)}
        for n in (current.announcements if current is not None else [])
    ]
    co_winners = []
    if game.is_finished and game.co_winners:
        slots = game.slots.select_related("user").filter(pk__in=game.co_winners).order_by("seat")
        co_winners = [
            _("%(player)s (%(role)s)")
            % {"player": s.display_name, "role": display.role_title(game.ruleset, s.role)}
            for s in slots
        ]
    return {
        "game": game,
        "phase": current if game.is_running else None,
        "announcements": links,
        "co_winners": co_winners,
    }


def render_phase_banner(game: Game) -> str:
    return render_to_string("games/_phase_banner.html", phase_banner_context(game))


# -- the ISO bar ------------------------------------------------------------------------
def render_iso_bar(game: Game) -> str:
    """The ISO bar's players and post counts as the whole public thread's page shows them
    (no player chosen): the same for every viewer."""
    slots = snapshot.slots(game)
    last = snapshot.last_number(game, Thread.PUBLIC)
    counts = thread_read.slot_post_counts(game, Thread.PUBLIC, last)
    return render_to_string(
        "games/_iso_bar.html", {"iso_counts": thread_read.iso_rows(slots, counts, []), "iso": []}
    )


# -- the players ------------------------------------------------------------------------
def players_context(
    game: Game,
    user: Any = None,
    viewer: Viewer | None = None,
    *,
    current: Phase | None = UNREAD,
    slots: list[Slot] | None = None,
    vc: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The players list for ``viewer``, its vote buttons from ``reads.options.vote_options``
    (what the vote service accepts). A page that has read them passes ``current`` (the
    game's current phase), ``slots`` (in seat order) and ``vc`` (that phase's vote count)."""
    viewer = viewer or Viewer.of(game, user)
    phase = None
    if game.is_running:
        phase = game.current_phase() if current is UNREAD else current
    day = (
        phase
        if phase is not None and phase.is_day and not phase.resolved and not phase.is_paused
        else None
    )
    if day is None or (vc is not None and vc.get("phase") != day.number):
        vc = None
    if day is not None and vc is None:
        vc = vote_count(day, slots=slots)
    if slots is None:
        slots = list(game.slots.select_related("user").order_by("seat"))
    my_id = getattr(viewer.slot, "pk", None)
    my_vote = None
    locked = False
    nominated: set[int] = set()
    i_nominated = False
    uses_nominations = False
    if vc is not None:
        for wagon in vc["wagons"]:
            for voter in wagon["voters"]:
                if voter["slot_id"] == my_id:
                    my_vote = wagon["target"]["slot_id"] if wagon["target"] else SKIP
                    locked = bool(voter.get("locked"))
        if "nominated" in vc:
            uses_nominations = True
            nominated = {n["slot_id"] for n in vc["nominated"] if n}
            if viewer.slot is not None and day is not None:  # (vc: it is day)
                i_nominated = day.nominations.filter(nominator=viewer.slot).exists()
    ballot = vote_options(
        game,
        phase,
        viewer.slot,
        slots=slots,
        my_vote=my_vote,
        locked=locked,
        nominated=nominated,
    )
    can_vote = ballot.open
    may_nominate = can_vote and uses_nominations and ballot.revote is None and not i_nominated
    rows = []
    for slot in slots:
        rows.append(
            {
                "slot": slot,
                "name": slot.display_name,
                "seat": slot.seat,
                "alive": slot.alive,
                "role": display.role_title(game.ruleset, viewer.public_role(slot)),
                "alignment": slot.alignment if viewer.sees_everything else "",
                "death": slot.get_death_cause_display() if not slot.alive else "",
                "is_you": my_id is not None and slot.pk == my_id,
                "votable": ballot.votable(slot) and my_vote != slot.pk,
                "voted": my_vote == slot.pk,
                "nominatable": may_nominate and slot.alive and slot.pk not in nominated,
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
        "skip_votable": ballot.votable(None) and my_vote != SKIP,
        # Classic: "skip" may be nominated on the first day only (no night played yet).
        "skip_nominatable": may_nominate and not (game.resolver_state or {}).get("night_number", 0),
        "can_unvote": ballot.can_unvote,
        "vote_locked": can_vote and ballot.locked,
    }


def render_players(game: Game, user: Any = None) -> str:
    return render_to_string("games/_players.html", players_context(game, user))


def players_html(
    request: HttpRequest,
    game: Game,
    viewer: Viewer,
    *,
    current: Phase | None,
    slots: list[Slot],
    vc: dict[str, Any] | None,
) -> str:
    """The players panel of a page for its viewer, rendered once per change and viewer
    (keyed by the user: a panel shows the viewer's own buttons and what their role lets
    them see, so no two people share one); the request's CSRF token is put in afterwards."""
    user_id = request.user.pk if request.user.is_authenticated else None
    html = players_panel_html(game, viewer, user_id, current=current, slots=slots, vc=vc)
    if _CSRF_SLOT in html:
        html = html.replace(_CSRF_SLOT, get_token(request))
    return html


def players_panel_html(
    game: Game,
    viewer: Viewer,
    user_id: int | None,
    *,
    current: Phase | None,
    slots: list[Slot],
    vc: dict[str, Any] | None,
) -> str:
    """``players_html`` before the CSRF token goes in (``_CSRF_SLOT`` where it goes): the
    page and the live push (``own_parts_html``) share this one render per change and
    viewer. ``viewer`` must be ``user_id``'s (the key is the user)."""
    key = (*_state_key(game, current), user_id)
    html = _PANELS.get(key)
    if html is None:
        context = players_context(game, viewer=viewer, current=current, slots=slots, vc=vc)
        context["csrf_token"] = _CSRF_SLOT
        html = render_to_string("games/_players_panel.html", context)
        _PANELS.put(key, html)
    return html


# -- posts ------------------------------------------------------------------------------
def post_context(post: Post) -> dict[str, Any]:
    # The same HTML for everyone, on the page and live: the Quote link is shown by CSS only
    # where the page has a reply box (which can appear live, at dawn).
    return {"post": post, "game_id": post.game_id}


def render_post(post: Post) -> str:
    return render_to_string("games/_post.html", post_context(post))


# -- the table (turn-based days) ----------------------------------------------------------
STEP_LABELS = {
    "speech": pgettext_lazy("table step", "Speeches"),
    "defense": pgettext_lazy("table step", "Defense speeches"),
    "last_words": pgettext_lazy("table step", "Last words"),
    "question": pgettext_lazy("table step", "Question round"),
    "discussion": pgettext_lazy("table step", "Open discussion"),
    "statement": pgettext_lazy("table step", "Pre-vote statements"),
    "vote": pgettext_lazy("table step", "Vote"),
    "done": pgettext_lazy("table step", "Day over"),
    "over": pgettext_lazy("table step", "The game is over"),
}


def turn_context(game: Game, viewer_slot: Any = None) -> dict[str, Any]:
    """``turn``: the table as ``viewer_slot`` sees it (None: as everyone does)."""
    phase = game.current_phase() if game.phase_number else None
    slots = list(game.slots.select_related("user").order_by("seat"))
    turn = turn_view(game, phase, slots, viewer_slot)  # without their own name (self votes)
    turn["step_label"] = str(STEP_LABELS.get(turn["step"], turn["step"].replace("_", " ").title()))
    return {"turn": turn, "game": game, "phase": phase}


def render_turn(game: Game, viewer_slot: Any = None) -> str:
    return render_to_string("games/_turn.html", turn_context(game, viewer_slot))


def render_turn_panel(game: Game) -> str:
    """The table as a spectator sees it; nothing for a game whose days are a thread."""
    return render_turn(game) if game.turn_based else ""


# (game, its creation, state_seq, date, current phase, "turn", the seat the panel is drawn
# for) -> the table's HTML with ``_CSRF_SLOT``: what the table shows changes only with the
# game's state (``reads.table.turn_view`` reads no clock), and a seat's buttons are its own.
_TURNS: ProcessLRU[str] = ProcessLRU(1024)


def turn_panel_html(game: Game, current: Phase | None, me: Slot | None) -> str:
    """The table as the page of a viewer sitting at ``me`` (None: not a living player)
    shows it (``_turn.html`` from ``turn_context``, as ``views.game`` includes it), with
    ``_CSRF_SLOT`` where the CSRF token goes."""
    key = (*_state_key(game, current), "turn", me.pk if me is not None else None)
    html = _TURNS.get(key)
    if html is None:
        context = turn_context(game, me)
        context["csrf_token"] = _CSRF_SLOT
        html = render_to_string("games/_turn.html", context)
        _TURNS.put(key, html)
    return html


# -- a viewer's own parts, pushed on their socket ------------------------------------------
# The parts a signed-in viewer's page renders for them alone and the live layer pushes as
# that viewer's copy (``games.live.own``) instead of the page fetching itself again.
OWN_PARTS = frozenset({"players", "turn-panel"})


def own_parts_html(game_id: int, user: Any, parts: frozenset[str]) -> dict[str, str]:
    """``parts`` (of ``OWN_PARTS``) as ``user``'s thread page shows them now, from the same
    reads and renders as ``views.game._thread_page``, with ``_CSRF_SLOT`` for the page's
    own token (``static/js/live.js`` puts it in). A part the page has not (the table of a
    game without one) is left out. No game (deleted): nothing."""
    game = Game.objects.select_related("host").filter(pk=game_id).first()
    if game is None:
        return {}
    slots = snapshot.slots(game)
    viewer = Viewer.of(game, user, slots)
    current = snapshot.current_phase(game) if not game.is_signups else None
    out: dict[str, str] = {}
    if "players" in parts:
        vc = vote_count_context(game, current=current, slots=slots)["vc"]
        user_id = user.pk if getattr(user, "is_authenticated", False) else None
        out["players"] = players_panel_html(
            game, viewer, user_id, current=current, slots=slots, vc=vc
        )
    if "turn-panel" in parts and game.turn_based and not game.is_signups:
        me = viewer.slot if viewer.slot is not None and viewer.slot.alive else None
        out["turn-panel"] = turn_panel_html(game, current, me)
    return out


# Digest of everything a post's HTML depends on -> the HTML (see ``_post_key``).
_RENDERED: ProcessLRU[str] = ProcessLRU(5000)


def _post_template_digest() -> bytes:
    """The post template's own text: editing it changes every key (no stale HTML). The
    template loader caches the template, so this is cheap per page."""
    template = get_template("games/_post.html")
    source = getattr(getattr(template, "template", None), "source", "") or ""
    return hashlib.blake2b(source.encode(), digest_size=16).digest()


def _public_state(obj: Any) -> list[tuple[str, str]]:
    return sorted((k, repr(v)) for k, v in vars(obj).items() if not k.startswith("_"))


def _post_key(post: Post, template_digest: bytes) -> bytes:
    """Everything ``_post.html`` can read: the post's every field and annotation, the rows
    loaded with it (its author...), and the template itself. A post is never
    edited, but a later change of what is shown under it (a new field, an annotation) is
    in the key by construction."""
    related = sorted(
        (name, _public_state(obj) if obj is not None else None)
        for name, obj in post._state.fields_cache.items()
    )
    parts = repr((_public_state(post), related, post.author_name))
    digest = hashlib.blake2b(parts.encode(), digest_size=20)
    digest.update(template_digest)
    # The post's frame has words ("Quote", "#12 by..."): each language its own copy.
    digest.update((translation.get_language() or "").encode())
    return digest.digest()


def render_posts(posts: list[Post]) -> list[str]:
    """Each post rendered as ``render_post`` renders it (the live layer's HTML, the same for
    every viewer of the thread), from a cache keyed by all the post's data: a page of 25
    posts costs 25 look-ups, not 25 template renders."""
    out = []
    template_digest = _post_template_digest()
    for post in posts:
        key = _post_key(post, template_digest)
        html = _RENDERED.get(key)
        if html is None:
            html = render_post(post)
            _RENDERED.put(key, html)
        out.append(html)
    return out
