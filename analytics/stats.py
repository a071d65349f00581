"""Statistics from real games: what the finished games of a setup, and of a person or an
agent, say. Plain functions over the records (no request): the pages, the panels and the
API (``analytics.stats_views``) draw the same figures.

Only FINISHED games count (a cancelled game was never played; a running one's roles and
teams are hidden information: nothing of it may be derivable here). Every win rate comes
with its 95% Wilson interval, computed by the one function the balance simulator uses
(``games.simulator.wilson``), so the real figures and the simulator's prediction beside
them are the same kind of number.

Who won, in the site's own terms (``games.outcomes``):

- a side (a faction: town, mafia, a third party's alignment) wins a game when it is the
  game's ``winner`` or one of its seats is a co-winner (the simulator counts the same way);
- a seat wins with its faction (town, mafia), or as a third party when it is a co-winner or
  of the winning alignment and alive at the end (``games.outcomes.slot_won``);
- a person is credited, as the ratings credit them, for every seat they held for some of
  the game's phases (``games.outcomes.holders_of``: a replacement in phase k gives the
  newcomer phase k onwards): the one replaced and the replacement both count the game with
  the seat's result, and someone replaced before the first phase (no share) does not count
  it. A modkilled seat's final holder lost, whatever their team did; someone who held two
  seats of one game counts the one they held longest. Unlike the ratings, unrated games
  count too (the ratings' own figures are on the player's page already).

A person's behaviour metrics (``analytics.metrics``, defined there once) are added up
per rule set and side over the same finished games, each over the days they held the
seat (the seat's survival, like its result, counts for everyone who held it).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, F, Max, Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, npgettext

from games import display
from games.errors import ErrorCode, NotFound
from games.models import (
    Agent,
    DeathCause,
    Game,
    GameStatus,
    Replacement,
    Ruleset,
    SimulationRun,
    Slot,
)
from games.outcomes import FACTIONS
from games.setups import SETUPS
from games.shares import Share
from games.simulator import wilson

from .metrics import METRICS, Metric, Ratio, combine, held, read_seat_days, seat_metrics

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

OTHER = "other"  # a person's third-party games, together (their alignments differ)
PERSON_SIDES = (*FACTIONS, OTHER)
# Lazy: said in the reader's language where they are shown (str() them before JSON).
SIDE_LABELS: dict[str, Any] = {
    "town": gettext_lazy("Town"),
    "mafia": gettext_lazy("Mafia"),
    OTHER: gettext_lazy("Third party"),
}
RECENT_GAMES = 20  # a person's latest finished games listed
PANEL_OPPONENTS = 5  # head-to-head rows on the player's page (the full page lists all)


@dataclass(frozen=True)
class WinRate(Share):
    """``wins`` (``count``) of ``games`` (``of``) with the 95% Wilson interval [low, high]."""

    low: float
    high: float

    @classmethod
    def counted(cls, wins: int, games: int) -> WinRate:
        # (A game that ends between two reads of a page could count as a win before it
        # counts as a game: never more wins than games.)
        wins = min(wins, games)
        return cls(wins, games, *wilson(wins, games))

    @property
    def wins(self) -> int:
        return self.count

    @property
    def games(self) -> int:
        return self.of

    @property
    def rate(self) -> float:
        """wins / games (0 without a game: the API's figure is always a number)."""
        return super().rate or 0.0

    @property
    def interval(self) -> str:
        """The interval as the pages write it: "38%", an en dash, "52%" (as the simulator)."""
        return f"{self.low:.0%}–{self.high:.0%}"


# -- a setup -------------------------------------------------------------------------------
@dataclass(frozen=True)
class SideRow:
    """A faction's wins in a setup's finished games, beside the simulator's prediction."""

    side: str  # the alignment (``Game.winner``'s words): "town", "mafia", "serial_killer"
    label: StrOrPromise
    real: WinRate
    predicted: WinRate | None  # the latest finished simulation's, None without one


@dataclass(frozen=True)
class RoleRow:
    role: str
    alignment: str
    title: str
    rate: WinRate  # of the seats dealt the role (a seat is a game of the role)


@dataclass(frozen=True)
class Prediction:
    """The simulation the ``predicted`` figures come from."""

    run_id: int
    games: int
    at: datetime


@dataclass
class RulesetStats:
    """A setup's finished games played under one rule set."""

    ruleset: str
    label: StrOrPromise
    games: int
    sides: list[SideRow]
    roles: list[RoleRow]


@dataclass
class SetupStats:
    slug: str
    name: str
    ruleset: str  # the setup's own (the one the simulator plays)
    games: int  # finished games of the setup, every rule set
    rulesets: list[RulesetStats]
    prediction: Prediction | None


def setup_or_404(slug: str) -> str:
    if slug not in SETUPS:
        raise NotFound(
            _("There is no setup called %(slug)s.") % {"slug": repr(slug)},
            ErrorCode.UNKNOWN_SETUP,
            "slug",
        )
    return slug


def _side_order(side: str) -> tuple[int, str]:
    """Town, mafia, then the others by name."""
    return (FACTIONS.index(side), "") if side in FACTIONS else (len(FACTIONS), side)


def latest_prediction(slug: str) -> tuple[Prediction, dict[str, int]] | None:
    """The latest done simulation of a ready-made setup, and its wins per faction."""
    run = (
        SimulationRun.objects.filter(
            setup=slug, saved_setup__isnull=True, status="done", done__gt=0
        )
        .order_by("-created_at", "-id")
        .only("pk", "done", "wins", "created_at")
        .first()
    )
    if run is None:
        return None
    wins = {str(k): int(v) for k, v in (run.wins or {}).items()}
    return Prediction(run.pk, run.done, run.created_at), wins


def setup_stats(slug: str) -> SetupStats:
    """Wins by side and by role in a ready-made setup's finished games, per rule set (the
    host may have changed it), and the simulator's latest prediction beside the setup's
    own rule set. A handful of queries, whatever the number of games: the counting is the
    database's."""
    setup = SETUPS[setup_or_404(slug)]
    games = Game.objects.filter(setup=slug, status=GameStatus.FINISHED)
    per_ruleset = {
        row["ruleset"]: row["n"] for row in games.values("ruleset").annotate(n=Count("id"))
    }
    # Wins by faction: the game's winner, plus the factions of its co-winners (the few games
    # that have them are read whole).
    side_wins: dict[tuple[str, str], int] = defaultdict(int)
    for row in games.values("ruleset", "winner").annotate(n=Count("id")):
        side_wins[row["ruleset"], row["winner"]] += row["n"]
    co_games = list(games.exclude(co_winners=[]).values_list("ruleset", "winner", "co_winners"))
    co_ids = {int(i) for _, _, ids in co_games for i in ids}
    co_slots = {
        s.pk: s
        for s in Slot.objects.filter(pk__in=co_ids).only(
            "pk", "game_id", "role", "alignment", "alive"
        )
    }
    for ruleset, winner, ids in co_games:
        for alignment in {co_slots[i].alignment for i in ids if i in co_slots} - {winner}:
            side_wins[ruleset, alignment] += 1
    # Wins by role: every seat dealt it is a game of the role; it won as ``slot_won`` says,
    # counted in the database (the co-winners it cannot see are added below).
    won = Q(alignment=F("game__winner")) & (Q(alignment__in=FACTIONS) | Q(alive=True))
    seats = Slot.objects.filter(game__setup=slug, game__status=GameStatus.FINISHED)
    role_rows = list(
        seats.values("game__ruleset", "role", "alignment").annotate(
            n=Count("id"), wins=Count("id", filter=won)
        )
    )
    extra: dict[tuple[str, str, str], int] = defaultdict(int)
    co_winner_games = {i: (ruleset, winner) for ruleset, winner, ids in co_games for i in ids}
    for pk, slot in co_slots.items():
        ruleset, winner = co_winner_games[pk]
        counted = slot.alignment == winner and (slot.alignment in FACTIONS or slot.alive)
        if not counted:
            extra[ruleset, slot.role, slot.alignment] += 1
    prediction = latest_prediction(slug)
    out = []
    for ruleset in sorted(per_ruleset, key=lambda r: (r != setup.ruleset, r)):
        n = per_ruleset[ruleset]
        predicted = prediction[1] if prediction and ruleset == setup.ruleset else {}
        factions = {r["alignment"] for r in role_rows if r["game__ruleset"] == ruleset}
        factions |= {side for (rs, side), wins in side_wins.items() if rs == ruleset and wins}
        factions |= set(predicted)
        factions.discard("")
        sides = [
            SideRow(
                side,
                display.alignment_title(ruleset, side),
                WinRate.counted(side_wins.get((ruleset, side), 0), n),
                WinRate.counted(predicted.get(side, 0), prediction[0].games)
                if prediction and predicted
                else None,
            )
            for side in sorted(factions, key=_side_order)
        ]
        roles = [
            RoleRow(
                r["role"],
                r["alignment"],
                display.full_title(ruleset, r["role"], (), r["alignment"]),
                WinRate.counted(
                    r["wins"] + extra.get((ruleset, r["role"], r["alignment"]), 0), r["n"]
                ),
            )
            for r in role_rows
            if r["game__ruleset"] == ruleset and r["role"]
        ]
        roles.sort(key=lambda r: (_side_order(r.alignment), r.title))
        out.append(RulesetStats(ruleset, Ruleset(ruleset).label, n, sides, roles))
    return SetupStats(
        slug=slug,
        name=setup.name,
        ruleset=setup.ruleset,
        games=sum(per_ruleset.values()),
        rulesets=out,
        prediction=prediction[0] if prediction else None,
    )


# -- a person or an agent ----------------------------------------------------------------------
class Entry(NamedTuple):
    """One person's part in one finished game: the seat they held (longest, if two). (A
    tuple: a person's page makes one per seat of each of their games.)"""

    game_id: int
    slot_id: int
    user_id: int
    role: str
    alignment: str
    won: bool
    share: float

    @property
    def side(self) -> str:
        return self.alignment if self.alignment in FACTIONS else OTHER

    def same_team(self, other: Entry) -> bool:
        """Town and mafia play as teams; a third party with nobody but its own seat."""
        if self.slot_id == other.slot_id:
            return True
        return self.alignment == other.alignment and self.alignment in FACTIONS


@dataclass(frozen=True)
class PlayedGame:
    game_id: int
    title: str
    ruleset: str
    setup: str
    finished_at: datetime | None
    role: str
    alignment: str
    won: bool
    share: float

    @property
    def ruleset_label(self) -> StrOrPromise:
        return Ruleset(self.ruleset).label

    @property
    def role_title(self) -> str:
        return display.full_title(self.ruleset, self.role, (), self.alignment)


@dataclass(frozen=True)
class RoleTally:
    ruleset: str
    role: str
    alignment: str
    title: str
    rate: WinRate

    @property
    def ruleset_label(self) -> StrOrPromise:
        return Ruleset(self.ruleset).label


@dataclass(frozen=True)
class SideTally:
    side: str  # town, mafia or "other" (every third party)
    label: StrOrPromise
    rate: WinRate


@dataclass(frozen=True)
class HeadToHead:
    """The games played with one other person: on one team, and on opposing ones; the
    wins are the page's subject's."""

    name: str
    agent: bool
    together: WinRate
    against: WinRate

    @property
    def games(self) -> int:
        return self.together.games + self.against.games


@dataclass(frozen=True)
class MetricFigure(Share):
    """One behaviour metric (``analytics.metrics``) added up: ``n`` (``count``) of ``d``
    (``of``)."""

    key: str
    label: Any  # lazy (``added``)
    definition: Any
    per_post: bool = False  # a rate per post ("n votes after d posts"), not a share

    @property
    def n(self) -> int:
        return self.count

    @property
    def d(self) -> int:
        return self.of

    @property
    def rate(self) -> float:
        """n / d (0 when there is nothing to count: the API's figure is always a number)."""
        return super().rate or 0.0

    @property
    def text(self) -> str:
        """As the pages write it: "3 of 8 (38%)", or "3 votes after 8 posts (0.38 a post)"."""
        if self.per_post:
            votes = ngettext("%(n)s vote", "%(n)s votes", self.n) % {"n": self.n}
            posts = npgettext("after …", "%(d)s post", "%(d)s posts", self.d) % {"d": self.d}
            return _("%(votes)s after %(posts)s (%(rate)s a post)") % {
                "votes": votes,
                "posts": posts,
                "rate": f"{self.rate:.2f}",
            }
        return self.words()

    @classmethod
    def added(cls, metric: Metric, ratio: Ratio) -> MetricFigure:
        n, d = ratio
        # Lazy: a cached figure is said in each reader's language (``Metric.label`` is the
        # English the catalogue translates).
        return cls(
            n,
            d,
            metric.key,
            gettext_lazy(metric.label),  # i18n: marked at its source
            gettext_lazy(metric.definition),  # i18n: marked at its source
            metric.per_post,
        )


@dataclass(frozen=True)
class BehaviourRow:
    """A person's behaviour metrics over their finished games of one rule set and side."""

    ruleset: str
    side: str  # town, mafia or "other" (every third party)
    label: StrOrPromise
    games: int
    figures: list[MetricFigure]

    @property
    def ruleset_label(self) -> StrOrPromise:
        return Ruleset(self.ruleset).label


@dataclass
class PlayerStats:
    user_id: int
    name: str
    agent: bool
    overall: WinRate
    sides: list[SideTally]
    roles: list[RoleTally]
    recent: list[PlayedGame]
    opponents: list[HeadToHead] = field(default_factory=list)
    behaviour: list[BehaviourRow] = field(default_factory=list)


def user_or_404(name: str) -> Any:
    user = get_user_model().objects.filter(username=name).first()
    if user is None:
        raise NotFound(
            _("There is no player called %(name)s.") % {"name": repr(name)},
            ErrorCode.NO_USER,
            "name",
        )
    return user


def seat_won(slot_id: int, alignment: str, alive: bool, winner: str, co: Set[int]) -> bool:
    """``games.outcomes.slot_won`` on a seat's fields: a person's page reads thousands of
    seats, as rows, not as model instances (``tests/site/test_stats.py`` holds the two to
    one answer)."""
    if slot_id in co:
        return True
    if alignment in FACTIONS:
        return alignment == winner
    return alignment == winner and alive


def seat_spans(
    final: int, replacements: list[tuple[int, int, int | None]], phases: int
) -> list[tuple[int, int, int]]:
    """Who held a seat when: its ``final`` holder and its replacements in order, (person
    replaced, newcomer, phase) -> (person, first phase, last phase + 1) of each holding, in
    order (first == end: replaced before it began). A replacement in phase k gives the
    newcomer phase k onwards, as ``games.outcomes.holders_of`` counts it."""
    users = [replacements[0][0] if replacements else final]
    starts = [1]
    for _old, new, phase in replacements:
        users.append(new)
        starts.append(max(1, min(phase or 1, phases + 1)))
    starts.append(phases + 1)
    return [(user_id, starts[i], starts[i + 1]) for i, user_id in enumerate(users)]


def seat_holders(
    final: int, replacements: list[tuple[int, int, int | None]], phases: int
) -> list[tuple[int, float]]:
    """``games.outcomes.holders_of`` on a seat's rows (``seat_spans``' arguments) -> (person,
    share of the game's phases) of each who held it, the final holder last (the same test
    holds the two to one answer)."""
    spans = seat_spans(final, replacements, phases)
    shares: dict[int, float] = {}
    for user_id, first, end in spans:
        shares[user_id] = shares.get(user_id, 0.0) + max(0, end - first) / max(phases, 1)
    last = spans[-1][0]
    return [*((u, share) for u, share in shares.items() if u != last), (last, shares[last])]


# A seat as ``_entries`` reads it: (id, game id, final holder, role, alignment, alive, cause).
SEAT_FIELDS = ("pk", "game_id", "user_id", "role", "alignment", "alive", "death_cause")
Seat = tuple[int, int, int, str, str, bool, str]


def _entries(
    seats: Iterable[Seat], games: Mapping[int, Any], holders: Mapping[int, list[tuple[int, float]]]
) -> list[Entry]:
    """Every person's part in these finished games' seats (one pass): as
    ``ratings.compute.seats_of`` credits them, once per person and game. ``holders``: those
    of each seat someone was replaced in (``games.outcomes.holders_of``); any other seat's
    final holder held it all."""
    co = {game_id: frozenset(game["co_winners"]) for game_id, game in games.items()}
    best: dict[tuple[int, int], Entry] = {}
    for slot_id, game_id, user_id, role, alignment, alive, cause in seats:
        game = games.get(game_id)
        if game is None:  # it ended between the reads: the next page view counts it
            continue
        won = seat_won(slot_id, alignment, alive, game["winner"], co[game_id])
        modkilled = cause == DeathCause.MODKILL
        held = holders.get(slot_id) or [(user_id, 1.0)]
        for i, (holder, share) in enumerate(held):
            if share <= 0:
                continue
            final = i == len(held) - 1
            entry = Entry(
                game_id, slot_id, holder, role, alignment, won and not (modkilled and final), share
            )
            kept = best.get((game_id, holder))
            if kept is None or entry.share > kept.share:
                best[game_id, holder] = entry
    return list(best.values())


# Each finished game's behaviour figures, cached (a finished game's record never changes):
# keyed by the metrics' definitions (a changed definition is a new key) and by the game's
# id and end time (a test database that starts its ids again ends its games at other times).
METRICS_DIGEST = hashlib.sha256(
    repr([(m.key, m.definition, m.sides) for m in METRICS]).encode()
).hexdigest()[:12]


def _game_key(game: Mapping[str, Any]) -> str | None:
    at = game.get("finished_at")
    return (
        None
        if at is None
        else f"analytics:behaviour:{METRICS_DIGEST}:{game['pk']}:{at.timestamp()}"
    )


def _game_metrics(
    game_ids: Iterable[int],
    games: Mapping[int, Any],
    game_of: Mapping[int, int],
    changes: Mapping[int, list[tuple[int, int, int | None]]],
    final_holder: Mapping[int, int],
) -> dict[int, dict[tuple[int, int], dict[str, Ratio]]]:
    """Each game's figures per (seat, person who held it), over the days they held it (a
    replaced seat's other days are its other holders'): from the cache, the games it
    lacks read (``read_seat_days``: four queries) and cached."""
    keys = {g: key for g in game_ids if (key := _game_key(games[g])) is not None}
    found = cache.get_many(list(keys.values())) if keys else {}
    out = {g: found[key] for g, key in keys.items() if key in found}
    missing = [g for g in game_ids if g not in out]
    if not missing:
        return out
    made: dict[int, dict[tuple[int, int], dict[str, Ratio]]] = {g: {} for g in missing}
    for slot_id, days in read_seat_days(missing).items():
        game_id = game_of.get(slot_id)
        if game_id not in made:
            continue
        if slot_id not in changes:
            made[game_id][slot_id, final_holder[slot_id]] = seat_metrics(days)
            continue
        phases = max(games[game_id]["phase_number"], 1)
        spans = seat_spans(final_holder[slot_id], changes[slot_id], phases)
        for user_id in {u for u, _first, _end in spans}:
            mine = [(first, end) for u, first, end in spans if u == user_id]
            made[game_id][slot_id, user_id] = seat_metrics(held(days, mine))
    cache.set_many({keys[g]: made[g] for g in missing if g in keys and made[g]}, timeout=None)
    return out | made


def _held_metrics(
    entries: Iterable[Entry],
    games: Mapping[int, Any],
    game_of: Mapping[int, int],
    changes: Mapping[int, list[tuple[int, int, int | None]]],
    final_holder: Mapping[int, int],
) -> Iterable[tuple[Entry, dict[str, Ratio]]]:
    """The behaviour metrics of each entry's seat in its finished game, counting only the
    days its person held it (``_game_metrics``)."""
    entries = list(entries)
    by_game = _game_metrics(
        sorted({e.game_id for e in entries}), games, game_of, changes, final_holder
    )
    for entry in entries:
        figures = by_game.get(entry.game_id, {}).get((entry.slot_id, entry.user_id))
        if figures is None:  # it ended between the reads: the next page view counts it
            continue
        yield entry, figures


def _behaviour(
    mine: Mapping[int, Entry],
    games: Mapping[int, Any],
    game_of: Mapping[int, int],
    changes: Mapping[int, list[tuple[int, int, int | None]]],
    final_holder: Mapping[int, int],
) -> list[BehaviourRow]:
    """A person's behaviour metrics over their finished games (``mine``: their seat in
    each), added up per rule set and side."""
    per: dict[tuple[str, str], list[dict[str, Ratio]]] = defaultdict(list)
    for entry, ratios in _held_metrics(mine.values(), games, game_of, changes, final_holder):
        per[games[entry.game_id]["ruleset"], entry.side].append(ratios)
    rows = []
    for ruleset, side in sorted(per, key=lambda k: (k[0], PERSON_SIDES.index(k[1]))):
        total = combine(per[ruleset, side])
        figures = [MetricFigure.added(m, total[m.key]) for m in METRICS]
        rows.append(
            BehaviourRow(ruleset, side, SIDE_LABELS[side], len(per[ruleset, side]), figures)
        )
    return rows


GAME_FIELDS = (
    "pk",
    "title",
    "ruleset",
    "setup",
    "winner",
    "co_winners",
    "phase_number",
    "finished_at",
)


def _seat_records(
    played: QuerySet[Any], games: Mapping[int, Any]
) -> tuple[
    dict[int, int], dict[int, list[tuple[int, int, int | None]]], dict[int, int], list[Entry]
]:
    """Of the seats of these finished games: each one's game, their replacements (slot ->
    (person replaced, newcomer, phase), in order), each seat's final holder and every
    person's part in the games (``_entries``). Two queries."""
    seats: list[Seat] = list(
        Slot.objects.filter(game_id__in=played)
        .values_list(*SEAT_FIELDS)
        .order_by("game_id", "seat")
    )
    final_holder = {pk: user_id for pk, _, user_id, *_ in seats}
    game_of = {pk: game_id for pk, game_id, *_ in seats}
    changes: dict[int, list[tuple[int, int, int | None]]] = defaultdict(list)
    for slot_id, old, new, phase in (
        Replacement.objects.filter(slot__game_id__in=played)
        .order_by("at", "id")
        .values_list("slot_id", "old_user_id", "new_user_id", "phase_number")
    ):
        changes[slot_id].append((old, new, phase))
    holders = {
        slot_id: seat_holders(
            final_holder[slot_id], made, max(games[game_of[slot_id]]["phase_number"], 1)
        )
        for slot_id, made in changes.items()
        if game_of.get(slot_id) in games
    }
    return game_of, changes, final_holder, _entries(seats, games, holders)


@dataclass(frozen=True)
class PersonBehaviour:
    """One person's behaviour metrics over their finished games of a rule set on a side."""

    user_id: int
    games: int
    totals: dict[str, Ratio]


def ruleset_behaviour(ruleset: str) -> dict[str, list[PersonBehaviour]]:
    """Everyone's behaviour metrics over the finished games of a rule set, per side (town,
    mafia, "other"), credited as a person's page credits them (the seat held longest; a
    replaced seat's days its holders'). One query when the cache has the answer for the
    rule set's finished games as they are (their number, newest id and latest end: a game
    that ends is a new key); else four more, and four for the games the cache lacks."""
    played = Game.objects.filter(ruleset=ruleset, status=GameStatus.FINISHED)
    stamp = played.aggregate(n=Count("id"), top=Max("id"), last=Max("finished_at"))
    last = stamp["last"].timestamp() if stamp["last"] is not None else 0
    key = f"analytics:board:{METRICS_DIGEST}:{ruleset}:{stamp['n']}:{stamp['top']}:{last}"
    kept = cache.get(key)
    if kept is not None:
        return cast(dict[str, list[PersonBehaviour]], kept)
    ids = played.values("pk")
    games = {g["pk"]: g for g in Game.objects.filter(pk__in=ids).values(*GAME_FIELDS)}
    game_of, changes, final_holder, entries = _seat_records(ids, games)
    per: dict[tuple[int, str], list[dict[str, Ratio]]] = defaultdict(list)
    for entry, ratios in _held_metrics(entries, games, game_of, changes, final_holder):
        per[entry.user_id, entry.side].append(ratios)
    out: dict[str, list[PersonBehaviour]] = {side: [] for side in PERSON_SIDES}
    for (user_id, side), games_ratios in per.items():
        out[side].append(PersonBehaviour(user_id, len(games_ratios), combine(games_ratios)))
    cache.set(key, out, timeout=24 * 3600)
    return out


@dataclass(frozen=True)
class PersonFigures:
    """What a person's finished games say, but the names of those they met (read fresh at
    each view: a name may change, a finished game does not): cached by ``person_figures``."""

    overall: WinRate
    sides: list[SideTally]
    roles: list[RoleTally]
    recent: list[PlayedGame]
    met: dict[int, tuple[int, int, int, int]]  # person -> together wins, games; against
    behaviour: list[BehaviourRow]


# The shape of what ``person_figures`` caches: a new number when ``PersonFigures`` (or what
# it holds) changes, so a deploy never reads the older shape.
PERSON_FIGURES_VERSION = 1


def person_figures(user_id: int) -> PersonFigures:
    """A person's or agent's finished games' figures (``player_stats``): cached, keyed by
    their finished games as they are (their number, newest id and latest end: a game of
    theirs that ends is a new key; the metrics' definitions too), so one query when the
    cache has them; else a few queries, then one pass over the seats of their games (and
    one over the votes of their games' days, themselves cached per game)."""
    # Their finished games, as subqueries (a long list of ids costs more to send).
    finished = Game.objects.filter(status=GameStatus.FINISHED)
    seated = Slot.objects.filter(user_id=user_id, game__in=finished).values("game_id")
    replaced = Replacement.objects.filter(
        Q(old_user_id=user_id) | Q(new_user_id=user_id), slot__game__in=finished
    ).values("slot__game_id")
    theirs = seated.union(replaced)  # (one semi-join: an OR of two would scan)
    stamp = Game.objects.filter(pk__in=theirs).aggregate(
        n=Count("id"), top=Max("id"), last=Max("finished_at")
    )
    last = stamp["last"].timestamp() if stamp["last"] is not None else 0
    key = (
        f"analytics:person:{PERSON_FIGURES_VERSION}:{METRICS_DIGEST}:{user_id}:"
        f"{stamp['n']}:{stamp['top']}:{last}"
    )
    kept = cache.get(key)
    if kept is not None:
        return cast(PersonFigures, kept)
    games = {g["pk"]: g for g in Game.objects.filter(pk__in=theirs).values(*GAME_FIELDS)}
    game_of, changes, final_holder, entries = _seat_records(theirs, games)
    mine = {e.game_id: e for e in entries if e.user_id == user_id}
    sides: dict[str, list[int]] = {side: [0, 0] for side in PERSON_SIDES}
    roles: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for entry in mine.values():
        ruleset = games[entry.game_id]["ruleset"]
        for tally in (sides[entry.side], roles[ruleset, entry.role, entry.alignment]):
            tally[0] += int(entry.won)
            tally[1] += 1
    # Head to head: everyone else who held a seat in one of their games, for some of it.
    met: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # together w/n, against w/n
    for other in entries:
        me = mine.get(other.game_id)
        if me is None or other.user_id == user_id:
            continue
        tally = met[other.user_id]
        at = 0 if me.same_team(other) else 2
        tally[at] += int(me.won)
        tally[at + 1] += 1
    newest = sorted(
        mine.values(),
        key=lambda e: (
            games[e.game_id]["finished_at"] is not None,
            games[e.game_id]["finished_at"],
            e.game_id,
        ),
        reverse=True,
    )[:RECENT_GAMES]
    figures = PersonFigures(
        overall=WinRate.counted(sum(e.won for e in mine.values()), len(mine)),
        sides=[
            SideTally(side, SIDE_LABELS[side], WinRate.counted(*sides[side]))
            for side in PERSON_SIDES
        ],
        roles=sorted(
            (
                RoleTally(
                    ruleset,
                    role,
                    alignment,
                    display.full_title(ruleset, role, (), alignment),
                    WinRate.counted(*t),
                )
                for (ruleset, role, alignment), t in roles.items()
            ),
            key=lambda r: (r.ruleset, -r.rate.games, r.title),
        ),
        recent=[
            PlayedGame(
                game_id=e.game_id,
                title=games[e.game_id]["title"],
                ruleset=games[e.game_id]["ruleset"],
                setup=games[e.game_id]["setup"],
                finished_at=games[e.game_id]["finished_at"],
                role=e.role,
                alignment=e.alignment,
                won=e.won,
                share=e.share,
            )
            for e in newest
        ],
        met={u: (t[0], t[1], t[2], t[3]) for u, t in met.items()},
        behaviour=_behaviour(mine, games, game_of, changes, final_holder),
    )
    cache.set(key, figures, timeout=24 * 3600)
    return figures


def player_stats(name: str, *, opponents: int | None = None) -> PlayerStats:
    """A person's or agent's finished games: wins by side and by role (per rule set),
    their latest games, their record with and against everyone they played with
    (``opponents``: the most-met that many; None: all) and their behaviour metrics per rule
    set and side (``person_figures``; the names of those they met read here)."""
    user = user_or_404(name)
    figures = person_figures(user.pk)
    names = dict(
        get_user_model().objects.filter(pk__in=list(figures.met)).values_list("pk", "username")
    )
    agents = set(
        Agent.objects.filter(user_id__in=[*names, user.pk]).values_list("user_id", flat=True)
    )
    heads = sorted(
        (
            HeadToHead(
                names[user_id],
                user_id in agents,
                WinRate.counted(t[0], t[1]),
                WinRate.counted(t[2], t[3]),
            )
            for user_id, t in figures.met.items()
            if user_id in names
        ),
        key=lambda h: (-h.games, h.name.lower()),
    )
    return PlayerStats(
        user_id=user.pk,
        name=user.get_username(),
        agent=user.pk in agents,
        overall=figures.overall,
        sides=figures.sides,
        roles=figures.roles,
        recent=figures.recent,
        opponents=heads if opponents is None else heads[:opponents],
        behaviour=figures.behaviour,
    )
