"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets carry the Django session (``games.socket_db.session_auth_stack``: Channels'
``AuthMiddlewareStack``, its database work on the sockets' own threads), or an API client's
token (``mafia_site.token_sockets``), and are refused unless their whole Origin (scheme,
host and port) is this site's (``mafia_site.origin``): another site's page cannot open a
socket with a visitor's cookies, and capped per signed-in person, or per client address
for anonymous ones; and a process takes so many handshakes at once, telling the next to
try again (``mafia_site.socket_limits``).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")

# Build the Django app before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games import deadlines  # noqa: E402
from games.live import publisher  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from games.socket_db import session_auth_stack  # noqa: E402
from mafia_site.origin import SameOriginValidator  # noqa: E402
from mafia_site.socket_limits import HandshakesAtOnce, SocketsPerPerson  # noqa: E402
from mafia_site.token_sockets import TokenSocketAuth  # noqa: E402

# In the web server a commit hands its live push to a publisher thread: the request that
# voted does not wait for it (games.live.publisher.publish_events).
publisher.BACKGROUND_DEFAULT = True


async def lifespan(scope: dict, receive, send) -> None:
    """Server start: the deadline watchdog (``games.deadlines``) runs in every web process,
    so a dead Celery worker or beat delays a game by seconds, not forever."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            deadlines.start_watchdog()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


application = ProtocolTypeRouter(
    {
        "lifespan": lifespan,
        "http": django_asgi_app,
        # Handshakes at once are counted before anything else (the session's user is a
        # database call); the cap per person counts a socket toward its person, so it sits
        # inside the auth stack.
        "websocket": HandshakesAtOnce(
            SameOriginValidator(
                session_auth_stack(
                    TokenSocketAuth(
                        SocketsPerPerson(
                            # types-channels wants its check-only _ExtendedURLPattern, which
                            # no django.urls.path() is typed as: the stub is too narrow.
                            URLRouter(websocket_urlpatterns)  # type: ignore[arg-type]
                        )
                    )
                )
            )
        ),
    }
)

# Everything loaded so far (Django, the site, its templates' code) lives as long as the
# process: frozen out of the garbage collector's reach, its full passes no longer walk it.
# They cost about 100 ms of CPU once in some 15 requests, the pages' p95 (BENCHMARKS.md,
# "statistics pages").
gc.freeze()
