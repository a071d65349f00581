"""The one door between the site and the rules engine (``resolver``).

Nothing else in the site imports ``resolver`` (``tests/site/test_gateway.py`` holds every
module to it). Two kinds of thing pass through here:

* the rules' data, re-exported under the site's names: the rule sets (``Rules``,
  ``rules_named``, ``RULESET_NAMES``), a game's state (``GameState``, ``state_of``), the
  day scripts of the table rule sets (``DayScript``, ``DayState``, ...), the vote count
  (``VoteCount``, ``tally``), role cards, and ``InvalidScenario`` (the rules' refusal);
* the rules' verdicts on a game, in the site's terms: ``resolve_night``,
  ``resolve_day``, ``resolve_table_day``, ``use_day_action``, ``win_of`` and
  ``remove_player`` take the game's rows (``Game``, ``Slot``) and answer with slots.

Inside the resolver a slot is ``P<seat>`` for the whole game (``Slot.resolver_name``), so
a replacement keeps the slot's history. Each call here builds one ``Seats`` (the game's
slots by seat, and their current names) and translates the resolver's answer through it
once: the services get deaths, results and co-winners as slots, and the texts meant for
people (a revote's explanation, a win's reason) already in current names. What is stored
for later (a phase's report, a private result's payload) stays in resolver names, so a
past phase is rendered with whoever held each seat then (``naming.SeatHistory``).

The resolver's sentences go through Django's translation (``resolver.text``, installed
here once): a refusal is in the reader's language (the request's), while what a phase
writes for the whole thread (explanations, a win's reason, the host's notes) is resolved
inside the game's language (``in_game_language``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext as _

import resolver as _engine
from resolver import text as _engine_text
from resolver.days import DayRuleError, DayScript, DayState, Notice, attempt
from resolver.days import get_day_script as _get_day_script
from resolver.days.base import (
    LAST_WORDS,
    NO_ADDRESSEE,
    NOT_IN_STEP,
    OUT_OF_TURN,
    REFUSED,
    SELF_QUESTION,
    SPEECH_TOO_LONG,
)
from resolver.errors import InvalidScenario
from resolver.model import SKIP, DayActionOutcome, GameState, NightOutcome
from resolver.rulesets import NAMES as RULESET_NAMES
from resolver.rulesets import get_ruleset as _get_ruleset
from resolver.rulesets.base import FlagSpec
from resolver.rulesets.base import Ruleset as Rules
from resolver.rulesets.base import ability_title as ability_title
from resolver.votes import VoteCount, majority_needed, tally

from . import naming
from .i18n import in_game_language

if TYPE_CHECKING:
    from .models import Game, Slot

log = logging.getLogger(__name__)

# The resolver's sentences in the active language (a request's, or the game's).
_engine_text.set_translator(gettext, ngettext, pgettext)

__all__ = [
    "LAST_WORDS",
    "NOT_IN_STEP",
    "NO_ADDRESSEE",
    "OUT_OF_TURN",
    "REFUSED",
    "RULESET_NAMES",
    "SELF_QUESTION",
    "SKIP",
    "SPEECH_TOO_LONG",
    "DayEnd",
    "DayRuleError",
    "DayScript",
    "DayShot",
    "DayState",
    "Death",
    "FlagSpec",
    "GameState",
    "InvalidScenario",
    "NightEnd",
    "NightOrder",
    "Notice",
    "Rules",
    "Seats",
    "VoteCount",
    "Win",
    "attempt",
    "bare_day",
    "bare_day_action",
    "bare_night",
    "bare_verdict",
    "day_script",
    "majority_needed",
    "new_state",
    "night_order",
    "player_card",
    "remove_player",
    "resolve_day",
    "resolve_night",
    "resolve_table_day",
    "role_card",
    "rules_named",
    "state_of",
    "tally",
    "use_day_action",
    "win_of",
]


# -- the rules' data ---------------------------------------------------------------------
def rules_named(name: object) -> Rules:
    """The rule set called ``name`` (``InvalidScenario`` for an unknown one; ``ImportError``
    for one whose module is still being written)."""
    return _get_ruleset(name)


def day_script(ruleset: str) -> DayScript | None:
    """The table day's script of ``ruleset`` (None: its days are forum days)."""
    return _get_day_script(ruleset)


def state_of(game: Game) -> GameState:
    """The game's state in the resolver (the game must have been dealt)."""
    assert game.resolver_state is not None  # written when the game starts, read only after
    return GameState.from_dict(game.resolver_state)


