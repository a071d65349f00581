"""The game review (issue 34, part 1): once a game has ended, its public thread read back
phase by phase and post by post, with the vote count as it stood after each post, each
day's wagons over the day (the wagon chart) and each phase's acts and explanations in
their places. Reads only, from what is stored: the posts, the vote log (read as
``activity.vote_log`` reads it), the phase records (``phase_history.phase_records``) and
who held each seat when (``naming.SeatHistory``).

Nothing here answers before the end: ``read_review`` refuses a game that has not ended,
whoever asks (the host and the players included: hidden information is sacred until then).

The count at a point is worked out from the vote log: each living voter's latest vote of
the day (of its revote, once the revote has begun), counted as the live count counts them
(``vote_count.counted``: the resolver's count with the seats' vote weights and the loved
and hated players' thresholds). The game is over, so each wagon's L-n is its true one,
hidden modifiers included. Who was alive: everyone who did not die before the day, less a
player shot by day from the shot's time (a modkill in the middle of a day is counted from
the day's end: its time is not stored).

A bounded number of queries, however long the game: one for the posts, one for the votes,
and the phase records' few (no query per post or per vote).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..gateway import SKIP, majority_needed
from ..models import DayAction, DeathCause, Game, Phase, Post, Slot, Thread, Vote, VoteKind
from ..naming import SeatHistory, render, sign_posts
from ..shapes import (
    ReviewCount,
    ReviewVoter,
    ReviewWagon,
    VoteLogRow,
    WagonChart,
    WagonSeries,
)
from .phase_history import phase_records
from .seats import seat_history
from .vote_count import counted, skip_label


class NotOver(Exception):
    """The game has not ended: no review yet, for anyone."""


@dataclass(frozen=True)
class ReviewVote:
    """One vote or unvote of the log, with its seats (the log names them)."""

    row: VoteLogRow
    phase_id: int
    voter_id: int
    target_id: int | None

    @property
    def is_vote(self) -> bool:
        return self.row["kind"] == VoteKind.VOTE


@dataclass
class Review:
    """Everything the review page and answer read, read once."""

    game: Game
    slots: list[Slot]
    history: SeatHistory
    phases: list[Phase]
    records: dict[int, dict[str, Any]]  # phase number -> its phase record
    shots: dict[int, datetime]  # slot id -> when a day shot killed it
    _votes: dict[int, list[ReviewVote]] | None = None  # phase id -> its votes, in order

    def phase(self, number: int) -> Phase | None:
        return next((p for p in self.phases if p.number == number), None)

    def votes(self, day: Phase) -> list[ReviewVote]:
        """The day's votes and unvotes in order (the whole log read once, when first asked:
        a night's page needs none)."""
        if self._votes is None:
            self._votes = read_votes(self.game, self.history, self.phases)
        return self._votes.get(day.pk, [])


def read_review(game: Game) -> Review:
    """The review of ``game``; ``NotOver`` before the game has ended."""
    if not game.is_finished:
        raise NotOver
    slots = list(
        game.slots.select_related("user")
        .prefetch_related("replacements__old_user", "replacements__new_user")
        .order_by("seat")
    )
    history = seat_history(game, slots)
    records = phase_records(game, slots, include_open=True, history=history)
    shot_slots = {s.pk for s in slots if s.death_cause == DeathCause.SHOT}
    shots: dict[int, datetime] = {}
    if shot_slots:
        for targets, at, posted in DayAction.objects.filter(phase__game=game).values_list(
            "targets", "created_at", "post__created_at"
        ):
            for target in targets or []:
                if target in shot_slots and target not in shots:
                    # dead from the shot's post on, whichever of the two was made first
                    shots[target] = min(at, posted) if posted is not None else at
    return Review(
        game=game,
        slots=slots,
        history=history,
        phases=[r["phase"] for r in records],
        records={r["phase"].number: r for r in records},
        shots=shots,
    )


