"""Websocket routes: one socket per open game page; the bell's of the other pages; the
league page's queues."""

from django.urls import path

from . import consumers, inbox

# django-stubs' path() takes views; Channels routes ASGI consumers through the same
# patterns (URLRouter), so each route is a narrow ignore of that stub's view type.
websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/inbox/", inbox.InboxConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/league/", inbox.LeagueConsumer.as_asgi()),  # type: ignore[arg-type]
]
