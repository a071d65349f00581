"""The one error the client raises for an answer that is not a success."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """The site refused (4xx) or failed (5xx). ``code`` is the API's error code
    (``games.errors.ErrorCode`` on the server: "not_your_turn", "validation"...), ``body``
    the whole JSON answer (``{"error", "code", "field"}``)."""

    def __init__(self, status: int, body: dict[str, Any] | None = None) -> None:
        self.status = status
        self.body: dict[str, Any] = body if isinstance(body, dict) else {}
        super().__init__(f"{status}: {self.body.get('error') or self.body or 'no answer'}")

    @property
    def code(self) -> str:
        return str(self.body.get("code") or "")

    @property
    def field(self) -> str | None:
        return self.body.get("field")
