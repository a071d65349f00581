"""Belief probes (issue 34, part 5): a living player's daily probabilities that each other
living player is mafia, and the Brier score they earn once the game is over.

Submitting (``submit_probes``): by day, in a running game, the seat's current holder while
alive gives a probability in [0, 1] for any of the other living players (some or all);
submitting again the same day replaces the seat's probes of that day, whoever sent them.
One transaction under the game's row locks (``games.services.common.game_tx``), and no
event: nothing of a probe, not even that one was sent, reaches a page, a socket, a mail or
a webhook while the game runs.

Reading: while the game runs a player reads the probes they sent themselves, nobody else's
(not the host's nor the team's business); once it is over everyone reads every probe, in
the review, the API and the open data (``export_part``, through ``games.hooks``).

Scoring (``brier``, the one definition): a probe of target T with probability p scores
(p - o)², o = 1 if T is mafia-aligned at the end (``Slot.is_mafia``), else 0. A seat's
score is the mean over the seat's probes; a person's (or agent's) the mean over every
probe they sent in finished games, each probe weighing the same.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, TypedDict, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.errors import ErrorCode, InvalidInput
from games.models import Game, GameStatus, Phase, PhaseKind, Slot
from games.naming import seat_ref
from games.reads.seats import seat_history
from games.services.common import game_tx, require_open_phase, require_player, require_running
from games.shapes import Doc, SlotRef

from .models import Probe

# -- the refusals, said once (the form page shows the same message the service raises) -------
# (Lazy, typed as the text it becomes: said in the language of the moment they are raised
# or shown.)
NOT_A_NUMBER = cast(str, gettext_lazy("Each probability must be a number from 0 to 1."))
NONE_GIVEN = cast(str, gettext_lazy("Give at least one probability."))
NOT_ANOTHER_LIVING_PLAYER = cast(
    str, gettext_lazy("You can only give probabilities for the other living players.")
)


def checked_probabilities(given: Mapping[Any, Any]) -> dict[int, float]:
    """``given`` (target slot id -> probability) as kept, or an InvalidInput before the game
    is touched: every key a slot id, every value a finite number in [0, 1] (not a bool)."""
    if not isinstance(given, Mapping) or not given:
        raise InvalidInput(NONE_GIVEN, ErrorCode.PROBE, "probabilities")
    out: dict[int, float] = {}
    for key, value in given.items():
        if isinstance(key, bool) or not isinstance(key, int):
            raise InvalidInput(_("There is no such player in this game."), ErrorCode.NO_PLAYER)
        number = float(value) if isinstance(value, int | float | Decimal) else math.nan
        if isinstance(value, bool) or not math.isfinite(number) or not 0 <= number <= 1:
            raise InvalidInput(NOT_A_NUMBER, ErrorCode.PROBE, "probabilities")
        out[key] = number
    return out


def submit_probes(user: Any, game_id: int, given: Mapping[Any, Any]) -> list[Probe]:
    """Keep ``user``'s probes of today (target slot id -> probability), replacing any the
    seat sent earlier today; the seat's probes of today, by target seat."""
    probabilities = checked_probabilities(given)
    with game_tx(game_id) as tx:
        require_running(tx.game)
        slot = require_player(tx, user)
        phase = require_open_phase(tx, PhaseKind.DAY)
        targets = {s.pk: s for s in tx.slots if s.alive and s.pk != slot.pk}
        for target_id in probabilities:
            if tx.locked.slot(target_id) is None:
                raise InvalidInput(_("There is no such player in this game."), ErrorCode.NO_PLAYER)
            if target_id not in targets:
                raise InvalidInput(NOT_ANOTHER_LIVING_PLAYER, ErrorCode.PROBE_TARGET)
        Probe.objects.filter(slot=slot, phase=phase).delete()
        made = Probe.objects.bulk_create(
            Probe(
                game=tx.game,
                slot=slot,
                phase=phase,
                target=targets[target_id],
                probability=p,
                user=user,
                created_at=tx.now,
            )
            for target_id, p in sorted(probabilities.items(), key=lambda i: targets[i[0]].seat)
        )
        # No ``emit``: game_tx writes and publishes nothing when no event was made.
        return made


def probe_refusal(game: Game, slot: Slot | None, phase: Phase | None) -> str:
    """Why ``slot``'s holder may not send probes now ("" if they may): what the service
    would answer, for the form page to say instead of offering the form."""
    if game.status != GameStatus.RUNNING:
        return _("Probes are sent while the game runs.")
    if slot is None:
        return _("Only the game's players send probes.")
    if not slot.alive:
        return _("You are dead: dead players take no further part.")
    if phase is None or phase.resolved or not phase.is_day:
        return _("Probes are sent during the day.")
    if phase.is_paused:
        return _("The game is paused.")
    return ""


# -- reading ---------------------------------------------------------------------------------
class ProbeEntry(TypedDict):
    """One probe: who gave which probability that whom is mafia, on which day."""

    phase: Annotated[int, Doc("The day's phase number.")]
    day: Annotated[str, Doc('The day ("Day 2").')]
    by: Annotated[SlotRef, Doc("The seat that sent it (named by who held it then).")]
    target: SlotRef
    probability: Annotated[float, Doc("From 0 to 1: how likely the target is mafia.")]
    at: Annotated[str, Doc("When it was sent.", time=True)]


class ProbeSeatScore(TypedDict):
    """A seat's Brier score over its probes (the game over)."""

    seat: SlotRef
    probes: int
    brier: Annotated[
        float | None, Doc("Mean of (p - o)² over the seat's probes; 0 is perfect. Null: none.")
    ]


