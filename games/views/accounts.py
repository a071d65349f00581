"""Sign up and log in (Django's own views, rate limited; log out is Django's)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .. import ratelimit
from ..forms import LoginForm, SignUpForm
from .common import back


def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            ratelimit.hit("signup", ratelimit.client_address(request))
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return back(request, "/")
    else:
        form = SignUpForm()
    next_url = request.POST.get("next") or request.GET.get("next", "")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


class RateLimitedLoginView(LoginView):
    """Django's login, refused for a while after too many wrong passwords (per username and
    address, and per address)."""

    authentication_form = LoginForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = str(request.POST.get("username", ""))
        try:
            ratelimit.check_login(request, username)
        except ratelimit.RateLimited as exc:
            return ratelimit.too_many_requests(request, exc)
        response = super().post(request, *args, **kwargs)
        if response.status_code == 200:  # the form again: the password was wrong
            ratelimit.login_failed(request, username)
        return response
