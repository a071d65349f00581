"""Turns at the table (city, classic, power days): speeches, passes, nominations, votes.

Each service is one transaction under the game's row locks: the event goes to the day
script (``resolver.days``) through ``table.apply``, which stores the new state, moves the
turn's clock and publishes the change; when the script says the day is done, the day ends
(``phases.end_table_day``) in the same transaction. A refused attempt is stored (classic
counts three of them before its default applies) and only then reported to the player, so
the refusal itself is never rolled back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from games.i18n import in_language_of

from ..errors import ErrorCode, GameRuleError, InvalidInput, WrongPhase
from ..gateway import SKIP, DayRuleError
from ..models import Phase, PhaseKind, Slot, ThoughtAct, Thread
from ..reads.options import self_vote_refusal
from ..reads.policy import require_host_control
from . import table
from .common import (
    Tx,
    emit,
    game_tx,
    require_open_phase,
    require_player,
    require_running,
    target_slot,
)
from .phases import end_table_day
from .thoughts import check_thoughts, keep_thoughts
from .thread import PostResult, do_post


def in_table_day(tx: Tx) -> bool:
    """Is the locked game in a turn-based day right now?"""
    phase = tx.phase
    return bool(
        tx.game.is_running and phase and phase.is_day and not phase.resolved and phase.is_table_day
    )


def table_post(
    tx: Tx, user: Any, slot: Slot, body: str, to: int | None = None
) -> tuple[PostResult, GameRuleError | None]:
    """A player's post in the game thread during a table day: a turn taken (or refused).

    Returns what it did (``post`` None when it was only skip-discussion lines; then
    ``table_note`` says what they did) and the refusal to raise after the commit, if any.
    A skip-discussion line is part of the speaker's message: it counts before the message
    ends the turn, and not at all when the message itself is refused.
    """
    require_open_phase(tx, PhaseKind.DAY)  # paused, or past the turn's deadline: refused
    player = slot.resolver_name
    script = table.table_script(tx.game)
    body, tokens = script.split_post(body or "")
    has_text = bool((body or "").strip())
    if not has_text and not tokens:
        raise InvalidInput(_("The post is empty."), ErrorCode.EMPTY, "body")
    before = table.load(tx.current)
    event: dict[str, Any] = {"kind": "post", "player": player, "words": len(body.split())}
    addressee = None
    if before.step == "question":
        addressee = target_slot(tx, to) if to is not None else None
        event["target"] = addressee.resolver_name if addressee is not None else None
    note = ""
    if tokens and (not has_text or _accepted(script, before, event)):
        for token_event in script.token_events(before, player, tokens):
            refused = table.apply(tx, token_event)
            if refused:
                return PostResult(None), refused
        note = _skip_discussion_note(tx, script, player, before)
    post = None
    if has_text:
        if table.load(tx.current).step == before.step:
            refused = table.apply(tx, event)
            if refused:
                return PostResult(None), refused
        # else: its own line ended the discussion; the message is still the speaker's.
        post = do_post(tx, user, slot, body, Thread.PUBLIC, to=addressee)
        if addressee is not None:
            with in_language_of(addressee.user):  # told to them alone
                text = _("%(name)s asked you a question (post #%(number)s).") % {
                    "name": slot.display_name,
                    "number": post.number,
                }
            emit(tx, "turn_notice", {"kind": "question", "text": text}, f"slot:{addressee.pk}")
    _end_if_done(tx)
    return PostResult(post, table_note=note), None


def _accepted(script: Any, state: Any, event: dict[str, Any]) -> bool:
    """Would the script take this post now? (A dry run: the script is pure.)"""
    try:
        script.apply(state, event)
    except DayRuleError:
        return False
    return True


def _skip_discussion_note(tx: Tx, script: Any, player: str, before: Any) -> str:
    """What a post's skip-discussion line did, in words (the answer says it)."""
    after = table.load(tx.current)
    if after.step != before.step:
        return _("A majority voted to end the discussion: the vote begins.")
    counts = {"votes": len(after.skip_discussion), "needed": script.skip_discussion_needed(after)}
    if player in after.skip_discussion:
        if player in before.skip_discussion:
            text = _("You already vote to end the discussion (%(votes)s of the %(needed)s needed).")
        else:
            text = _("Your vote to end the discussion counts (%(votes)s of the %(needed)s needed).")
    elif player in before.skip_discussion:
        text = _(
            "You took back your vote to end the discussion (%(votes)s of the %(needed)s needed)."
        )
    else:
        text = _(
            "You had no vote to end the discussion to take back "
            "(%(votes)s of the %(needed)s needed)."
        )
    return text % counts


def pass_turn(user: Any, game_id: int, *, thoughts: str = "", now: datetime | None = None) -> None:
    """End your turn without a post (a power question or statement, a defense, last words)."""
    thoughts = check_thoughts(thoughts)
    with game_tx(game_id, now) as tx:
        slot, phase = _table_player(tx, user)
        refused = table.apply(tx, {"kind": "pass", "player": slot.resolver_name})
        if refused is None:
            keep_thoughts(tx, slot, ThoughtAct.PASS, thoughts, phase=phase)
        _end_if_done(tx)
    if refused:
        raise refused


def table_nominate(tx: Tx, slot: Slot, target_slot_id: int | None) -> GameRuleError | None:
    """Classic: the speaker's nomination (a slot id, or None for skip on day 1)."""
    target = SKIP if target_slot_id is None else target_slot(tx, target_slot_id).resolver_name
    refused = table.apply(tx, {"kind": "nominate", "player": slot.resolver_name, "target": target})
    _end_if_done(tx)
    return refused


def table_vote(tx: Tx, slot: Slot, target_slot_id: int | None) -> GameRuleError | None:
    """A ballot in the table's concurrent vote; nobody sees it until the vote closes. The
    game's self-vote setting holds at the table too (issue 33: a power or city table took
    a self-vote where the game said ``self_vote_allowed: false``)."""
    target = SKIP if target_slot_id is None else target_slot(tx, target_slot_id).resolver_name
    if not tx.game.self_vote_allowed:
        refused = self_vote_refusal(slot.pk, target_slot_id)
        if refused is not None:
            return refused
    refused = table.apply(tx, {"kind": "vote", "player": slot.resolver_name, "target": target})
    _end_if_done(tx)
    return refused


def skip_speaker(user: Any, game_id: int, *, now: datetime | None = None) -> None:
    """The host ends the current turn (or closes the vote): the rules' default applies."""
    with game_tx(game_id, now) as tx:
        require_host_control(tx.game, user, "skip_turn", tx.phase)
        table.apply(tx, {"kind": "timeout"}, timer=True)
        _end_if_done(tx)


def _table_player(tx: Tx, user: Any) -> tuple[Slot, Phase]:
    """A living player's slot and the table day they act in."""
    require_running(tx.game)
    slot = require_player(tx, user)
    phase = require_open_phase(tx, PhaseKind.DAY)
    if not in_table_day(tx):
        raise WrongPhase(
            _("This game's day is a free thread: there are no turns."), ErrorCode.NO_TURN
        )
    return slot, phase


def _end_if_done(tx: Tx) -> None:
    if table.done(tx.current) and not tx.current.resolved:
        end_table_day(tx)
