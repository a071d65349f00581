"""The rules engine of forum-style Mafia: pure Python, standard library only.

Public API::

    from resolver import new_game, play_night, play_day, check_winner, run_scenario

``new_game`` -> ``GameState``; ``play_night`` / ``play_day`` -> outcome with ``.state``;
``check_winner`` -> ``Verdict``; ``run_scenario(dict)`` -> the CLI report;
``role_pm`` / ``player_role_pm`` -> a role PM's content as a plain dict;
``play_day_action`` -> ``DayActionOutcome`` (a day action, resolved at once).
Bad input raises ``InvalidScenario`` (``.message``, ``.where``).
"""

from .engine import (
    check_winner,
    new_game,
    play_day,
    play_day_action,
    play_night,
    remove_player,
    run_scenario,
)
from .errors import InvalidScenario, ResolverError
from .model import (
    Action,
    DayActionOutcome,
    DayOutcome,
    DayVotes,
    GameState,
    NightOutcome,
    Player,
    Verdict,
)
from .role_pm import player_role_pm, role_pm

__all__ = [
    "Action",
    "DayActionOutcome",
    "DayOutcome",
    "DayVotes",
    "GameState",
    "InvalidScenario",
    "NightOutcome",
    "Player",
    "ResolverError",
    "Verdict",
    "check_winner",
    "new_game",
    "play_day",
    "play_day_action",
    "play_night",
    "player_role_pm",
    "remove_player",
    "role_pm",
    "run_scenario",
]
