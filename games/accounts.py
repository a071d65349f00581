"""Accounts (django-allauth's account app): the site's rules for names, and the one question
other parts ask of an account: where may we send it mail?"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from django import forms
from django.contrib.auth import get_user_model

from .confusables import confusable_with
from .league import LEAGUE_HOST_NAME

# Letters and digits of any script, and . @ + - _, in words separated by single spaces.
USERNAME = re.compile(r"[\w.@+-]+(?: [\w.@+-]+)*")
USERNAME_HELP = "Up to 150 characters: letters, digits, single spaces and . @ + - _"


def clean_name(username: str) -> str:
    """A new account's name as stored (NFC), or a ValidationError: it may have spaces and
    any script's letters, but must not look like an existing name (``games.confusables``):
    "\u0440l7" with a Cyrillic "\u0440" is refused beside "pl7", as is "Alice" beside "alice"."""
    name = unicodedata.normalize("NFC", str(username or "").strip())
    if not USERNAME.fullmatch(name):
        raise forms.ValidationError(
            "Use letters, digits, single spaces between words and . @ + - _ only."
        )
    existing = list(get_user_model().objects.values_list("username", flat=True))
    # The league's host is a system account: reserved even before it first exists.
    other = confusable_with(name, [*existing, LEAGUE_HOST_NAME])
    if other is not None:
        raise forms.ValidationError(
            f'"{name}" looks too much like the existing name "{other}"; choose another.'
        )
    return name


class AccountAdapter(DefaultAccountAdapter):
    """allauth, with the site's names (spaces and any script, no look-alikes) in place of
    Django's username validator, which refuses spaces."""

    def clean_username(self, username: str, shallow: bool = False) -> str:
        if shallow:  # allauth making up a name: the shape only, no lookup
            return unicodedata.normalize("NFC", username.strip())
        return clean_name(username)


def verified_email(user: Any) -> str | None:
    """The address to send ``user`` mail (notifications, digests): their primary address if
    verified, else another verified one, else None (no address, or none verified yet)."""
    if user is None or not getattr(user, "pk", None):
        return None
    address = (
        EmailAddress.objects.filter(user=user, verified=True)
        .order_by("-primary", "pk")
        .values_list("email", flat=True)
        .first()
    )
    return address or None
