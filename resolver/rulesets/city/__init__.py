"""City mafia (городская мафия) as the DC Cartel graph model describes it.

Roles, abilities and house-rule flags are data in ``roles``; the night's override lattice
lives in ``night``, the day vote in ``day`` and the corrected win predicate in ``win``. The
source document is the city-mafia graph model (the README's Rules section has the player's
version).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidScenario
from ...model import Action, DayOutcome, DayVotes, GameState, NightOutcome, Verdict
from ...text import _, gettext_noop
from ..base import Ruleset
from . import day, night, win
from .roles import FACTION_KILL, FLAGS, ROLES


class CityRuleset(Ruleset):
    name = "city"
    methods = ("city",)
    roles = ROLES
    flags = FLAGS
    alignments = ("town", "mafia", "maniac")  # town is the red team
    alignment_titles = {
        "town": gettext_noop("Red"),
        "mafia": gettext_noop("Black"),
        "maniac": gettext_noop("Maniac"),
    }
    win_conditions = {
        "town": gettext_noop("You win when every mafia member and the Maniac are dead."),
        "mafia": gettext_noop("You win when the mafia equal or outnumber everyone else alive."),
        "maniac": gettext_noop(
            "You win when you are the last black player and at most one red is left."
        ),
    }
    factional_kill = FACTION_KILL
    uses_immunity_card = True
    reveals_roles_on_death = False  # the card stays face down until the game ends

    def parse_night(self, state: GameState, raw: Any, where: str) -> tuple[Action, ...]:
        actions = super().parse_night(state, raw, where)
        seen: set[tuple[str, str]] = set()
        for action in actions:
            key = (action.actor, action.ability)
            # The faction kill may be resubmitted (the last one stands); a role's own
            # ability is used once a night.
            if key in seen and not night.is_faction_kill(state, action):
                raise InvalidScenario(
                    _("%(actor)s already uses %(ability)s tonight; one per night.")
                    % {"actor": action.actor, "ability": action.ability},
                    f"{where}[{action.index}]",
                )
            seen.add(key)
        return actions

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        return night.resolve(state, actions)

    def check_day(self, state: GameState, votes: DayVotes, where: str) -> None:
        day.check(state, votes, where)

    def resolve_day(self, state: GameState, votes: DayVotes) -> DayOutcome:
        return day.resolve(state, votes)

    def check_winner(self, state: GameState) -> Verdict:
        return win.check_winner(state)


RULESET = CityRuleset()
