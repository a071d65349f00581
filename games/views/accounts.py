"""Sign up and log in: allauth's views, counted by the site's rate limits
(``games.ratelimit``: its 429 page and RATE_LIMITS setting); the rest of the account pages
(e-mail addresses, password change and reset) are allauth's own (``games.accounts``)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from allauth.account.views import LoginView, SignupView
from django.http import HttpRequest, HttpResponse

from .. import ratelimit


class RateLimitedSignupView(SignupView):
    """allauth's sign-up, at most so many new accounts per address an hour."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            ratelimit.hit("signup", ratelimit.client_address(request))
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        return super().post(request, *args, **kwargs)


class RateLimitedLoginView(LoginView):
    """allauth's login, refused for a while after too many wrong passwords (per name and
    address, and per address)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = counted_name(str(request.POST.get("username", "")))
        try:
            ratelimit.check_login(request, username)
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        response = super().post(request, *args, **kwargs)
        if response.status_code == 200:  # the form again: the password was wrong
            ratelimit.login_failed(request, username)
        return response


def counted_name(login: str) -> str:
    """The name a login attempt counts against: an account's e-mail address counts as its
    name, so guessing by name and by address share one limit."""
    if "@" in login:
        owner = (
            EmailAddress.objects.filter(email__iexact=login.strip()[:254])
            .values_list("user__username", flat=True)
            .first()
        )
        if owner:
            return owner
    return login


def too_many_account_requests(request: HttpRequest, exception: Any = None) -> HttpResponse:
    """allauth's own limits (reset and verification mail, the account pages) answer with
    the site's 429 page. They count per minute or a few minutes."""
    return ratelimit.too_many_requests(request, ratelimit.RateLimited("account", 60))