def new_state(
    ruleset: str,
    players: list[dict[str, Any]],
    *,
    method: Any = None,
    flags: Any = None,
    seed: int = 0,
) -> GameState:
    """A new game's state before its first phase (``InvalidScenario`` if the setup is not
    legal). ``players``: the resolver's player entries (``name`` is ``P<seat>``)."""
    return _engine.new_game(ruleset, players, method=method, flags=flags, seed=seed)


def role_card(
    rules: str | Rules, role: str, modifiers: Iterable[str] = (), alignment: str | None = None
) -> dict[str, Any]:
    """The forum-style role PM of a role (before the deal, or a role not in play)."""
    return _engine.role_pm(rules, role, modifiers, alignment)


def player_card(state: GameState, slot: Slot) -> dict[str, Any]:
    """The role PM of ``slot``'s player in ``state`` (its shots left counted)."""
    return _engine.player_role_pm(state, slot.resolver_name)


# -- seats and slots ---------------------------------------------------------------------
class Seats:
    """A game's slots by their resolver names, read once per call: the translator."""

    def __init__(self, slots: Iterable[Slot]) -> None:
        self.by_seat: dict[int, Slot] = {slot.seat: slot for slot in slots}
        self.names: dict[int, str] = naming.seat_names(self.by_seat.values())

    def slot(self, name: str | None) -> Slot | None:
        """The slot called ``name`` ("P3"); None for "skip", nobody or an unknown seat."""
        seat = naming.seat_of(name) if name else None
        return self.by_seat.get(seat) if seat is not None else None

    def slots(self, names: Iterable[str]) -> list[Slot]:
        """The slots of ``names``, in their order (unknown names left out)."""
        return [slot for name in names if (slot := self.slot(name)) is not None]

    def text(self, value: Any) -> Any:
        """``value`` (a text, or JSON-shaped) with every ``P<seat>`` in current names."""
        return naming.render_value(value, self.names)


@dataclass(frozen=True)
class NightOrder:
    """One night action as the site stores it: slots, not resolver names."""

    actor: Slot
    ability: str
    targets: Sequence[Slot]
    extra: Mapping[str, Any] = field(default_factory=dict)


def night_order(
    actor: Slot, ability: str, targets: Sequence[Slot], extra: Mapping[str, Any]
) -> dict[str, Any]:
    """A night action in the resolver's words (its ``actions`` entry)."""
    return {
        **extra,
        "actor": actor.resolver_name,
        "ability": ability,
        "targets": [t.resolver_name for t in targets],
    }


@dataclass(frozen=True)
class Death:
    """A player the rules killed, and the role shown for them ("" when cleaned)."""

    slot: Slot
    revealed_role: str


# -- the night ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NightEnd:
    """A resolved night, in slots. ``report`` (the host's, stored on the phase) and the
    ``results`` payloads (stored with each private result) stay in resolver names;
    ``notes`` are the site's notes for the report (resolver names too); ``report_now`` is
    the report in current names."""

    deaths: list[Death]
    results: list[tuple[Slot, list[dict[str, Any]]]]
    report: dict[str, Any]
    report_now: dict[str, Any]  # the report in current names (the host's live copy)
    state: GameState
    notes: list[str]


def resolve_night(
    game: Game,
    slots: Iterable[Slot],
    orders: Iterable[NightOrder],
    *,
    number: int,
    notes: Iterable[str] = (),
) -> NightEnd:
    """Night ``number`` of ``game`` with the night actions ``orders`` (in the order sent).

    An order the rules no longer accept (its target was modkilled since) is dropped with
    a note; a night the resolver refuses as a whole (it should not) resolves as if nobody
    had acted, with a note, so a night's end is never stuck."""
    with in_game_language(game):
        return _resolve_night(game, slots, orders, number=number, notes=notes)


