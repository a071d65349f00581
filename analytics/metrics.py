"""Behaviour metrics (issue 34, part 3): what a seat did with its votes, from the record.

Each metric is defined ONCE here, as a ``Metric`` entry: its name, the definition the
README repeats, and its computation over plain data (``SeatDays``: one seat's days of one
FINISHED game). Every metric is a ratio (numerator, denominator) so per-game figures add
up into per-person figures without averaging averages. Reading the records into
``SeatDays`` (through ``games.reads.vote_count``, which owns the vote arithmetic) is the
pages' and the API's job, not this module's: nothing here touches the database.

UNFINISHED: only the pure part exists yet (see the report of issue 34, part 3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from games.models import DeathCause, Game, PhaseKind, Vote, VoteKind
from games.reads.vote_count import current_votes


@dataclass(frozen=True)
class Day:
    """One day of a finished game, as plain data.

    ``standing``: each voter's vote standing when the day ended (seat -> target seat,
    ``None`` for no elimination), as ``games.reads.vote_count.current_votes`` gives it;
    ``log``: every vote cast that day in order, (voter seat, target seat or None);
    ``eliminated``: the seat the day eliminated, if any."""

    standing: Mapping[int, int | None]
    log: Sequence[tuple[int, int | None]]
    eliminated: int | None


@dataclass(frozen=True)
class SeatDays:
    """One seat of one finished game: its side, everyone's sides, its days, its fate."""

    seat: int
    side: str
    sides: Mapping[int, str]
    days: Sequence[Day]
    survived: bool


Ratio = tuple[int, int]  # (numerator, denominator)


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    definition: str  # the README's text, word for word
    compute: Callable[[SeatDays], Ratio]


def _other_side_votes(s: SeatDays) -> Ratio:
    cast = [t for d in s.days if (t := d.standing.get(s.seat)) is not None]
    return sum(1 for t in cast if s.sides.get(t) != s.side), len(cast)


def _wagons_started_on_mafia(s: SeatDays) -> Ratio:
    started: list[int] = []
    for day in s.days:
        seen: set[int | None] = set()
        for voter, target in day.log:
            if target is not None and target not in seen and voter == s.seat:
                started.append(target)
            seen.add(target)
    return sum(1 for t in started if s.sides.get(t) == "mafia"), len(started)


def _eliminations_hit_mafia(s: SeatDays) -> Ratio:
    hits = [
        d.eliminated
        for d in s.days
        if d.eliminated is not None and d.standing.get(s.seat) == d.eliminated
    ]
    return sum(1 for t in hits if s.sides.get(t) == "mafia"), len(hits)


def _survival(s: SeatDays) -> Ratio:
    return int(s.survived), 1


METRICS: tuple[Metric, ...] = (
    Metric(
        "other_side",
        "Day-end votes on the other side",
        "Of the days on which the seat's vote standing when the day ended was on a player "
        "(not no elimination), those on which that player was of another side.",
        _other_side_votes,
    ),
    Metric(
        "wagons_mafia",
        "Wagons started on mafia",
        "Of the wagons the seat started (its vote was the day's first on that player), "
        "those on a mafia player.",
        _wagons_started_on_mafia,
    ),
    Metric(
        "eliminations_mafia",
        "Eliminations voted for that hit mafia",
        "Of the day eliminations the seat's day-end vote was on, those of a mafia player.",
        _eliminations_hit_mafia,
    ),
    Metric(
        "survival",
        "Survival",
        "Of the seat's finished games, those it was alive at the end of.",
        _survival,
    ),
)
METRIC_KEYS = frozenset(m.key for m in METRICS)


def seat_metrics(s: SeatDays) -> dict[str, Ratio]:
    """Every metric of one seat of one game."""
    return {m.key: m.compute(s) for m in METRICS}


def combine(per_game: Sequence[Mapping[str, Ratio]]) -> dict[str, Ratio]:
    """A person's figures over many games: numerators and denominators added up."""
    total: dict[str, Ratio] = {m.key: (0, 0) for m in METRICS}
    for game in per_game:
        for key, (num, den) in game.items():
            n, d = total[key]
            total[key] = (n + num, d + den)
    return total


def game_seat_days(game: Game) -> list[SeatDays]:
    """Every seat of one FINISHED game as ``SeatDays`` (an unfinished game gives nothing:
    its sides are hidden). One query per day for the standing votes
    (``games.reads.vote_count.current_votes``, which owns what "standing" means), so this
    suits one game's review page, not a leaderboard over a thousand games."""
    if not game.is_finished:
        return []
    slots = list(game.slots.order_by("seat"))
    seat_of = {s.pk: s.seat for s in slots}
    sides = {s.seat: s.alignment for s in slots}
    days: list[Day] = []
    for phase in game.phases.filter(kind=PhaseKind.DAY).order_by("number"):
        standing = current_votes(phase, revote=False)
        log = Vote.objects.filter(phase=phase, revote=False, kind=VoteKind.VOTE).order_by("id")
        eliminated = next(
            (
                s.seat
                for s in slots
                if s.death_cause == DeathCause.DAY and s.died_in_phase == phase.number
            ),
            None,
        )
        days.append(
            Day(
                standing={
                    seat_of[v]: seat_of.get(row.target_id) if row.target_id else None
                    for v, row in standing.items()
                },
                log=[
                    (seat_of[r.voter_id], seat_of[r.target_id] if r.target_id else None)
                    for r in log
                ],
                eliminated=eliminated,
            )
        )
    return [SeatDays(s.seat, s.alignment, sides, days, s.alive) for s in slots]
