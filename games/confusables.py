"""Look-alike names: "\u0440l7" (a Cyrillic "\u0440") beside "pl7" is an impersonation tool
in a game about deception.

Two names are confusable when their skeletons are equal. The skeleton follows Unicode's
UTS #39 (section 4): decompose (NFD), map every character to the prototype of its
confusable class, decompose again; here also case-folded and without whitespace and
invisible (format) characters, since "Alice", "alice" and "a lice" look alike in a
thread too. The classes come from Unicode's confusables data as the
``confusable-homoglyphs`` package ships it (a character and its homoglyphs); each class's
prototype is its ASCII member when it has one. Multi-character look-alikes ("rn" for "m")
are left out: the data lists them per character only.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

from .naming import fold


@functools.cache
def _prototypes() -> dict[str, str]:
    """Every single character of the confusables data -> its class's prototype."""
    raw = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, glyphs in raw.items():
        char = char.strip("\u200e")
        if len(char) != 1:
            continue
        for glyph in glyphs:
            other = glyph["c"].strip("\u200e")
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[a] = b
    classes: dict[str, list[str]] = {}
    for char in parent:
        classes.setdefault(find(char), []).append(char)
    prototypes = {}
    for members in classes.values():
        # ASCII first (lower case first: the skeleton is case-folded afterwards anyway).
        best = min(members, key=lambda c: (not c.isascii(), not c.islower(), c))
        prototypes.update(dict.fromkeys(members, best))
    return prototypes


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons, confusable names."""
    table = _prototypes()

    def mapped(text: str) -> str:
        out = []
        for char in unicodedata.normalize("NFD", text):
            if char.isspace() or unicodedata.category(char) in ("Cf", "Cc", "Mn"):
                continue  # invisible, or an accent: "é" reads as "e" at a glance
            out.append(table.get(char, char))
        return "".join(out)

    # Mapped before and after case-folding: "I" looks like "l" (not like "i"), and the
    # Greek capital beta folds to a small beta but looks like "B".
    return unicodedata.normalize("NFD", mapped(mapped(name).casefold()))


def confusable_with(name: str, existing: list[str]) -> str | None:
    """The first of ``existing`` that ``name`` could be mistaken for, or None: it looks the
    same, or it is typed the same (``naming.fold``, how votes and lookups find a name)."""
    target, typed = skeleton(name), fold(name)
    return next(
        (other for other in existing if skeleton(other) == target or fold(other) == typed),
        None,
    )