def _resolve_night(
    game: Game,
    slots: Iterable[Slot],
    orders: Iterable[NightOrder],
    *,
    number: int,
    notes: Iterable[str],
) -> NightEnd:
    state, rules, seats = state_of(game), rules_named(game.ruleset), Seats(slots)
    notes = list(notes)
    raw_actions: list[dict[str, Any]] = []
    for order in orders:
        raw = night_order(order.actor, order.ability, order.targets, order.extra)
        try:
            rules.parse_action(state, raw, "$", len(raw_actions))
        except InvalidScenario as exc:
            notes.append(
                _("Dropped %(actor)s's %(ability)s: %(why)s")
                % {"actor": order.actor.resolver_name, "ability": order.ability, "why": exc.message}
            )
            continue
        raw_actions.append(raw)
    outcome: NightOutcome
    try:
        outcome = _engine.play_night(state, raw_actions)
    except InvalidScenario as exc:
        log.error("Night %s of game %s: resolver refused: %s", number, game.pk, exc)
        notes.append(
            _("The night could not be resolved (%(why)s); nothing happens.") % {"why": exc.message}
        )
        outcome = _engine.play_night(state, [])
    report = outcome.to_report(number)
    report["site_notes"] = notes
    return NightEnd(
        deaths=_deaths(seats, outcome.dead, outcome.reveals),
        results=_results(seats, outcome.results),
        report=report,
        report_now=seats.text(report),
        state=outcome.state,
        notes=notes,
    )


def _deaths(seats: Seats, dead: Iterable[str], reveals: Mapping[str, str]) -> list[Death]:
    return [
        Death(slot, reveals.get(name, ""))
        for name in dead
        if (slot := seats.slot(name)) is not None
    ]


def _results(
    seats: Seats, results: Mapping[str, Iterable[Mapping[str, Any]]]
) -> list[tuple[Slot, list[dict[str, Any]]]]:
    return [
        (slot, [dict(r) for r in items])
        for name, items in results.items()
        if (slot := seats.slot(name)) is not None
    ]


# -- the day -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DayEnd:
    """A day's outcome, in slots. ``tied``: the slots of a revote (none: no revote);
    ``explanation``: the resolver's, in current names; ``report`` (stored on the phase)
    stays in resolver names, with the site's ``notes``."""

    eliminated: Slot | None
    revealed_role: str
    tied: list[Slot]
    explanation: list[str]
    report: dict[str, Any]
    report_now: dict[str, Any]  # the report in current names (the host's live copy)
    state: GameState
    notes: list[str]


def resolve_day(
    game: Game,
    slots: Iterable[Slot],
    votes: Mapping[str, str],
    *,
    number: int,
    nominations: Iterable[tuple[Slot, Slot | None]] | None = None,
    revote: Mapping[str, str] | None = None,
) -> DayEnd:
    """Day ``number`` of ``game``: ``votes`` (and a revote's) are the living's ballots in
    resolver names (``services.ballots.ballots``), ``nominations`` (nominator, target or
    None for "no elimination") where the rules use them.

    Where the game asks for a majority and the rule set has no majority rule of its own,
    only a wagon with a majority eliminates. A day the resolver refuses (it should not:
    every vote was checked when cast) eliminates nobody, with a note."""
    with in_game_language(game):
        return _resolve_day(
            game, slots, votes, number=number, nominations=nominations, revote=revote
        )


def _resolve_day(
    game: Game,
    slots: Iterable[Slot],
    votes: Mapping[str, str],
    *,
    number: int,
    nominations: Iterable[tuple[Slot, Slot | None]] | None,
    revote: Mapping[str, str] | None,
) -> DayEnd:
    state, rules, seats = state_of(game), rules_named(game.ruleset), Seats(slots)
    notes: list[str] = []
    raw_day: dict[str, Any] = {"votes": dict(votes)}
    if nominations is not None:
        raw_day["nominations"] = {
            nominator.resolver_name: (target.resolver_name if target else SKIP)
            for nominator, target in nominations
        }
    if revote is not None:
        raw_day["revote"] = dict(revote)
    if game.uses_majority and "dayVote" not in rules.flags:
        count = tally(raw_day["votes"], state.alive_names)
        if count.majority_target is None:
            notes.append(
                _("No wagon reached majority (%(majority)s of %(alive)s).")
                % {"majority": count.majority, "alive": count.alive_count}
            )
            raw_day["votes"] = {}
    try:
        outcome = _engine.play_day(state, raw_day)
    except InvalidScenario as exc:
        log.error("Day %s of game %s: resolver refused the votes: %s", number, game.pk, exc)
        notes.append(
            _("The votes could not be counted (%(why)s); nobody is eliminated.")
            % {"why": exc.message}
        )
        outcome = _engine.play_day(state, {"votes": {}})
    report = outcome.to_report(number)
    report["site_notes"] = notes
    return DayEnd(
        eliminated=seats.slot(outcome.eliminated),
        revealed_role=outcome.reveals.get(outcome.eliminated or "", ""),
        tied=seats.slots(outcome.revote or ()),
        explanation=[seats.text(line) for line in outcome.explanation],
        report=report,
        report_now=seats.text(report),
        state=outcome.state,
        notes=notes,
    )


