"""The rule sets by name. Each module defines ``RULESET``, an instance of its Ruleset."""

from __future__ import annotations

import importlib

from ..errors import InvalidScenario
from ..text import _
from .base import Ruleset

_MODULES = {
    "city": "resolver.rulesets.city",
    "classic": "resolver.rulesets.classic",
    "power": "resolver.rulesets.power",
    "forum": "resolver.rulesets.forum",
}

NAMES: tuple[str, ...] = tuple(_MODULES)


def get_ruleset(name: object, where: str = "$.ruleset") -> Ruleset:
    """The rule set called ``name``, or InvalidScenario naming the known ones."""
    if not isinstance(name, str) or name not in _MODULES:
        raise InvalidScenario(
            _("Unknown rule set %(name)s; use one of %(known)s.")
            % {"name": repr(name), "known": ", ".join(NAMES)},
            where,
        )
    ruleset: Ruleset = importlib.import_module(_MODULES[name]).RULESET
    return ruleset
