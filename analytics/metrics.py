"""Behaviour metrics (issue 34, part 3): what a seat did with its votes, from the record.

Each metric is defined ONCE here, as a ``Metric`` entry: its name, the definition the
README repeats word for word (a test holds them to it), and its computation over plain
data (``SeatDays``: one seat's days of one FINISHED game). Every metric is a ratio
(numerator, denominator) so per-game figures add up into per-person figures without
averaging averages: most are shares ("n of d"), one a rate per post ("n votes after d
posts", not bounded by 1). The computations touch no database; ``read_seat_days`` at the
end reads the records into ``SeatDays`` in a fixed number of queries, and
``analytics.stats.player_stats`` adds them up per rule set and side for the player's
page, its panel and the API.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.utils.translation import gettext, gettext_noop

from games.gateway import majority_needed
from games.models import (
    DeathCause,
    Game,
    GameStatus,
    Phase,
    PhaseKind,
    Post,
    Slot,
    Thread,
    Vote,
    VoteKind,
    VoteRule,
)

# A day's timeline, in order: ("post", seat, None) for a seat's post in the game thread,
# ("vote", voter, target or None for no elimination) and ("unvote", voter, None).
POST, VOTE, UNVOTE = "post", "vote", "unvote"
Event = tuple[str, int, int | None]


@dataclass(frozen=True)
class Day:
    """One day of a finished game, as plain data.

    ``standing``: each voter's vote standing when the day ended (seat -> target seat,
    ``None`` for no elimination), as ``games.reads.vote_count.current_votes`` gives it;
    ``log``: every vote cast that day in order, (voter seat, target seat or None);
    ``eliminated``: the seat the day eliminated, if any; ``number``: the day's phase
    number (a replacement hands a seat over from a phase on: ``held``); ``timeline``: the
    day's game-thread posts by seats and its votes and unvotes, in order (a vote made by a
    post comes just before that post: the post is the vote's); ``threshold``: the votes
    that eliminate, on a day where the vote that reaches them ends it (a majority-hammer
    day; None on any other: plurality, majority-lock, a table's ballot)."""

    standing: Mapping[int, int | None]
    log: Sequence[tuple[int, int | None]]
    eliminated: int | None
    number: int = 0
    timeline: Sequence[Event] = ()
    threshold: int | None = None


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
    # In English (``gettext_noop``: the catalogue has them): the figures and the pages say
    # them in the reader's language (``analytics.stats.MetricFigure``, ``title``).
    label: str
    definition: str  # the README's text, word for word
    compute: Callable[[SeatDays], Ratio]
    # A share ("n of d", at most 1) or a rate per post ("n votes after d posts").
    per_post: bool = False
    # The sides (``analytics.stats.PERSON_SIDES``) it counts anything for; None: every side.
    sides: frozenset[str] | None = None

    @property
    def title(self) -> str:
        """The label in the active language."""
        return gettext(self.label)  # i18n: marked at its source

    @property
    def meaning(self) -> str:
        """The definition in the active language."""
        return gettext(self.definition)  # i18n: marked at its source


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


def _votes_after_posts(s: SeatDays) -> Ratio:
    """Persuasion: a vote that moves another player onto T is credited to the last
    advocate of T, the player voting T whose post made while voting T is the latest
    before that vote; the denominator is the seat's posts made while voting a player."""
    credited = posts = 0
    for day in s.days:
        voting: dict[int, int | None] = {}
        last_post: dict[int, tuple[int, int]] = {}  # seat -> (its latest post, voting whom)
        for at, (kind, seat, target) in enumerate(day.timeline):
            if kind == POST:
                on = voting.get(seat)
                if on is not None:
                    last_post[seat] = (at, on)
                    posts += seat == s.seat
                continue
            before = voting.pop(seat, None)
            if kind != VOTE:
                continue
            voting[seat] = target
            if target is None or before == target:
                continue  # no elimination, or no move: nobody was persuaded
            advocates = [
                (posted, who)
                for who, (posted, on) in last_post.items()
                if on == target and voting.get(who) == target and who != seat
            ]
            credited += bool(advocates) and max(advocates)[1] == s.seat
    return credited, posts


def _town_to_l_minus_1_on_town(s: SeatDays) -> Ratio:
    """Reckless town voting: of the votes a town seat moved onto a wagon that left it one
    vote short of the threshold (L-1), those on a town player. Town at L-1 is where any
    single vote, a mafia player's, eliminates a townie with nothing more said: the vote
    that puts a player there, not the hammer that follows, is the town voter's gamble (the
    hammer itself is counted by "Eliminations voted for that hit mafia"). Counted only on
    days with a threshold whose vote ends the day (majority-hammer); wagons are counted in
    voters, against the majority of those alive when the day began."""
    if s.side != "town":
        return 0, 0
    placed = on_town = 0
    for day in s.days:
        if day.threshold is None:
            continue
        voting: dict[int, int | None] = {}
        for kind, seat, target in day.timeline:
            if kind == POST:
                continue
            before = voting.pop(seat, None)
            if kind != VOTE:
                continue
            voting[seat] = target
            if seat != s.seat or target is None or before == target:
                continue
            if sum(1 for t in voting.values() if t == target) == day.threshold - 1:
                placed += 1
                on_town += s.sides.get(target) == "town"
    return on_town, placed


METRICS: tuple[Metric, ...] = (
    Metric(
        "other_side",
        gettext_noop("Day-end votes on the other side"),
        gettext_noop(
            "Of the days on which the seat's vote standing when the day ended was on a player "
            "(not no elimination), those on which that player was of another side."
        ),
        _other_side_votes,
    ),
    Metric(
        "wagons_mafia",
        gettext_noop("Wagons started on mafia"),
        gettext_noop(
            "Of the wagons the seat started (its vote was the day's first on that player), "
            "those on a mafia player."
        ),
        _wagons_started_on_mafia,
    ),
    Metric(
        "eliminations_mafia",
        gettext_noop("Eliminations voted for that hit mafia"),
        gettext_noop(
            "Of the day eliminations the seat's day-end vote was on, those of a mafia player."
        ),
        _eliminations_hit_mafia,
    ),
    Metric(
        "survival",
        gettext_noop("Survival"),
        gettext_noop("Of the seat's finished games, those it was alive at the end of."),
        _survival,
    ),
    Metric(
        "votes_after_posts",
        gettext_noop("Votes moved after their posts"),
        gettext_noop(
            "Votes by which another player moved onto a player the seat was voting, the seat's "
            "post (made while voting that player) being the latest by anyone then on that wagon, "
            "per post the seat made while voting a player: a rate per post, not a share."
        ),
        _votes_after_posts,
        per_post=True,
    ),
    Metric(
        "town_l1_on_town",
        gettext_noop("Town voting town to L-1"),
        gettext_noop(
            "Town seats only, on majority-hammer days: of the votes the seat moved onto a wagon "
            "that left it one vote short of elimination (L-1), those on a town player."
        ),
        _town_to_l_minus_1_on_town,
        sides=frozenset({"town"}),
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
    or cancelled game gives nothing: a running game's sides are hidden). Four queries
    whatever the number of games (the seats, the days, every vote and every seat's
    game-thread post of those days): a person's page reads all their games at once. Seats
    are named by their seat number."""
    finished = Game.objects.filter(pk__in=games, status=GameStatus.FINISHED).values("pk")
    slots = list(
        Slot.objects.filter(game_id__in=finished)
        .order_by("game_id", "seat")
        .values_list("pk", "game_id", "seat", "alignment", "alive", "death_cause", "died_in_phase")
    )
    seat_of = {pk: seat for pk, _, seat, *_ in slots}
    # game -> (phase id, number, a majority-hammer day with no table's ballot)
    days_of: dict[int, list[tuple[int, int, bool]]] = defaultdict(list)
    for pk, game_id, number, rule, table in (
        Phase.objects.filter(game_id__in=finished, kind=PhaseKind.DAY)
        .annotate(table=ExpressionWrapper(Q(day_state__isnull=False), BooleanField()))
        .order_by("game_id", "number")
        .values_list("pk", "game_id", "number", "game__vote_rule", "table")
    ):
        days_of[game_id].append((pk, number, rule == VoteRule.MAJORITY_HAMMER and not table))
    logs: dict[int, list[tuple[int, int, int | None, str]]] = defaultdict(list)
    # phase -> ((time, 0 a vote | 1 a post, id), event): a vote made by a post at its post's
    # time, just before it.
    timed: dict[int, list[tuple[tuple[Any, int, int], Event]]] = defaultdict(list)
    for row_id, phase_id, voter, target, kind, at, post_id, post_at in (
        # The main vote only: a classic revote is the same day's second ballot.
        Vote.objects.filter(phase__game_id__in=finished, phase__kind=PhaseKind.DAY, revote=False)
        .order_by("id")
        .values_list(
            "id",
            "phase_id",
            "voter_id",
            "target_id",
            "kind",
            "created_at",
            "post_id",
            "post__created_at",
        )
    ):
        voter_seat = seat_of[voter]
        target_seat = seat_of[target] if target is not None else None
        logs[phase_id].append((row_id, voter_seat, target_seat, kind))
        key = (post_at, post_id, 0) if post_at is not None else (at, 0, 0)
        event: Event = (
            (VOTE, voter_seat, target_seat) if kind == VoteKind.VOTE else (UNVOTE, voter_seat, None)
        )
        timed[phase_id].append((key, event))
    for post_id, phase_id, author, at in Post.objects.filter(
        game_id__in=finished,
        thread=Thread.PUBLIC,
        phase__kind=PhaseKind.DAY,
        slot__isnull=False,
        is_host=False,
        is_auto=False,
    ).values_list("pk", "phase_id", "slot_id", "created_at"):
        timed[phase_id].append(((at, post_id, 1), (POST, seat_of[author], None)))
    sides: dict[int, dict[int, str]] = defaultdict(dict)
    eliminated: dict[tuple[int, int], int] = {}  # (game, day's number) -> seat
    deaths: dict[int, list[int]] = defaultdict(list)  # game -> the phases its seats died in
    for _, game_id, seat, alignment, _, cause, died_in in slots:
        sides[game_id][seat] = alignment
        if cause == DeathCause.DAY and died_in is not None:
            eliminated.setdefault((game_id, died_in), seat)
        if died_in is not None:
            deaths[game_id].append(died_in)

    def threshold(game_id: int, number: int) -> int:
        """The majority of those alive when the day began (a death during the day, a shot
        or a modkill, is not placed among its votes: the record has no time for it)."""
        seats = len(sides[game_id])
        return majority_needed(seats - sum(1 for d in deaths[game_id] if d < number))

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
                timeline=[event for _, event in sorted(timed[phase_id], key=lambda e: e[0])],
                threshold=threshold(game_id, number) if hammer else None,
            )
            for phase_id, number, hammer in game_days
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
