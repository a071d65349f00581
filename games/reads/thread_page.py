"""One page of a thread as the thread page and the API show it: the posts (of the whole
thread or of its ISO view, the chosen players' posts) and the ISO bar's per-player counts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import ngettext

from .. import naming
from ..models import Game, Slot
from ..naming import fold
from . import snapshot
from . import thread as thread_read
from .thread import ThreadPage


def parse_iso(values: list[str], slots: Iterable[Slot] = ()) -> list[int]:
    """The seats of ``?iso=``: seat numbers, or players' names as typed ("zoe smith" is
    Zoë Smith's seat: ``naming.fold``)."""
    by_name = {fold(s.display_name): s.seat for s in slots}
    seats = []
    for value in values:
        try:
            seats.append(int(value))
        except (TypeError, ValueError):
            seat = by_name.get(fold(str(value or "")))
            if seat is not None:
                seats.append(seat)
    return sorted(set(seats))


def unknown_seats(seats: list[int], slots: list[Slot]) -> list[int]:
    """The ISO numbers no player of the game has (``?iso=99``), to say so on the page."""
    known = {slot.seat for slot in slots}
    return [seat for seat in seats if seat not in known]


# The ISO of a name nobody goes by: a seat no player has, so the page shows no posts (as
# ``?iso=99`` does) and says why, instead of the whole thread as if nothing was asked.
NOBODY = -1


def unknown_names(values: list[str], slots: Iterable[Slot] = ()) -> list[str]:
    """The ``?iso=`` values, as typed, that are neither a number nor a player's name."""
    by_name = {fold(s.display_name) for s in slots}
    unknown = []
    for value in values:
        try:
            int(value)
        except (TypeError, ValueError):
            if fold(str(value or "")) not in by_name:
                unknown.append(str(value or ""))
    return unknown


def unknown_iso_line(seats: list[int], names: list[str]) -> str:
    """What the ISO view says of the players it could not find: "No player with number 99."
    and "No player called zzz." (one sentence each; "" when every one was found)."""
    lines = []
    if seats:
        lines.append(
            ngettext(
                "No player with number %(numbers)s.",
                "No player with number %(numbers)s.",
                len(seats),
            )
            % {"numbers": ", ".join(map(str, seats))}
        )
    if names:
        lines.append(
            ngettext("No player called %(names)s.", "No player called %(names)s.", len(names))
            % {"names": ", ".join(names)}
        )
    return " ".join(lines)


def read_thread_page(
    game: Game,
    thread: str,
    iso: list[int],
    raw_page: str | None,
    slots: list[Slot],
    *,
    related: tuple[str, ...] = ("author",),
    annotations: Mapping[str, Any] | None = None,
) -> tuple[ThreadPage, list[dict[str, Any]]]:
    """The page of the thread (or of its ISO view) and the ISO bar's rows.

    The cost does not grow with the thread: the page is an index range (or, filtered, an
    offset within the chosen players' posts) and the per-player counts are kept up to date
    incrementally (``games.reads.thread``)."""
    last = snapshot.last_number(game, thread)
    counts = thread_read.slot_post_counts(game, thread, last)
    iso_ids = [s.pk for s in slots if s.seat in iso] if iso else None
    page = thread_read.read_page(
        game, thread, raw_page, iso_ids, last=last, related=related, annotations=annotations
    )
    naming.sign_posts(slots, page.posts)  # the seats' names (masked, in an anonymous game)
    return page, thread_read.iso_rows(slots, counts, iso)
