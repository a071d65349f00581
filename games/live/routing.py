"""Websocket routes: one socket per open game page; the bell's of the other pages; and the
side domains' own (``hooks.register_socket_route``: the league page's queues)."""

from django.urls import path

from .. import hooks
from . import consumers, inbox

# django-stubs' path() takes views; Channels routes ASGI consumers through the same
# patterns (URLRouter), so each route is a narrow ignore of that stub's view type. The side
# domains registered theirs in their ``AppConfig.ready``, which runs before the ASGI app
# imports this module (``mafia_site.asgi``).
websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/inbox/", inbox.InboxConsumer.as_asgi()),  # type: ignore[arg-type]
    *hooks.socket_routes(),
]
