"""Who the host should replace: the read side of the inactivity rule (and of a moderator's
suspension or ban).

The rule itself runs inside the day's transition (``services.phases.check_inactivity``, so it
happens exactly once per day, hammer or deadline): every living player with fewer posts in
the game thread that day than ``Game.min_posts_per_day`` gets a prod, a private notice
stored in the game's event log (``GameEvent`` kind ``prod`` to ``slot:<id>``, a copy to the
host) and pushed live to their socket; ``Slot.prods`` counts them. At the second prod the
host's choice applies: ``modkill`` kills the slot then and there (reason "inactivity"), and
``replace`` posts ``replacement_needed`` to the host and leaves the slot flagged, as below,
until the host replaces the player (which resets the count).

The rule's modkill is told apart from a host's own (whose reason is free text: a host may
well type "inactivity") by the ``inactivity`` mark of its ``modkill`` event
(``INACTIVITY_MODKILL``). It is a mark on the player's record, ranks the seat below every
other seat in the ratings and keeps the player out of the league for a while
(``reads.reliability``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import F, Q, TextChoices
from django.utils.translation import gettext_lazy as _

from .models import (
    PRODS_BEFORE_ACTION,
    AltStatus,
    Game,
    GameEvent,
    InactivityAction,
    Replacement,
    Slot,
)

# A seat held by an approved alternate of the game's host or of another of its players:
# two accounts of one person never play one game, so the later account (an alternate
# beside its main, or the later approved of two alternates) gives its seat up
# (``services.moderation.decide_alt``, which also withdraws such a sign-up).
_ALT = "user__alt_declaration__"
BESIDE_ANOTHER_ACCOUNT = Q(**{f"{_ALT}status": AltStatus.APPROVED}) & (
    Q(game__host_id=F(f"{_ALT}main_id"))
    | Q(game__slots__user_id=F(f"{_ALT}main_id"))
    | Q(
        **{
            f"game__slots__{_ALT}main_id": F(f"{_ALT}main_id"),
            f"game__slots__{_ALT}status": AltStatus.APPROVED,
            f"game__slots__{_ALT}decided_at__lt": F(f"{_ALT}decided_at"),
        }
    )
)
# A living seat the host should fill: prodded past the limit in a game whose rule is to
# replace, held by an account taken off the site (a suspension or a ban:
# ``services.moderation``), or beside another account of its person. The dashboard and
# "my games" both ask this (``.distinct()``: the last test joins the game's seats).
NEEDS_REPLACEMENT = (
    Q(user__is_active=False)
    | Q(game__inactivity_action=InactivityAction.REPLACE, prods__gte=PRODS_BEFORE_ACTION)
    | BESIDE_ANOTHER_ACCOUNT
)


# The ``modkill`` events the inactivity rule made (a filter on ``GameEvent``). A league game
# has no host, so there a modkill for "inactivity" is the rule's even from before the mark.
INACTIVITY_MODKILL = Q(kind="modkill") & (
    Q(payload__inactivity=True) | (Q(payload__reason="inactivity") & ~Q(game__league_setup=""))
)


def holder_at(at: datetime, slot: Slot, replacements: Iterable[Replacement]) -> int:
    """The user who held ``slot`` at ``at``, given the slot's ``replacements``: a host may
    replace a seat after it died, and the newcomer did not earn what happened before (the
    first replacement made after ``at`` names the one it replaced)."""
    later = sorted((r for r in replacements if r.at > at), key=lambda r: (r.at, r.pk))
    return later[0].old_user_id if later else slot.user_id


def inactivity_modkilled(game: Game) -> set[int]:
    """The ids of the slots of ``game`` the inactivity rule modkilled."""
    events = GameEvent.objects.filter(INACTIVITY_MODKILL, game=game)
    return {payload["slot_id"] for payload in events.values_list("payload", flat=True)}


def needs_replacement(game: Game, slot: Slot) -> bool:
    """True when the host should find a replacement for this slot (for the dashboard)."""
    return game.is_running and game.slots.filter(NEEDS_REPLACEMENT, pk=slot.pk, alive=True).exists()


class ReplacementReason(TextChoices):
    """Why the host should replace a seat (``slots_needing_replacement``); the label is
    what the host's dashboard says of it."""

    REMOVED = "removed", _("taken off the site by its moderators")
    ANOTHER_ACCOUNT = "another account", _("another account of a person already in this game")
    INACTIVE = "inactive", _("inactive (prodded twice)")


def slots_needing_replacement(game: Game) -> list[Slot]:
    """``NEEDS_REPLACEMENT``'s seats of a running game, each with its
    ``replacement_reason`` (a ``ReplacementReason``)."""
    if not game.is_running:
        return []
    seats = list(
        game.slots.filter(NEEDS_REPLACEMENT, alive=True)
        .distinct()
        .select_related("user")
        .order_by("seat")
    )
    beside = set(game.slots.filter(BESIDE_ANOTHER_ACCOUNT, alive=True).values_list("pk", flat=True))
    for slot in seats:
        slot.replacement_reason = (  # type: ignore[attr-defined]
            ReplacementReason.REMOVED
            if not slot.user.is_active
            else ReplacementReason.ANOTHER_ACCOUNT
            if slot.pk in beside
            else ReplacementReason.INACTIVE
        )
    return seats
