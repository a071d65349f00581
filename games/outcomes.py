"""Who won a finished game, seat by seat, and who held each seat for how long: the terms
the ratings and the statistics (side domains) both count in, said once here.
"""

from __future__ import annotations

from collections.abc import Iterable

from .models import Slot

# The two factions; any other alignment is a third party.
FACTIONS = ("town", "mafia")


def slot_won(slot: Slot, winner: str, co_winners: Iterable[int]) -> bool:
    """Town and mafia win with their faction; a third party when it is a co-winner, or of
    the winning alignment and alive at the end (the one who won, not a dead namesake)."""
    if slot.pk in set(co_winners):
        return True
    if slot.alignment in FACTIONS:
        return slot.alignment == winner
    return slot.alignment == winner and slot.alive


def holders_of(slot: Slot, phases: int) -> list[tuple[int, float]]:
    """(user id, share of the game's phases) of each person who held the slot, in order.

    A replacement made in phase k gives the newcomer phase k onwards; one made before the
    first phase (or with no phase) leaves the person replaced no share."""
    replacements = list(slot.replacements.all())
    users = [replacements[0].old_user_id if replacements else slot.user_id]
    starts = [1]
    for r in replacements:
        users.append(r.new_user_id)
        starts.append(max(1, min(r.phase_number or 1, phases + 1)))
    starts.append(phases + 1)
    shares: dict[int, float] = {}
    for i, user_id in enumerate(users):
        held = max(0, starts[i + 1] - starts[i])
        shares[user_id] = shares.get(user_id, 0.0) + held / max(phases, 1)
    # The final holder last (the order of the dict is first appearance: move it).
    last = users[-1]
    ordered = [(u, s) for u, s in shares.items() if u != last]
    return [*ordered, (last, shares[last])]