def resolve_table_day(
    game: Game, slots: Iterable[Slot], day: DayState, *, number: int, notes: Iterable[str] = ()
) -> DayEnd:
    """A finished table day (``day``, its script's state) through the rule set's own day
    resolution; ``notes``: the site's for the report (the table's explanation)."""
    script = day_script(game.ruleset)
    assert script is not None  # a table day is played only under a rule set with a script
    seats = Seats(slots)
    with in_game_language(game):
        outcome = script.resolve(state_of(game), day)
    report = outcome.to_report(number)
    report["site_notes"] = list(notes)
    return DayEnd(
        eliminated=seats.slot(outcome.eliminated),
        revealed_role=outcome.reveals.get(outcome.eliminated or "", ""),
        tied=[],
        explanation=[seats.text(line) for line in outcome.explanation],
        report=report,
        report_now=seats.text(report),
        state=outcome.state,
        notes=report["site_notes"],
    )


@dataclass(frozen=True)
class DayShot:
    """A day action resolved at once, in slots (``report``: the resolver's, resolver names;
    ``explanation``: in current names)."""

    deaths: list[Death]
    results: list[tuple[Slot, list[dict[str, Any]]]]
    announced: bool
    explanation: list[str]
    report: dict[str, Any]
    state: GameState


def use_day_action(
    game: Game, slots: Iterable[Slot], actor: Slot, aim: Slot, ability: str | None
) -> DayShot:
    """``actor``'s day action on ``aim`` (``ability`` None: their only one). The rules'
    refusal is raised as ``InvalidScenario`` with its message in current names."""
    seats = Seats(slots)
    raw: dict[str, Any] = {"actor": actor.resolver_name, "targets": [aim.resolver_name]}
    if ability:
        raw["ability"] = ability
    state = state_of(game)
    try:
        # The explanation is the thread's: in the game's language.
        with in_game_language(game):
            outcome: DayActionOutcome = _engine.play_day_action(state, raw, phase="day")
    except InvalidScenario as refused:
        # The refusal is the actor's: asked again in the reader's language (pure, same answer).
        exc = refused
        try:
            _engine.play_day_action(state, raw, phase="day")
        except InvalidScenario as again:
            exc = again
        raise InvalidScenario(seats.text(exc.message), exc.where) from None
    return DayShot(
        deaths=_deaths(seats, outcome.dead, outcome.reveals),
        results=_results(seats, outcome.results),
        announced=outcome.announcement is not None,
        explanation=[seats.text(line) for line in outcome.explanation],
        report=outcome.to_report(),
        state=outcome.state,
    )


# -- the game's end ----------------------------------------------------------------------
@dataclass(frozen=True)
class Win:
    """The game is won: the winning side, why (in current names), and the co-winners."""

    winner: str
    reason: str
    co_winners: list[Slot]


def win_of(game: Game, slots: Iterable[Slot]) -> Win | None:
    """Whether the game is over in its current state (None: it goes on)."""
    state = state_of(game)
    with in_game_language(game):
        verdict = _engine.check_winner(state)
    if verdict.winner is None:
        return None
    return winner(slots, verdict.winner, verdict.reason, [*state.co_winners, *verdict.co_winners])


def winner(slots: Iterable[Slot], side: str, reason: str, co_winners: Iterable[str]) -> Win:
    """A win told in resolver names (``reason``, ``co_winners``), in the site's terms."""
    seats = Seats(slots)
    co = list(dict.fromkeys(co_winners))  # each once, in the order named
    return Win(side, seats.text(reason), seats.slots(co))


def remove_player(game: Game, slot: Slot) -> GameState:
    """The game's state with ``slot``'s player removed (a modkill)."""
    return _engine.remove_player(state_of(game), slot.resolver_name)


# -- the bare engine ---------------------------------------------------------------------
# States with no game behind them, in resolver names throughout: only the balance
# simulator (``games.simulator``), whose bots play the rules alone, has use for these.
bare_night = _engine.play_night
bare_day = _engine.play_day
bare_day_action = _engine.play_day_action
bare_verdict = _engine.check_winner
