"""A table game's day in the database: the day script's state on the phase, and its clock.

The rules live in ``resolver.days`` (one script per rule set); this module only stores
the script's ``DayState`` on the phase (``Phase.day_state``, in resolver names), keeps the
turn's clock and publishes what changed. The phase's ``deadline`` is the current turn's
(or vote's) deadline, so the phases' own deadline machinery (the scan, ETA tasks, pause,
extend) keeps turn timers too; ``Phase.turn_seq`` numbers the turns so a turn's timer
fires exactly once (see ``phases.advance``).

The vote's outcome is applied when the day is done (``phases.end_table_day``); a player
modkilled mid-day is sent to the script as a ``removed`` event (``phases.do_modkill``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.utils.translation import gettext as _

from games.i18n import in_game_language

from .. import gateway
from ..errors import ErrorCode, GameRuleError, InvalidInput, WrongPhase
from ..gateway import LAST_WORDS, SKIP, DayRuleError, DayScript, DayState, Notice, attempt
from ..models import Game, Nomination, Phase, PhaseKind, Slot, Vote, VoteKind
from ..naming import slot_ref
from ..reads.table import turn_view
from . import announcements
from .announcements import announce
from .ballots import emit_vote_count
from .common import Tx, by_resolver_name, emit, render, state_of

# Notices the whole table may read; a refusal or word-guide note goes to its player only,
# a ballot never goes out while the vote is open, the outcome is the host's report.
PUBLIC_NOTICES = frozenset(
    {"step", "nomination", "default", "question", "skip_discussion", "removed"}
)
PRIVATE_NOTICES = frozenset({"refused", "guide", "vote_void"})


def script_of(game: Game) -> DayScript | None:
    """The game's day script, or None when its days are a free thread."""
    if not game.turn_based:
        return None
    return gateway.day_script(game.ruleset)


def table_script(game: Game) -> DayScript:
    """``script_of`` where the caller knows the game is turn-based (its table day is under
    way), typed so; None there is a bug, said as one."""
    script = script_of(game)
    if script is None:
        raise RuntimeError(f"Game {game.pk} has no day script: its days are a free thread.")
    return script


def is_night_zero(game: Game, kind: str) -> bool:
    """Classic's night zero: the game's first phase is a night where nobody acts."""
    script = script_of(game)
    return bool(script and script.night_zero and kind == PhaseKind.NIGHT and not game.phase_number)


def load(phase: Phase) -> DayState:
    assert phase.day_state is not None  # written when a table day opens, read only after
    return DayState.from_dict(phase.day_state)


def day_settings(game: Game, script: DayScript) -> dict[str, Any]:
    """The host's settings the script knows, plus what the game state decides (city)."""
    settings = {k: v for k, v in (game.day_settings or {}).items() if k in script.defaults}
    if script.game_decided:
        settings.update(script.settings_from_game(state_of(game)))
    return settings


def start_day(tx: Tx, phase: Phase) -> None:
    """Open a table day: the script's first step, its clock, and the news."""
    game = tx.game
    script = table_script(game)
    state = state_of(game)
    day_number = Phase.objects.filter(game=game, kind=PhaseKind.DAY).count()
    with in_game_language(game):  # its notices are the thread's: the game's language
        day = script.start_day(
            [s.resolver_name for s in tx.slots],
            state.alive_names,
            day_number,
            day_settings(game, script),
            seed=game.seed,
        )
    _store(tx, day, new_turn=True)
    _publish(tx, day, [], new_turn=True)


# How the site answers each kind of refusal a day script gives (``resolver.days``): out of
# turn is "not now" for every act (409); what the rules refuse is 422, each with its code.
REFUSALS: dict[str, tuple[type[GameRuleError], ErrorCode]] = {
    gateway.OUT_OF_TURN: (WrongPhase, ErrorCode.NOT_YOUR_TURN),
    gateway.NOT_IN_STEP: (InvalidInput, ErrorCode.NOT_IN_STEP),
    gateway.SPEECH_TOO_LONG: (InvalidInput, ErrorCode.SPEECH_TOO_LONG),
    gateway.SELF_QUESTION: (InvalidInput, ErrorCode.SELF_QUESTION),
    gateway.NO_ADDRESSEE: (InvalidInput, ErrorCode.NO_ADDRESSEE),
    gateway.REFUSED: (InvalidInput, ErrorCode.TURN_REFUSED),
}
# The field a refusal of each event kind is about, when it has one.
FIELDS = {"nominate": "target", "vote": "target"}


