"""Answers that depend on who asks are never kept by a cache: ``Cache-Control: private,
no-store`` on every answer to a signed-in person (by session or by API token).

A signed-in person's page carries at the least their name, their buttons and their CSRF
token, and at the most their role PM, their team's thread and their private results; no
shared proxy, back-button cache or shared computer may keep any of it. Answers to an
anonymous spectator are the same for everyone and are left as they are, as is an answer
its view declares public (the favicon).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

from games.outage import OUTAGE_ERRORS


def asks_as_someone(request: HttpRequest) -> bool:
    """A session of a signed-in person, or credentials for the API (read by its views)."""
    if request.META.get("HTTP_AUTHORIZATION"):
        return True
    try:
        return bool(getattr(getattr(request, "user", None), "is_authenticated", False))
    except OUTAGE_ERRORS:  # the session could not be read (the 503 page): assume someone
        return True


def declared_public(response: HttpResponse) -> bool:
    directives = response.get("Cache-Control", "").split(",")
    return "public" in {d.strip().lower() for d in directives}


class PersonalAnswersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if asks_as_someone(request) and not declared_public(response):
            patch_cache_control(response, private=True, no_store=True)
        return response
