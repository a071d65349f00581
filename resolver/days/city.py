"""The city mafia day (the graph model's Layer 5): speeches, the vote, a last word.

Day-first: the town speaks before the first night. Each day:

1. **Speeches** ("speech"): every living player speaks once in seat order, the first
   speaker one seat later each day (dead seats skipped, as in the classic rule book: the
   model only says "day starts one seat later"). A speech is one post; a player may pass.
2. **Vote** ("vote", round 1): everyone votes at once for a living player or skip. Most
   votes is out (no majority needed); skip on top means nobody.
3. **The tie ladder**: a tie sends the tied players (never skip) to speak again
   ("defense") and to a revote ("vote", round 2) among them plus skip; a tie again or skip
   on top means nobody.
4. **Last word** ("last_words") for the player voted out.

A player the Mistress visited last night (vote-immune) can be voted for, but is not
voted out: the host passes them in the ``vote_immune`` setting (``settings_for`` computes
it from the game). The counting is the rule set's own ``resolver.rulesets.city.day.resolve``,
so this script and the CLI's day resolution agree line for line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..model import SKIP, DayVotes, GameState, Player, frozen_map
from ..rulesets.city import day as rules
from ..text import _
from .base import (
    DEFENSE,
    LAST_WORDS,
    SPEECH,
    DayRuleError,
    DayScript,
    DayState,
    Out,
    in_order,
)


class CityDay(DayScript):
    name = "city"
    defaults = {"vote_immune": ()}  # living players who cannot be voted out today
    game_decided = frozenset({"vote_immune"})  # the night decides it, not the host
    first_phase = "day"
    gives_last_words = True

    def settings_from_game(self, game: GameState) -> dict[str, Any]:
        return settings_for(game)

    def check_settings(
        self, raw: Mapping[str, Any], seats: Sequence[str], alive: set[str]
    ) -> dict[str, Any]:
        immune = raw.get("vote_immune", ())
        unknown = set(raw) - {"vote_immune"}
        if unknown:
            raise DayRuleError(
                _("Unknown day setting %(setting)s (known: %(known)s).")
                % {"setting": repr(sorted(unknown)[0]), "known": "vote_immune"}
            )
        if not isinstance(immune, (list, tuple)) or not all(p in seats for p in immune):
            raise DayRuleError(_("The day setting vote_immune must be a list of players."))
        # The dead cannot be voted for anyway; keep seat order so the state is canonical.
        return {"vote_immune": [p for p in seats if p in set(immune) and p in alive]}

    # -- steps -----------------------------------------------------------------------
    def first_step(self, state: DayState, out: Out) -> DayState:
        return self.begin_turns(state, SPEECH, self.day_order(state), out)

    def step_over(self, state: DayState, out: Out) -> DayState:
        if state.step == SPEECH:
            return self.begin_vote(state, (*state.alive, SKIP), out)
        if state.step == DEFENSE:
            return self.begin_vote(state, (*state.tied, SKIP), out, round_=2)
        if state.step == LAST_WORDS:
            line = (
                _("%(player)s gave a last word.")
                if state.last_words
                else _("%(player)s gave no last word.")
            )
            return self.finish(state, out, line % {"player": state.eliminated})
        raise AssertionError(state.step)

    def count(self, state: DayState, out: Out) -> DayState:
        table = _table(state)
        outcome = rules.resolve(table, self.day_votes(state))
        lines = outcome.explanation
        if state.round > 1:
            # Counting the revote, the rule set repeats the first round's count and tie
            # lines (all of its first answer but the "speak again" line): drop them.
            first = rules.resolve(table, DayVotes(state.rounds[0]))
            lines = lines[len(first.explanation) - 1 :]
        state = self.explain(state, *lines)
        if outcome.eliminated is not None:
            state = replace(state, eliminated=outcome.eliminated)
            return self.begin_turns(state, LAST_WORDS, (outcome.eliminated,), out)
        if outcome.revote:
            tied = in_order(outcome.revote, self.day_order(state))
            return self.begin_turns(replace(state, tied=tied), DEFENSE, tied, out)
        return self.finish(state, out)

    def on_post(self, state: DayState, player: str, event: Mapping[str, Any], out: Out) -> DayState:
        if state.step == LAST_WORDS:
            return replace(state, last_words=True)
        return state


def _table(state: DayState) -> GameState:
    """The table as the rule set's day count sees it: who is alive and who is vote-immune.

    Roles do not matter to the count; the immunity card's vote block (``immunityBlocksVote``)
    reaches the script through ``vote_immune`` (see ``settings_for``), so it is off here.
    """
    living = set(state.alive)
    return GameState(
        ruleset="city",
        method="city",
        flags=frozen_map({"immunityBlocksVote": False}),
        players=tuple(Player(p, "citizen", "town", alive=p in living) for p in state.seats),
        vote_immunity=tuple(state.settings["vote_immune"]),
    )


def settings_for(game: GameState) -> dict[str, Any]:
    """The day settings of a city game: who cannot be voted out today and why.

    The Mistress's visit (``GameState.vote_immunity``), and immunity-card holders when the
    house rule ``immunityBlocksVote`` is on.
    """
    immune = set(game.vote_immunity)
    if game.flags.get("immunityBlocksVote"):
        immune |= {p.name for p in game.alive if p.immune}
    return {"vote_immune": [p.name for p in game.alive if p.name in immune]}


SCRIPT = CityDay()
