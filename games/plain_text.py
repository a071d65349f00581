"""The one rule for text people send: no NUL (PostgreSQL's text cannot hold it: a NUL that
reached the database was a 500) and no lone surrogate (not UTF-8).

The pages' forms (``games.forms.PlainTextForm``), the API's request serializers
(``games.api.serializers.InputSerializer``) and the services' own checks of free-form
values all apply it, with one message and one code, in place of Django's and DRF's own
versions of the same check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from .errors import ErrorCode, InvalidInput

NUL_MESSAGE = gettext_lazy("Text may not contain NUL characters.")
SURROGATE_MESSAGE = gettext_lazy("Text may not contain lone surrogate characters.")


def validate_plain_text(value: Any) -> None:
    """Raise ``ValidationError`` unless ``value`` is text the site can store."""
    text = str(value)
    if "\x00" in text:
        raise ValidationError(NUL_MESSAGE, code="null_characters_not_allowed")
    if any(0xD800 <= ord(char) <= 0xDFFF for char in text):
        raise ValidationError(SURROGATE_MESSAGE, code="surrogate_characters_not_allowed")


def is_plain_text(value: Any, max_length: int) -> bool:
    """``value`` is a string of at most ``max_length`` characters the site can store."""
    if not isinstance(value, str) or len(value) > max_length:
        return False
    try:
        validate_plain_text(value)
    except ValidationError:
        return False
    return True


# The frameworks' versions of the rule: replaced, so an error is reported once, in our words.
_THEIRS = (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator)


def use_plain_text(fields: Iterable[Any]) -> None:
    """Give every text field among ``fields`` (a form's or a serializer's, and the items of
    their list and dict fields) the rule above. Running it twice changes nothing."""
    for field in fields:
        child = getattr(field, "child", None)
        if child is not None:
            use_plain_text([child])
        if isinstance(field, (forms.CharField, serializers.CharField)):
            kept = [
                v
                for v in field.validators
                if not isinstance(v, _THEIRS) and v is not validate_plain_text
            ]
            field.validators = [*kept, validate_plain_text]


def checked_text(
    value: Any,
    *,
    what: str,
    field: str,
    limit: int,
    code: ErrorCode,
    too_long: ErrorCode | None = None,
    empty: ErrorCode | None = None,
) -> str:
    """A free-form text a service keeps (a will, a whisper, thoughts) as it is kept:
    trimmed, Windows line ends as ``\n``; or an ``InvalidInput`` on ``field`` before the
    act touches the game. ``what`` names it in the messages ("A will", "Thoughts"); ``code``
    refuses what is no text the site can store, ``too_long`` (else ``code``) a text over
    ``limit``, and ``empty`` (if given) an empty one."""
    if not isinstance(value, str):
        raise InvalidInput(_("%(what)s: text only.") % {"what": what}, code, field)
    text = value.strip().replace("\r\n", "\n")
    if empty is not None and not text:
        raise InvalidInput(_("%(what)s: nothing written.") % {"what": what}, empty, field)
    if len(text) > limit:
        raise InvalidInput(
            ngettext(
                "%(what)s: at most %(limit)s character; this has %(length)s.",
                "%(what)s: at most %(limit)s characters; this has %(length)s.",
                limit,
            )
            % {"what": what, "limit": f"{limit:,}", "length": f"{len(text):,}"},
            too_long or code,
            field,
        )
    try:
        validate_plain_text(text)
    except ValidationError as exc:
        raise InvalidInput(exc.messages[0], code, field) from None
    return text
