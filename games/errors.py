"""Errors the service layer raises when an action breaks a rule of the game.

Each carries a user-facing ``message`` (one sentence, never revealing hidden information),
a machine ``code`` and optionally the ``field`` it is about. ``status`` is the HTTP status
views and the API should answer with.
"""

from __future__ import annotations


class GameRuleError(Exception):
    """Base: the request was understood but the game's rules do not allow it."""

    status = 422
    default_code = "invalid"

    def __init__(self, message: str, code: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field

    def to_dict(self) -> dict[str, str | None]:
        return {"error": self.message, "code": self.code, "field": self.field}


class InvalidInput(GameRuleError):
    """Input the rules refuse: an unknown player, an illegal target, a bad setup. In the
    API a request that does not even match its document (a missing field, a wrong type)
    is a 400 from its serializer; this one is well-formed, hence 422."""

    status = 422
    default_code = "invalid"


class BadCredentials(GameRuleError):
    """A wrong username or password (the API's token exchange)."""

    status = 401
    default_code = "bad_credentials"


class NotAllowed(GameRuleError):
    """The acting person may not do this (not the host, dead, not in the game...)."""

    status = 403
    default_code = "not_allowed"


class WrongPhase(GameRuleError):
    """Not now: a vote at night, a night action by day, joining after the start."""

    status = 409
    default_code = "wrong_phase"


class NotFound(GameRuleError):
    """The game, slot or action does not exist (or is not visible to the actor)."""

    status = 404
    default_code = "not_found"
