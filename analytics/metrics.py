"""Behaviour metrics (issue 34, part 3): what a seat did with its votes, from the record.

Each metric is defined ONCE here, as a ``Metric`` entry: its name, the definition the
README repeats word for word (a test holds them to it), and its computation over plain
data (``SeatDays``: one seat's days of one FINISHED game). Every metric is a ratio
(numerator, denominator) so per-game figures add up into per-person figures without
averaging averages. The computations touch no database; ``read_seat_days`` at the end
reads the records into ``SeatDays`` in a fixed number of queries, and
``analytics.stats.player_stats`` adds them up per rule set and side for the player's
page, its panel and the API.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import QuerySet

from games.models import DeathCause, Game, GameStatus, Phase, PhaseKind, Slot, Vote, VoteKind


@dataclass(frozen=True)
class Day:
    """One day of a finished game, as plain data.

    ``standing``: each voter's vote standing when the day ended (seat -> target seat,
    ``None`` for no elimination), as ``games.reads.vote_count.current_votes`` gives it;
    ``log``: every vote cast that day in order, (voter seat, target seat or None);
    ``eliminated``: the seat the day eliminated, if any; ``number``: the day's phase
    number (a replacement hands a seat over from a phase on: ``held``)."""

    standing: Mapping[int, int | None]
    log: Sequence[tuple[int, int | None]]
    eliminated: int | None
    number: int = 0


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
METRIC_LABELS = {m.key: m.label for m in METRICS}  # (the API's choices, in order)


def seat_metrics(s: SeatDays) -> dict[str, Ratio]:
    """Every metric of one seat of one game."""
    return {m.key: m.compute(s) for m in METRICS}


def held(s: SeatDays, spans: Iterable[tuple[int, int]]) -> SeatDays:
    """The seat's days one holder held: the phases in ``spans``, [first, last + 1)
    (``analytics.stats.seat_spans``). Its fate stays the seat's (as the win does)."""
    spans = list(spans)
    return replace(s, days=[d for d in s.days if any(a <= d.number < b for a, b in spans)])


def combine(per_game: Sequence[Mapping[str, Ratio]]) -> dict[str, Ratio]:
    """A person's figures over many games: numerators and denominators added up."""
    total: dict[str, Ratio] = {m.key: (0, 0) for m in METRICS}
    for game in per_game:
        for key, (num, den) in game.items():
            n, d = total[key]
            total[key] = (n + num, d + den)
    return total


def standing_votes(log: Iterable[tuple[int, int, int | None, str]]) -> dict[int, int | None]:
    """Each voter's standing vote from a day's log of (row id, voter, target, kind) rows:
    their latest row, dropped if it is an unvote. ``games.reads.vote_count.current_votes``
    on rows already read (it reads one day per query; a person's page reads every day of
    every game at once); ``tests/site/test_metrics.py`` holds the two to one answer."""
    latest: dict[int, tuple[int, int | None, str]] = {}
    for row_id, voter, target, kind in log:
        if voter not in latest or row_id > latest[voter][0]:
            latest[voter] = (row_id, target, kind)
    return {voter: target for voter, (_, target, kind) in latest.items() if kind == VoteKind.VOTE}


def read_seat_days(games: Iterable[int] | QuerySet[Any]) -> dict[int, SeatDays]:
    """Every seat of these games that are FINISHED, as ``SeatDays``, by slot id (a running
    or cancelled game gives nothing: a running game's sides are hidden). Three queries
    whatever the number of games (the seats, the days, every vote of those days): a
    person's page reads all their games at once. Seats are named by their seat number."""
    finished = Game.objects.filter(pk__in=games, status=GameStatus.FINISHED).values("pk")
    slots = list(
        Slot.objects.filter(game_id__in=finished)
        .order_by("game_id", "seat")
        .values_list("pk", "game_id", "seat", "alignment", "alive", "death_cause", "died_in_phase")
    )
    seat_of = {pk: seat for pk, _, seat, *_ in slots}
    days_of: dict[int, list[tuple[int, int]]] = defaultdict(list)  # game -> (phase id, number)
    for pk, game_id, number in (
        Phase.objects.filter(game_id__in=finished, kind=PhaseKind.DAY)
        .order_by("game_id", "number")
        .values_list("pk", "game_id", "number")
    ):
        days_of[game_id].append((pk, number))
    logs: dict[int, list[tuple[int, int, int | None, str]]] = defaultdict(list)
    for row_id, phase_id, voter, target, kind in (
        # The main vote only: a classic revote is the same day's second ballot.
        Vote.objects.filter(phase__game_id__in=finished, phase__kind=PhaseKind.DAY, revote=False)
        .order_by("id")
        .values_list("id", "phase_id", "voter_id", "target_id", "kind")
    ):
        logs[phase_id].append(
            (row_id, seat_of[voter], seat_of[target] if target is not None else None, kind)
        )
    sides: dict[int, dict[int, str]] = defaultdict(dict)
    eliminated: dict[tuple[int, int], int] = {}  # (game, day's number) -> seat
    for _, game_id, seat, alignment, _, cause, died_in in slots:
        sides[game_id][seat] = alignment
        if cause == DeathCause.DAY and died_in is not None:
            eliminated.setdefault((game_id, died_in), seat)
    days: dict[int, list[Day]] = {
        game_id: [
            Day(
                standing=standing_votes(logs[phase_id]),
                log=[
                    (voter, target)
                    for _, voter, target, kind in logs[phase_id]
                    if kind == VoteKind.VOTE
                ],
                eliminated=eliminated.get((game_id, number)),
                number=number,
            )
            for phase_id, number in game_days
        ]
        for game_id, game_days in days_of.items()
    }
    return {
        pk: SeatDays(seat, alignment, sides[game_id], days.get(game_id, []), alive)
        for pk, game_id, seat, alignment, alive, *_ in slots
    }


def game_seat_days(game: Game) -> list[SeatDays]:
    """Every seat of one FINISHED game as ``SeatDays``, in seat order (an unfinished game
    gives nothing)."""
    return list(read_seat_days([game.pk]).values())
