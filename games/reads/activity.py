"""Read-side helpers of the host's chores: who is away (V/LA), the vote log, the numbered
vote counts' history and the activity overview per day. Reads only (no locks, no writes),
beside ``vote_count.py``."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Count

from ..models import Absence, Game, Phase, PhaseKind, Post, Thread, Vote, VoteCountPost
from ..naming import SeatHistory
from ..shapes import CountRow, VoteLogRow
from . import vote_count as tallies
from .seats import seat_history


def away_slot_ids(game: Game, day: date) -> set[int]:
    """Slots of the game with a V/LA covering ``day``."""
    return set(
        Absence.objects.filter(slot__game=game, starts__lte=day, ends__gte=day).values_list(
            "slot_id", flat=True
        )
    )


def vote_log(game: Game, *, whole: bool = True) -> list[VoteLogRow]:
    """Every vote and unvote of the game's days, in order, with the post that cast it, each
    naming the voter and the target who held those seats then (and, for today's votes, who
    holds the voter's seat now). Not ``whole`` (anyone but the host, ``sees_whole_count``):
    without the votes still secret (``Game.secret_votes``: today's, until the day ends)."""
    rows = (
        Vote.objects.filter(phase__game=game)
        .select_related("phase", "voter__user", "target__user", "post")
        .order_by("id")
    )
    labels: dict[int, str] = {}
    history = seat_history(game, game.slots.select_related("user"))
    out: list[VoteLogRow] = []
    for row in rows:
        if not whole and tallies.votes_are_secret(game, row.phase):
            continue
        if row.phase_id not in labels:
            labels[row.phase_id] = row.phase.label
        out.append(
            {
                "id": row.pk,
                "phase": row.phase.number,
                "label": labels[row.phase_id],
                "kind": row.kind,
                # whoever held the seats when the vote was cast; today's vote may still
                # stand for the seat's new holder: "gus (replaced by Zoë Smith)"
                "voter": (
                    history.holder(row.voter_id, at=row.created_at)
                    if row.phase.resolved
                    else history.then_and_now(row.voter_id, at=row.created_at)
                ),
                "target": history.holder(row.target_id, at=row.created_at)
                if row.target and row.target_id is not None  # (the second only narrows)
                else None,
                "skip": row.is_skip,
                "post_number": row.post.number if row.post else None,
                "revote": row.revote,
                "at": row.created_at,
            }
        )
    return out


def count_history(game: Game, *, whole: bool = True) -> list[CountRow]:
    """Every numbered vote count, each with the votes cast since the one before it. Not
    ``whole``: a day's counts while its votes are secret as its thread posts showed them
    (``public_count``), without the votes that changed them."""
    counts = list(
        VoteCountPost.objects.filter(phase__game=game)
        .select_related("phase", "post")
        .order_by("phase__number", "number")
    )
    log = vote_log(game)
    history: list[CountRow] = []
    previous: dict[int, int] = {}  # phase -> last vote id counted so far
    for count in counts:
        since = previous.get(count.phase_id, 0)
        upto = count.last_vote_id or since
        secret = not whole and tallies.votes_are_secret(game, count.phase)
        history.append(
            {
                "label": count.label,
                "post_number": count.post.number if count.post else None,
                "at": count.created_at,
                "data": tallies.public_count(game, count.data) if secret else count.data,
                "changes": []
                if secret
                else [
                    v for v in log if v["phase"] == count.phase.number and since < v["id"] <= upto
                ],
            }
        )
        previous[count.phase_id] = upto
    return history


def activity(game: Game, *, whole: bool = True) -> dict[str, Any]:
    """Per day: each player's posts and votes in the game thread, and who was away. Not
    ``whole`` (anyone but the host): a day's votes while they are secret are not counted
    per player (``"votes": None``: in a hidden count even who has voted is secret)."""
    slots = list(game.slots.select_related("user").order_by("seat"))
    days = list(game.phases.filter(kind=PhaseKind.DAY).order_by("number"))
    secret = {day.pk for day in days if not whole and tallies.votes_are_secret(game, day)}
    posts = {
        (r["phase_id"], r["slot_id"]): r["n"]
        for r in Post.objects.filter(game=game, thread=Thread.PUBLIC, slot__isnull=False)
        .values("phase_id", "slot_id")
        .annotate(n=Count("id"))
    }
    votes = {
        (r["phase_id"], r["voter_id"]): r["n"]
        for r in Vote.objects.filter(phase__game=game)
        .values("phase_id", "voter_id")
        .annotate(n=Count("id"))
    }
    away = {day.pk: away_slot_ids(game, day.started_at.date()) for day in days}
    history = seat_history(game, slots)
    # A replaced seat's posts and votes belong to whoever made them (issue 33: the page
    # gave them all to the replacement): one row per holder, counted by the holder then.
    by_holder = _by_holder(game, history, {s.pk for s in slots if history.former(s.pk)})
    rows = []
    for slot in slots:
        holders = [*history.former(slot.pk), history.current.get(slot.pk, slot.display_name)]
        changes = history.changes.get(slot.pk, [])
        replaced = len(holders) > 1
        for n, name in enumerate(holders):
            left = changes[n].at if n < len(changes) else None
            came = changes[n - 1].at if n > 0 else None
            cells = []
            for day in days:
                if replaced:
                    counts = by_holder.get((day.pk, slot.pk, name), (0, 0))
                else:
                    counts = (posts.get((day.pk, slot.pk), 0), votes.get((day.pk, slot.pk), 0))
                cells.append(
                    {
                        "posts": counts[0],
                        "votes": None if day.pk in secret else counts[1],
                        "away": slot.pk in away[day.pk],
                        "dead": not slot.alive and (slot.died_in_phase or 0) < day.number,
                        # not in the seat that day: it was someone else's before or after
                        "absent": (left is not None and left <= day.started_at)
                        or (came is not None and day.ended_at is not None and came >= day.ended_at),
                    }
                )
            rows.append(
                {
                    "slot": slot,
                    "name": name,
                    "replaced_by": holders[n + 1] if n + 1 < len(holders) else "",
                    "cells": cells,
                }
            )
    return {"days": [_day_label(d) for d in days], "rows": rows}


def _by_holder(
    game: Game, history: SeatHistory, slot_ids: set[int]
) -> dict[tuple[int, int, str], tuple[int, int]]:
    """(day id, slot id, holder name) -> (posts, votes) for the replaced seats: each post
    and vote counted for whoever held the seat when it was made."""
    if not slot_ids:
        return {}
    counts: dict[tuple[int, int, str], list[int]] = {}
    for phase_id, slot_id, at in Post.objects.filter(
        game=game, thread=Thread.PUBLIC, slot_id__in=slot_ids
    ).values_list("phase_id", "slot_id", "created_at"):
        key = (phase_id, slot_id, history.holder(slot_id, at=at))
        counts.setdefault(key, [0, 0])[0] += 1
    for phase_id, slot_id, at in Vote.objects.filter(
        phase__game=game, voter_id__in=slot_ids
    ).values_list("phase_id", "voter_id", "created_at"):
        key = (phase_id, slot_id, history.holder(slot_id, at=at))
        counts.setdefault(key, [0, 0])[1] += 1
    return {key: (n[0], n[1]) for key, n in counts.items()}


def _day_label(phase: Phase) -> str:
    return phase.label
