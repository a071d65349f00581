"""The account's open-data page (``/accounts/open-data/``): whether the site's exported
games name this person, or give their seat only."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from ..services.open_data import names_me, set_open_data_naming


@login_required
def open_data(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        named = set_open_data_naming(request.user, request.POST.get("named") == "on")
        messages.success(
            request,
            _("Exported games will name you.")
            if named
            else _("Exported games will give your seat, not your name."),
        )
        return redirect("open_data")
    return render(request, "account/open_data.html", {"named": names_me(request.user)})
