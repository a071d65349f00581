"""Request guards that run before anything reads the request.

Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS query parameters with a
SuspiciousOperation (400), but with DEBUG on the debug page then reads ``request.GET``
again while describing the error and the answer becomes a 500. Counting the fields here,
before any view or error page touches them, gives a 400 in every mode.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from games.errors import ErrorCode
from games.json_answers import is_api, json_error


def _too_many_fields(query: str) -> bool:
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    return limit is not None and query.count("&") + query.count(";") >= limit


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _too_many_fields(request.META.get("QUERY_STRING", "")):
            message = "Too many query parameters."
            if is_api(request):
                return json_error(400, message, ErrorCode.TOO_MANY_FIELDS)
            return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
