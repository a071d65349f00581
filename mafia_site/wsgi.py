"""WSGI entry point (plain HTTP only; the ASGI app in asgi.py is the one we deploy)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")

application = get_wsgi_application()
