"""A socket's language: what its viewer's reload of the page would be written in.

Read once, at connect (``socket_language``): the signed-in person's account language (as
their session keeps it: ``games.i18n.session_language``), else their browser's, from the
handshake as ``LocaleMiddleware`` reads a request (the ``django_language`` cookie, then
``Accept-Language``), else the site's default. The consumer keeps it for the socket's life:
a person who changes their account language while a page is open keeps that page in the
language it was opened in until they reload it (acceptable: a reload shows the new one).
Only the parts rendered through the site's own middleware for a signed-in viewer
(``page_render``) read the session afresh, so they may follow the new choice sooner.

The language never decides what a socket is routed, only how what it is routed is worded:
the channel-layer groups stay one per audience, and the publisher renders each item once,
in ``BASE`` (``render``, ``numbering``); a socket of another language gets that same item
(the same event, the same number) rendered again in its language, once per process and
language (``localize``). No language but ``BASE`` is rendered unless a socket of it is open.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, parse_cookie
from django.utils import translation

from ..i18n import LANGUAGE_CODES, SESSION_KEY, account_language, supported

# What the publisher renders the items in (the channel layer's one copy of each).
BASE: str = supported(settings.LANGUAGE_CODE)


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def browser_language(scope: Mapping[str, Any]) -> str:
    """The language ``LocaleMiddleware`` would pick for a request with the handshake's
    cookie and ``Accept-Language`` header (Django's own parsing:
    ``translation.get_language_from_request``)."""
    headers = list(scope.get("headers") or ())
    request = HttpRequest()
    request.COOKIES = parse_cookie(_header(headers, b"cookie"))
    accept = _header(headers, b"accept-language")
    if accept:
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept
    return supported(translation.get_language_from_request(request))


def socket_language(scope: Mapping[str, Any]) -> str:
    """The socket's language (see the module's docstring), as a reload of its page picks
    it (``i18n.AccountLanguageMiddleware``): a signed-in person's choice as their session
    keeps it (read from their account when it does not), else the browser's. A socket
    signed in with a token is its token's person's (the cookies may be someone else's).
    May read the database: call it on the socket's database thread."""
    user = scope.get("user")
    if not getattr(user, "is_authenticated", False):
        return browser_language(scope)
    session = scope.get("session")
    by_token = scope.get("token_id") is not None or scope.get("person_token_id") is not None
    if session is not None and not by_token:
        known = session.get(SESSION_KEY)
        if known == "":
            return browser_language(scope)
        if known in LANGUAGE_CODES:
            return str(known)
    return account_language(user) or browser_language(scope)


def scope_in(scope: Mapping[str, Any], language: str) -> dict[str, Any]:
    """``scope`` whose ``Accept-Language`` says ``language`` only: a page rendered for the
    socket (``page_render``) is in the socket's language, and every anonymous socket of one
    language shares that render whatever its browser's exact header said. (A signed-in
    viewer's render also reads their cookie and account, from which ``language`` came.)"""
    headers = [(k, v) for k, v in scope.get("headers") or () if k.lower() != b"accept-language"]
    headers.append((b"accept-language", language.encode("latin-1")))
    return {**scope, "headers": headers}
