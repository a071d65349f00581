"""The web pages. Views read freely but change state only through ``games.services``;
what each person may see is decided in ``access`` and the live regions live in ``partials``.

This package's ``__init__`` imports nothing on purpose: the live layer imports ``partials``
from here, and must not pull in the views (which import the services, which publish
through the live layer).
"""
