"""Day votes (the vote and unvote buttons, hammer and lock) and classic nominations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from .. import markup
from ..errors import ErrorCode, InvalidInput, WrongPhase
from ..models import (
    Nomination,
    PhaseKind,
    Post,
    SecretVotes,
    Slot,
    ThoughtAct,
    Thread,
    Vote,
    VoteKind,
    VoteRule,
)
from ..naming import slot_ref
from ..reads.options import SKIP, VoteOptions, vote_options
from ..reads.vote_count import SKIP_LABEL, counted, votes_are_secret
from . import turns
from .ballots import (
    ballots,
    emit_vote_count,
    record_vote,
    standing_votes,
    vote_key,
    wagon_ref,
)
from .common import (
    Tx,
    emit,
    game_tx,
    require_open_phase,
    require_player,
    require_running,
    rules_of,
    state_of,
    target_slot,
)
from .phases import end_day
from .thoughts import check_thoughts, keep_thoughts
from .thread import PostResult, do_post


def cast_vote(
    user: Any,
    game_id: int,
    target_slot_id: int | None,
    *,
    thoughts: str = "",
    now: datetime | None = None,
) -> PostResult:
    """The vote button: posts "**Vote: Name**" for the player and applies it.

    ``target_slot_id`` None votes "no elimination". Refused votes raise and post nothing.
    On a table day the ballot goes to the day's vote and posts nothing (hidden until the
    vote closes).
    """
    refused = None
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        slot = require_player(tx, user)
        phase = tx.phase  # the act's, before a hammer may end it
        if turns.in_table_day(tx):
            require_open_phase(tx, PhaseKind.DAY)
            refused = turns.table_vote(tx, slot, target_slot_id)
            result = PostResult(None, None, "", tx.current.resolved)
            if refused is None:
                keep_thoughts(tx, slot, ThoughtAct.VOTE, thoughts, phase=phase)
        else:
            target = None if target_slot_id is None else target_slot(tx, target_slot_id)
            _check_vote(tx, slot, target)
            post = None
            if not votes_are_secret(tx.game, tx.current):
                # Secret votes: the button posts nothing (the post would name the target).
                name = SKIP_LABEL if target is None else markup.escape_markdown(target.display_name)
                post = do_post(tx, user, slot, f"**Vote: {name}**", Thread.PUBLIC)
            keep_thoughts(tx, slot, ThoughtAct.VOTE, thoughts, phase=phase, post=post)
            vote, day_ended = do_vote(tx, slot, target, post)
            result = PostResult(post, vote, "", day_ended)
    if refused is not None:
        raise refused  # after the commit: the refused attempt itself counts (classic)
    return result


def unvote(user: Any, game_id: int, *, now: datetime | None = None) -> PostResult:
    """The unvote button: posts "**Unvote**" and withdraws the player's vote."""
    with game_tx(game_id, now) as tx:
        slot = require_player(tx, user)
        if turns.in_table_day(tx):
            raise WrongPhase(
                _("At the table a vote can be changed until the vote closes, not withdrawn."),
                ErrorCode.TABLE_VOTE,
            )
        _check_unvote(tx, slot)
        post = None
        if not votes_are_secret(tx.game, tx.current):  # (secret votes: as the vote button)
            post = do_post(tx, user, slot, "**Unvote**", Thread.PUBLIC)
        vote = do_unvote(tx, slot, post)
        return PostResult(post, vote)


def _ballot(tx: Tx, voter: Slot, nominated: list[int] | None = None) -> VoteOptions:
    """The voter's ballot in the locked day, from their standing vote."""
    current = standing_votes(tx).get(voter.pk)
    return vote_options(
        tx.game,
        tx.phase,
        voter,
        slots=tx.slots,
        my_vote=None if current is None else (current.target_id or SKIP),
        locked=current is not None and current.locked,
        nominated=nominated or (),
    )


def _check_vote(tx: Tx, voter: Slot, target: Slot | None) -> None:
    """Refuse what the ballot (``reads.options.vote_options``, the panel's buttons) does not
    offer this voter."""
    require_running(tx.game)
    phase = require_open_phase(tx, PhaseKind.DAY)
    # Only the target's nomination matters: one small query, where nominations count.
    nominated = (
        target is not None
        and not phase.in_revote
        and rules_of(tx.game).uses_nominations
        and Nomination.objects.filter(phase=phase, target=target).exists()
    )
    # (nominated implies a target: the test only narrows its type)
    nominated_ids = [target.pk] if nominated and target is not None else []
    refused = _ballot(tx, voter, nominated_ids).refusal(target)
    if refused is not None:
        raise refused


def do_vote(
    tx: Tx, voter: Slot, target: Slot | None, post: Post | None
) -> tuple[Vote | None, bool]:
    """Apply a checked vote; returns the vote row (None if unchanged) and whether the day ended."""
    _check_vote(tx, voter, target)
    phase = tx.current
    current = standing_votes(tx).get(voter.pk)
    if current is not None and current.target_id == (target.pk if target else None):
        return current, False  # voting again for the same wagon changes nothing
    vote = Vote.objects.create(
        phase=phase,
        voter=voter,
        target=target,
        kind=VoteKind.VOTE,
        post=post,
        revote=phase.in_revote,
    )
    record_vote(tx, vote)
    payload = {
        "voter": slot_ref(voter),
        "target": slot_ref(target),
        "post_number": post.number if post else None,
    }
    for audience in vote_audiences(tx, voter):
        emit(tx, "vote", payload, audience)
    day_ended = _after_vote(tx)
    if not day_ended:
        emit_vote_count(tx)
    return vote, day_ended


