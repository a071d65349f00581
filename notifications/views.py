"""The notification inbox (``/notifications/``) and each person's notification settings."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.errors import ErrorCode, GameRuleError, NotFound
from games.forms import apply_service_error
from games.json_answers import json_error
from games.views.common import SignedInRequest

from . import push
from . import services as inbox_services
from .kinds import CHANNELS, SETTABLE_KINDS
from .reads import prefs_of, read_inbox


@login_required
def inbox(request: SignedInRequest) -> HttpResponse:
    page = read_inbox(request.user.pk, request.GET.get("page"))
    return render(request, "notifications/inbox.html", {"page": page})


@login_required
def open_notification(request: HttpRequest, notification_id: int) -> HttpResponse:
    """Mark one read and go where it points. A GET on purpose: a plain link (also in a
    desktop notification or opened in a new tab); all it changes is the read mark of the
    signed-in person's own notification, so a forged link can do no more than that."""
    try:
        link = inbox_services.open_notification(request.user, notification_id)
    except NotFound as exc:  # someone else's, or none: the same answer
        raise Http404(exc.message) from None
    return redirect(link)


@require_POST
@login_required
def mark_all_read(request: HttpRequest) -> HttpResponse:
    inbox_services.mark_read(request.user, None)
    messages.success(request, _("Every notification is marked read."))
    return redirect("notifications:inbox")


class PrefsForm(forms.Form):
    """One channel per kind, then the reminder, the digest and desktop notifications."""

    reminder_hours = forms.IntegerField(
        label=gettext_lazy("Remind me this many hours before a deadline (0: never)"),
        min_value=inbox_services.REMINDER_HOURS[0],
        max_value=inbox_services.REMINDER_HOURS[1],
    )
    digest_minutes = forms.IntegerField(
        label=gettext_lazy("Gather e-mail into one digest every this many minutes"),
        min_value=inbox_services.DIGEST_MINUTES[0],
        max_value=inbox_services.DIGEST_MINUTES[1],
    )
    desktop = forms.BooleanField(
        label=gettext_lazy(
            "Desktop notifications in this site's open tabs (your turn, a day starts, L-1)"
        ),
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind in SETTABLE_KINDS.values():
            self.fields[f"channel_{kind.name}"] = forms.ChoiceField(
                label=kind.label, choices=list(CHANNELS.items())
            )

    def groups(self) -> list[tuple[Any, list[forms.BoundField]]]:
        play = [self[f"channel_{k.name}"] for k in SETTABLE_KINDS.values() if not k.for_host]
        host = [self[f"channel_{k.name}"] for k in SETTABLE_KINDS.values() if k.for_host]
        return [(_("Games you play"), play), (_("Games you host"), host)]


@login_required
def notification_settings(request: SignedInRequest) -> HttpResponse:
    prefs = prefs_of(request.user.pk)
    initial: dict[str, Any] = {
        "reminder_hours": prefs.reminder_hours,
        "digest_minutes": prefs.digest_minutes,
        "desktop": prefs.desktop,
        **{f"channel_{k}": prefs.channel(k) for k in SETTABLE_KINDS},
    }
    form = PrefsForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            inbox_services.save_prefs(
                request.user,
                channels={k: data[f"channel_{k}"] for k in SETTABLE_KINDS},
                reminder_hours=data["reminder_hours"],
                digest_minutes=data["digest_minutes"],
                desktop=data["desktop"],
            )
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(request, _("Your notification settings are saved."))
            return redirect("notifications:settings")
    keys = push.vapid_keys()
    return render(
        request,
        "notifications/settings.html",
        {
            "form": form,
            "push_key": keys.public if keys else "",
            "push_devices": push.devices_of(request.user.pk),
        },
    )


def _push_answer(request: SignedInRequest, change: str) -> HttpResponse:
    """The settings page's push button: a JSON body in, JSON out (``push``)."""
    try:
        body = json.loads(request.body or b"")
    except (ValueError, UnicodeDecodeError):
        return json_error(400, _("The body is not JSON."), ErrorCode.INVALID)
    if not isinstance(body, dict):
        return json_error(400, _("Send a JSON object."), ErrorCode.INVALID)
    try:
        if change == "subscribe":
            push.subscribe(
                request.user, body.get("subscription"), request.headers.get("User-Agent", "")
            )
        else:
            push.unsubscribe(request.user, body.get("endpoint"))
    except GameRuleError as exc:
        return JsonResponse(exc.to_dict(), status=404 if isinstance(exc, NotFound) else 400)
    return JsonResponse({"devices": len(push.devices_of(request.user.pk))})


@require_POST
@login_required
def push_subscribe(request: SignedInRequest) -> HttpResponse:
    """Push on for this browser: ``{"subscription": PushSubscription.toJSON()}``."""
    return _push_answer(request, "subscribe")


@require_POST
@login_required
def push_unsubscribe(request: SignedInRequest) -> HttpResponse:
    """Push off for this browser: ``{"endpoint": its subscription's endpoint}``."""
    return _push_answer(request, "unsubscribe")
