"""The low-level slot swap every replacement shares (the host's replace, the replacement
queue's next in line, the site's own replacement after the prod limit)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from .. import hooks, naming
from ..i18n import in_game_language
from ..markup import escape_markdown
from ..models import Replacement, ReplacementSignup, Slot
from ..reads.access import host_ids
from ..reads.moderation import same_person
from .announcements import announce, name
from .ballots import emit_vote_count
from .common import Tx, emit, role_pm


def do_replace(tx: Tx, slot: Slot, new_user: Any) -> None:
    """``new_user`` takes over ``slot`` (checked by the caller); the slot keeps its history."""
    game = tx.game
    old = slot.user
    Replacement.objects.create(
        slot=slot, old_user=old, new_user=new_user, phase_number=game.phase_number
    )
    slot.user = new_user
    slot.prods = 0
    slot.save(update_fields=["user", "prods"])
    tx.names = naming.seat_names(tx.slots)
    old_name, new_name = old.get_username(), new_user.get_username()
    if naming.masked(slot):
        # An anonymous game: the seat keeps its masked name and neither account is named.
        old_name = new_name = slot.display_name
        with in_game_language(game):
            announce(tx, _("**A new player takes over %(name)s.**") % {"name": name(slot)})
    else:
        # As forum hosts do: the thread says who replaces whom (old posts keep their name).
        with in_game_language(game):
            said = _("**%(new)s replaces %(old)s.**")
            announce(tx, said % {"new": name(slot), "old": escape_markdown(old_name)})
    emit(
        tx,
        "replaced",
        {
            "slot_id": slot.pk,
            "seat": slot.seat,
            "old_name": old_name,
            "new_name": new_name,
            "old_user_id": old.pk,
        },
    )
    emit(tx, "role_pm", role_pm(slot, tx.slots), f"slot:{slot.pk}")
    if game.phase_number and tx.phase is not None and tx.phase.is_day:
        emit_vote_count(tx)


def replace_from_queue(tx: Tx, slot: Slot) -> bool:
    """Swap the first usable user of the queue into ``slot``; False if the queue is empty.

    A league game's queue is its setup's matchmaking queue (the league app's, through
    ``hooks.replace_in_league_game``)."""
    if tx.game.league_setup:
        return hooks.replace_in_league_game(tx, slot)
    for signup in ReplacementSignup.objects.filter(game=tx.game).select_related("user"):
        signup.delete()
        if not may_take_a_seat(tx, signup.user):
            continue  # joined the game some other way meanwhile, or off the site
        do_replace(tx, slot, signup.user)
        return True
    return False


def may_take_a_seat(tx: Tx, user: Any) -> bool:
    """An active account none of whose person's accounts (``same_person``) holds a seat in
    the game or hosts it."""
    if not user.is_active:
        return False
    theirs = same_person(user.pk)
    hosts = host_ids(tx.game)
    return not (hosts & theirs) and not any(s.user_id in theirs for s in tx.slots)
