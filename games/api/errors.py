"""Every API error as one JSON shape: ``{"error": "...", "code": "...", "field": ...}``.

Game rule errors from the services carry their own message, code, field and status;
DRF's errors (validation, authentication, permission, 404) are reshaped to match.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ..errors import GameRuleError
from ..ratelimit import RateLimited
from ..services.refusals import count_refusal
from ..shapes import Error, Throttled, ValidationError


def field_words(field: str) -> str:
    """A field's path in words for a message ("roles[1].count" -> "Roles, row 2, count";
    "slot_id" -> "Slot"); ``field`` in the answer keeps the path itself."""
    words = []
    for part in field.split("."):
        name, _bracket, index = part.partition("[")
        name = name.removesuffix("_id").replace("_", " ")
        if name:
            words.append(name)
        if index:
            if index[:-1].isdigit():
                words.append(_("row %(number)s") % {"number": int(index.rstrip("]")) + 1})
            else:
                words.append(index)
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


def _count_refusal(exc: GameRuleError, context: dict[str, Any]) -> None:
    """An act in a game the rules refused counts on the actor's seat, toward an agent's
    refusal rate (the agents app's ``provenance``): only here, where every API refusal is
    answered. Not a read (nothing was tried), nor a 401/403 (who may act at all is not a
    rule of the game), nor an operation on no game."""
    request = context.get("request")
    if request is None or request.method in SAFE_METHODS or exc.status in (401, 403):
        return
    game_id = (context.get("kwargs") or {}).get("game_id")
    if isinstance(game_id, int):
        count_refusal(getattr(request, "user", None), game_id)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameRuleError):
        _count_refusal(exc, context)
        answer = Response(exc.to_dict(), status=exc.status)
        if exc.status == 401:  # as DRF's own 401s: how to authenticate
            answer["WWW-Authenticate"] = "Token"
        return answer
    if isinstance(exc, RateLimited):
        # The message says the wait; ``Throttled(wait=...)`` would say it again in DRF's
        # words. The wait still gives the Retry-After header and ``retry_after``.
        throttled = exceptions.Throttled(detail=exc.message)
        # DRF's Throttled sets .wait in __init__; djangorestframework-stubs leaves it out.
        throttled.wait = exc.retry_after  # type: ignore[attr-defined]
        exc = throttled
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or _("Not found."))
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message, code = _first_error(exc.detail)
        text = f"{field_words(field)}: {message}" if field else message
        invalid: ValidationError = {
            "error": text,
            "code": code,
            "field": field,
            # (the stubs' detail is any of DRF's shapes; a serializer's is a dict)
            "details": exc.detail,  # type: ignore[typeddict-item]
        }
        response.data = invalid
    else:
        detail = getattr(exc, "detail", str(exc))
        error_code = getattr(detail, "code", "") or getattr(exc, "default_code", "error")
        error: Error = {"error": str(detail), "code": error_code, "field": None}
        # (.wait: as above, missing from the stubs)
        wait = exc.wait if isinstance(exc, exceptions.Throttled) else None  # type: ignore[attr-defined]
        if wait is not None:
            throttled_error: Throttled = {**error, "retry_after": int(wait)}
            error = throttled_error
        response.data = error
    return response