class Probes(TypedDict):
    """The probes the caller may read: their own while the game runs; everyone's, with each
    seat's Brier score, once it is over."""

    game_over: bool
    probes: list[ProbeEntry]
    scores: Annotated[list[ProbeSeatScore], Doc("Each seat's score ([] until the game is over).")]


def brier(probes: Iterable[tuple[float, bool]]) -> float | None:
    """The Brier score of (probability, target was mafia) pairs: the mean of (p - o)²,
    o = 1 for mafia, else 0 (None for no probes). Lower is better; always saying 0.5
    scores 0.25."""
    squares = [(p - (1.0 if mafia else 0.0)) ** 2 for p, mafia in probes]
    return sum(squares) / len(squares) if squares else None


def readable(game: Game, user: Any) -> list[Probe]:
    """The probes ``user`` may read: every one once the game is over; before, the ones they
    sent themselves from the seat they hold now (nobody else's, the host's none)."""
    rows = Probe.objects.filter(game=game).select_related("phase", "slot__user", "target__user")
    if game.status == GameStatus.FINISHED:
        return list(rows)
    if game.status != GameStatus.RUNNING or not getattr(user, "is_authenticated", False):
        return []
    return list(rows.filter(user=user, slot__user=user))


def probes_data(game: Game, user: Any) -> Probes:
    rows = readable(game, user)
    over = game.status == GameStatus.FINISHED
    history = seat_history(game, game.slots.select_related("user")) if over else None
    Phase.read_labels([p.phase for p in rows])
    entries: list[ProbeEntry] = []
    for p in rows:
        p.slot.game = p.target.game = p.phase.game = game  # (names read the game's state)
        by = seat_ref(p.slot)
        if history is not None:
            by["name"] = history.holder(p.slot_id, at=p.created_at)
        entries.append(
            {
                "phase": p.phase.number,
                "day": p.phase.label,
                "by": by,
                "target": seat_ref(p.target),
                "probability": p.probability,
                "at": p.created_at.isoformat(),
            }
        )
    return {"game_over": over, "probes": entries, "scores": seat_scores(game) if over else []}


@dataclass(frozen=True)
class SeatRow:
    slot: Slot
    probes: int
    brier: float | None


def seat_rows(game: Game) -> list[SeatRow]:
    """Each seat of a finished game with its probes' count and Brier score ([] before)."""
    if game.status != GameStatus.FINISHED:
        return []
    slots = list(game.slots.select_related("user").order_by("seat"))
    mafia = {s.pk for s in slots if s.is_mafia}
    pairs: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for slot_id, target_id, p in Probe.objects.filter(game=game).values_list(
        "slot_id", "target_id", "probability"
    ):
        pairs[slot_id].append((p, target_id in mafia))
    for s in slots:
        s.game = game
    return [SeatRow(s, len(pairs[s.pk]), brier(pairs[s.pk])) for s in slots]


def seat_scores(game: Game) -> list[ProbeSeatScore]:
    return [
        {
            "seat": seat_ref(row.slot),
            "probes": row.probes,
            "brier": None if row.brier is None else round(row.brier, 4),
        }
        for row in seat_rows(game)
    ]


@dataclass(frozen=True)
class DayTable:
    """A day's probes as a table: a row per seat that sent some, a column per target."""

    label: str
    targets: list[Slot]
    rows: list[tuple[Slot, list[float | None]]]


def day_tables(game: Game) -> list[DayTable]:
    """The review's tables, one per day with probes ([] before the end)."""
    if game.status != GameStatus.FINISHED:
        return []
    by_day: dict[int, list[Probe]] = defaultdict(list)
    for p in readable(game, None):
        by_day[p.phase.number].append(p)
    Phase.read_labels([ps[0].phase for ps in by_day.values()])
    tables = []
    for number in sorted(by_day):
        probes = by_day[number]
        for p in probes:
            p.slot.game = p.target.game = game
        targets = sorted({p.target for p in probes}, key=lambda s: s.seat)
        senders = sorted({p.slot for p in probes}, key=lambda s: s.seat)
        given = {(p.slot_id, p.target_id): p.probability for p in probes}
        rows = [(s, [given.get((s.pk, t.pk)) for t in targets]) for s in senders]
        tables.append(DayTable(probes[0].phase.label, targets, rows))
    return tables


@dataclass(frozen=True)
class PersonProbes:
    """A person's or agent's probes over their finished games."""

    probes: int
    games: int
    brier: float | None


def person_probes(user_id: int) -> PersonProbes:
    """Every probe ``user_id`` sent in finished games, scored as one set (each probe weighs
    the same: ``brier`` over all of them)."""
    rows = Probe.objects.filter(user_id=user_id, game__status=GameStatus.FINISHED)
    pairs = [
        (p, side == "mafia") for p, side in rows.values_list("probability", "target__alignment")
    ]
    games = rows.values("game_id").distinct().count()
    return PersonProbes(len(pairs), games, brier(pairs))


# -- the open data (``games.hooks.register_export_part``) ----------------------------------
def export_part(game: Game) -> list[dict[str, Any]]:
    """Every probe of the finished game, by seat (the export names nobody else): ``phase``,
    ``seat``, ``target``, ``probability``, ``at`` ([] before the end)."""
    if game.status != GameStatus.FINISHED:
        return []
    rows = Probe.objects.filter(game=game).select_related("phase", "slot", "target")
    return [
        {
            "phase": p.phase.number,
            "seat": p.slot.seat,
            "target": p.target.seat,
            "probability": p.probability,
            "at": p.created_at.isoformat(),
        }
        for p in rows
    ]
