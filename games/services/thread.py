"""Writing a post into one of a game's threads: the one low-level write every way of
posting shares (a player's post, a vote button, a nomination, the host, the site's own
announcements)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Max
from django.utils.translation import gettext as _

from .. import markup
from ..errors import ErrorCode, InvalidInput
from ..models import (
    Post,
    Slot,
    Thread,
    Vote,
)
from ..naming import slot_ref
from .common import MAX_POST_LENGTH, Tx, emit


@dataclass
class PostResult:
    """A post and what its vote did: ``vote_message`` explains a vote that did not count;
    ``table_note`` says what a table took from it besides (a skip-discussion line)."""

    post: Post | None  # None: a table vote, or only skip-discussion lines (nothing posted)
    vote: Vote | None = None
    vote_message: str = ""
    day_ended: bool = False
    table_note: str = ""


def do_post(
    tx: Tx,
    user: Any,
    slot: Slot | None,
    body: str,
    thread: str,
    *,
    is_host: bool = False,
    is_auto: bool = False,
    to: Slot | None = None,
) -> Post:
    body = (body or "").strip()
    if not body:
        raise InvalidInput(_("The post is empty."), ErrorCode.EMPTY, "body")
    if len(body) > MAX_POST_LENGTH:
        raise InvalidInput(
            _("Posts are at most %(limit)s characters.") % {"limit": MAX_POST_LENGTH},
            ErrorCode.TOO_LONG,
            "body",
        )
    last = Post.objects.filter(game=tx.game, thread=thread).aggregate(n=Max("number"))["n"]
    post = Post.objects.create(
        game=tx.game,
        thread=thread,
        author=user,
        slot=slot,
        phase=tx.phase if tx.game.is_running else None,
        number=(last or 0) + 1,
        body=body,
        html=markup.render_post(body),
        is_host=is_host,
        is_auto=is_auto,
        to=to,
        to_name=to.display_name if to is not None else "",
    )
    emit(tx, "post", post_payload(post, post.author_name), thread_audience(thread))
    return post


def thread_audience(thread: str) -> str:
    return "public" if thread == Thread.PUBLIC else thread


def post_payload(post: Post, author_name: str) -> dict[str, Any]:
    return {
        "number": post.number,
        "thread": post.thread,
        "author": author_name,
        "slot_id": post.slot_id,
        "is_host": post.is_host,
        "is_auto": post.is_auto,
        "phase": post.phase.number if post.phase else None,
        "to": slot_ref(post.to) if post.to_id else None,
        "html": post.html,
        "created_at": post.created_at.isoformat(),
    }
