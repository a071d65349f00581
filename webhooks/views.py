"""The webhook on the host's dashboard: its section (a panel) and its two actions."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.errors import ErrorCode, InvalidInput
from games.forms import form_message
from games.models import Game

from . import delivery, services
from .forms import WebhookForm
from .models import GameWebhook


def host_panel(request: HttpRequest, *, game: Game) -> str:
    """The dashboard's "Chat webhook" section. The URL is the host's secret: in their own
    form here, nowhere else (the API and the status show it masked)."""
    url = GameWebhook.objects.filter(game=game).values_list("url", flat=True).first() or ""
    context: dict[str, Any] = {
        "game": game,
        "form": WebhookForm(initial={"url": url}, auto_id="webhook_%s"),
        "webhook": delivery.status(game),
    }
    return render_to_string("webhooks/host_panel.html", context, request=request)


def set_from_dashboard(request: HttpRequest, game_id: int) -> str:
    form = WebhookForm(request.POST)
    if not form.is_valid():
        raise InvalidInput(form_message(form), ErrorCode.BAD_WEBHOOK, "url")
    if services.set_webhook(request.user, game_id, form.cleaned_data["url"]) is None:
        return _("The webhook is removed: nothing more is posted to the chat.")
    return _("The webhook is set: the announcements will be posted to the chat.")


def retry_from_dashboard(request: HttpRequest, game_id: int) -> str:
    resent = services.retry_webhook(request.user, game_id)
    return ngettext(
        "Sending %(n)s post to the webhook again.",
        "Sending %(n)s posts to the webhook again.",
        resent,
    ) % {"n": resent}
