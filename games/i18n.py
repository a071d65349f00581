"""Whose language a text is written in, said once.

- A page, an API answer, a form error: the reader's. LocaleMiddleware reads the browser's
  (Accept-Language or the language cookie); ``AccountLanguageMiddleware`` replaces it with the
  account's own choice when the person has made one.
- Anything written to the thread by the site (announcements, vote counts, the role PMs'
  texts, the resolver's explanations): the game's, chosen by its host
  (``in_game_language``). It is written once and every reader sees the same post.
- Anything written for one person and read later (notifications, mails, pushes): that
  person's (``in_language_of``), chosen when it is written.

Sign-up keeps the browser's language on the new account (``remember_browser_language``), so
mails written while the person is away are in the language they signed up in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import translation

if TYPE_CHECKING:
    from .models import Game

LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


def supported(code: str | None) -> str:
    """``code`` when the site has that language (``ru-RU`` counts as ``ru``), else the
    site's default."""
    if code:
        code = code.lower().replace("_", "-")
        for candidate in (code, code.split("-")[0]):
            if candidate in LANGUAGE_CODES:
                return candidate
    return settings.LANGUAGE_CODE


def account_language(user: Any) -> str:
    """The language a person chose on their account, or "" (none chosen: their browser's)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    from .models import AccountSettings

    try:
        chosen = user.account_settings.language
    except AccountSettings.DoesNotExist:
        return ""
    return chosen if chosen in LANGUAGE_CODES else ""


def language_of(user: Any) -> str:
    """The language to write to a person in when they are not here to ask their browser."""
    return account_language(user) or settings.LANGUAGE_CODE


def game_language(game: Game) -> str:
    return supported(getattr(game, "language", ""))


@contextmanager
def in_game_language(game: Game) -> Iterator[str]:
    """Write what the whole thread reads: the game's language."""
    language = game_language(game)
    with translation.override(language):
        yield language


@contextmanager
def in_language_of(user: Any) -> Iterator[str]:
    """Write what one person reads later: their language."""
    language = language_of(user)
    with translation.override(language):
        yield language


def remember_browser_language(user: Any, request: HttpRequest | None) -> None:
    """A new account keeps the language its browser asked for, unless one was chosen."""
    from .models import AccountSettings

    language = supported(translation.get_language_from_request(request) if request else None)
    AccountSettings.objects.get_or_create(user=user, defaults={"language": language})
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = language


def set_account_language(user: Any, language: str, request: HttpRequest | None = None) -> str:
    """Save a person's choice ("" = their browser's) and, when they are the one asking,
    remember it in their session (``AccountLanguageMiddleware`` reads it from there)."""
    from .models import AccountSettings

    language = language if language in LANGUAGE_CODES else ""
    AccountSettings.objects.update_or_create(user=user, defaults={"language": language})
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = language
    return language


# The session keeps the account's choice ("" = none), so a signed-in page asks the database
# once per session, not once per request. Set at log-in (``session_language``, below), sign-up
# and whenever the person changes it; another browser signed in to the account keeps the
# choice it read until its next log-in.
SESSION_KEY = "account_language"


def session_language(request: HttpRequest) -> str:
    """The signed-in person's chosen language ("" = the browser's), asked of the database
    only when this session does not know it yet."""
    user = getattr(request, "user", None)
    session = getattr(request, "session", None)
    if session is None:
        return account_language(user)
    # A session without the account's id is anonymous: nothing to look up (and no user row
    # loaded only to learn so).
    if not session.get("_auth_user_id"):
        return ""
    known = session.get(SESSION_KEY)
    if known is None or (known != "" and known not in LANGUAGE_CODES):
        known = account_language(user)
        session[SESSION_KEY] = known
    return str(known)


@receiver(user_logged_in)
def forget_session_language(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    """At log-in: the session reads the account's choice afresh."""
    session = getattr(request, "session", None)
    if session is not None:
        session.pop(SESSION_KEY, None)


class AccountLanguageMiddleware:
    """After AuthenticationMiddleware: a signed-in person's chosen language wins over the
    browser's for the whole request (pages, forms, JSON errors). The choice is kept in the
    session (``session_language``): no query per request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from .outage import OUTAGE_ERRORS

        try:
            chosen = session_language(request)
        except OUTAGE_ERRORS:
            # The database (the session's store) is away: the browser's language, and the
            # view meets the outage where OutageMiddleware answers it (a 503, no traceback).
            chosen = ""
        if chosen and chosen != translation.get_language():
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        response = self.get_response(request)
        if chosen:
            response.headers.setdefault("Content-Language", chosen)
        return response
