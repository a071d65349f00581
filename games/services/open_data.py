"""A person's choice whether the site's open data names them (``OpenDataConsent``; the
export: ``games.reads.export``). Without it they are their seat in every exported game."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from ..errors import ErrorCode, NotAllowed
from ..models import OpenDataConsent


def set_open_data_naming(user: Any, named: bool, *, now: datetime | None = None) -> bool:
    """Let the open data name ``user`` (``named``) or stop it; what holds now."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to choose."), ErrorCode.LOGIN)
    if named:
        OpenDataConsent.objects.get_or_create(
            user=user, defaults={"agreed_at": now or timezone.now()}
        )
    else:
        OpenDataConsent.objects.filter(user=user).delete()
    return named


def names_me(user: Any) -> bool:
    return bool(
        getattr(user, "is_authenticated", False)
        and OpenDataConsent.objects.filter(user_id=user.pk).exists()
    )