def read_votes(
    game: Game, history: SeatHistory, phases: list[Phase]
) -> dict[int, list[ReviewVote]]:
    """Every vote and unvote of the game by phase id, each as the vote log reads it
    (``activity.vote_log``: a finished game's, whose every day is over) with its seats: one
    query of the columns it needs (the log's own reads each vote's post whole)."""
    by_id = {p.pk: p for p in phases}
    rows = (
        Vote.objects.filter(phase__game=game)
        .order_by("id")
        .values_list(
            "id",
            "phase_id",
            "voter_id",
            "target_id",
            "kind",
            "revote",
            "post__number",
            "created_at",
        )
    )
    out: dict[int, list[ReviewVote]] = {}
    for vote_id, phase_id, voter_id, target_id, kind, revote, post_number, at in rows:
        phase = by_id[phase_id]
        row: VoteLogRow = {
            "id": vote_id,
            "phase": phase.number,
            "label": phase.label,
            "kind": kind,
            "voter": history.holder(voter_id, at=at),
            "target": history.holder(target_id, at=at) if target_id is not None else None,
            "skip": kind == VoteKind.VOTE and target_id is None,
            "post_number": post_number,
            "revote": revote,
            "at": at,
        }
        out.setdefault(phase_id, []).append(ReviewVote(row, phase_id, voter_id, target_id))
    return out


@dataclass(frozen=True)
class Point:
    """A post of the phase as a point to step to: its number and time, not its body."""

    number: int
    created_at: datetime


def phase_points(review: Review, phase: Phase) -> list[Point]:
    """Every public post of ``phase`` as a point, in order (one light query: a page of the
    phase shows a few of them whole, ``phase_posts(..., between=...)``)."""
    rows = Post.objects.filter(_phase_posts(review, phase), game=review.game, thread=Thread.PUBLIC)
    return [Point(n, at) for n, at in rows.order_by("number").values_list("number", "created_at")]


def phase_posts(
    review: Review, phase: Phase | None = None, *, between: tuple[int, int] | None = None
) -> dict[int, list[Post]]:
    """The public thread's posts of one phase (every phase without one; only numbers
    ``between`` first and last, if given), by phase id, in order, each signed with its
    author's name then (one query). The posts made once the game was over (its end, the
    survivors' wills: no phase) close its last phase; the sign-ups' come before the game
    and are not in the review."""
    last = review.phases[-1] if review.phases else None
    posts = Post.objects.filter(_phase_posts(review, phase), game=review.game, thread=Thread.PUBLIC)
    if between is not None:
        posts = posts.filter(number__range=between)
    rows = list(posts.select_related("author").order_by("number"))
    sign_posts(review.slots, rows)
    out: dict[int, list[Post]] = {}
    for post in rows:
        key = post.phase_id if post.phase_id is not None else last.pk if last else None
        if key is not None:
            out.setdefault(key, []).append(post)
    return out


def _phase_posts(review: Review, phase: Phase | None) -> Q:
    """Which public posts belong to ``phase`` (None: to any phase)."""
    last = review.phases[-1] if review.phases else None
    started = review.game.started_at
    ended = (
        Q(phase__isnull=True, number__gt=_last_phased(review))
        if started is not None and last is not None
        else Q(pk__in=[])
    )
    if phase is None:
        return Q(phase__isnull=False) | ended
    if phase == last:
        return Q(phase=phase) | ended
    return Q(phase=phase)


def _last_phased(review: Review) -> Any:
    """The number of the public thread's last post made in a phase (a subquery)."""
    return (
        Post.objects.filter(game=review.game, thread=Thread.PUBLIC, phase__isnull=False)
        .order_by("-number")
        .values("number")[:1]
    )


def day_acts(review: Review, day: Phase) -> dict[int, list[str]]:
    """The day actions of ``day`` (a day vigilante's shot...) in their places: the
    resolver's explanation of each, by the number of the thread's post that came with it
    (one query)."""
    names = review.history.seat_names(phase=day.number)
    out: dict[int, list[str]] = {}
    rows = (
        DayAction.objects.filter(phase=day, post__isnull=False)
        .order_by("id")
        .values_list("post__number", "report")
    )
    for number, report in rows:
        lines = (report or {}).get("explanation", [])
        out.setdefault(number, []).extend(render(line, names) for line in lines)
    return out


# -- the count at a point -------------------------------------------------------------------
def _alive(review: Review, slot: Slot, day: Phase, at: datetime | None) -> bool:
    """Whether ``slot`` was alive on ``day`` at ``at`` (None: at the day's end)."""
    if slot.alive or slot.died_in_phase is None or slot.died_in_phase > day.number:
        return True
    if slot.died_in_phase < day.number:
        return False
    shot = review.shots.get(slot.pk)  # died that day: by the vote (alive all day) or a shot
    return shot is None or (at is not None and at < shot)


