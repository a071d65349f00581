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

from resolver.days import DayRuleError, DayScript, DayState, Notice, attempt, get_day_script
from resolver.model import SKIP

from ..errors import ErrorCode, InvalidInput
from ..models import Game, Nomination, Phase, PhaseKind, Vote, VoteKind
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
    return get_day_script(game.ruleset)


def is_night_zero(game: Game, kind: str) -> bool:
    """Classic's night zero: the game's first phase is a night where nobody acts."""
    script = script_of(game)
    return bool(script and script.night_zero and kind == PhaseKind.NIGHT and not game.phase_number)


def load(phase: Phase) -> DayState:
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
    script = script_of(game)
    state = state_of(game)
    day_number = Phase.objects.filter(game=game, kind=PhaseKind.DAY).count()
    day = script.start_day(
        [s.resolver_name for s in tx.slots],
        state.alive_names,
        day_number,
        day_settings(game, script),
        seed=game.seed,
    )
    _store(tx, day, new_turn=True)
    _publish(tx, day, [], new_turn=True)


def apply(tx: Tx, event: Mapping[str, Any], *, timer: bool = False) -> str | None:
    """Apply one event to the locked table day; returns why it was refused, or None.

    A refused player event is counted (classic's "after 3 failed attempts" default) and
    stored: the caller commits it and only then tells the player.
    """
    script = script_of(tx.game)
    before = load(tx.phase)
    reason = None
    try:
        if timer:
            after, notices = script.apply(before, event)
        else:
            after, notices, reason = attempt(script, before, event)
    except DayRuleError as exc:
        raise InvalidInput(render(tx, exc.reason), ErrorCode.TURN_REFUSED) from None
    new_turn = _turn_key(after) != _turn_key(before)
    _store(tx, after, new_turn=new_turn)
    if _record(tx, before, after):
        emit_vote_count(tx)  # the sidebar's count lists the nominations and closed votes
    if after.tied and not before.tied:
        _announce_tie(tx, after)
    _publish(tx, after, notices, new_turn=new_turn)
    return render(tx, reason) if reason else None


def done(phase: Phase) -> bool:
    return phase.day_state is not None and load(phase).done


def _turn_key(state: DayState) -> tuple[Any, ...]:
    return (state.step, state.round, state.turn, state.order)


def _store(tx: Tx, state: DayState, *, new_turn: bool) -> None:
    phase = tx.phase
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
        Nomination.objects.create(
            phase=tx.phase,
            nominator=by_resolver_name(tx, nominator),
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
    announce(
        tx,
        announcements.table_tie(
            tx.phase.label, [s for s in tied if s is not None], top, counts.get(SKIP) == top
        ),
    )


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
