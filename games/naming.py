"""Resolver names ("P3") to the people who hold the slots now.

Inside the resolver a slot is called ``P<seat>`` for the whole game, so a replacement keeps
the slot's history. Text for people is rendered with the current occupants' names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

from django.utils.translation import gettext as _

from .shapes import SlotRef

RESOLVER_NAME = re.compile(r"\bP(\d+)\b")


def fold(name: str) -> str:
    """A name as people type it: accents, case, spaces and invisible characters folded away
    ("zoe smith", "ZOË SMITH" and "Zoë  Smith" are all "zoesmith"). Votes, the host's
    Replace form and ISO find a player by it; sign-up refuses a name whose fold equals an
    existing one's (``games.confusables``), so a fold names one person at most."""
    out = []
    for char in unicodedata.normalize("NFKD", name.casefold()):
        if char.isspace() or unicodedata.category(char) in ("Cf", "Cc", "Mn"):
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


# -- anonymous games (``Game.anonymous_names``) ---------------------------------------------
# The one switch for the name a seat shows: ``Slot.display_name``, ``Post.author_name`` and
# everything derived from them (pages, the API, events, notifications, mails, webhooks, bold
# votes and mentions) go through ``shown_name``.
def masks_hide(game: Any) -> bool:
    """Whether the masks hide the real names now: while an anonymous game runs (sign-ups
    show the real names; the end reveals them)."""
    return bool(game.anonymous_names) and game.status == "running"


def shown_name(game: Any, mask: str, real: str) -> str:
    """The name everyone but the host sees for a seat masked ``mask`` held by ``real``:
    the mask while the game runs, "Mask (real)" once it is over, ``real`` without a mask
    (every other game, and sign-ups)."""
    if not mask:
        return real
    if game.status == "running":
        return mask
    return f"{mask} ({real})"


# What the replacement queue of an anonymous game calls its people while it runs: their
# place in line. Their own names would name a player the moment one of them leaves the
# queue for a masked seat ("A new player takes over Red Fox").
def queue_mask(place: int) -> str:
    """ "Replacement 2": the ``place``-th person in an anonymous game's queue."""
    return _("Replacement %(place)s") % {"place": place}


def queue_name(game: Any, place: int, real: str) -> str:
    """How the replacement queue shows its ``place``-th person (1: next in line), held by
    ``real``: by the place while the masks hide the players, ``real`` otherwise."""
    return shown_name(game, queue_mask(place) if masks_hide(game) else "", real)


def masked(slot: Any) -> bool:
    """Whether ``slot`` plays under a mask that hides its player now (no link to the
    account, no agent badge beside its name)."""
    return bool(slot.mask_name) and masks_hide(slot.game)


# A sign-up's post (written before the masks were dealt) while the game runs: signed with
# the mask, it would pair the mask with the name the sign-ups showed; with that name, it
# would name a player.
SIGN_UP_AUTHOR = "A player (sign-ups)"


def post_author(game: Any, mask: str, real: str, *, in_a_phase: bool) -> str:
    """The name a post by a seat (masked ``mask``, held by ``real``) is signed with."""
    if mask and not in_a_phase and masks_hide(game):
        return SIGN_UP_AUTHOR
    return shown_name(game, mask, real)


def sign_posts(slots: Iterable[Any], posts: Iterable[Any]) -> None:
    """Give each post its author's name (``Post.author_name``) from the game's ``slots``
    already read, so a page of posts loads no slot row per post."""
    by_id = {slot.pk: slot for slot in slots}
    for post in posts:
        slot = by_id.get(post.slot_id) if post.slot_id else None
        real = post.author.get_username()
        if slot is not None and slot.mask_name:
            in_a_phase = post.phase_id is not None
            post.author_name = post_author(slot.game, slot.mask_name, real, in_a_phase=in_a_phase)
        else:
            post.author_name = real


def seat_names(slots: Iterable[Any]) -> dict[int, str]:
    """Seat number -> display name, from slots (anything with ``seat`` and ``display_name``)."""
    return {slot.seat: slot.display_name for slot in slots}


@dataclass(frozen=True)
class Change:
    """One replacement: in phase ``phase`` (the game's phase number then), at ``at``,
    ``new`` took the slot over from ``old``."""

    phase: int | None
    at: datetime
    old: str
    new: str


@dataclass(frozen=True)
class SeatHistory:
    """Who held each slot when. A past act names whoever held the seat then ("gus"), not
    whoever holds it now ("Zoë Smith"), as a forum thread read back does."""

    current: dict[int, str]  # slot id -> the name now
    seats: dict[int, int]  # slot id -> seat
    changes: dict[int, list[Change]] = field(default_factory=dict)  # slot id -> in order

    def holder(self, slot_id: int, *, phase: int | None = None, at: Any = None) -> str:
        """Who held the slot at ``at`` (a time) or, without one, through phase ``phase``
        (a replacement during that phase counts as after it); the holder now without
        either."""
        for change in self.changes.get(slot_id, []):
            if at is not None:
                if at < change.at:
                    return change.old
            elif phase is not None and change.phase is not None and phase < change.phase:
                return change.old
        return self.current.get(slot_id, "?")

    def then_and_now(self, slot_id: int, *, phase: int | None = None, at: Any = None) -> str:
        """ "gus (replaced by Zoë Smith)" where both matter; just the name when unchanged."""
        then, now = self.holder(slot_id, phase=phase, at=at), self.current.get(slot_id, "?")
        if then == now:
            return then
        return _("%(then)s (replaced by %(now)s)") % {"then": then, "now": now}

    def seat_names(self, *, phase: int | None = None, at: Any = None) -> dict[int, str]:
        """Seat -> the holder then (for ``render``ing a past report)."""
        return {
            seat: self.holder(slot_id, phase=phase, at=at) for slot_id, seat in self.seats.items()
        }

    def former(self, slot_id: int) -> list[str]:
        """Who held the slot before its holder now, in order."""
        return [c.old for c in self.changes.get(slot_id, [])]


def render(text: str, names: Mapping[int, str]) -> str:
    """Replace every ``P<seat>`` with the slot's display name (unknown seats stay as they are)."""
    return RESOLVER_NAME.sub(lambda m: names.get(int(m.group(1)), m.group(0)), text)


def render_value(value: Any, names: Mapping[int, str]) -> Any:
    """``render`` applied through a JSON-shaped value (reports, result payloads)."""
    if isinstance(value, str):
        return render(value, names)
    if isinstance(value, Mapping):
        return {render(str(k), names): render_value(v, names) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render_value(v, names) for v in value]
    return value


def seat_of(name: str) -> int | None:
    """The seat of a resolver name, or None if it is not one ("skip")."""
    match = RESOLVER_NAME.fullmatch(name)
    return int(match.group(1)) if match else None


# A slot gives its reference, None gives None: callers that hold a slot get a dict.
@overload
def slot_ref(slot: None) -> None: ...
@overload
def slot_ref(slot: Any) -> dict[str, Any]: ...
def slot_ref(slot: Any | None) -> dict[str, Any] | None:
    """How the pages, the API and events refer to a slot: id, seat and current name."""
    if slot is None:
        return None
    ref: dict[str, Any] = {**seat_ref(slot)}
    return ref


def seat_ref(slot: Any) -> SlotRef:
    """``slot_ref`` of a slot, typed as its shape (``shapes.SlotRef``)."""
    return {"slot_id": slot.pk, "seat": slot.seat, "name": slot.display_name}
