"""Who has won a forum game: town, mafia or a serial killer, plus every co-winner.

mafiascum conventions, as rules over the living counts:

- **town** wins when every mafia member and every serial killer is dead;
- **mafia** win at parity (they equal or outnumber everyone else) while no serial killer
  lives; with one alive, only once they hold more than half the votes (they can then vote
  the killer out) — a living SK keeps the game going ("the game should not be called
  unless the SK has won or a group controls more than half the votes");
- a **serial killer** wins alone when no other killer (mafia or SK) lives and at most one
  other player is left: that player can no longer vote them out, and they kill at night;
- **co-winners**: every survivor alive when the game ends, and every jester the day vote
  eliminated (recorded in ``GameState.co_winners`` when it happens).
"""

from __future__ import annotations

from ...model import GameState, Verdict
from ...text import _
from .roles import MAFIA, SERIAL_KILLER, SURVIVOR


def check_winner(state: GameState) -> Verdict:
    alive = state.alive
    mafia = sum(1 for p in alive if p.alignment == MAFIA)
    killers = [p.name for p in alive if p.alignment == SERIAL_KILLER]
    others = len(alive) - mafia
    verdict = _winner(len(alive), mafia, killers, others)
    if verdict.winner is None:
        return verdict
    survivors = {p.name for p in alive if p.alignment == SURVIVOR}
    co = tuple(sorted(set(state.co_winners) | survivors))
    return Verdict(verdict.winner, verdict.reason, co)


def _winner(alive: int, mafia: int, killers: list[str], others: int) -> Verdict:
    if mafia == 0 and not killers:
        return Verdict("town", _("Every mafia member is dead."))
    if not killers and mafia >= others:
        return Verdict(
            "mafia",
            _(
                "The mafia (%(mafia)s) equal or outnumber everyone else (%(others)s): "
                "the town can no longer win a vote."
            )
            % {"mafia": mafia, "others": others},
        )
    if killers and 2 * mafia > alive:
        return Verdict(
            "mafia",
            _(
                "The mafia (%(mafia)s) hold more than half the votes (%(alive)s alive): they can "
                "vote out the serial killer."
            )
            % {"mafia": mafia, "alive": alive},
        )
    if len(killers) == 1 and mafia == 0 and alive <= 2:
        sk = killers[0]
        why = (
            _("The serial killer %(player)s is the last one standing.")
            if alive == 1
            else _(
                "The serial killer %(player)s faces a single other player, who can no longer "
                "vote them out."
            )
        )
        return Verdict(SERIAL_KILLER, why % {"player": sk})
    return Verdict(None)
