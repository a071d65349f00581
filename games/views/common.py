"""Small helpers shared by the page views."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from ..errors import GameRuleError

if TYPE_CHECKING:  # the site's user model is Django's (AUTH_USER_MODEL is not set)
    from django.contrib.auth.models import User


class SignedInRequest(HttpRequest):
    """The type of a request behind ``@login_required``: its user is a person who signed in
    (not AnonymousUser). Only for annotations: Django makes the request objects."""

    user: User


def back(request: HttpRequest, default: str) -> HttpResponseRedirect:
    """Redirect to the form's ``next`` (same site only), else ``default``."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return HttpResponseRedirect(default)


def thread_url(game_id: int, *, last: bool = False, anchor: str = "") -> str:
    url = reverse("games:thread", args=[game_id])
    if last:
        url += "?page=last"
    return url + (f"#{anchor}" if anchor else "")


def run_service(
    request: HttpRequest,
    call: Callable[[], Any],
    *,
    success: str = "",
    on_error: str,
    on_success: str | Callable[[Any], str] | None = None,
) -> HttpResponse:
    """Call a service; report its rule error as a message and go back, else succeed."""
    try:
        result = call()
    except GameRuleError as exc:
        messages.error(request, exc.message)
        return back(request, on_error)
    if success:
        messages.success(request, success)
    if callable(on_success):
        return HttpResponseRedirect(on_success(result))
    return back(request, on_success or on_error)
