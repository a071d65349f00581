"""The webhook in the API: its status for the host, setting it, and the retry."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api import serializers as s
from games.api.serializers import InputSerializer
from games.api.typed import serializer_for
from games.api.views import HostOnlyView, HostOpView, _valid
from games.reads import policy

from . import delivery, services
from .models import MAX_WEBHOOK_URL_LENGTH
from .shapes import WebhookAnswer


class WebhookSerializer(InputSerializer):
    url = serializers.CharField(
        allow_blank=True,
        max_length=MAX_WEBHOOK_URL_LENGTH,
        help_text="A Discord or Slack incoming webhook URL; empty: remove the webhook.",
    )


WebhookAnswerSerializer = serializer_for(WebhookAnswer)


class WebhookView(HostOnlyView):
    @docs.read(WebhookAnswerSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Host only: the game's chat webhook (null: none): the URL masked (it is never sent
        back), the posts waiting, and the last failure."""
        game = self.host_game(game_id)
        answer: WebhookAnswer = {"webhook": delivery.status(game)}
        return Response(answer)

    @docs.write(
        s.GameChangedSerializer,
        request=WebhookSerializer,
        after_commit=True,
        refusals=(policy.NOT_HOST,),
    )
    def post(self, request: Request, game_id: int) -> Response:
        """Set the game's chat webhook (a Discord or Slack incoming webhook URL; empty:
        remove it). The site's public announcements are posted there too (``bad_webhook``:
        a URL it will not post to). The answer never repeats the URL."""
        data = _valid(WebhookSerializer, request)
        services.set_webhook(request.user, game_id, data["url"])
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


class WebhookRetryView(HostOpView):
    """Send the posts the webhook failed to take again, in order (``no_webhook``: none set)."""

    refusals = (policy.NOT_HOST,)

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.retry_webhook(request.user, game_id)