def _check_unvote(tx: Tx, voter: Slot) -> Vote:
    require_running(tx.game)
    require_open_phase(tx, PhaseKind.DAY)
    refused = _ballot(tx, voter).unvote_refusal()
    if refused is not None:
        raise refused
    return standing_votes(tx)[voter.pk]


def do_unvote(tx: Tx, voter: Slot, post: Post | None) -> Vote:
    current = _check_unvote(tx, voter)
    vote = Vote.objects.create(
        phase=tx.current,
        voter=voter,
        target=None,
        kind=VoteKind.UNVOTE,
        post=post,
        revote=tx.current.in_revote,
    )
    record_vote(tx, vote)
    payload = {
        "voter": slot_ref(voter),
        "target": slot_ref(tx.locked.slot(current.target_id)) if current.target_id else None,
        "post_number": post.number if post else None,
    }
    for audience in vote_audiences(tx, voter):
        emit(tx, "unvote", payload, audience)
    emit_vote_count(tx)
    return vote


def vote_audiences(tx: Tx, voter: Slot) -> tuple[str, ...]:
    """Who hears of a vote or unvote: everyone, or with secret votes only the host and the
    voter's own feed (who votes whom is theirs until the day ends)."""
    if votes_are_secret(tx.game, tx.current):
        return ("host", f"slot:{voter.pk}")
    return ("public",)


def _after_vote(tx: Tx) -> bool:
    """Hammer or lock after a vote; True if the day ended (hammer)."""
    game, phase = tx.game, tx.current
    if not game.uses_majority or phase.in_revote:
        return False
    votes = standing_votes(tx)
    # The table's vote modifiers count: a double voter's vote twice, a loved player needs
    # one more, a lynch-proof one is never hammered.
    count = counted(game, ballots(tx, votes), [s.resolver_name for s in tx.locked.alive])
    if game.vote_rule == VoteRule.MAJORITY_HAMMER:
        if count.majority_target is not None:
            emit(tx, "hammer", {"target": wagon_ref(tx, count.majority_target)})
            end_day(tx)
            return True
        if game.lynch_proof_ends_day and count.reached_but_proof:
            # As configured: the lynch-proof wagon ends the day; the resolver eliminates nobody.
            end_day(tx)
            return True
        return False
    # Lock: a wagon one vote past majority locks every vote on it until the deadline.
    for wagon in count.wagons:
        if wagon.weight >= count.needed(wagon.target) + 1:
            ids = [v.pk for v in votes.values() if vote_key(tx, v) == wagon.target and not v.locked]
            if ids:
                Vote.objects.filter(pk__in=ids).update(locked=True)
                tx.standing.clear()
                # Hidden votes: not even a wagon shows until the day ends (totals show its lock).
                hidden = tx.game.secret_votes == SecretVotes.HIDDEN
                emit(
                    tx,
                    "wagon_locked",
                    {"target": wagon_ref(tx, wagon.target)},
                    "host" if hidden else "public",
                )
    return False


def nominate(
    user: Any,
    game_id: int,
    target_slot_id: int | None,
    *,
    thoughts: str = "",
    now: datetime | None = None,
) -> Nomination | None:
    """Classic: put a player (or, on day 1, "skip") on the ballot; once per player per day.

    On a table day the nomination is the speaker's, during their speech (None returned).
    """
    refused = None
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        slot = require_player(tx, user)
        require_running(tx.game)
        phase = tx.phase  # (the day a table's nomination may end)
        if turns.in_table_day(tx):
            require_open_phase(tx, PhaseKind.DAY)
            refused = turns.table_nominate(tx, slot, target_slot_id)
            nomination = None
        else:
            nomination = _nominate(tx, user, slot, target_slot_id)
        if refused is None:
            keep_thoughts(tx, slot, ThoughtAct.NOMINATION, thoughts, phase=phase)
    if refused is not None:
        raise refused  # after the commit: the refused attempt itself counts (classic)
    return nomination


def _nominate(tx: Tx, user: Any, slot: Slot, target_slot_id: int | None) -> Nomination:
    if not rules_of(tx.game).uses_nominations:
        raise InvalidInput(_("This game has no nominations."), ErrorCode.NO_NOMINATIONS)
    phase = require_open_phase(tx, PhaseKind.DAY)
    if phase.in_revote:
        raise WrongPhase(_("Nominations are closed during the revote."), ErrorCode.REVOTE)
    if Nomination.objects.filter(phase=phase, nominator=slot).exists():
        raise InvalidInput(_("You have already nominated today."), ErrorCode.ALREADY_NOMINATED)
    target = None if target_slot_id is None else target_slot(tx, target_slot_id)
    if target is None:
        if state_of(tx.game).night_number != 0:
            raise InvalidInput(
                _('Nominating "skip" is only allowed on day 1.'), ErrorCode.SKIP_NOMINATION
            )
        name = "skip"
    else:
        if not target.alive:
            raise InvalidInput(
                _("%(name)s is dead and cannot be nominated.") % {"name": target.display_name},
                ErrorCode.DEAD_TARGET,
            )
        name = markup.escape_markdown(target.display_name)
    post = do_post(tx, user, slot, f"**Nominate: {name}**", Thread.PUBLIC)
    nomination = Nomination.objects.create(phase=phase, nominator=slot, target=target, post=post)
    emit(
        tx,
        "nomination",
        {"nominator": slot_ref(slot), "target": slot_ref(target), "post_number": post.number},
    )
    emit_vote_count(tx)
    return nomination
