"""The installable web app's two pages: the service worker at the site's root, and the page
it shows when a navigation finds no network.

The worker (``static/js/sw.js``) is served from ``/sw.js`` so that its scope is the whole
site (a script under ``/static/`` could only control ``/static/``). It caches the offline
page and that page's own stylesheet and icon, nothing else: every game page is fetched
from the network each time, because the live pages build on fresh HTML. It also shows the
Web Push notifications (``notifications.push``) and opens their link when tapped.
"""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


@require_safe
@cache_control(no_cache=True)  # a new worker reaches browsers on their next visit
def service_worker(request: HttpRequest) -> FileResponse:
    found = finders.find("js/sw.js")
    assert isinstance(found, str)  # static/js/sw.js ships with the site
    # FileResponse closes the file once it is sent.
    response = FileResponse(open(found, "rb"), content_type="text/javascript")  # noqa: SIM115
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """What a page opened without a network shows (the worker keeps a copy). It is the same
    for everyone: it is cached once, whoever was signed in."""
    return render(request, "offline.html")
