"""The naive fan-out, for ``live_load.py`` to measure beside the site's: not part of the site.

The textbook Channels design: every socket is a member of its game's public group itself
(one channel-layer delivery per socket per event) and sends one websocket frame per event it
hears, with no batching, no coalescing of vote counts and no catch-up replay. HTTP, the
session, the origin check and the items' text are the site's own, so the only difference
measured is the fan-out.

    uvicorn benchmarks.naive_asgi:application
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import path

from mafia_site.asgi import django_asgi_app, lifespan
from mafia_site.origin import SameOriginValidator


class NaiveGameConsumer(AsyncWebsocketConsumer):
    """A spectator's socket: joins ``game-<id>.public`` and forwards each item as a frame."""

    group = ""

    async def connect(self) -> None:
        from games.live import wire  # here: importing the models needs Django set up first

        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = wire.group_name(game_id, "public")
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=wire.dumps({"type": "hello", "game": game_id}))

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def live_batch(self, message: dict[str, Any]) -> None:
        # One frame per event, in the order heard: what the hub batches and coalesces.
        for entry in message["items"]:
            await self.send(text_data=f"[{entry['text']}]")


application = ProtocolTypeRouter(
    {
        "lifespan": lifespan,
        "http": django_asgi_app,
        "websocket": SameOriginValidator(
            AuthMiddlewareStack(
                URLRouter([path("ws/games/<int:game_id>/", NaiveGameConsumer.as_asgi())])
            )
        ),
    }
)
