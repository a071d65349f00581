"""Every answer under /api/ is JSON, also the ones Django itself gives: the 404 of a path
that is no endpoint (whatever the method), its 400, 403 and CSRF failure, and (with
``games.outage.server_error``) its 500, in the API's error shape ``{"error", "code",
"field"}``. Other paths keep Django's pages.

The API's own views answer their errors through ``games.api.errors``; these are for what
happens before or outside them.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.csrf import csrf_exempt

from ..errors import ErrorCode
from ..json_answers import is_api, json_error


def _is_endpoint(path: str) -> bool:
    try:
        return resolve(path).func is not not_found
    except Resolver404:
        return False


@csrf_exempt  # it changes nothing: a 404 whatever the method, never a CSRF failure page
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """No such endpoint under /api/ (or a malformed id in the path). A real endpoint asked
    without its final slash: a read is redirected to it; a write, which a redirect would
    turn into a read, is told the right address."""
    if not request.path.endswith("/") and _is_endpoint(request.path + "/"):
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
        message = _("Not found; the endpoint is %(path)s/ (with the slash).") % {
            "path": request.path
        }
        return json_error(404, message, ErrorCode.NOT_FOUND)
    return json_error(404, _("Not found."), ErrorCode.NOT_FOUND)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(404, _("Not found."), ErrorCode.NOT_FOUND)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(400, _("Bad request."), ErrorCode.BAD_REQUEST)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(403, _("You may not do that."), ErrorCode.PERMISSION_DENIED)
    return defaults.permission_denied(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if is_api(request):
        message = _(
            "CSRF check failed: %(reason)s Send the page's CSRF token, or use an API token "
            "(Authorization: Token ...)."
        ) % {"reason": reason}
        return json_error(403, message, ErrorCode.CSRF_FAILED)
    return django_csrf_failure(request, reason)
