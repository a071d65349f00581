"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets carry the Django session (``AuthMiddlewareStack``) and are refused unless their
Origin is one of ALLOWED_HOSTS (``AllowedHostsOriginValidator``): another site's page
cannot open a socket with a visitor's cookies.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")

# Build the Django app before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games import events  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

# In the web server a commit hands its live push to a publisher thread: the request that
# voted does not wait for it (games.events.publish_events).
events.BACKGROUND_DEFAULT = True

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
