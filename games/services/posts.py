"""Posting in a thread, and the bold vote a public day post may carry."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import bold_votes
from ..errors import ErrorCode, GameRuleError, NotAllowed, NotFound, WrongPhase
from ..models import (
    TEAM_THREADS,
    Post,
    Slot,
    Thread,
    VoteKind,
)
from . import turns
from .common import Tx, emit, game_tx, require_host
from .thread import PostResult, do_post
from .votes import do_unvote, do_vote

# What someone outside a team thread is told when they post in it (every team thread has
# its code: ``tests/site/test_error_codes.py``).
OUTSIDERS = {Thread.MASONS: ErrorCode.NOT_MASON, Thread.NEIGHBORS: ErrorCode.NOT_NEIGHBOR}


def submit_post(
    user: Any,
    game_id: int,
    *,
    body: str,
    thread: str = Thread.PUBLIC,
    to: int | None = None,
    now: datetime | None = None,
) -> PostResult:
    """Post in a thread; a bold vote in a public day post is applied. Posts are final.

    On a table day a game-thread post is a turn (``to``: a power question's addressee);
    its ``post`` is None when it was only skip-discussion lines (nothing is posted; its
    ``table_note`` says what they did).
    """
    with game_tx(game_id, now) as tx:
        if getattr(user, "pk", None) == tx.game.host_id:
            tx.only_posts = True
            return PostResult(_do_host_post(tx, user, body, thread))
        slot = _check_can_post(tx, user, thread)
        if thread == Thread.PUBLIC and turns.in_table_day(tx):
            result, refused = turns.table_post(tx, user, slot, body, to)
        else:
            # A vote in the post emits its own events, which count as a change of state.
            tx.only_posts = True
            post = do_post(tx, user, slot, body, thread)
            result, refused = PostResult(post), None
            if thread == Thread.PUBLIC and tx.game.is_running:
                _apply_post_vote(tx, slot, post, result)
    if refused is not None:
        raise refused  # after the commit: the refused attempt itself counts (classic)
    return result


def host_post(
    user: Any,
    game_id: int,
    *,
    body: str,
    thread: str = Thread.PUBLIC,
    now: datetime | None = None,
) -> Post:
    """The host posts (any thread, any time); host posts never carry votes."""
    with game_tx(game_id, now) as tx:
        require_host(user, tx.game)
        tx.only_posts = True
        return _do_host_post(tx, user, body, thread)


def _do_host_post(tx: Tx, user: Any, body: str, thread: str) -> Post:
    if thread not in Thread.values or not _thread_exists(tx, thread):
        raise NotFound("There is no such thread.", ErrorCode.NO_THREAD, "thread")
    return do_post(tx, user, None, body, thread, is_host=True)


def _thread_exists(tx: Tx, thread: str) -> bool:
    """Private threads exist only where the game has the team (as the pages say)."""
    if thread == Thread.PUBLIC:
        return True
    if tx.game.is_signups or tx.game.is_cancelled:
        return False
    if thread == Thread.MAFIA:
        return any(s.is_mafia for s in tx.slots)
    if thread == Thread.MASONS:
        return any(s.is_mason for s in tx.slots)
    return True


def _check_can_post(tx: Tx, user: Any, thread: str) -> Slot:
    """The poster's slot, or the reason they may not post in this thread now."""
    game = tx.game
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Log in to post.", ErrorCode.LOGIN)
    if thread not in Thread.values:
        raise NotFound("There is no such thread.", ErrorCode.NO_THREAD, "thread")
    slot = tx.locked.slot_of_user(user.pk)
    if slot is None:
        raise NotAllowed("Only the players and the host post in this game.", ErrorCode.NOT_PLAYER)
    if game.is_cancelled:
        raise WrongPhase("The host cancelled this game.", ErrorCode.CANCELLED)
    if game.is_signups:
        if thread != Thread.PUBLIC:
            raise WrongPhase("Only the game thread is open during sign-ups.", ErrorCode.SIGNUPS)
        return slot
    if game.is_finished:
        if thread != Thread.PUBLIC:
            raise WrongPhase(
                "The game is over: its private threads are closed.", ErrorCode.GAME_OVER
            )
        return slot
    if thread == Thread.PUBLIC:
        if not slot.alive:
            raise NotAllowed(
                "Dead players cannot post in the game thread; use the dead thread.", ErrorCode.DEAD
            )
        phase = tx.phase
        if game.no_night_posting and phase is not None and phase.is_night:
            raise WrongPhase(
                "Nobody but the host posts in the game thread at night.", ErrorCode.NIGHT
            )
    elif thread == Thread.MAFIA:
        if not (slot.alive and slot.is_mafia):
            raise NotAllowed("You cannot post in the mafia chat.", ErrorCode.NOT_MAFIA)
    elif thread == Thread.DEAD:
        if slot.alive:
            raise NotAllowed("Only dead players post in the dead thread.", ErrorCode.NOT_DEAD)
    elif thread in TEAM_THREADS and not (slot.alive and slot.private_thread == thread):
        raise NotAllowed(f"You cannot post in the {Thread(thread).label}.", OUTSIDERS[thread])
    return slot


def _apply_post_vote(tx: Tx, slot: Slot, post: Post, result: PostResult) -> None:
    intent = bold_votes.find_vote(post.html)
    if intent is None:
        return
    phase = tx.phase
    if phase is None or phase.resolved or not phase.is_day:
        result.vote_message = "Votes only count during the day; this one counts for nothing."
    elif intent.kind == VoteKind.UNVOTE:
        try:
            do_unvote(tx, slot, post)
        except GameRuleError as exc:
            result.vote_message = exc.message
    else:
        living = {s.display_name: s.pk for s in tx.locked.alive}
        dead = [s.display_name for s in tx.slots if not s.alive]
        match = bold_votes.match_name(
            intent.name, living, dead=dead, skip_allowed=tx.game.skip_vote_allowed
        )
        if match.error:
            result.vote_message = match.error + " The vote counts for nothing."
        else:
            target = None if match.skip else tx.locked.slot(match.key)
            try:
                result.vote, result.day_ended = do_vote(tx, slot, target, post)
            except GameRuleError as exc:
                result.vote_message = exc.message + " The vote counts for nothing."
    if result.vote_message:
        # On the post itself, for everyone: a vote that did not count must not look like one
        # that did. Written before the commit, so the live render already carries it.
        post.vote_note = result.vote_message
        Post.objects.filter(pk=post.pk).update(vote_note=post.vote_note)
        emit(
            tx,
            "vote_refused",
            {"post_number": post.number, "thread": post.thread, "message": result.vote_message},
            f"slot:{slot.pk}",
        )
