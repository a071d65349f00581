"""Posting in a thread, and the bold vote a public day post may carry."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.i18n import in_game_language

from .. import bold_votes, markup
from ..errors import ErrorCode, GameRuleError, InvalidInput
from ..models import Post, Slot, ThoughtAct, Thread, VoteKind
from ..reads.access import Viewer
from ..reads.policy import post_refusal, require
from ..reads.vote_count import votes_are_secret
from . import post_limit, turns
from .common import Tx, emit, game_tx, require_host
from .nights import end_night_zero_when_the_mafia_spoke
from .thoughts import check_thoughts, keep_thoughts
from .thread import PostResult, do_post
from .votes import do_unvote, do_vote

NOT_A_PLAYERS_ACT = gettext_lazy("Only a player's acts carry thoughts; the host's posts do not.")


def submit_post(
    user: Any,
    game_id: int,
    *,
    body: str,
    thread: str = Thread.PUBLIC,
    to: int | None = None,
    thoughts: str = "",
    now: datetime | None = None,
) -> PostResult:
    """Post in a thread; a bold vote in a public day post is applied. Posts are final.

    On a table day a game-thread post is a turn (``to``: a power question's addressee);
    its ``post`` is None when it was only skip-discussion lines (nothing is posted; its
    ``table_note`` says what they did). ``thoughts``: the player's private reasoning
    (``services.thoughts``), kept with the post.
    """
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        viewer = _poster(tx, user)
        require(post_refusal(viewer, thread, tx.phase, now=now))
        if viewer.is_host:  # the host or a co-host: a host post
            if thoughts:
                raise InvalidInput(str(NOT_A_PLAYERS_ACT), ErrorCode.THOUGHTS, "thoughts")
            tx.only_posts = True
            return PostResult(do_post(tx, user, None, body, thread, is_host=True))
        slot = viewer.slot
        assert slot is not None  # post_refusal refuses anyone else (says so to mypy)
        phase = tx.phase  # the act's, before a hammer may end it
        if thread == Thread.PUBLIC and turns.in_table_day(tx):
            result, refused = turns.table_post(tx, user, slot, body, to)
            if refused is None:
                keep_thoughts(tx, slot, ThoughtAct.POST, thoughts, phase=phase, post=result.post)
        else:
            # A vote in the post emits its own events, which count as a change of state.
            tx.only_posts = True
            # Secret votes: the post shows "(voted)" where its bold vote named the target;
            # the vote itself is read from the post as written.
            secret = thread == Thread.PUBLIC and votes_are_secret(tx.game, tx.phase)
            html = markup.render_post(body) if secret else None
            shown = bold_votes.redact_votes(body, markup.render_post) if secret else body
            post_limit.check_post(tx, slot, thread, body)
            post = do_post(tx, user, slot, shown, thread)
            post_limit.after_post(tx, slot, thread, body)
            result, refused = PostResult(post), None
            keep_thoughts(tx, slot, ThoughtAct.POST, thoughts, phase=phase, post=post)
            if thread == Thread.MAFIA:
                end_night_zero_when_the_mafia_spoke(tx)
            if thread == Thread.PUBLIC and tx.game.is_running:
                _apply_post_vote(tx, slot, post, result, html or post.html)
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
    """The host posts (any thread the game has, any time); host posts never carry votes."""
    with game_tx(game_id, now) as tx:
        require_host(user, tx.game)
        require(post_refusal(_poster(tx, user), thread, tx.phase, now=now))
        tx.only_posts = True
        return do_post(tx, user, None, body, thread, is_host=True)


def _poster(tx: Tx, user: Any) -> Viewer:
    """The person posting, as the policy sees them: their slot from the locked rows."""
    authenticated = getattr(user, "is_authenticated", False)
    slot = tx.locked.slot_of_user(user.pk) if authenticated else None
    return Viewer(tx.game, user, slot, list(tx.slots))


# A refused vote's note on its post when votes are secret (its reason may name the target).
SECRET_VOTE_NOTE = gettext_lazy("The votes are secret: only the voter is told why.")


def _apply_post_vote(tx: Tx, slot: Slot, post: Post, result: PostResult, html: str) -> None:
    intent = bold_votes.find_vote(html)
    if intent is None:
        return
    # The note on the post is for everyone who reads the thread: in the game's language
    # (the poster's own message says the same words).
    with in_game_language(tx.game):
        _apply_vote_intent(tx, slot, post, result, intent)


def _apply_vote_intent(
    tx: Tx, slot: Slot, post: Post, result: PostResult, intent: bold_votes.VoteIntent
) -> None:
    phase = tx.phase
    reason = ""  # why the vote did not count, "" when it did
    if phase is None or phase.resolved or not phase.is_day:
        reason = _("Votes only count during the day.")
    elif intent.kind == VoteKind.UNVOTE:
        try:
            do_unvote(tx, slot, post)
        except GameRuleError as exc:
            reason = exc.message
    else:
        living = {s.display_name: s.pk for s in tx.locked.alive}
        dead = [s.display_name for s in tx.slots if not s.alive]
        match = bold_votes.match_name(
            intent.name, living, dead=dead, skip_allowed=tx.game.skip_vote_allowed
        )
        if match.error:
            reason = match.error
        else:
            # (key is set whenever skip and error are not: the test only narrows its type)
            target = None if match.skip or match.key is None else tx.locked.slot(match.key)
            try:
                result.vote, result.day_ended = do_vote(tx, slot, target, post)
            except GameRuleError as exc:
                reason = exc.message
    if reason:
        unvote = intent.kind == VoteKind.UNVOTE
        result.vote_message = (
            reason if unvote else _("%(reason)s The vote counts for nothing.") % {"reason": reason}
        )
        # On the post itself, for everyone ("This vote did not count." and why): a vote
        # that did not count must not look like one that did. Written before the commit, so
        # the live render already carries it. With secret votes the reason may name the
        # target: only the voter is told it.
        post.vote_note = str(SECRET_VOTE_NOTE) if votes_are_secret(tx.game, tx.phase) else reason
        Post.objects.filter(pk=post.pk).update(vote_note=post.vote_note)
        emit(
            tx,
            "vote_refused",
            {"post_number": post.number, "thread": post.thread, "message": result.vote_message},
            f"slot:{slot.pk}",
        )
