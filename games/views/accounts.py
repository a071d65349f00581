"""Sign up and log in: allauth's views, counted by the site's rate limits
(``games.ratelimit``: its 429 page and RATE_LIMITS setting); the rest of the account pages
(e-mail addresses, password change and reset) are allauth's own (``games.accounts``)."""

from __future__ import annotations

import unicodedata
from typing import Any

from allauth.account.views import LoginView, SignupView
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from .. import login_unlock, ratelimit


class RateLimitedSignupView(SignupView):
    """allauth's sign-up, at most so many new accounts per address an hour."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            ratelimit.hit("signup", ratelimit.client_address(request))
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        return super().post(request, *args, **kwargs)


class RateLimitedLoginView(LoginView):
    """allauth's login, refused for a while after too many wrong passwords (per account and
    address, per address, and per account from anywhere: ``ratelimit.check_login``)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Read as the form reads it (NFKC, stripped): a full-width name counts as its ASCII.
        username = unicodedata.normalize("NFKC", str(request.POST.get("username", ""))).strip()
        try:
            ratelimit.check_login(request, username)
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        response = super().post(request, *args, **kwargs)
        if response.status_code == 200:  # the form again: the password was wrong
            ratelimit.login_failed(request, username)
        return response


def too_many_account_requests(request: HttpRequest, exception: Any = None) -> HttpResponse:
    """allauth's own limits (reset and verification mail, the account pages) answer with
    the site's 429 page. They count per minute or a few minutes."""
    return ratelimit.too_many_requests(request, ratelimit.RateLimited("account", 60))


def unlock(request: HttpRequest, key: str) -> HttpResponse:
    """The unlock link mailed past an account's log-in limit (``games.login_unlock``). A GET
    asks to confirm (a mail scanner's visit unlocks nothing); the POST gives this browser
    the cookie that passes the account's limit, and goes to the log-in."""
    user = login_unlock.user_of_link(key)
    if user is None or request.method != "POST":
        return render(request, "account/unlock.html", {"valid": user is not None}, status=200)
    response = redirect("login")
    response.set_cookie(
        login_unlock.COOKIE,
        login_unlock.cookie_value(user),
        max_age=login_unlock.UNLOCK_SECONDS,
        secure=request.is_secure(),
        httponly=True,
        samesite="Lax",
        path=reverse("login"),
    )
    messages.success(request, "This browser may log in to the account now.")
    return response
