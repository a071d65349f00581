"""Sign up (log in and log out are Django's own views)."""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from ..forms import SignUpForm
from .common import back


def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return back(request, "/")
    else:
        form = SignUpForm()
    next_url = request.POST.get("next") or request.GET.get("next", "")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})
