"""Request guards that run before anything reads the request.

Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS query parameters with a
SuspiciousOperation (400), but with DEBUG on the debug page then reads ``request.GET``
again while describing the error and the answer becomes a 500. Counting the fields here,
before any view or error page touches them, gives a 400 in every mode.

A body larger than DATA_UPLOAD_MAX_MEMORY_SIZE is refused here too, 413, by its
Content-Length before anything reads it (the site takes no file uploads, so no request
needs more); under DEBUG an API client used to get Django's HTML debug page (120 KB) for
it, and a bare "Bad request." otherwise. Whatever Django still refuses inside an API view
(``RequestDataTooBig`` read from a body, ``SuspiciousOperation``) is answered as JSON in
every mode too (``process_exception``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from games.errors import ErrorCode
from games.json_answers import is_api, json_error

log = logging.getLogger("django.request")


def _too_many_fields(query: str) -> bool:
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    return limit is not None and query.count("&") + query.count(";") >= limit


def _too_large(request: HttpRequest) -> bool:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    length = request.META.get("CONTENT_LENGTH") or ""
    return limit is not None and length.isdigit() and int(length) > limit


def _refuse(request: HttpRequest, status: int, message: str, code: ErrorCode) -> HttpResponse:
    if is_api(request):
        return json_error(status, message, code)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def _too_large_message() -> str:
    megabytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 2**20
    return _("The request body is larger than %(size)s MB.") % {"size": f"{megabytes:g}"}


class RequestLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _too_many_fields(request.META.get("QUERY_STRING", "")):
            return _refuse(request, 400, _("Too many query parameters."), ErrorCode.TOO_MANY_FIELDS)
        if _too_large(request):
            return _refuse(request, 413, _too_large_message(), ErrorCode.BODY_TOO_LARGE)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Django's own refusals raised in an API view, as JSON whatever DEBUG is."""
        if not is_api(request):
            return None
        if isinstance(exception, RequestDataTooBig):
            return json_error(413, _too_large_message(), ErrorCode.BODY_TOO_LARGE)
        if isinstance(exception, SuspiciousOperation):
            log.warning("Bad request under /api/: %s", exception)
            return json_error(400, _("Bad request."), ErrorCode.BAD_REQUEST)
        return None
