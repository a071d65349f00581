"""Websocket routes: one socket per open game page."""

from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
]
