"""Websocket routes: one socket per open game page; the bell's of the other pages; the
league page's queues."""

from django.urls import path

from . import consumers, inbox

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/inbox/", inbox.InboxConsumer.as_asgi()),
    path("ws/league/", inbox.LeagueConsumer.as_asgi()),
]
