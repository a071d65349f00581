"""One-click unsubscribe from notification e-mail (RFC 8058): the signed token is the
authorisation, so the POST needs no session and no CSRF cookie (a mail client sends it)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from . import mail


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: what the link will stop, with a button; POST: stop it."""
    try:
        user_id, kind = mail.read_token(token)
    except mail.BadToken:
        return render(request, "notifications/unsubscribe.html", {"bad": True}, status=400)
    username = (
        get_user_model().objects.filter(pk=user_id).values_list("username", flat=True).first()
    )
    if username is None:  # the account is gone
        return render(request, "notifications/unsubscribe.html", {"bad": True}, status=400)
    context: dict[str, object] = {"username": username, "kind": kind, "what": mail.kind_label(kind)}
    if request.method == "POST":
        mail.stop_email(user_id, kind)
        context["done"] = True
    return render(request, "notifications/unsubscribe.html", context)
