"""The event kinds the delivery treats specially, derived from ``games.event_kinds``.

Nothing is listed here by hand: a kind's flags and parts are declared once in the registry.
"""

from __future__ import annotations

from ..event_kinds import KINDS, PARTS, Part, kinds_redrawing, kinds_where

# Events that carry state rather than news: a newer one replaces an older one, so they are
# outside the per-audience ``prev`` chain and may be coalesced on the way to a socket.
STATE_KINDS = kinds_where("state")
# Posts-only kinds: they do not change the game's state (``Game.state_seq``).
POST_EVENT_KINDS = frozenset(KINDS) - kinds_where("changes_game")
# Kinds that change who may see what: the hub re-checks the sockets' access on them.
ACCESS_KINDS = kinds_where("changes_access")
# On a player's own feed these speak to "you" (the host's pages show them quietly).
YOU_KINDS = kinds_where("to_you")
# Kinds whose items carry the re-rendered phase banner, with the clock it shows.
BANNER_KINDS = kinds_redrawing("phase-banner")
# kind -> the pushed parts (``PARTS``, with the item field of each) its items carry, as the
# spectators see them now. A state kind's item is its part (its ``html``: the vote count as
# of that event; a newer one follows if it changed), and carries nothing more.
CARRIED: dict[str, tuple[Part, ...]] = {
    kind.name: carried
    for kind in KINDS.values()
    if (
        carried := tuple(
            PARTS[name] for name in sorted(kind.parts) if PARTS[name].pushed and not kind.state
        )
    )
}
