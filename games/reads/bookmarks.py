"""A person's bookmarks ("My bookmarks", ``GET /api/v1/bookmarks/``): each post they
marked and may read NOW, with its game, thread, number, an excerpt and their note.

Readable now, not when it was marked: a player who bookmarked a mafia-chat post and then
died (or was replaced out) no longer reads that chat until the game ends, so the bookmark
is not listed meanwhile (``Viewer.can_read`` decides, as for the thread itself). The note
is its writer's alone: nothing here is shown to anyone else.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.html import strip_tags
from django.utils.text import Truncator

from ..models import Bookmark, Game
from .access import THREAD_LABELS, Viewer

EXCERPT_CHARS = 200


@dataclass(frozen=True)
class BookmarkItem:
    id: int
    game_id: int
    game_title: str
    thread: str
    thread_label: str
    number: int
    author: str
    excerpt: str
    note: str
    created_at: datetime
    updated_at: datetime


def excerpt(html: str) -> str:
    """The post's opening words as plain text (its rendered HTML without the markup)."""
    text = " ".join(strip_tags(html).split())
    return Truncator(text).chars(EXCERPT_CHARS)


def item(bookmark: Bookmark) -> BookmarkItem:
    post = bookmark.post
    return BookmarkItem(
        id=bookmark.pk,
        game_id=post.game_id,
        game_title=post.game.title,
        thread=post.thread,
        thread_label=str(THREAD_LABELS.get(post.thread, post.thread)),
        number=post.number,
        author=post.author_name,
        excerpt=excerpt(post.html),
        note=bookmark.note,
        created_at=bookmark.created_at,
        updated_at=bookmark.updated_at,
    )


def my_bookmarks(user: Any) -> list[BookmarkItem]:
    """The person's bookmarks of posts they may read now, newest first."""
    if not getattr(user, "is_authenticated", False):
        return []
    rows = list(
        Bookmark.objects.filter(user_id=user.pk)
        .select_related("post", "post__game", "post__author", "post__slot", "post__slot__game")
        .order_by("-created_at", "-id")
    )
    viewers: dict[int, Viewer] = {}
    shown = []
    for bookmark in rows:
        post = bookmark.post
        game: Game = post.game
        viewer = viewers.get(game.pk)
        if viewer is None:
            viewer = viewers[game.pk] = Viewer.of(game, user)
        if viewer.can_read(post.thread):
            shown.append(item(bookmark))
    return shown
