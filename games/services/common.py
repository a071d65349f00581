"""What every service module shares: the game transaction, events, look-ups and checks.

Every public service function runs inside ``game_tx``: ONE ``transaction.atomic()`` that
takes the row locks in the fixed order of ``games.locks`` (game row, then its slots, then
its current phase). Rule checks raise a ``GameRuleError`` whose message a player can read
and which never reveals hidden information. Writes append ``GameEvent`` rows (``emit``);
the live layer gets them only after the commit (``notify``), so a rolled-back change is
never announced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import gateway, hooks, naming
from ..errors import ErrorCode, InvalidInput, NotAllowed, WrongPhase
from ..event_kinds import check_emit
from ..gateway import GameState, Rules
from ..live import publisher
from ..live.inbox import publish_inbox, publish_inbox_on_commit
from ..locks import Locked, lock_all
from ..models import MAX_PHASE_LENGTH as _MAX_PHASE_LENGTH
from ..models import MIN_PHASE_LENGTH as _MIN_PHASE_LENGTH
from ..models import PRODS_BEFORE_ACTION as _PRODS_BEFORE_ACTION
from ..models import (
    Admits,
    Agent,
    Game,
    GameEvent,
    GameStatus,
    Phase,
    PhaseKind,
    Slot,
    Vote,
)
from ..naming import slot_ref
from ..outage import OUTAGE_ERRORS
from ..reads import policy
from ..reads.access import host_ids, is_host
from ..reads.moderation import same_person
from ..reads.role_pm import role_pm as role_pm  # re-exported: the services' role PM event

MIN_PHASE_LENGTH = _MIN_PHASE_LENGTH
MAX_PHASE_LENGTH = _MAX_PHASE_LENGTH


MAX_POST_LENGTH = 20_000


# A tied day's revote (classic, city) gets a quarter of the day, at least five minutes.
MIN_REVOTE_LENGTH = timedelta(minutes=5)


# Prods before the host's inactivity action applies: ``models.PRODS_BEFORE_ACTION``.
PRODS_BEFORE_ACTION = _PRODS_BEFORE_ACTION


@dataclass
class Tx:
    """What one service call holds: the locked rows and where its events start."""

    locked: Locked
    now: datetime
    first_seq: int
    names: dict[int, str] = field(default_factory=dict)
    # Standing votes read in this transaction (by revote flag); cleared when a vote is written.
    standing: dict[bool, dict[int, Vote]] = field(default_factory=dict)
    # Numbers of the announcements posted in this transaction (the banner links them).
    announced: list[int] = field(default_factory=list)
    # ``game_tx`` writes the game's event_seq once, at the end, instead of once per event:
    # fewer queries while the game row is locked (nobody else reads it before the commit).
    defer_seq: bool = False
    # Set by a service that writes nothing but posts (a plain post, no vote in it); any
    # event other than a post's then still counts as a change of state (``Game.state_seq``).
    only_posts: bool = False
    state_changed: bool = False
    # The first event row written: its existence after a failed COMMIT says whether the
    # transaction committed anyway (``game_tx``).
    first_event_pk: int | None = None
    # The events written, for what side domains write with them (``hooks.on_events``).
    events: list[GameEvent] = field(default_factory=list)
    # The people those notifications went to (their bells are redrawn after the commit).
    told: set[int] = field(default_factory=set)
    # Side domains' notes for the rest of this transaction (``hooks.on_announcement``'s
    # listeners: e.g. whether the game has a chat webhook, looked up once).
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> Game:
        return self.locked.game

    @property
    def phase(self) -> Phase | None:
        return self.locked.phase

    @property
    def current(self) -> Phase:
        """``phase`` where the caller knows there is one (a phase's end, a vote, a turn: the
        service checked before), typed so; None there is a bug, said as one."""
        phase = self.locked.phase
        if phase is None:
            raise RuntimeError("This service needs the game's current phase; it has none.")
        return phase

    @property
    def slots(self) -> list[Slot]:
        return self.locked.slots


@contextmanager
def game_tx(game_id: int, now: datetime | None = None) -> Iterator[Tx]:
    committing = False
    tx: Tx | None = None
    try:
        with transaction.atomic():
            locked = lock_all(game_id)
            tx = Tx(locked, now or timezone.now(), locked.game.event_seq + 1, defer_seq=True)
            tx.names = naming.seat_names(locked.slots)
            yield tx
            game = tx.game
            if tx.events:  # e.g. the notifications (a side domain), written with the change
                tx.told |= hooks.events_written(tx)
            # Their bells, after the commit: also notes written without an event (the
            # reminder sweep's "still missing"), which no event's fan-out would push.
            if tx.told:
                publish_inbox_on_commit(tx.told)
            if game.event_seq >= tx.first_seq:
                if tx.state_changed or not tx.only_posts:
                    game.state_seq = game.event_seq
                Game.objects.filter(pk=game.pk).update(
                    event_seq=game.event_seq, state_seq=game.state_seq
                )
                notify(game.pk, tx.first_seq)
            committing = True
    except OUTAGE_ERRORS:
        # The connection broke at COMMIT: the server may have committed before the reply
        # was lost. Answering "nothing was changed" to a committed vote makes bots vote
        # twice, so look: our first event row exists only if it committed.
        # (Inside an outer transaction there was no COMMIT, only a savepoint.)
        outermost = not connection.in_atomic_block
        if not (committing and outermost and tx is not None and _committed_after_all(tx)):
            raise
        publisher.publish_events(game_id, tx.first_seq)  # its on_commit hook never ran
        publish_inbox(tx.told)


def _committed_after_all(tx: Tx) -> bool:
    if tx.first_event_pk is None:
        return False  # nothing to recognise it by: say it failed, as it most likely did
    with contextlib.suppress(Exception):
        connection.close()  # the broken connection; the query below opens a new one
    try:
        return GameEvent.objects.filter(pk=tx.first_event_pk).exists()
    except OUTAGE_ERRORS:
        return False  # the database is still away: we cannot know, so say it failed


def notify(game_id: int, from_seq: int) -> None:
    transaction.on_commit(partial(publisher.publish_events, game_id, from_seq))


def emit(tx: Tx, kind: str, payload: dict[str, Any], audience: str = "public") -> GameEvent:
    """Append one event to the game's log (the caller holds the game row lock).

    ``kind`` must be declared in ``games.event_kinds`` for ``audience``: anything else is
    a programming error (``UndeclaredEvent``), raised before anything is written."""
    declared = check_emit(kind, audience)
    game = tx.game
    game.event_seq += 1
    if declared.changes_game:
        tx.state_changed = True
    if not tx.defer_seq:
        game.state_seq = game.event_seq
        Game.objects.filter(pk=game.pk).update(event_seq=game.event_seq, state_seq=game.state_seq)
    event = GameEvent.objects.create(
        game=game, seq=game.event_seq, kind=kind, audience=audience, payload=payload
    )
    if tx.first_event_pk is None:
        tx.first_event_pk = event.pk
    tx.events.append(event)
    return event


def rules_of(game: Game) -> Rules:
    try:
        return gateway.rules_named(game.ruleset)
    except ImportError:  # a rule set module still being written
        raise InvalidInput(
            _("The %(ruleset)s rule set is not available on this server yet.")
            % {"ruleset": game.ruleset},
            ErrorCode.NO_RULESET,
        ) from None


def state_of(game: Game) -> GameState:
    return gateway.state_of(game)


def render(tx: Tx, value: Any) -> Any:
    return naming.render_value(value, tx.names)


def by_resolver_name(tx: Tx, name: str) -> Slot | None:
    seat = naming.seat_of(name)
    return tx.locked.slot_at(seat) if seat is not None else None


def require_host(user: Any, game: Game) -> None:
    """The host or one of its co-hosts (``reads.access.is_host``)."""
    if not is_host(game, user):
        raise policy.NOT_HOST.error()


def require_admitted(game: Game, user: Any, *, you: bool = True, field: str | None = None) -> None:
    """The game's ``admits`` lets ``user`` take a seat: a person in a game for agents only,
    or an agent in a game for people only, is refused (``you``: the user acts themselves;
    otherwise the host names them)."""
    if game.admits == Admits.BOTH:
        return
    agent = Agent.objects.filter(user_id=user.pk).exists()
    who = {"name": user.get_username()}
    if game.admits == Admits.PEOPLE and agent:
        if you:
            message = _("Agents may not play in this game: it admits people only.")
        else:
            message = (
                _("%(name)s is an agent: may not play in this game: it admits people only.") % who
            )
        raise NotAllowed(message, ErrorCode.ADMITS, field)
    if game.admits == Admits.AGENTS and not agent:
        if you:
            message = _("Only agents may play in this game.")
        else:
            message = _("%(name)s is not an agent: only agents may play in this game.") % who
        raise NotAllowed(message, ErrorCode.ADMITS, field)


def require_one_seat_per_person(
    tx: Tx, user: Any, *, you: bool = True, field: str | None = None
) -> None:
    """No two accounts of one person (a main and its approved alternates) in one game, as
    players or as its host."""
    others = same_person(user.pk) - {user.pk}
    if not others:
        return
    if host_ids(tx.game) & others or any(s.user_id in others for s in tx.slots):
        if you:
            message = _("Another account of yours is in this game already.")
        else:
            message = _("Another account of %(name)s is in this game already.") % {
                "name": user.get_username()
            }
        raise NotAllowed(message, ErrorCode.SAME_PERSON, field)


def require_running(game: Game) -> None:
    if game.status == GameStatus.SIGNUPS:
        raise WrongPhase(_("The game has not started yet."), ErrorCode.NOT_STARTED)
    if game.status == GameStatus.FINISHED:
        raise WrongPhase(_("The game is over."), ErrorCode.GAME_OVER)
    if game.status == GameStatus.CANCELLED:
        raise WrongPhase(_("The host cancelled this game."), ErrorCode.CANCELLED)


def require_player(tx: Tx, user: Any, *, alive: bool = True) -> Slot:
    slot = tx.locked.slot_of_user(getattr(user, "pk", None))
    if slot is None:
        raise NotAllowed(_("You are not playing in this game."), ErrorCode.NOT_PLAYER)
    if alive and not slot.alive:
        raise NotAllowed(_("You are dead: dead players take no further part."), ErrorCode.DEAD)
    return slot


# What an act of each kind of phase is told in another.
ONLY_IN = {
    PhaseKind.DAY: (gettext_lazy("That can only be done during the day."), ErrorCode.NOT_DAY),
    PhaseKind.NIGHT: (gettext_lazy("That can only be done at night."), ErrorCode.NOT_NIGHT),
}


def require_open_phase(tx: Tx, kind: str) -> Phase:
    """The phase a player's act belongs to: current, unresolved, of ``kind``, not paused
    and not past its deadline (every player's act goes through here)."""
    phase = tx.phase
    if phase is None or phase.resolved:
        raise WrongPhase(_("There is no phase in progress."), ErrorCode.NO_PHASE)
    if phase.kind != kind:
        only, code = ONLY_IN[PhaseKind(kind)]
        raise WrongPhase(str(only), code)
    if phase.is_paused:
        raise WrongPhase(_("The game is paused."), ErrorCode.PAUSED)
    if phase.deadline is not None and tx.now >= phase.deadline:
        # The deadline is the rule, whatever the timer's lag: an act after it is refused,
        # and the timer task ends the phase (or applies a table's default) as usual.
        if not phase.is_day:
            message = _("The night ended: its deadline has passed.")
        elif tx.game.turn_based:
            message = _("The turn ended: its deadline has passed.")
        else:
            message = _("The day ended: its deadline has passed.")
        raise WrongPhase(message, ErrorCode.TURN_ENDED)
    return phase


def target_slot(tx: Tx, slot_id: Any) -> Slot:
    slot = tx.locked.slot(slot_id) if isinstance(slot_id, int) else None
    if slot is None:
        raise InvalidInput(
            _("There is no such player in this game."), ErrorCode.NO_PLAYER, "target"
        )
    return slot


def slot_roles(slot: Slot) -> dict[str, Any]:
    return {
        **slot_ref(slot),
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "sanity": slot.sanity,
        "alive": slot.alive,
    }
