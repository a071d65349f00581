"""Every API error as one JSON shape: ``{"error": "...", "code": "...", "field": ...}``.

Game rule errors from the services carry their own message, code, field and status;
DRF's errors (validation, authentication, permission, 404) are reshaped to match.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ..errors import GameRuleError
from ..ratelimit import RateLimited


def field_words(field: str) -> str:
    """A field's path in words for a message ("roles[1].count" -> "Roles, row 2, count";
    "slot_id" -> "Slot"); ``field`` in the answer keeps the path itself."""
    words = []
    for part in field.split("."):
        name, _, index = part.partition("[")
        name = name.removesuffix("_id").replace("_", " ")
        if name:
            words.append(name)
        if index:
            words.append(f"row {int(index.rstrip(']')) + 1}" if index[:-1].isdigit() else index)
    text = ", ".join(words) or field
    return text[:1].upper() + text[1:]


def _first_error(detail: Any, prefix: str = "") -> tuple[str | None, str, str]:
    """(field, message, code) of the first error in a DRF validation detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            field = f"{prefix}.{name}" if prefix and name else (name or prefix)
            return _first_error(value, field)
    if isinstance(detail, list) and detail:
        if isinstance(detail[0], (dict, list)):
            for i, item in enumerate(detail):
                if item:
                    return _first_error(item, f"{prefix}[{i}]")
        return _first_error(detail[0], prefix)
    code = getattr(detail, "code", "invalid") or "invalid"
    return (prefix or None), str(detail), code


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameRuleError):
        response = Response(exc.to_dict(), status=exc.status)
        if exc.status == 401:  # as DRF's own 401s: how to authenticate
            response["WWW-Authenticate"] = "Token"
        return response
    if isinstance(exc, RateLimited):
        # The message says the wait; ``Throttled(wait=...)`` would say it again in DRF's
        # words. The wait still gives the Retry-After header and ``retry_after``.
        throttled = exceptions.Throttled(detail=exc.message)
        throttled.wait = exc.retry_after
        exc = throttled
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message, code = _first_error(exc.detail)
        text = f"{field_words(field)}: {message}" if field else message
        response.data = {"error": text, "code": code, "field": field, "details": exc.detail}
    else:
        detail = getattr(exc, "detail", str(exc))
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        response.data = {"error": str(detail), "code": code, "field": None}
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            response.data["retry_after"] = int(exc.wait)
    return response
