"""Who the host should replace: the read side of the inactivity rule.

The rule itself runs inside the day's transition (``services.phases.check_inactivity``, so it
happens exactly once per day, hammer or deadline): every living player with fewer posts in
the game thread that day than ``Game.min_posts_per_day`` gets a prod, a private notice
stored in the game's event log (``GameEvent`` kind ``prod`` to ``slot:<id>``, a copy to the
host) and pushed live to their socket; ``Slot.prods`` counts them. At the second prod the
host's choice applies: ``modkill`` kills the slot then and there (reason "inactivity"), and
``replace`` posts ``replacement_needed`` to the host and leaves the slot flagged, as below,
until the host replaces the player (which resets the count).
"""

from __future__ import annotations

from . import services
from .models import Game, InactivityAction, Slot


def needs_replacement(game: Game, slot: Slot) -> bool:
    """True when the host should find a replacement for this slot (for the dashboard)."""
    return (
        game.inactivity_action == InactivityAction.REPLACE
        and game.is_running
        and slot.alive
        and slot.prods >= services.PRODS_BEFORE_ACTION
    )


def slots_needing_replacement(game: Game) -> list[Slot]:
    if game.inactivity_action != InactivityAction.REPLACE or not game.is_running:
        return []
    return list(
        game.slots.filter(alive=True, prods__gte=services.PRODS_BEFORE_ACTION)
        .select_related("user")
        .order_by("seat")
    )
