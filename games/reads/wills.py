"""Last wills as their writer and the host see them (the ``last_wills`` variant): the role
PM's will form, the API's ``will/`` and the host's list read them here. Nobody else reads
a will before the thread gets it at its writer's death (``services.wills``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..gateway import rules_named
from ..models import Game, Slot
from .policy import will_refusal

MAX_WILL_LENGTH = 2_000


def will_hidden(slot: Slot) -> bool:
    """The dead player's will is hidden with their role: a janitor cleaned them (their role
    is revealed as "unknown" where the rules reveal roles at death at all; city and classic
    reveal none, so their "unknown" hides nothing)."""
    if slot.alive:
        return False
    rules = rules_named(slot.game.ruleset)
    return rules.reveals_roles_on_death and slot.revealed_role == "unknown"


@dataclass(frozen=True)
class Will:
    """One seat's will as its writer (or the host) sees it."""

    slot: Slot
    text: str
    updated_at: datetime | None
    editable: bool  # alive in a running game of last wills: the form is open
    # What became of it: "kept" (its writer lives), "posted" (at the death), "hidden" (a
    # cleaned death: the thread was told none could be found).
    fate: str
    max_length: int = MAX_WILL_LENGTH

    @classmethod
    def of(cls, game: Game, slot: Slot) -> Will:
        fate = "kept" if slot.alive else "hidden" if will_hidden(slot) else "posted"
        return cls(
            slot=slot,
            text=slot.will,
            updated_at=slot.will_updated_at,
            editable=will_refusal(game, slot) is None,
            fate=fate,
        )


def will_of(game: Game, slot: Slot) -> Will | None:
    """The seat's will, or None in a game without last wills."""
    return Will.of(game, slot) if game.last_wills else None


def wills_for_host(game: Game) -> list[Will]:
    """Every seat's will, in seat order (the host reads them all), once the game started."""
    if not game.last_wills or not (game.is_running or game.is_finished):
        return []
    return [Will.of(game, s) for s in game.slots.select_related("user").order_by("seat")]