def apply(tx: Tx, event: Mapping[str, Any], *, timer: bool = False) -> GameRuleError | None:
    """Apply one event to the locked table day; returns the refusal to raise, or None.

    A refused player event is counted (classic's "after 3 failed attempts" default) and
    stored: the caller commits it and only then tells the player, with the count ("Attempt
    1 of 3") or the default it brought.
    """
    script = table_script(tx.game)
    before = load(tx.current)
    refusal = None
    try:
        # What the step writes (its notices, the stored day) is the thread's: the game's
        # language. A refusal is the acting person's: the script is pure, so it is asked
        # again in the reader's language.
        with in_game_language(tx.game):
            if timer:
                after, notices = script.apply(before, event)
            else:
                after, notices, refusal = attempt(script, before, event)
        if refusal is not None:
            refusal = attempt(script, before, event)[2]
    except DayRuleError:
        try:
            script.apply(before, event)
        except DayRuleError as exc:
            raise _answer(tx, exc, event, "") from None
        raise
    new_turn = _turn_key(after) != _turn_key(before)
    _store(tx, after, new_turn=new_turn)
    if _record(tx, before, after):
        emit_vote_count(tx)  # the sidebar's count lists the nominations and closed votes
    if after.tied and not before.tied:
        _announce_tie(tx, after)
    if after.step == LAST_WORDS and before.step != LAST_WORDS:
        _announce_verdict(tx, after)
    _publish(tx, after, notices, new_turn=new_turn)
    if refusal is None:
        return None
    return _answer(tx, refusal, event, _attempts(script, before, after, event, notices))


def _answer(tx: Tx, refusal: DayRuleError, event: Mapping[str, Any], more: str) -> GameRuleError:
    error, code = REFUSALS.get(refusal.code, REFUSALS[gateway.REFUSED])
    field = FIELDS.get(str(event.get("kind"))) if isinstance(event, Mapping) else None
    if code == ErrorCode.NO_ADDRESSEE or code == ErrorCode.SELF_QUESTION:
        field = "to"
    return error(render(tx, refusal.reason) + more, code, field)


def _attempts(
    script: DayScript,
    before: DayState,
    after: DayState,
    event: Mapping[str, Any],
    notices: list[Notice],
) -> str:
    """What the refusal cost, as nights say it: " (Attempt 1 of 3: ...)", or the default
    the last attempt brought; "" where the rules count no attempts."""
    limit = script.max_attempts
    player = event.get("player")
    if limit is None or not isinstance(player, str):
        return ""
    failed = after.failures.get(player, 0)
    if failed > before.failures.get(player, 0):
        note = _(
            "(Attempt %(failed)s of %(limit)s: after %(limit)s refused attempts the rules' "
            "default applies.)"
        )
        return " " + note % {"failed": failed, "limit": limit}
    default = next((n for n in notices if n.kind == "default" and n.player == player), None)
    return f" ({default.text})" if default is not None else ""


def done(phase: Phase) -> bool:
    return phase.day_state is not None and load(phase).done


def _turn_key(state: DayState) -> tuple[Any, ...]:
    return (state.step, state.round, state.turn, state.order)


def _store(tx: Tx, state: DayState, *, new_turn: bool) -> None:
    phase = tx.current
    phase.day_state = state.to_dict()
    fields = ["day_state"]
    if new_turn and not state.done:
        phase.turn_seq += 1
        length = turn_length(tx.game, state)
        if phase.is_paused:
            phase.paused_remaining = length
        else:
            phase.deadline = tx.now + length
        fields += ["turn_seq", "deadline", "paused_remaining"]
    phase.save(update_fields=fields)


def turn_length(game: Game, state: DayState) -> timedelta:
    return game.vote_length if state.step == "vote" else game.turn_length


