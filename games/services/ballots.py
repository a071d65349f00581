"""Ballots inside a game transaction: the locked day's standing votes (kept right after each
vote written), the same votes as resolver ballots, and the live ``vote_count`` event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..gateway import SKIP
from ..i18n import in_game_language
from ..models import (
    Vote,
    VoteKind,
)
from ..naming import slot_ref
from ..reads.vote_count import current_votes, public_count, vote_count
from .common import Tx, by_resolver_name, emit


def standing_votes(tx: Tx, *, revote: bool | None = None) -> dict[int, Vote]:
    """``current_votes`` of the locked phase, read once per transaction until a write."""
    key = tx.current.in_revote if revote is None else revote
    if key not in tx.standing:
        tx.standing[key] = current_votes(tx.current, revote=key)
    return tx.standing[key]


def record_vote(tx: Tx, vote: Vote) -> None:
    """Keep the transaction's standing votes right after writing ``vote``, without reading
    them again under the lock: the voter's newest row is this one (the highest id, so last
    in the order cast); an unvote drops them."""
    standing = tx.standing.get(vote.revote)
    tx.standing.clear()
    if standing is not None:
        updated = {voter: v for voter, v in standing.items() if voter != vote.voter_id}
        if vote.kind == VoteKind.VOTE:
            updated[vote.voter_id] = vote
        tx.standing[vote.revote] = updated


def ballots(tx: Tx, votes: Mapping[int, Vote]) -> dict[str, str]:
    """Resolver ballots (voter -> target or "skip") of the living, in the order cast."""
    ballots = {}
    for voter_id, vote in votes.items():
        voter = tx.locked.slot(voter_id)
        target = tx.locked.slot(vote.target_id) if vote.target_id else None
        if voter is None or not voter.alive or (target is not None and not target.alive):
            continue
        ballots[voter.resolver_name] = target.resolver_name if target else SKIP
    return ballots


def vote_key(tx: Tx, vote: Vote) -> str:
    if vote.target_id is None:
        return SKIP
    target = tx.locked.slot(vote.target_id)
    assert target is not None  # a vote's target is a seat of its game
    return target.resolver_name


def wagon_ref(tx: Tx, key: str) -> dict[str, Any] | None:
    return None if key == SKIP else slot_ref(by_resolver_name(tx, key))


def emit_vote_count(tx: Tx) -> None:
    """The live count, as everyone but the host sees it (secret votes: totals or nothing
    while the day runs; the host's page pushes its own whole copy, ``whole-count``)."""
    if tx.phase is not None and tx.phase.is_day:
        with in_game_language(tx.game):  # one count for every open page of the game
            count = vote_count(tx.phase, slots=tx.slots, votes=standing_votes(tx))
            emit(tx, "vote_count", public_count(tx.game, count))
