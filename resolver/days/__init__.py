"""Day scripts: the turn-by-turn days of the table games (classic, city, power).

A script is pure data and functions. The site stores a ``DayState`` (JSON via
``to_dict`` / ``from_dict``) and drives the day with three calls::

    script = get_day_script("classic")           # None for "forum": a free thread
    state = script.start_day(seats, alive, day_number, settings, seed=game_seed)
    turn = script.now(state)                      # step, speaker, who may do what
    state, notices = script.apply(state, {"kind": "post", "player": "A", "words": 73})

An illegal event raises ``DayRuleError`` (``.reason``) and changes nothing; ``attempt``
counts the refusal instead, so the rules' "after 3 failed attempts" default can apply.
When ``script.now(state).step == "done"`` the state holds the outcome (``eliminated``,
``last_words``, ``explanation``); ``script.resolve(game, state)`` applies it to the game
through the rule set's own day resolution.
"""

from __future__ import annotations

import importlib

from ..rulesets import NAMES as RULESET_NAMES
from ..rulesets import get_ruleset
from ..text import _
from .base import (
    DONE,
    NO_ADDRESSEE,
    NOT_IN_STEP,
    OUT_OF_TURN,
    REFUSAL_CODES,
    REFUSED,
    SELF_QUESTION,
    SPEECH_TOO_LONG,
    DayRuleError,
    DayScript,
    DayState,
    Notice,
    Turn,
    attempt,
    speaking_order,
)

_MODULES = {
    "classic": "resolver.days.classic",
    "city": "resolver.days.city",
    "power": "resolver.days.power",
}


def get_day_script(ruleset: str) -> DayScript | None:
    """The day script of ``ruleset``, or None when its day is a free thread (the rule set's
    ``day_shape`` says so: forum)."""
    if ruleset in RULESET_NAMES and get_ruleset(ruleset).day_shape == "thread":
        return None
    if ruleset not in _MODULES:
        known = ", ".join((*_MODULES, *(n for n in RULESET_NAMES if n not in _MODULES)))
        raise DayRuleError(
            _("Unknown rule set %(name)s; use one of %(known)s.")
            % {"name": repr(ruleset), "known": known}
        )
    script: DayScript = importlib.import_module(_MODULES[ruleset]).SCRIPT
    return script


__all__ = [
    "DONE",
    "NOT_IN_STEP",
    "NO_ADDRESSEE",
    "OUT_OF_TURN",
    "REFUSAL_CODES",
    "REFUSED",
    "SELF_QUESTION",
    "SPEECH_TOO_LONG",
    "DayRuleError",
    "DayScript",
    "DayState",
    "Notice",
    "Turn",
    "attempt",
    "get_day_script",
    "speaking_order",
]
