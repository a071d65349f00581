"""Rendering: an event is rendered ONCE for its audience into a client item.

Once per language in use: the publisher renders in ``language.BASE``; a socket of another
language gets the same item rendered in its own (``localize``). Everything here renders in
the active language (``translation.override`` by the caller), and each cache keeps it.

``Renderer`` renders the HTML of a post via ``_post.html``, the vote count via
``_vote_count.html``, and for kinds that redraw them (``games.event_kinds``) the phase
banner, the table and the players list as a spectator sees them: the same templates the
pages render. Each socket adds its viewer's own copy of the other parts of their page
(``own``, ``games.live.own``); no page fetches itself (``static/js/live.js``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html

from .. import display, fragments, naming
from ..event_kinds import PARTS
from ..lru import ProcessLRU
from ..models import Game, GameEvent, Post, Thread
from ..reads import snapshot
from ..reads.thread import page_of
from ..reads.vote_count import public_count, with_texts
from .kinds import BANNER_KINDS, CARRIED

# (the game's state and the date, what) -> what the spectators see now: a pushed part's
# HTML, the clock, a vote count item's HTML. It changes only with the game's state (every
# event but a post sets ``Game.state_seq``: ``reads.snapshot``), so the sockets catching
# up on one game (``replay``: a quarter of the web processes' time at 250 games) and each
# publish in a busy thread share one render per change. The state is read before what is
# rendered from it, so an entry is never older than its key says. The language the render
# is made in is in the key too (the publisher's ``language.BASE``; a socket's own language,
# ``localize``): a Russian render never goes out as the English one, nor the other way.
_AS_OF_NOW: ProcessLRU[Any] = ProcessLRU(4096)


class Renderer:
    """Renders the items of one publish (or replay) call, sharing look-ups between them."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self._game: Game | None = None
        self._posts: dict[tuple[str, int], Post] = {}

    @property
    def game(self) -> Game:
        if self._game is None:
            self._game = Game.objects.select_related("host").get(pk=self.game_id)
        return self._game

    def prefetch_posts(self, events: Iterable[GameEvent]) -> None:
        keys = {_post_key(e.payload) for e in events if e.kind == "post"}
        numbers = Q()
        for thread, number in keys:
            numbers |= Q(thread=thread, number=number)
        if keys:
            rows = Post.objects.filter(numbers, game_id=self.game_id)
            rows = rows.select_related("author", "slot", "phase")
            self._posts.update({(p.thread, p.number): p for p in rows})

    def item(self, event: GameEvent, number: int) -> dict[str, Any]:
        """What a client gets for ``event``: ``n`` is its number in its audience (see
        ``build_messages``), never the game-wide seq."""
        item: dict[str, Any] = {"n": number, "kind": event.kind, "aud": event.audience}
        payload = event.payload or {}
        if event.kind == "post":
            item.update(
                thread=payload.get("thread"),
                number=payload.get("number"),
                # The thread's page it is on: an open page adds only its own page's posts.
                page=page_of(int(payload.get("number") or 0)),
                html=self.post_html(payload),
            )
        elif event.kind == "vote_count":
            item.update(
                html=self._now(("vote_count", event.seq), lambda: self.vote_count_html(payload)),
                phase=payload.get("phase"),
                deadline=payload.get("deadline"),
                paused_remaining=payload.get("paused_remaining"),
            )
        else:
            item["data"] = without_site_ids(payload)
            started = self.game.started_at
            if naming.masks_hide(self.game) and started and event.created_at < started:
                # A sign-up's event of an anonymous game: no name or seat of the sign-ups.
                item["data"] = without_seats(item["data"])
        if event.kind == "prod" and event.audience.startswith("slot:"):
            # Only the prodded player's own copy says "you"; the host's says nothing.
            item["notice"] = prod_notice(payload)
        for part in CARRIED.get(event.kind, ()):
            item[str(part.field)] = self.part_html(part.name)
        if event.kind in BANNER_KINDS:  # the clock the banner shows
            item.update(self.clock())
        return item

    def _now(self, what: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, once per state of the game in this process (``_AS_OF_NOW``)."""
        key = (*snapshot.today_key(self.game), translation.get_language(), what)
        value = _AS_OF_NOW.get(key)
        if value is None:
            value = make()
            _AS_OF_NOW.put(key, value)
        return value

    def part_html(self, part: str) -> str:
        """A pushed part (``event_kinds.PARTS``) as the spectators see it now, drawn by the
        renderer its declaration names, once per state of the game (or per public post)."""
        spec = PARTS[part]
        render = getattr(fragments, str(spec.render))
        key: Hashable = part
        if spec.per_post:
            key = (part, snapshot.last_number(self.game, Thread.PUBLIC))
        return str(self._now(key, lambda: render(self.game)))

    # -- partials: the same templates the pages render, for an anonymous viewer ----------
    def post_html(self, payload: dict[str, Any]) -> str:
        key = _post_key(payload)
        post = self._posts.get(key)
        if post is None:
            post = (
                Post.objects.filter(game_id=self.game_id, thread=key[0], number=key[1])
                .select_related("author", "slot", "phase")
                .first()
            )
        if post is None:  # deleted with its game; the payload has what the thread shows
            return format_html('<article class="post">{}</article>', payload.get("author", ""))
        # From the process's cache of rendered posts, as the thread page takes them: every
        # socket that catches up (``replay``) asks for the same posts again.
        return fragments.render_posts([post])[0]

    def vote_count_html(self, count: dict[str, Any]) -> str:
        # The count as of this event (not as of now): a newer one follows if it changed.
        game = self.game
        # (a count without its phase finds none: number=None matches no row, which
        # django-stubs' lookup types do not allow)
        phase = SimpleLazyObject(
            lambda: game.phases.filter(number=count.get("phase")).first()  # type: ignore[misc]
        )
        # (stored as everyone but the host sees it, ``services.ballots.emit_vote_count``;
        # counted again here so no older item can show more). Its sentences (the majority,
        # the skip's name...) are said again from its numbers in the active language: the
        # stored ones are in whatever language the vote's request was made in.
        found = phase if count.get("phase") is not None else None
        if found:
            count = with_texts(found, count)  # type: ignore[arg-type]
        count = public_count(game, count)
        return render_to_string(
            "games/_vote_count.html", {"count": count, "game": game, "phase": phase}
        )

    def clock(self) -> dict[str, Any]:
        """The phase banner and the deadline, from the game as it is now."""

        def make() -> dict[str, Any]:
            game = self.game
            phase = game.current_phase()
            return {
                "banner": self.part_html("phase-banner"),
                "deadline": phase.deadline.isoformat() if phase and phase.deadline else None,
                "paused": bool(phase and phase.is_paused),
                "status": game.status,
            }

        return dict(self._now("clock", make))


def prod_notice(payload: dict[str, Any]) -> str:
    """What the prodded player's open pages say. Every prod is the site's own, at the end
    of a day (``services.phases.check_inactivity``), never the host's: so no "the host"."""
    return display.prod_line(payload.get("posts", 0), payload.get("required", 0))


def _post_key(payload: dict[str, Any]) -> tuple[str, int]:
    return str(payload.get("thread") or "public"), int(payload.get("number") or 0)


# Site-wide ids no client gets: post ids (events stored before posts were referred to by
# number carry them; their gaps would count other audiences' posts) and the user id a
# ``replaced`` event keeps for the server (``access_meta``: the hub takes the old player's
# sockets off the slot), as the user ids of a ``hosts_changed`` event are.
SITE_ID_KEYS = frozenset({"id", "post_id", "old_user_id", "user_ids"})


SEAT_KEYS = frozenset({"name", "slot_id", "seat", "joined", "left"})


def without_seats(value: Any) -> Any:
    """``value`` minus who and where (``SEAT_KEYS``)."""
    if isinstance(value, dict):
        return {k: without_seats(v) for k, v in value.items() if k not in SEAT_KEYS}
    if isinstance(value, list):
        return [without_seats(v) for v in value]
    return value


def without_site_ids(value: Any) -> Any:
    """``value`` minus the site-wide ids of ``SITE_ID_KEYS``."""
    if isinstance(value, dict):
        return {k: without_site_ids(v) for k, v in value.items() if k not in SITE_ID_KEYS}
    if isinstance(value, list):
        return [without_site_ids(v) for v in value]
    return value
