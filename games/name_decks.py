"""The deck of masked names an anonymous game deals to its seats (``Game.anonymous_names``).

Each name is one word, distinct from the others even when folded (``naming.fold``), so a
bold vote or an ``@mention`` of a masked name finds one player; none is a prefix of
another, so a vote written short names one player or says it could mean several; and none
is a word the site writes about a game (a thread's, a role's or a phase's name).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .naming import fold

MASK_NAMES: tuple[str, ...] = (
    "Acorn",
    "Anchor",
    "Aster",
    "Badger",
    "Bramble",
    "Breeze",
    "Button",
    "Cinder",
    "Clover",
    "Comet",
    "Coral",
    "Cricket",
    "Dahlia",
    "Dune",
    "Ember",
    "Falcon",
    "Fennel",
    "Fern",
    "Finch",
    "Flint",
    "Garnet",
    "Ginger",
    "Hazel",
    "Heron",
    "Indigo",
    "Ivy",
    "Juniper",
    "Kestrel",
    "Lantern",
    "Lark",
    "Lotus",
    "Maple",
    "Meadow",
    "Nutmeg",
    "Oak",
    "Olive",
    "Otter",
    "Pebble",
    "Pepper",
    "Quill",
    "Raven",
    "Ripple",
    "Saffron",
    "Sage",
    "Sparrow",
    "Thistle",
    "Tulip",
    "Umber",
    "Velvet",
    "Willow",
    "Wren",
    "Yarrow",
    "Zephyr",
    "Basil",
    "Cobalt",
    "Jasper",
    "Moss",
    "Nimbus",
    "Puffin",
    "Tansy",
)
assert len({fold(n) for n in MASK_NAMES}) == len(MASK_NAMES), "mask names fold alike"
assert not [
    (a, b) for a in MASK_NAMES for b in MASK_NAMES if a != b and fold(b).startswith(fold(a))
], "a mask name is the prefix of another"


def deal_masks(seed: int, count: int, taken: Iterable[str] = ()) -> list[str]:
    """``count`` distinct names from the deck, dealt from the game's seed (its own stream,
    so the roles' and the seats' deals stay what the seed made them). Names ``taken`` by
    accounts are left out while the deck has enough without them: a mask that is also an
    account's name would get that account's agent badge, or be taken for that person."""
    if count > len(MASK_NAMES):
        raise ValueError(f"The deck has {len(MASK_NAMES)} names; {count} asked for.")
    folded = {fold(name) for name in taken}
    deck = [name for name in MASK_NAMES if fold(name) not in folded]
    return random.Random(f"masks:{seed}").sample(deck if len(deck) >= count else MASK_NAMES, count)
