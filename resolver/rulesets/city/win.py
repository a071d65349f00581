"""Layer 4, the corrected win predicate: a check over the living counts, night and day.

M = living mafia (Don included), K = living Maniac, R = living reds. The Maniac is not
mafia for parity: the Mafia win when M >= everyone else alive, the Maniac counted.
"""

from __future__ import annotations

from ...model import GameState, Verdict
from ...text import pgettext


def check_winner(state: GameState) -> Verdict:
    alive = state.alive
    m = sum(p.alignment == "mafia" for p in alive)
    k = sum(p.alignment == "maniac" for p in alive)
    r = sum(p.alignment == "town" for p in alive)
    if m == 0 and k == 0:
        return Verdict("town", pgettext("city win reason", "all-blacks-out"))
    if m > 0 and m >= len(alive) - m:
        if k == 0:
            return Verdict("mafia", pgettext("city win reason", "mafia-parity"))
        if not state.flags["maniacWinBeatsParity"]:
            # P1: a Maniac facing the Mafia is a draw scored as a black win.
            return Verdict(
                "mafia",
                pgettext("city win reason", "mafia-maniac-standoff")
                if r == 0
                else pgettext("city win reason", "mafia-parity"),
            )
        if m == 1 and r == 0:
            # Flag on: the Maniac's win beats parity, so the 1-on-1 goes to the Maniac
            # (else the standoff could only end in a double kill).
            return Verdict("maniac", pgettext("city win reason", "mafia-maniac-standoff"))
    if m == 0 and k == 1 and r <= 1:
        return Verdict("maniac", pgettext("city win reason", "maniac-last-black"))
    return Verdict(None)
