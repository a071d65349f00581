"""A service outage answers 503 with a message, never a half-written state or a bare 500.

PostgreSQL restarting, or Redis gone, surfaces as a connection error in whatever request
meets it. Every state change is one transaction (``games.services``), so the failed
request changed nothing; what is left is to say so: JSON (``{"error", "code"}``) for the
API, a page with a red banner for people, both with ``Retry-After``.

``OutageMiddleware`` turns such an exception raised by a view into that answer (with DEBUG
on too); ``server_error`` (``handler500``) catches the rest, e.g. a session read failing in
a middleware, where Django would otherwise show its plain 500 page.

That answer is only true BEFORE a write commits. A view that reads again after its write
(the fresh vote count, the role PM) builds its answer with ``answer_after_commit``: an
outage then is retried once on a new connection, and otherwise answered with what the write
itself returned, never with "nothing was changed" (a bot would vote twice).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.utils.translation import gettext, gettext_lazy

from .errors import ErrorCode
from .json_answers import is_api, json_error

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 10
MESSAGE = gettext_lazy(
    "The game server cannot reach its database or message service right now, so nothing "
    "was changed. Please try again in a few seconds."
)


def outage_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OperationalError, InterfaceError]
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        errors += [RedisConnectionError, RedisTimeoutError]
    except ImportError:  # pragma: no cover - redis is a dependency
        pass
    try:
        from kombu.exceptions import OperationalError as BrokerError

        errors.append(BrokerError)
    except ImportError:  # pragma: no cover - kombu comes with Celery
        pass
    return tuple(errors)


OUTAGE_ERRORS = outage_errors()


def is_outage(exc: BaseException | None) -> bool:
    return isinstance(exc, OUTAGE_ERRORS)


T = TypeVar("T")


def answer_after_commit(read: Callable[[], T], fallback: Callable[[], T]) -> T:
    """``read()``, the answer to a write that HAS committed; if the database drops out
    under it, once more on a fresh connection, then ``fallback()``: built from what the
    write returned, without the database."""
    from django.db import connection

    for attempt in (1, 2):
        try:
            return read()
        except OUTAGE_ERRORS as exc:
            log.warning("Reading back a committed write failed (attempt %s): %r", attempt, exc)
            with contextlib.suppress(Exception):
                connection.close()  # a cut connection: the next read opens a new one
    return fallback()


def outage_response(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        response: HttpResponse = json_error(503, str(MESSAGE), ErrorCode.SERVICE_UNAVAILABLE)
    else:
        try:
            html: str = loader.render_to_string("503.html", {"message": str(MESSAGE)})
        except Exception:  # the template needs nothing from the database, but be sure
            html = f"<!doctype html><title>Unavailable</title><p>{MESSAGE}</p>"
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class OutageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_outage(exception):
            return None
        log.warning("Service outage during %s %s: %r", request.method, request.path, exception)
        return outage_response(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: an outage outside a view still gets the 503; anything else a 500
    (JSON under /api/)."""
    if is_outage(sys.exc_info()[1]):
        return outage_response(request)
    if is_api(request):
        return json_error(500, gettext("Server error."), ErrorCode.SERVER_ERROR)
    from django.views.defaults import server_error as default_server_error

    return default_server_error(request)
