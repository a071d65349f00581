"""The host's chat webhook: setting or clearing its URL, and sending its failed posts again.

Neither touches the game's state (no event, no game row lock): the webhook is the host's
channel beside the game, and delivery itself is ``webhooks.delivery``'s.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.errors import ErrorCode, InvalidInput
from games.models import Game
from games.reads.access import get_game
from games.services.common import require_host

from . import delivery
from .models import DeliveryStatus, GameWebhook, WebhookDelivery


def set_webhook(user: Any, game_id: int, url: str) -> GameWebhook | None:
    """Set the game's webhook URL (``""``: remove it, and drop the posts still waiting).

    The URL is checked first (its host name resolved), outside any transaction."""
    game = get_game(game_id)
    require_host(user, game)
    url = (url or "").strip()
    if not url:
        with transaction.atomic():
            WebhookDelivery.objects.filter(game=game).exclude(status=DeliveryStatus.SENT).delete()
            GameWebhook.objects.filter(game=game).delete()
        return None
    try:
        url = delivery.check_url(url)
    except delivery.BadWebhook as exc:
        raise InvalidInput(str(exc), ErrorCode.BAD_WEBHOOK, "url") from None
    hook, _created = GameWebhook.objects.update_or_create(
        game=game, defaults={"url": url, "failure": "", "failed_at": None}
    )
    return hook


def retry_webhook(user: Any, game_id: int) -> int:
    """Send the posts that failed again, in order; returns how many."""
    game: Game = get_game(game_id)
    require_host(user, game)
    if not GameWebhook.objects.filter(game=game).exists():
        raise InvalidInput(_("This game has no webhook."), ErrorCode.NO_WEBHOOK, "url")
    with transaction.atomic():
        count = WebhookDelivery.objects.filter(game=game, status=DeliveryStatus.FAILED).update(
            status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=timezone.now()
        )
        GameWebhook.objects.filter(game=game).update(failure="", failed_at=None)
        transaction.on_commit(partial(delivery.kick, game.pk))
    return count
