"""The webhook URL as a host types it: on the creation form and on the dashboard."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.forms import SiteForm

from . import delivery
from .models import MAX_WEBHOOK_URL_LENGTH


def clean_webhook(url: str) -> str:
    """A webhook URL the site may post to, or "" (none); a form error says what is wrong."""
    if not url.strip():
        return ""
    try:
        return delivery.check_url(url)
    except delivery.BadWebhook as exc:
        raise forms.ValidationError(str(exc)) from None


class WebhookURLField(forms.CharField):
    """A webhook URL, checked (its host name resolved) when the form is cleaned."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", MAX_WEBHOOK_URL_LENGTH)
        kwargs.setdefault(
            "widget", forms.URLInput(attrs={"autocomplete": "off", "spellcheck": "false"})
        )
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def clean(self, value: object) -> str:
        return clean_webhook(super().clean(value))


def creation_field() -> forms.Field:
    """The creation form's field (``games.hooks.register_create_field``)."""
    return WebhookURLField(
        label=_("Chat webhook (Discord or Slack)"),
        help_text=_("Optional: the announcements (phases, deaths, the end) are posted there too."),
    )


class WebhookForm(SiteForm):
    """The host's chat webhook URL (empty: no webhook)."""

    url = WebhookURLField(
        label=_("Webhook URL (Discord or Slack)"),
        help_text=_("Leave empty to stop posting to the chat."),
    )
