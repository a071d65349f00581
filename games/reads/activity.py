"""Read-side helpers of the host's chores: who is away (V/LA), the vote log, the numbered
vote counts' history and the activity overview per day. Reads only (no locks, no writes),
beside ``vote_count.py``."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Count

from ..models import Absence, Game, Phase, PhaseKind, Post, Slot, Thread, Vote, VoteCountPost
from ..naming import slot_ref
from .seats import seat_history


def away_slot_ids(game: Game, day: date) -> set[int]:
    """Slots of the game with a V/LA covering ``day``."""
    return set(
        Absence.objects.filter(slot__game=game, starts__lte=day, ends__gte=day).values_list(
            "slot_id", flat=True
        )
    )


def away_refs(game: Game, slots: list[Slot], day: date) -> list[dict[str, Any]]:
    """Living players away on ``day``, with the last day of their V/LA."""
    rows = Absence.objects.filter(slot__game=game, starts__lte=day, ends__gte=day)
    until: dict[int, date] = {}
    for row in rows:
        until[row.slot_id] = max(until.get(row.slot_id, row.ends), row.ends)
    return [
        {**slot_ref(s), "until": until[s.pk].isoformat()}
        for s in slots
        if s.alive and s.pk in until
    ]


def vote_log(game: Game) -> list[dict[str, Any]]:
    """Every vote and unvote of the game's days, in order, with the post that cast it, each
    naming the voter and the target who held those seats then (and, for today's votes, who
    holds the voter's seat now)."""
    rows = (
        Vote.objects.filter(phase__game=game)
        .select_related("phase", "voter__user", "target__user", "post")
        .order_by("id")
    )
    labels: dict[int, str] = {}
    history = seat_history(game, game.slots.select_related("user"))
    out = []
    for row in rows:
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
                "target": history.holder(row.target_id, at=row.created_at) if row.target else None,
                "skip": row.is_skip,
                "post_number": row.post.number if row.post else None,
                "revote": row.revote,
                "at": row.created_at,
            }
        )
    return out


def count_history(game: Game) -> list[dict[str, Any]]:
    """Every numbered vote count, each with the votes cast since the one before it."""
    counts = list(
        VoteCountPost.objects.filter(phase__game=game)
        .select_related("phase", "post")
        .order_by("phase__number", "number")
    )
    log = vote_log(game)
    history = []
    previous: dict[int, int] = {}  # phase -> last vote id counted so far
    for count in counts:
        since = previous.get(count.phase_id, 0)
        upto = count.last_vote_id or since
        history.append(
            {
                "label": count.label,
                "post_number": count.post.number if count.post else None,
                "at": count.created_at,
                "data": count.data,
                "changes": [
                    v for v in log if v["phase"] == count.phase.number and since < v["id"] <= upto
                ],
            }
        )
        previous[count.phase_id] = upto
    return history


def activity(game: Game) -> dict[str, Any]:
    """Per day: each player's posts and votes in the game thread, and who was away."""
    slots = list(game.slots.select_related("user").order_by("seat"))
    days = list(game.phases.filter(kind=PhaseKind.DAY).order_by("number"))
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
    rows = []
    for slot in slots:
        cells = []
        for day in days:
            cells.append(
                {
                    "posts": posts.get((day.pk, slot.pk), 0),
                    "votes": votes.get((day.pk, slot.pk), 0),
                    "away": slot.pk in away[day.pk],
                    "dead": not slot.alive and (slot.died_in_phase or 0) < day.number,
                }
            )
        rows.append({"slot": slot, "name": slot.display_name, "cells": cells})
    return {"days": [_day_label(d) for d in days], "rows": rows}


def _day_label(phase: Phase) -> str:
    return phase.label
