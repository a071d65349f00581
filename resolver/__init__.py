"""The rules engine of forum-style Mafia: pure Python, standard library only.

Public API::

    from resolver import new_game, play_night, play_day, check_winner, run_scenario

``new_game`` -> ``GameState``; ``play_night`` / ``play_day`` -> outcome with ``.state``;
``check_winner`` -> ``Verdict``; ``run_scenario(dict)`` -> the CLI report.
Bad input raises ``InvalidScenario`` (``.message``, ``.where``).
"""

from .engine import check_winner, new_game, play_day, play_night, remove_player, run_scenario
from .errors import InvalidScenario, ResolverError
from .model import (
    Action,
    DayOutcome,
    DayVotes,
    GameState,
    NightOutcome,
    Player,
    Verdict,
)

__all__ = [
    "Action",
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
    "play_night",
    "remove_player",
    "run_scenario",
]
