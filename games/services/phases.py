"""Phase transitions: opening a phase, ending a day (votes counted, revotes) or a night
(the resolver run), deaths, the win check and the end of the game.

``advance_phase`` is keyed by (game, phase number) and refuses a phase that is not
current, already resolved, paused or not yet due, so a deadline that fires twice, late or
from two workers at once advances the game exactly once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone
from django.utils.translation import gettext_noop

from .. import gateway, hooks
from ..gateway import DayEnd, GameState, NightOrder, Win
from ..i18n import in_game_language
from ..models import (
    DeathCause,
    Game,
    GameStatus,
    InactivityAction,
    NightAction,
    Phase,
    PhaseKind,
    Post,
    Slot,
    Thread,
)
from ..naming import slot_ref
from ..reads.activity import away_slot_ids
from ..reads.vote_count import vote_count
from ..scheduling import SHORT_RANGE
from . import announcements, table
from .announcements import announce, link_from_banner
from .ballots import ballots, emit_vote_count, standing_votes
from .common import (
    MIN_REVOTE_LENGTH,
    PRODS_BEFORE_ACTION,
    Tx,
    emit,
    game_tx,
    rules_of,
    slot_roles,
    state_of,
)
from .nights import (
    deliver_results,
    end_league_night_when_all_in,
    take_actions_not_sent,
)
from .reliability import leave_league_queues
from .swap import replace_from_queue
from .wills import post_surviving_wills, post_wills

# A league game's seat silent for one whole day (no post, vote or turn act) gets the game's
# inactivity rule at once: it has no host to give second chances (a hosted game waits for
# ``PRODS_BEFORE_ACTION`` prods).
LEAGUE_SILENT_DAYS = 1

# The reason an inactivity modkill carries (its event's data, queried as written); the
# announcement says it in the game's language (``announcements.modkilled``).
INACTIVITY_REASON = gettext_noop("inactivity")

log = logging.getLogger(__name__)


def open_phase(tx: Tx, kind: str) -> Phase:
    game = tx.game
    number = game.phase_number + 1
    table_day = kind == PhaseKind.DAY and table.script_of(game) is not None
    # A table day's deadline is its first turn's (every script opens with a turn).
    deadline = tx.now + (game.turn_length if table_day else game.phase_length(kind))
    phase = Phase.objects.create(
        game=game,  # the locked instance: vote counts read its event_seq
        number=number,
        kind=kind,
        started_at=tx.now,
        deadline=deadline,
        night_zero=table.is_night_zero(game, kind),
    )
    game.phase_number = number
    Game.objects.filter(pk=game.pk).update(phase_number=number)
    tx.locked.phase = phase
    emit(
        tx,
        "phase_started",
        {
            "number": number,
            "kind": kind,
            "label": phase.label,
            "deadline": deadline.isoformat(),
        },
    )
    with in_game_language(game):  # the thread's language, whoever (or whatever) acted
        announce(tx, announcements.phase_begins(tx, phase, table_day=table_day))
    link_from_banner(tx, phase, replace=True)
    if table_day:
        table.start_day(tx, phase)
    if kind == PhaseKind.DAY:
        emit_vote_count(tx)  # open pages replace the last day's final count (or "no day yet")
    elif game.league_setup and not phase.night_zero:
        # No host to cut it: a league night nobody has to act in ends at once. Not night
        # zero: it is the mafia's time to talk (it ends when they all have, or at its
        # deadline: ``nights.end_night_zero_when_the_mafia_spoke``).
        end_league_night_when_all_in(tx, phase)
    return phase


def advance_phase(
    game_id: int,
    phase_number: int,
    *,
    now: datetime | None = None,
    force: bool = False,
    turn_seq: int | None = None,
) -> bool:
    """End phase ``phase_number`` if it is due: idempotent, safe to call twice or late.

    Does nothing (returns False) unless that phase is the game's current, unresolved,
    unpaused phase and its deadline has passed (``force``: the host cuts it short). A tied
    day that goes to a revote returns True but stays open with the revote's deadline.
    A table day's deadline is its turn's: the turn passes (the rules' default applies);
    ``turn_seq`` (from a turn's own timer) must still be the current turn's.
    """
    with game_tx(game_id, now) as tx:
        return advance(tx, phase_number, force=force, turn_seq=turn_seq)


def advance(tx: Tx, phase_number: int, *, force: bool, turn_seq: int | None = None) -> bool:
    game, phase = tx.game, tx.phase
    if not game.is_running or phase is None or phase.number != phase_number or phase.resolved:
        return False
    if phase.is_paused:
        return False
    if not force and (phase.deadline is None or phase.deadline > tx.now):
        return False
    if phase.is_table_day:
        if turn_seq is not None and turn_seq != phase.turn_seq:
            return False  # that turn is over already: a stale timer
        table.apply(tx, {"kind": "timeout"}, timer=True)
        if table.done(phase):
            end_table_day(tx)
        return True
    if phase.is_day:
        end_day(tx)
    else:
        end_night(tx)
    return True


def due_phases(now: datetime | None = None) -> list[tuple[int, int]]:
    """(game id, phase number) of every running phase whose deadline has passed."""
    now = now or timezone.now()
    rows = Phase.objects.filter(
        resolved=False, deadline__lte=now, game__status=GameStatus.RUNNING
    ).values_list("game_id", "number")
    return list(rows)


def nearing_phases(now: datetime, within: timedelta) -> list[tuple[int, int, datetime, int | None]]:
    """(game id, phase number, deadline, turn seq or None) of every running phase whose
    deadline falls in ``(now, now + within]``: the scan queues their ETA tasks, so a
    deadline set days ahead still ends on the second rather than up to a scan late."""
    rows = (
        Phase.objects.filter(
            resolved=False,
            deadline__gt=now,
            deadline__lte=now + within,
            game__status=GameStatus.RUNNING,
        )
        # A phase no longer than the short range got its ETA task when it opened: a second
        # one would only race the first (and the tests' flush of the tables).
        .annotate(length=F("deadline") - F("started_at"))
        .filter(length__gt=SHORT_RANGE)
        .values_list("game_id", "number", "deadline", "turn_seq", "day_state")
    )
    return [
        (game_id, number, deadline, turn_seq if day_state is not None else None)
        for game_id, number, deadline, turn_seq, day_state in rows
        if deadline is not None  # always (deadline__gt above): narrows the nullable field
    ]


def end_day(tx: Tx) -> None:
    game, phase = tx.game, tx.current
    nominations = None
    if rules_of(game).uses_nominations:
        nominations = [
            (n.nominator, n.target)
            for n in phase.nominations.select_related("nominator", "target")
            if n.nominator.alive and (n.target is None or n.target.alive)
        ]
    outcome: DayEnd = gateway.resolve_day(
        game,
        tx.slots,
        ballots(tx, standing_votes(tx, revote=False)),
        number=phase.number,
        nominations=nominations,
        revote=ballots(tx, standing_votes(tx, revote=True)) if phase.in_revote else None,
    )
    if outcome.tied and not phase.in_revote:
        start_revote(tx, outcome.tied, outcome.explanation)
        return
    # The count as it stands now, before the eliminated player leaves the living: the
    # day's final count (hammer vote included) is what the pages show until the next day.
    with in_game_language(game):  # kept for the whole game to read
        final = vote_count(phase, slots=tx.slots, votes=standing_votes(tx))
    final["resolved"] = True
    eliminated = outcome.eliminated
    if eliminated is not None:
        kill(tx, eliminated, DeathCause.DAY, outcome.revealed_role)
    close_phase(tx, outcome.report, outcome.state)
    phase.final_count = final
    phase.save(update_fields=["final_count"])
    emit(tx, "vote_count", final)
    with in_game_language(game):
        announce(tx, announcements.day_ended(final, eliminated, final["label"]))
    post_wills(tx, [eliminated] if eliminated is not None else [])
    day_over(tx, eliminated, outcome.report_now)


def end_table_day(tx: Tx) -> None:
    """A table day is done: its script's outcome through the rule set's own day resolution."""
    game, phase = tx.game, tx.current
    script = table.table_script(game)
    day = table.load(phase)
    outcome = gateway.resolve_table_day(
        game, tx.slots, day, number=phase.number, notes=day.explanation
    )
    eliminated = outcome.eliminated
    dies_now = eliminated is not None and eliminated.alive
    if eliminated is not None and eliminated.alive:  # (modkilled during their last words)
        kill(tx, eliminated, DeathCause.DAY, outcome.revealed_role)
    close_phase(tx, outcome.report, outcome.state)
    if not table.verdict_told(script, day):  # said when the vote closed, before last words
        rounds = table.verdict(tx, day)[1]
        with in_game_language(game):
            announce(tx, announcements.table_day_ended(phase.label, eliminated, rounds))
    # (The verdict is told at the vote's close or now; the will follows the death itself. A
    # player modkilled during their last words had theirs posted with the modkill.)
    if dies_now and eliminated is not None:
        post_wills(tx, [eliminated])
    day_over(tx, eliminated, outcome.report_now)


def day_over(tx: Tx, eliminated: Slot | None, report_now: dict[str, Any]) -> None:
    """What every day's end shares once it is announced: the public event, the host's
    report (``report_now``: in current names), the prods, then the win check and the
    night."""
    emit(
        tx,
        "day_ended",
        {
            "number": tx.current.number,
            "eliminated": slot_ref(eliminated),
            "revealed_role": eliminated.revealed_role if eliminated else "",
        },
    )
    emit(tx, "phase_report", report_now, "host")
    check_inactivity(tx)
    after_phase(tx, next_kind=PhaseKind.NIGHT)


def start_revote(tx: Tx, slots: list[Slot], explanation: list[str]) -> None:
    """A tied day goes to a revote between ``slots``; ``explanation`` in current names."""
    phase = tx.current
    phase.revote = [s.pk for s in slots]
    length = max(tx.game.day_length / 4, MIN_REVOTE_LENGTH)
    phase.deadline = tx.now + length
    phase.save(update_fields=["revote", "deadline"])
    with in_game_language(tx.game):
        announce(tx, announcements.revote(phase.label, slots, phase.deadline))
    link_from_banner(tx, phase, replace=False)
    emit(
        tx,
        "revote_started",
        {
            "tied": [slot_ref(s) for s in slots],
            "deadline": phase.deadline.isoformat(),
            "explanation": explanation,
        },
    )
    emit_vote_count(tx)


def end_night(tx: Tx) -> None:
    game, phase = tx.game, tx.current
    state = state_of(game)
    if phase.night_zero:  # nobody acted, nothing to resolve: the game state stays as it is
        close_phase(tx, {"phase": phase.number, "night_zero": True, "site_notes": []}, state)
        with in_game_language(game):
            announce(tx, announcements.night_ended(phase.label, []))
        emit(tx, "night_ended", {"number": phase.number, "deaths": []})
        after_phase(tx, next_kind=PhaseKind.DAY)
        return
    notes = take_actions_not_sent(tx, phase)  # a must-act night's
    orders = []
    for action in phase.night_actions.select_related("actor").order_by("updated_at", "id"):
        actor = tx.locked.slot(action.actor_id)
        assert actor is not None  # a night action's actor is a seat of its game
        targets = [t for i in action.targets if (t := tx.locked.slot(i)) is not None]
        orders.append(NightOrder(actor, action.ability, targets, action.extra))
    # (An order can turn illegal after it was sent, its target modkilled: the gateway
    # drops it with a note.)
    outcome = gateway.resolve_night(game, tx.slots, orders, number=phase.number, notes=notes)
    deaths = []
    for death in outcome.deaths:
        if death.slot.alive:
            kill(tx, death.slot, DeathCause.NIGHT, death.revealed_role)
            deaths.append(death.slot)
    deliver_results(tx, phase, outcome.results)
    close_phase(tx, outcome.report, outcome.state)
    with in_game_language(game):
        announce(tx, announcements.night_ended(phase.label, deaths))
    post_wills(tx, deaths)
    emit(
        tx,
        "night_ended",
        {
            "number": phase.number,
            "deaths": [{**slot_ref(s), "revealed_role": s.revealed_role} for s in deaths],
        },
    )
    emit(tx, "phase_report", outcome.report_now, "host")
    after_phase(tx, next_kind=PhaseKind.DAY)


def kill(tx: Tx, slot: Slot, cause: str, revealed_role: str) -> None:
    slot.alive = False
    slot.died_in_phase = tx.game.phase_number
    slot.death_cause = cause
    slot.revealed_role = revealed_role or ""
    slot.save(update_fields=["alive", "died_in_phase", "death_cause", "revealed_role"])


def close_phase(tx: Tx, report: dict[str, Any], state: GameState) -> None:
    phase = tx.current
    phase.resolved = True
    phase.ended_at = tx.now
    phase.report = report
    phase.save(update_fields=["resolved", "ended_at", "report"])
    tx.game.resolver_state = state.to_dict()
    tx.game.save(update_fields=["resolver_state"])


def after_phase(tx: Tx, next_kind: str) -> None:
    """The win check, then the game's end or the next phase."""
    if tx.game.is_finished:
        return
    if not check_win(tx):
        open_phase(tx, next_kind)


def check_win(tx: Tx) -> bool:
    win = gateway.win_of(tx.game, tx.slots)
    if win is None:
        return False
    end_with(tx, win)
    return True


def finish(tx: Tx, winner: str, reason: str, co_winners: Iterable[str]) -> None:
    """End the game with a win told in resolver names (``reason``, ``co_winners``)."""
    end_with(tx, gateway.winner(tx.slots, winner, reason, co_winners))


def end_with(tx: Tx, win: Win) -> None:
    """End the game: ``win`` (in slots and current names) is the verdict."""
    game, winner = tx.game, win.winner
    game.status = GameStatus.FINISHED
    game.winner = winner
    game.win_reason = win.reason
    game.co_winners = [s.pk for s in win.co_winners]
    game.finished_at = tx.now
    game.save()
    # What must change with the end, in its transaction, exactly once (a rated game's
    # ratings: the ratings app); a fault there rolls back alone, the game still ends.
    hooks.game_ending(tx)
    if tx.phase is not None and not tx.phase.resolved:
        tx.phase.resolved = True
        tx.phase.ended_at = tx.now
        tx.phase.save(update_fields=["resolved", "ended_at"])
    # Co-winners are seats of the game: the filter only narrows Slot | None.
    co = [s for i in game.co_winners if (s := tx.locked.slot(i)) is not None]
    with in_game_language(game):
        announce(tx, announcements.game_over(winner, game.win_reason, co))
    post_surviving_wills(tx)  # the survivors' wills: nothing is hidden any more
    link_from_banner(tx, tx.phase, replace=True)
    emit(
        tx,
        "game_finished",
        {
            "winner": winner,
            "reason": game.win_reason,
            "co_winners": [slot_ref(tx.locked.slot(i)) for i in game.co_winners],
            "slots": [slot_roles(s) for s in tx.slots],
        },
    )
    # Side domains that follow ends (a league series starts its next game) hear of it once
    # the end is committed (``games.hooks.on_game_finished``).
    transaction.on_commit(partial(hooks.game_finished, game.pk))


def check_inactivity(tx: Tx) -> None:
    """Prod living players below the posting minimum; repeat offenders get the host's action.

    At a table the posts are the turns' and cannot be more than the turns allow, so there
    the minimum means "did anything at all": a player who let every turn and their vote run
    out on the timer (nothing posted, passed, nominated, voted or even tried) gets the prod.
    """
    game, phase = tx.game, tx.current
    if not game.min_posts_per_day:
        return
    counts = dict(
        Post.objects.filter(game=game, phase=phase, thread=Thread.PUBLIC, slot__isnull=False)
        .values_list("slot_id")
        .annotate(n=Count("id"))
    )
    away = away_slot_ids(game, tx.now.date())  # V/LA: no prod for a day away
    acted = set(table.load(phase).acted) if phase.is_table_day else None
    # (A vote is a post too: the vote button posts it.) A league game acts at once.
    limit = LEAGUE_SILENT_DAYS if game.league_setup else PRODS_BEFORE_ACTION
    for slot in tx.locked.alive:
        posts = counts.get(slot.pk, 0)
        if slot.pk in away:
            continue
        if acted is not None:
            if slot.resolver_name in acted:
                continue
        elif posts >= game.min_posts_per_day:
            continue
        slot.prods += 1
        slot.save(update_fields=["prods"])
        payload = {
            **slot_ref(slot),
            "posts": posts,
            "required": game.min_posts_per_day,
            "prods": slot.prods,
        }
        emit(tx, "prod", payload, f"slot:{slot.pk}")
        emit(tx, "prod", payload, "host")
        if slot.prods < limit:
            continue
        if game.inactivity_action == InactivityAction.MODKILL:
            do_modkill(tx, slot, INACTIVITY_REASON, inactivity=True)
        elif replace_from_queue(tx, slot):  # the next in the queue takes the slot
            continue
        elif game.league_setup:  # no host to find someone: the seat cannot stay silent
            do_modkill(tx, slot, INACTIVITY_REASON, inactivity=True)
        else:
            emit(tx, "replacement_needed", payload, "host")


def do_modkill(tx: Tx, slot: Slot, reason: str, *, inactivity: bool = False) -> None:
    """Remove ``slot``'s player from the game. ``inactivity``: the site's inactivity rule
    does it (not the host's word): the event carries the mark the player's record, the
    ratings and the league's cooldown read (``games.inactivity.INACTIVITY_MODKILL``)."""
    if inactivity:
        leave_league_queues(slot.user_id)
    state = gateway.remove_player(tx.game, slot)
    tx.game.resolver_state = state.to_dict()
    tx.game.save(update_fields=["resolver_state"])
    kill(tx, slot, DeathCause.MODKILL, "")
    if tx.phase is not None and not tx.phase.resolved:
        NightAction.objects.filter(phase=tx.phase, actor=slot).delete()
    with in_game_language(tx.game):
        announce(tx, announcements.modkilled(slot, reason))
    post_wills(tx, [slot])
    link_from_banner(tx, tx.phase, replace=False)
    mark = {"inactivity": True} if inactivity else {}
    emit(tx, "modkill", {**slot_ref(slot), "reason": reason, **mark})
    if tx.phase is not None and tx.phase.is_day and not tx.phase.resolved:
        emit_vote_count(tx)
    if tx.phase is not None and tx.phase.is_table_day and not tx.phase.resolved:
        # The day script learns of the death: no more turns or ballot for the player, and
        # nothing waits for them; that may be what ends the day.
        if not table.done(tx.phase):
            table.apply(tx, {"kind": "removed", "player": slot.resolver_name}, timer=True)
        if table.done(tx.phase):
            end_table_day(tx)
            return
    # Mid-phase the game can end here; at a phase end the caller checks the win after.
    if tx.phase is not None and not tx.phase.resolved:
        check_win(tx)
