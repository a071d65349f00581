"""Bookmarks: a person marks a post they may read, with a private note ("My bookmarks").

A bookmark is not game state (no game lock, no event: nobody else ever sees it, and no
page part shows it), so each change is one short transaction on the person's own rows.
Who may read the post is ``reads.access.Viewer.can_read``, asked when the bookmark is made
and again whenever it is shown (``reads.bookmarks``).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from ..errors import ErrorCode, InvalidInput, NotAllowed, NotFound
from ..models import Bookmark, Game, Post, Thread
from ..plain_text import is_plain_text
from ..reads.access import Viewer

MAX_NOTE_LENGTH = 1000


def _signed_in(user: Any) -> None:
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to bookmark posts."), ErrorCode.LOGIN)


def _checked_note(note: Any) -> str:
    if note is None:
        return ""
    if not is_plain_text(note, MAX_NOTE_LENGTH):
        raise InvalidInput(
            _("A note is text of at most %(limit)s characters.") % {"limit": MAX_NOTE_LENGTH},
            ErrorCode.TOO_LONG,
            "note",
        )
    return str(note).strip()


def readable_post(user: Any, game_id: int, thread: str, number: int) -> Post:
    """The post ``number`` of ``thread`` in the game, if ``user`` may read it now; a thread
    they may not read is not there for them (404, as every hidden thread answers)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound(_("There is no such game."), ErrorCode.NO_GAME, "game_id")
    if not isinstance(thread, str) or not Viewer.of(game, user).can_read(thread):
        raise NotFound(_("There is no such thread."), ErrorCode.NO_THREAD, "thread")
    post = (
        Post.objects.select_related("game", "author", "slot")
        .filter(game=game, thread=thread, number=number)
        .first()
    )
    if post is None:
        raise NotFound(_("There is no such post."), ErrorCode.NOT_FOUND, "number")
    return post


def bookmark_post(
    user: Any,
    game_id: int,
    number: int,
    *,
    thread: str = Thread.PUBLIC,
    note: Any = "",
) -> tuple[Bookmark, bool]:
    """Bookmark a post the person may read, with ``note``; a post already bookmarked keeps
    its bookmark and gets the new note. Returns the bookmark and whether it is new."""
    _signed_in(user)
    text = _checked_note(note)
    post = readable_post(user, game_id, thread, number)
    try:
        with transaction.atomic():
            bookmark, created = Bookmark.objects.get_or_create(
                user=user, post=post, defaults={"note": text}
            )
    except IntegrityError:  # the same person bookmarking it twice at once: the other won
        bookmark, created = Bookmark.objects.get(user=user, post=post), False
    if not created and bookmark.note != text:
        bookmark.note = text
        bookmark.save(update_fields=["note", "updated_at"])
    return bookmark, created


def _own(user: Any, bookmark_id: Any) -> Bookmark:
    _signed_in(user)
    bookmark = (
        Bookmark.objects.select_related("post", "post__game")
        .filter(pk=bookmark_id, user_id=user.pk)
        .first()
        if isinstance(bookmark_id, int)
        else None
    )
    if bookmark is None:  # someone else's is not there for them either
        raise NotFound(_("You have no such bookmark."), ErrorCode.NO_BOOKMARK, "id")
    return bookmark


def edit_bookmark(user: Any, bookmark_id: int, *, note: Any) -> Bookmark:
    """Change the note of one's own bookmark of a post one may still read (a post that has
    turned unreadable, a dead player's mafia chat, is not there until the game ends).
    ``note`` None: the note stays as it is (an API PATCH without one)."""
    text = None if note is None else _checked_note(note)
    bookmark = _own(user, bookmark_id)
    post = bookmark.post
    if not Viewer.of(post.game, user).can_read(post.thread):
        raise NotFound(_("You have no such bookmark."), ErrorCode.NO_BOOKMARK, "id")
    if text is not None:
        bookmark.note = text
        bookmark.save(update_fields=["note", "updated_at"])
    return bookmark


def remove_bookmark(user: Any, bookmark_id: int) -> None:
    """Delete one's own bookmark (whatever one may read now: it tells nothing)."""
    _own(user, bookmark_id).delete()
