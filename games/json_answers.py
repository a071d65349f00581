"""The API's error shape, ``{"error", "code", "field"}``, and which paths are the API's:
below the views so that the outage answers and the request guards (``mafia_site.guards``)
answer API clients in JSON without importing the API."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from .errors import ErrorCode
from .shapes import Error

API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def json_error(
    status: int, message: str, code: ErrorCode, field: str | None = None
) -> JsonResponse:
    body: Error = {"error": message, "code": code, "field": field}
    return JsonResponse(body, status=status)
