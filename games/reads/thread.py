"""Reading a thread a page at a time, at a cost that does not grow with the thread.

A thread's posts are numbered 1, 2, 3... without gaps (``services.thread.do_post`` numbers them
under the game's row lock) and are never edited or deleted, so:

- page ``n`` of the whole thread is the posts numbered ``25(n-1)+1 .. 25n``: an index range
  on (game, thread, number), never an ``OFFSET`` that walks the pages before it, and the
  thread's length is its last number (no ``COUNT``);
- per-player post counts (the ISO bar) at post number ``N`` only ever grow: they are kept
  per process and brought up to date by counting the posts after the last ``N`` seen, so a
  page view counts a handful of new posts instead of the whole thread.

A filtered thread (ISO) is paged with ``OFFSET`` inside the chosen players' post numbers,
counted from whichever end of them is nearer, on the (game, thread, slot, number) index
without touching the rows; its length comes from the same counts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, QuerySet

from ..lru import ProcessLRU
from ..models import Game, Post
from .paging import Pages, page_number

POSTS_PER_PAGE = 25


def page_of(number: int) -> int:
    """The page of the whole thread that post ``number`` is on (posts ``25(n-1)+1 .. 25n``):
    the live layer sends it with each post, so an open page adds only its own page's posts
    (``static/js/live.js``) and shows what a reload shows."""
    return max(0, number - 1) // POSTS_PER_PAGE + 1


# -- per-player post counts, kept up to date incrementally -----------------------------
# (game, its creation, thread) -> (up to post number, {slot id: posts})
_COUNTS: ProcessLRU[tuple[int, dict[int, int]]] = ProcessLRU(2048)


def last_number(game: Game, thread: str) -> int:
    """The thread's newest post number, which is its length (0 for an empty thread)."""
    return Post.objects.filter(game=game, thread=thread).aggregate(n=Max("number"))["n"] or 0


def slot_post_counts(game: Game, thread: str, upto: int) -> dict[int, int]:
    """Posts per slot id among posts 1..``upto`` of the thread (host posts not counted)."""
    key = (game.pk, game.created_at, thread)
    held = _COUNTS.get(key)
    if held is not None and held[0] == upto:
        return held[1]
    since = held[0] if held is not None and held[0] < upto else 0
    counts = dict(held[1]) if held is not None and since else {}  # (since: held is not None)
    rows = (
        Post.objects.filter(
            game=game, thread=thread, slot__isnull=False, number__gt=since, number__lte=upto
        )
        .values_list("slot_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for slot_id, n in rows:
        counts[slot_id] = counts.get(slot_id, 0) + n
    # Another request may already have gone further: keep the longer count.
    _COUNTS.put(key, (upto, counts), keep=lambda held: held[0] >= upto)
    return counts


# -- a page -----------------------------------------------------------------------------
@dataclass
class ThreadPage(Pages):
    """One page of a thread (or of its ISO view) and the links around it."""

    posts: list[Post] = field(default_factory=list)


def read_page(
    game: Game,
    thread: str,
    raw_page: str | None,
    iso_slot_ids: list[int] | None = None,
    *,
    last: int | None = None,
    related: tuple[str, ...] = ("author",),
    annotations: Mapping[str, Any] | None = None,
) -> ThreadPage:
    """The page asked for (``?page=``) of the thread, or of the posts of ``iso_slot_ids``.
    ``related`` rows come with each post; ``annotations`` add single values (cheaper)."""
    if last is None:
        last = last_number(game, thread)
    posts = Post.objects.filter(game=game, thread=thread).select_related(*related)
    if annotations:
        posts = posts.annotate(**annotations)
    if iso_slot_ids is None:
        count = last
    else:
        counts = slot_post_counts(game, thread, last)
        count = sum(counts.get(i, 0) for i in iso_slot_ids)
    num_pages = max(1, -(-count // POSTS_PER_PAGE))
    number = page_number(raw_page, num_pages)
    first = (number - 1) * POSTS_PER_PAGE
    if iso_slot_ids is None:
        rows = posts.filter(number__gt=first, number__lte=first + POSTS_PER_PAGE)
    elif count:
        # The OFFSET walks only the (game, thread, slot, number) index (an index-only scan
        # of numbers); the page's 25 rows are then read by number.
        numbers = Post.objects.filter(
            game=game, thread=thread, slot_id__in=iso_slot_ids, number__lte=last
        ).values("number")
        size = min(POSTS_PER_PAGE, count - first)
        if first <= count // 2:
            numbers = numbers.order_by("number")[first : first + size]
        else:  # nearer the end: skip from there (the newest pages are the ones people read)
            skip = count - first - size
            numbers = numbers.order_by("-number")[skip : skip + size]
        rows = posts.filter(number__in=numbers)
    else:
        return ThreadPage(number, num_pages, count, [])
    iso = tuple(sorted(iso_slot_ids)) if iso_slot_ids is not None else None
    end = min(count, first + POSTS_PER_PAGE)
    what = (related, tuple(sorted(annotations or ())))
    key = (game.pk, game.created_at, thread, iso, first, end, what)
    posts_on_page = _page_posts(rows.order_by("number"), key, end - first)
    return ThreadPage(number, num_pages, count, posts_on_page)


# (game, its creation, thread, ISO slots, first and end position, what comes with each
# post) -> the page's posts.
_PAGES: ProcessLRU[list[Post]] = ProcessLRU(64)


def _page_posts(rows: QuerySet[Post], key: tuple[Any, ...], size: int) -> list[Post]:
    """A page's posts, read once per process. Posts are committed in number order, never
    edited or deleted, and a page (of the thread, or of its ISO view: its players' posts
    counted from the first) holds positions ``first+1 .. end``: so what is on it is fixed
    by those two numbers. A full page is read once; the newest, still filling, once per
    new post. Each caller gets copies."""
    held = _PAGES.get(key)
    if held is None:
        held = list(rows)
        if len(held) != size:  # never expected (numbers have no gaps): don't keep
            return held
        _PAGES.put(key, held)
    return [copy.copy(post) for post in held]


def iso_rows(slots: list[Any], counts: dict[int, int], iso: list[int]) -> list[dict[str, Any]]:
    """Every player (``slots`` in seat order) with their post count, for the ISO bar."""
    return [
        {
            "seat": slot.seat,
            "name": slot.display_name,
            "posts": counts.get(slot.pk, 0),
            "on": slot.seat in iso,
            "query": "&".join(f"iso={s}" for s in sorted(set(iso) ^ {slot.seat})),
        }
        for slot in slots
    ]