def _record(tx: Tx, before: DayState, after: DayState) -> bool:
    """Nominations and closed votes as rows (the archive and the vote count read them);
    whether there was any."""
    recorded = False
    for nominator, target in after.nominations.items():
        if nominator in before.nominations:
            continue
        recorded = True
        nominator_slot = by_resolver_name(tx, nominator)
        assert nominator_slot is not None  # the script's players are the table's seats
        Nomination.objects.create(
            phase=tx.current,
            nominator=nominator_slot,
            target=None if target == SKIP else by_resolver_name(tx, target),
        )
    for number in range(len(before.rounds), len(after.rounds)):
        recorded = True
        ballots = after.rounds[number]
        Vote.objects.bulk_create(
            Vote(
                phase=tx.phase,
                voter=by_resolver_name(tx, voter),
                target=None if target == SKIP else by_resolver_name(tx, target),
                kind=VoteKind.VOTE,
                revote=number > 0,
            )
            for voter, target in ballots.items()
        )
        emit(
            tx,
            "table_vote_closed",
            {
                "round": number + 1,
                "votes": [
                    {"voter": _ref(tx, voter), "target": _ref(tx, target)}
                    for voter, target in ballots.items()
                ],
            },
        )
    tx.standing.clear()
    return recorded


def _announce_tie(tx: Tx, state: DayState) -> None:
    """The vote just closed tied: the thread says so (the panel shows the defense next)."""
    counts = Counter(state.rounds[-1].values())
    top = max(counts.values())
    tied = [by_resolver_name(tx, name) for name in state.tied]
    with in_game_language(tx.game):
        announce(
            tx,
            announcements.table_tie(
                tx.current.label, [s for s in tied if s is not None], top, counts.get(SKIP) == top
            ),
        )


def _announce_verdict(tx: Tx, state: DayState) -> None:
    """The vote just closed on a player who now gives last words: the thread is told the
    day's verdict first, then hears them (issue 33: the words came before the verdict).
    The day's end says nothing more (``verdict_told``)."""
    with in_game_language(tx.game):
        announce(tx, announcements.table_day_ended(tx.current.label, *verdict(tx, state)))


def verdict_told(script: DayScript, state: DayState) -> bool:
    """Whether the thread heard the day's verdict when its vote closed (last words)."""
    return script.gives_last_words and state.eliminated is not None


def verdict(tx: Tx, state: DayState) -> tuple[Slot | None, list[list[tuple[Any, Any]]]]:
    """Who the day eliminates and each vote's ballots (voter, target or None for skip)."""
    eliminated = by_resolver_name(tx, state.eliminated) if state.eliminated else None
    rounds = [
        [
            (by_resolver_name(tx, voter), None if target == SKIP else by_resolver_name(tx, target))
            for voter, target in ballots.items()
        ]
        for ballots in state.rounds
    ]
    return eliminated, rounds


def _ref(tx: Tx, name: str) -> dict[str, Any] | None:
    return None if name == SKIP else slot_ref(by_resolver_name(tx, name))


def _publish(tx: Tx, state: DayState, notices: list[Notice], *, new_turn: bool) -> None:
    for notice in notices:
        payload = {"kind": notice.kind, "text": render(tx, notice.text)}
        if notice.kind in PUBLIC_NOTICES:
            emit(tx, "turn_notice", payload)
        elif notice.kind in PRIVATE_NOTICES and notice.player:
            slot = by_resolver_name(tx, notice.player)
            if slot is not None:
                emit(tx, "turn_notice", payload, f"slot:{slot.pk}")
        else:
            emit(tx, "turn_notice", payload, "host")
    view = turn_view(tx.game, tx.phase, tx.slots)
    emit(tx, "turn", view)
    if not new_turn or state.done:
        return
    # Told on their own feed: the page's title and badge, an agent's socket. A vote is
    # everyone's turn at once.
    names = state.alive if state.step == "vote" else (state.speaker,)
    for name in names:
        slot = by_resolver_name(tx, name) if name else None
        if slot is not None and slot.alive:
            emit(
                tx,
                "your_turn",
                {"step": view["step"], "deadline": view["deadline"]},
                f"slot:{slot.pk}",
            )
