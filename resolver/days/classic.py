"""The classic ten-player day: speeches with nominations, a vote, a revote, last words.

The rule book's day, step by step:

1. **Speeches** ("speech"): each living player speaks once, in the rotating order (day 1
   starts at seat 0, each day one seat later, dead seats skipped). A speech is one post of
   about 50-100 words (the host sets a hard limit, ``word_limit``: longer posts are
   refused) and must nominate one player; self-nomination is allowed and on day 1 so is
   "skip". The nomination ends the turn.
2. **Vote** ("vote", round 1): everyone votes at once for a nominated player or skip.
   Plurality; skip on top means nobody. Two or more players tied, or skip tied with
   exactly one player, go to a revote.
3. **Defense** ("defense"): each tied player speaks once in their defense, then
   **revote** ("vote", round 2) among the tied players plus skip; a player on top is
   eliminated, a tie again or skip on top means nobody.
4. **Last words** ("last_words") for a player eliminated by vote; night kills are silent.

Invalid attempts: after 3 refused attempts in one turn the document's default applies:
skip for a vote, a random valid target for a nomination (drawn from a generator seeded by
the day's seed and the turn, so the same day replays the same). A turn or vote that times
out gets the same default: a missing vote counts as skip, a missing nomination is random.

The counting itself is the rule set's (``resolver.rulesets.classic.count_first_round`` and
``count_revote``), so this script and the CLI's day resolution always agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..model import SKIP, GameState, Verdict, frozen_map
from ..rulesets import classic as rules
from ..rulesets.base import names
from ..text import _, gettext_noop, ngettext
from .base import (
    DEFENSE,
    LAST_WORDS,
    NOMINATE,
    PASS,
    POST,
    SPEECH,
    DayRuleError,
    DayScript,
    DayState,
    Notice,
    Out,
    in_order,
    speaking_order,
)

WORD_GUIDE = (50, 100)  # the rule book's "approximately 50-100 words" (a guide, not a limit)
NIGHT_ABILITIES = frozenset({"kill", "investigate", "protect"})


class ClassicDay(DayScript):
    name = "classic"
    reply_hint = gettext_noop(
        "Your speech, in your turn: about 50–100 words. Then nominate with the table's "
        "Nominate button (it ends your speech). A post does not vote: vote with the "
        "table's buttons."
    )
    defaults = {"word_limit": 150}  # the host's hard limit on a speech, defense or last words
    setting_fields = {"word_limit": (gettext_noop("Hard word limit of a speech"), 1, None)}
    max_attempts = 3
    missing_vote = SKIP
    first_phase = "night"  # night zero comes before day 1
    night_zero = True
    gives_last_words = True

    # -- data ------------------------------------------------------------------------
    def announces_deaths(self, day_number: int) -> bool:
        # Day 1 follows night zero, where nobody can die: there is nothing to announce.
        return day_number > 1

    def night_abilities(self, night_number: int) -> frozenset[str]:
        """Night zero: the mafia only talk (no kill, no investigation, no protection)."""
        return frozenset() if night_number == 0 else NIGHT_ABILITIES

    def nomination_targets(self, state: DayState) -> tuple[str, ...]:
        """Who may be nominated: any living player (self included), and skip on day 1."""
        return (*state.alive, SKIP) if state.day == 1 else state.alive

    # -- steps -----------------------------------------------------------------------
    def first_step(self, state: DayState, out: Out) -> DayState:
        return self.begin_turns(state, SPEECH, self.day_order(state), out)

    def step_over(self, state: DayState, out: Out) -> DayState:
        if state.step == SPEECH:
            living = set(state.alive)  # a nominee modkilled since is off the ballot
            nominees = tuple(
                dict.fromkeys(t for t in state.nominations.values() if t != SKIP and t in living)
            )
            if not nominees:
                return self.finish(
                    state,
                    out,
                    _("Nobody nominated a player, so there is no vote: nobody is eliminated."),
                )
            state = self.explain(
                state, _("Nominated: %(players)s.") % {"players": names(list(nominees))}
            )
            return self.begin_vote(state, (*nominees, SKIP), out)
        if state.step == DEFENSE:
            return self.begin_vote(state, (*state.tied, SKIP), out, round_=2)
        if state.step == LAST_WORDS:
            line = (
                _("%(player)s gave last words.")
                if state.last_words
                else _("%(player)s gave no last words.")
            )
            return self.finish(state, out, line % {"player": state.eliminated})
        raise AssertionError(state.step)

    def count(self, state: DayState, out: Out) -> DayState:
        votes = state.rounds[-1]
        if state.round == 1:
            result = rules.count_first_round(votes)
        else:
            result = rules.count_revote(votes, state.tied)
        state = self.explain(state, result.line)
        if result.eliminated is not None:
            state = replace(state, eliminated=result.eliminated)
            return self.begin_turns(state, LAST_WORDS, (result.eliminated,), out)
        if result.revote:
            tied = in_order(result.revote, self.day_order(state))
            return self.begin_turns(replace(state, tied=tied), DEFENSE, tied, out)
        return self.finish(state, out)

    # -- turns -----------------------------------------------------------------------
    def turn_actions(self, state: DayState) -> tuple[str, ...]:
        if state.step == SPEECH:
            return (NOMINATE,) if state.posted else (NOMINATE, POST)
        return (PASS, POST)  # a defense or last words may be declined

    def ends_on_post(self, state: DayState) -> bool:
        return state.step != SPEECH  # a speech ends with its nomination

    def turn_options(self, state: DayState) -> tuple[str, ...]:
        return self.nomination_targets(state) if state.step == SPEECH else ()

    def word_limit(self, state: DayState) -> int | None:
        return int(state.settings["word_limit"])

    def on_post(self, state: DayState, player: str, event: Mapping[str, Any], out: Out) -> DayState:
        low, high = WORD_GUIDE
        words = event["words"]
        if state.step == SPEECH and not low <= words <= high:
            out.append(
                Notice(
                    "guide",
                    ngettext(
                        "%(player)s's speech has %(words)s words (the guide: %(low)s-%(high)s).",
                        "%(player)s's speech has %(words)s words (the guide: %(low)s-%(high)s).",
                        words,
                    )
                    % {"player": player, "words": words, "low": low, "high": high},
                    player,
                )
            )
        if state.step == LAST_WORDS:
            return replace(state, last_words=True)
        return state

    def on_nominate(self, state: DayState, player: str, target: Any, out: Out) -> DayState:
        if target not in self.nomination_targets(state):
            raise DayRuleError(self._bad_nomination(state, player, target))
        line = (
            _("%(player)s nominates skip.")
            if target == SKIP
            else _("%(player)s nominates %(target)s.")
        )
        out.append(Notice("nomination", line % {"player": player, "target": target}, player))
        return replace(state, nominations=frozen_map({**state.nominations, player: target}))

    def _bad_nomination(self, state: DayState, player: str, target: Any) -> str:
        if target == SKIP:
            return _("%(player)s cannot nominate skip: skip is only allowed on day 1.") % {
                "player": player
            }
        if not isinstance(target, str) or target not in state.seats:
            return _("%(player)s cannot nominate %(target)s: not a player in this game.") % {
                "player": player,
                "target": repr(target),
            }
        return _("%(player)s cannot nominate %(target)s: %(target)s is dead.") % {
            "player": player,
            "target": target,
        }

    def turn_default(self, state: DayState, out: Out, why: str) -> DayState:
        speaker = state.speaker or ""
        if state.step != SPEECH:
            return super().turn_default(state, out, why)
        target = self.rng(state, speaker).choice(self.nomination_targets(state))
        said = why % {"player": speaker}
        line = _("%(why)s: a random nomination is made for them.") % {"why": said}
        out.append(Notice("default", line, speaker))
        state = self.explain(
            state,
            _("%(why)s; the default nominates %(target)s at random.")
            % {"why": said, "target": _("skip") if target == SKIP else target},
        )
        return self.next_turn(self.on_nominate(state, speaker, target, out), out)


SCRIPT = ClassicDay()


# -- the game around the day -----------------------------------------------------------
def early_end(game: GameState, eliminated: str | None) -> Verdict:
    """Does this day's elimination end the game at once (the rule set's win check)?

    The rule book's early end: with the doctor dead, a day elimination that leaves the
    mafia one unstoppable kill short of parity ends the game right after the elimination.
    This is ``resolver.rulesets.classic.winner`` on the state after the elimination.
    """
    after = game.with_memory(**{rules.DAY_ELIMINATION: eliminated})
    if eliminated is not None:
        after = after.with_dead([eliminated])
    return rules.winner(after)


def first_speaker(seats: Sequence[str], alive: Sequence[str], day: int) -> str | None:
    """Who speaks first on ``day`` (the rule book's "Speaking Order")."""
    order = speaking_order(seats, alive, day)
    return order[0] if order else None
