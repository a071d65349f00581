"""Sign up and log in: allauth's views, counted by the site's rate limits
(``games.ratelimit``: its 429 page and RATE_LIMITS setting); the rest of the account pages
(e-mail addresses, password change and reset) are allauth's own (``games.accounts``)."""

from __future__ import annotations

import unicodedata
from typing import Any

from allauth.account.views import LoginView, SignupView
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from .. import i18n, login_unlock, ratelimit
from ..forms import LanguageForm
from ..plain_text import is_plain_text


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
    messages.success(request, _("This browser may log in to the account now."))
    return response


@login_required
def language(request: HttpRequest) -> HttpResponse:
    """The account's language (``/accounts/language/``): the pages, notifications and mails
    in one of the site's languages, or blank for whatever the browser asks. The footer's
    switcher posts here too, with ``next`` (the page to go back to)."""
    if request.method == "POST":
        form = LanguageForm(request.POST)
        if form.is_valid():
            chosen = i18n.set_account_language(request.user, form.cleaned_data["language"], request)
            # The rest of this request (the message) in the new language.
            translation.activate(
                chosen or i18n.supported(translation.get_language_from_request(request))
            )
            messages.success(request, _("Your language is saved."))
            return HttpResponseRedirect(
                _back_to(request, request.POST.get("next"), reverse("account_language"))
            )
    else:
        form = LanguageForm(initial={"language": i18n.account_language(request.user)})
    return render(request, "account/language.html", {"form": form})


def _back_to(request: HttpRequest, target: object, default: str) -> str:
    """The page the footer's switcher was on: a path of this site only."""
    target = str(target or "")
    if (
        target.startswith("/")
        and is_plain_text(target, 2000)
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return target
    return default


def visitor_language(request: HttpRequest, code: str) -> HttpResponse:
    """A visitor's choice in the footer (``/language/<code>/?next=``): a cookie, as Django's
    set_language keeps it, and back to the page. A plain link, so that a visitor's pages
    carry no form and no CSRF token only for this; a signed-in person's choice is saved on
    the account (``language``, a form)."""
    if code not in i18n.LANGUAGE_CODES:
        raise Http404(_("The site has no such language."))
    response = HttpResponseRedirect(_back_to(request, request.GET.get("next"), "/"))
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
    )
    return response
