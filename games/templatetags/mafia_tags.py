"""Template filters of the game pages."""

from __future__ import annotations

from datetime import timedelta

from django import template

from ..forms import split_length

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """A phase length in the host's words: "24 hours", "3 days", "90 minutes"."""
    if value is None:
        return ""
    amount, unit = split_length(value)
    return f"{amount} {unit[:-1] if amount == 1 else unit}"