def _counted(vote: ReviewVote, post_number: int | None, at: datetime | None) -> bool:
    """Whether ``vote`` was cast by the end of post ``post_number`` (None: the day's end)."""
    if post_number is None:
        return True
    if vote.row["post_number"] is not None:
        return vote.row["post_number"] <= post_number
    return at is not None and vote.row["at"] <= at


def count_at(
    review: Review, day: Phase, post_number: int | None = None, at: datetime | None = None
) -> ReviewCount:
    """The vote count of ``day`` as it stood after public post ``post_number`` (made at
    ``at``); without one, as the day ended."""
    votes = [v for v in review.votes(day) if _counted(v, post_number, at)]
    return _count(review, day, votes, post_number, at)


def _count(
    review: Review,
    day: Phase,
    votes: list[ReviewVote],
    post_number: int | None,
    at: datetime | None,
) -> ReviewCount:
    revote = any(v.row["revote"] for v in votes)
    latest: dict[int, ReviewVote] = {}
    for vote in votes:
        if vote.row["revote"] == revote:
            _stand(latest, vote)
    return _tallied(review, day, latest, revote, post_number, at)


def _stand(latest: dict[int, ReviewVote], vote: ReviewVote) -> None:
    """``vote`` becomes its voter's standing act (last in order: the order of each voter's
    last act is the order ``vote_count`` counts them in)."""
    latest.pop(vote.voter_id, None)
    latest[vote.voter_id] = vote


def _tallied(
    review: Review,
    day: Phase,
    latest: dict[int, ReviewVote],
    revote: bool,
    post_number: int | None,
    at: datetime | None,
) -> ReviewCount:
    alive = [s for s in review.slots if _alive(review, s, day, at)]
    by_seat = {s.resolver_name: s for s in review.slots}
    ballots = {
        by_seat_name(review, v.voter_id): (
            by_seat_name(review, v.target_id) if v.target_id is not None else SKIP
        )
        for v in latest.values()
        if v.is_vote
    }
    count = counted(review.game, ballots, [s.resolver_name for s in alive])
    cast = {by_seat_name(review, v.voter_id): v for v in latest.values() if v.is_vote}
    majority = majority_needed(len(alive))
    when = {"at": at} if at is not None else {"phase": day.number}

    def name(slot: Slot) -> str:
        return review.history.holder(slot.pk, **when)

    wagons: list[ReviewWagon] = []
    for wagon in count.wagons:
        target = by_seat.get(wagon.target)
        voters: list[ReviewVoter] = [
            {"name": name(by_seat[v]), "post_number": cast[v].row["post_number"]}
            for v in wagon.voters
        ]
        wagons.append(
            {
                "seat": target.seat if target is not None else None,
                "name": name(target) if target is not None else skip_label(),
                "count": wagon.weight,
                "l_minus": max(count.needed(wagon.target) - wagon.weight, 0),
                "voters": voters,
            }
        )
    return {
        "phase": day.number,
        "label": day.label,
        "post_number": post_number,
        "revote": revote,
        "alive_count": len(alive),
        "majority": majority,
        "wagons": wagons,
        "not_voting": [name(by_seat[n]) for n in count.not_voting],
    }


def by_seat_name(review: Review, slot_id: int) -> str:
    """A slot's resolver name (``P<seat>``)."""
    return f"P{review.history.seats[slot_id]}"


