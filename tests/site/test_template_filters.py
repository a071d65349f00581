"""The game pages' own template filters give what Django's general ones would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.template import Context, Template
from django.utils import timezone

from games.templatetags.mafia_tags import post_time

MOMENTS = [
    datetime(2026, 1, 1, 0, 0, tzinfo=UTC),  # a Thursday, midnight
    datetime(2026, 11, 23, 9, 5, 59, tzinfo=UTC),
    datetime(2027, 12, 31, 23, 59, tzinfo=UTC),
    *(datetime(2026, 3, 1, 12, 30, tzinfo=UTC) + timedelta(days=d, hours=d) for d in range(40)),
]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_post_time_is_djangos_date_format(zone):
    """In a template, as ``_post.html`` uses it, in whatever time zone is active."""
    django_date = Template('{{ moment|date:"D j M Y, H:i" }}')
    ours = Template("{% load mafia_tags %}{{ moment|post_time }}")
    with timezone.override(zone):
        for moment in MOMENTS:
            context = Context({"moment": moment})
            assert ours.render(context) == django_date.render(context), moment
    assert post_time(None) == ""
