"""Rate limits: logins, API tokens, sign-ups, posts and votes.

Fixed windows counted in Django's cache (Redis when ``REDIS_URL`` is set, so every web
process shares the counts; the embedded single-process run uses local memory). A request
over its limit gets HTTP 429 with ``Retry-After``: JSON in the API
(``{"error", "code": "throttled", "retry_after"}``), a page saying when to try again in
the browser. ``DEFAULT_LIMITS`` below, changed by the ``RATE_LIMITS`` setting (``scope ->
(requests, seconds)``) and switched off by ``RATE_LIMITS_ENABLED``, so tests and
deployments tune them.

The counts are a guard, not a record: while the cache (Redis) is away they are not kept,
and every request is let through with one warning in the log per minute, so posts, votes
and logins never wait on Redis (PostgreSQL holds everything that matters).

Logins count failures only, per username and address: the right password after too many
wrong ones is refused too until the window ends, so guessing costs time.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from .outage import OUTAGE_ERRORS

log = logging.getLogger(__name__)

DEFAULT_LIMITS: dict[str, tuple[int, int]] = {
    "login": (10, 300),  # failed logins per username and address, 5 minutes
    "login-address": (50, 300),  # failed logins per address, any username
    "signup": (20, 3600),  # accounts per address an hour (a club behind one NAT fits)
    "post": (20, 60),  # posts per person a minute (votes count here too: COUNTS_AGAINST)
    "vote": (30, 60),  # votes, unvotes and nominations per person a minute
}

# The limits each kind of request counts against. A vote, an unvote or a nomination posts
# in the thread ("**Vote: Name**"), so it is a post too, from the page's buttons and the API
# alike, as a bold vote typed in a post is.
COUNTS_AGAINST: dict[str, tuple[str, ...]] = {"post": ("post",), "vote": ("vote", "post")}


class RateLimited(Exception):
    def __init__(self, scope: str, retry_after: int) -> None:
        super().__init__(scope)
        self.scope = scope
        self.retry_after = retry_after

    @property
    def message(self) -> str:
        return f"Too many requests; try again in {self.retry_after} seconds."


def limits() -> dict[str, tuple[int, int]]:
    """The limits in force: the defaults, overridden by ``settings.RATE_LIMITS``; none at
    all when ``settings.RATE_LIMITS_ENABLED`` is false."""
    if not getattr(settings, "RATE_LIMITS_ENABLED", True):
        return {}
    return {**DEFAULT_LIMITS, **getattr(settings, "RATE_LIMITS", {})}


def _cache() -> Any:
    return caches[getattr(settings, "RATE_LIMIT_CACHE", "default")]


def _key(scope: str, ident: str, window: int) -> tuple[str, int]:
    now = time.time()
    start = int(now // window) * window
    namespace = getattr(settings, "RATE_LIMIT_NAMESPACE", "")
    return f"rl:{namespace}:{scope}:{ident}:{start}", max(1, math.ceil(start + window - now))


def _count(scope: str, ident: str, add: int) -> tuple[int, int]:
    """(the count in this window after adding ``add``, seconds until the window ends);
    (0, 0), counting nothing, while the cache is unreachable (fail open)."""
    limit = limits().get(scope)
    if not limit:
        return 0, 0
    key, left = _key(scope, ident, limit[1])
    try:
        return _counted(_cache(), key, add, left), left
    except OUTAGE_ERRORS as exc:
        _warn_fail_open(scope, exc)
        return 0, 0


def _counted(cache: Any, key: str, add: int, left: int) -> int:
    if add:
        cache.add(key, 0, timeout=left + 1)
        try:
            return cache.incr(key, add)
        except ValueError:  # expired between add and incr
            cache.set(key, add, timeout=left + 1)
            return add
    return int(cache.get(key) or 0)


_last_warning = 0.0


def _warn_fail_open(scope: str, exc: BaseException) -> None:
    global _last_warning
    if time.monotonic() - _last_warning >= 60:
        _last_warning = time.monotonic()
        log.warning("Rate limits not counted (%s): the cache is unreachable: %r", scope, exc)


def hit(scope: str, ident: str) -> None:
    """Count one request; raise ``RateLimited`` if it is over the scope's limit."""
    limit = limits().get(scope)
    if not limit:
        return
    count, left = _count(scope, ident, 1)
    if count > limit[0]:
        raise RateLimited(scope, left)


def check(scope: str, ident: str) -> None:
    """Raise ``RateLimited`` if the scope's limit is already used up (counts nothing)."""
    limit = limits().get(scope)
    if not limit:
        return
    count, left = _count(scope, ident, 0)
    if count >= limit[0]:
        raise RateLimited(scope, left)


def failed(scope: str, ident: str) -> None:
    """Count one failure (a wrong password) without refusing this request."""
    if limits().get(scope):
        _count(scope, ident, 1)


def client_address(request: Any) -> str:
    """The client's address (``REMOTE_ADDR``: behind a proxy, the proxy must set it)."""
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def login_name(username: str) -> str:
    """The name a login attempt is counted under: read as the login reads it (Django's
    NFKC: full-width "\uff54_mas1" logs in as "t_mas1"), case folded (sign-up refuses
    names that differ in case only, so they are one person's), at most 150 characters."""
    return get_user_model().normalize_username(username).strip().casefold()[:150]


def login_idents(request: Any, username: str) -> list[tuple[str, str]]:
    address = client_address(request)
    return [("login", f"{address}|{login_name(username)}"), ("login-address", address)]


def check_login(request: Any, username: str) -> None:
    for scope, ident in login_idents(request, username):
        check(scope, ident)


def login_failed(request: Any, username: str) -> None:
    for scope, ident in login_idents(request, username):
        failed(scope, ident)


def too_many_requests(request: HttpRequest, exc: RateLimited) -> HttpResponse:
    """The browser's answer: a page saying when to try again."""
    body = render_to_string(
        "429.html", {"message": exc.message, "retry_after": exc.retry_after}, request=request
    )
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(exc.retry_after)
    return response


def ident_of(request: Any) -> str:
    """Whom a request counts against: the signed-in person, else the address."""
    user = getattr(request, "user", None)
    if getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


def enforce(kind: str, request: Any) -> None:
    """Count one request of ``kind`` against each limit of ``COUNTS_AGAINST``;
    ``RateLimited`` at the first one over (the API answers 429)."""
    ident = ident_of(request)
    for scope in COUNTS_AGAINST.get(kind, (kind,)):
        hit(scope, ident)


def limited(kind: str) -> Callable:
    """Decorate a view (a function or an API view's method): one request of ``kind`` per
    call (``enforce``), counted per signed-in person (else per address)."""

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            request = next(a for a in args if hasattr(a, "META"))
            try:
                enforce(kind, request)
            except RateLimited as exc:
                if hasattr(request, "_request"):  # an API request: its handler answers
                    raise
                return too_many_requests(request, exc)
            return view(*args, **kwargs)

        wrapper.rate_limit_kind = kind  # type: ignore[attr-defined]  # the API document: 429
        return wrapper

    return decorate
