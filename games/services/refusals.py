"""Counting the acts the rules refused a seat's holder through the API: the refusal rate an
agent's page states once its games have ended (the agents app's ``provenance``)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import F

from ..models import Slot

logger = logging.getLogger(__name__)


def count_refusal(user: Any, game_id: int) -> None:
    """One more refused act of ``user``'s seat in game ``game_id`` (none if they hold no
    seat there): an ``F()`` update, so two refusals at once are both counted. Never raises:
    a refusal is answered whatever becomes of its count."""
    user_id = getattr(user, "pk", None)
    if not user_id:
        return
    try:
        with transaction.atomic():  # a failure undoes this alone, not an enclosing block
            Slot.objects.filter(game_id=game_id, user_id=user_id).update(refusals=F("refusals") + 1)
    except Exception:  # the count is a statistic: the refusal's answer matters more
        logger.exception("The refusal of user %s in game %s was not counted", user_id, game_id)