# -- the wagon chart ------------------------------------------------------------------------
def wagon_chart(review: Review, day: Phase) -> WagonChart:
    """The votes on each player (and on no elimination) after each vote or unvote of
    ``day``: one series per player who ever had a vote that day, in the order their first
    vote came; each step the votes on every series after it (as the count then stood)."""
    votes = review.votes(day)
    steps: list[tuple[ReviewVote, dict[int | None, int]]] = []
    order: list[int | None] = []
    latest: dict[int, ReviewVote] = {}
    revote = False
    for vote in votes:
        if vote.row["revote"] and not revote:  # the revote begins: only its votes count
            revote, latest = True, {}
        if vote.row["revote"] == revote:
            _stand(latest, vote)
        count = _tallied(review, day, latest, revote, vote.row["post_number"], vote.row["at"])
        by_target = {w["seat"]: w["count"] for w in count["wagons"]}
        for seat in by_target:
            if seat not in order:
                order.append(seat)
        steps.append((vote, by_target))
    seat_slot = {s.seat: s for s in review.slots}
    end = day.ended_at
    series: list[WagonSeries] = [
        {
            "seat": seat,
            "name": skip_label()
            if seat is None
            else review.history.holder(seat_slot[seat].pk, at=end)
            if end is not None
            else seat_slot[seat].display_name,
            "peak": max((s[1].get(seat, 0) for s in steps), default=0),
        }
        for seat in order
    ]
    alive = [s for s in review.slots if _alive(review, s, day, day.started_at)]
    return {
        "phase": day.number,
        "label": day.label,
        "majority": majority_needed(len(alive)),
        "series": series,
        "steps": [
            {
                "post_number": vote.row["post_number"],
                "voter": vote.row["voter"],
                "kind": vote.row["kind"],
                "target": (
                    vote.row["target"]
                    if vote.row["target"] is not None
                    else skip_label()
                    if vote.row["skip"]
                    else None
                ),
                "at": vote.row["at"],
                "votes": [by_target.get(seat, 0) for seat in order],
            }
            for vote, by_target in steps
        ],
    }


# The chart's drawing: a step line per series, told apart by colour and by dash (so no
# colour alone carries the meaning), over a grid of whole votes.
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 260, 36, 12, 12, 28


def chart_drawing(chart: WagonChart, selected: int | None = None) -> dict[str, Any]:
    """Everything the template draws the SVG with: each series' points (a step line), the
    grid, the majority line and, at ``selected`` (a step index), a marker."""
    steps = chart["steps"]
    top = max([chart["majority"], *(s["peak"] for s in chart["series"]), 1])
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return round(LEFT + span_x * i / max(len(steps), 1), 1)

    def y(v: int) -> float:
        return round(TOP + span_y * (1 - v / top), 1)

    lines = []
    for n, series in enumerate(chart["series"]):
        points = [(x(0), y(0))]
        last = 0
        for i, step in enumerate(steps, 1):
            now = step["votes"][n]
            points += [(x(i), y(last)), (x(i), y(now))]
            last = now
        points.append((x(len(steps)), y(last)))
        lines.append(
            {
                "name": series["name"],
                "peak": series["peak"],
                "colour": COLOURS[n % len(COLOURS)],
                "dash": DASHES[(n // len(COLOURS) + n) % len(DASHES)],
                "points": " ".join(f"{a},{b}" for a, b in points),
            }
        )
    every = max(1, top // 6)
    grid = [{"value": v, "y": y(v)} for v in range(0, top + 1, every)]
    marker = x(selected) if selected is not None and steps else None
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "bottom": HEIGHT - BOTTOM,
        "top": TOP,
        "lines": lines,
        "grid": grid,
        "majority_y": y(chart["majority"]),
        "marker": marker,
    }


def chart_summary(chart: WagonChart) -> str:
    """The chart in words (its SVG ``desc``)."""
    if not chart["steps"]:
        return _("No votes were cast on %(day)s.") % {"day": chart["label"]}
    peaks = ", ".join(f"{s['name']} {s['peak']}" for s in chart["series"])
    return ngettext(
        "%(steps)s votes and unvotes on %(day)s; it took %(majority)s to eliminate. "
        "The most votes each had: %(peaks)s.",
        "%(steps)s votes and unvotes on %(day)s; it took %(majority)s to eliminate. "
        "The most votes each had: %(peaks)s.",
        len(chart["steps"]),
    ) % {
        "steps": len(chart["steps"]),
        "day": chart["label"],
        "majority": chart["majority"],
        "peaks": peaks,
    }


def step_of_post(chart: WagonChart, post_number: int | None) -> int | None:
    """How many of the chart's steps had happened by post ``post_number`` (None: all)."""
    if post_number is None:
        return len(chart["steps"])
    done = 0
    for n, step in enumerate(chart["steps"], 1):
        if step["post_number"] is not None and step["post_number"] <= post_number:
            done = n
    return done
