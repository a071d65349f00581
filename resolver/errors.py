"""Errors the resolver raises. Each carries one sentence for a moderator and a JSON path."""

from __future__ import annotations


class ResolverError(Exception):
    """Base class of every error the resolver raises on purpose."""


class InvalidScenario(ResolverError):
    """The input breaks the rules or the scenario format; nothing was resolved.

    ``message`` is one sentence a moderator understands; ``where`` is a JSON path
    such as ``$.phases[0].night[2].targets[0]``.
    """

    def __init__(self, message: str, where: str = "$") -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def to_dict(self) -> dict[str, str]:
        return {"error": self.message, "where": self.where}
