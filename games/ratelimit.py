"""Rate limits: logins, API tokens, sign-ups, posts and votes.

Sliding windows (this fixed window's count plus the carried share of the last one's, so no
boundary lets twice the limit through at once) counted in Django's cache (Redis when
``REDIS_URL`` is set, so every web process shares the counts; the embedded single-process
run uses local memory). A refused request is not counted. A request
over its limit gets HTTP 429 with ``Retry-After``: JSON in the API
(``{"error", "code": "throttled", "retry_after"}``), a page saying when to try again in
the browser. ``DEFAULT_LIMITS`` below, changed by the ``RATE_LIMITS`` setting (``scope ->
(requests, seconds)``) and switched off by ``RATE_LIMITS_ENABLED``, so tests and
deployments tune them.

The counts are a guard, not a record: while the cache (Redis) is away they are not kept,
and every request is let through with one warning in the log per minute, so posts, votes
and logins never wait on Redis (PostgreSQL holds everything that matters).

Logins count failures only, against the account the log-in names (by name or by e-mail
address alike, ``accounts.account_for_login``; else the name as typed), from the form and
the token exchange alike: per account and address, per address, and per account from any
address. The right password after too many wrong ones is refused too until the window slides on,
so guessing costs time. Past the per-account limit (``login-account``: a guesser with many
addresses) the owner is not locked out with the guesser: the refusal mails the account an
unlock link that lets the owner's browser past that one limit (``games.login_unlock``).
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
from django.utils.translation import gettext as _

from . import login_unlock
from .accounts import account_for_login
from .outage import OUTAGE_ERRORS

log = logging.getLogger(__name__)

DEFAULT_LIMITS: dict[str, tuple[int, int]] = {
    "login": (10, 300),  # failed logins per username and address, 5 minutes
    "login-address": (50, 300),  # failed logins per address, any username
    "login-account": (20, 3600),  # failed logins per account from any address, an hour
    "signup": (20, 3600),  # accounts per address an hour (a club behind one NAT fits)
    "post": (20, 60),  # posts per person a minute (votes count here too: COUNTS_AGAINST)
    "vote": (30, 60),  # votes, unvotes and nominations per person a minute
    "report": (20, 3600),  # reports to the moderators per person an hour
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
        return _("Too many requests; try again in %(seconds)s seconds.") % {
            "seconds": self.retry_after
        }


class AccountLocked(RateLimited):
    """Too many wrong passwords for one account from anywhere (``login-account``). Worded
    the same whether or not the account exists or has an address."""

    @property
    def message(self) -> str:
        return _(
            "Too many failed log-ins to this account; try again in "
            "%(seconds)s seconds. If it is your account and it has a verified "
            "e-mail address, we have mailed it a link to log in with in a browser now."
        ) % {"seconds": self.retry_after}


def limits() -> dict[str, tuple[int, int]]:
    """The limits in force: the defaults, overridden by ``settings.RATE_LIMITS``; none at
    all when ``settings.RATE_LIMITS_ENABLED`` is false."""
    if not getattr(settings, "RATE_LIMITS_ENABLED", True):
        return {}
    return {**DEFAULT_LIMITS, **getattr(settings, "RATE_LIMITS", {})}


def _cache() -> Any:
    return caches[getattr(settings, "RATE_LIMIT_CACHE", "default")]


def _keys(scope: str, ident: str, window: int, now: float) -> tuple[str, str, float]:
    """The keys of this window's count and the last one's, and the seconds into this one."""
    start = int(now // window) * window
    namespace = getattr(settings, "RATE_LIMIT_NAMESPACE", "")
    base = f"rl:{namespace}:{scope}:{ident}"
    return f"{base}:{start}", f"{base}:{start - window}", now - start


def _carried(previous: int, elapsed: float, window: int) -> int:
    """The share of the last window's count that still counts: all of it at the boundary,
    none a window later. Rounded up, so a request is never forgotten early."""
    return math.ceil(previous * (window - elapsed) / window)


def _wait(current: int, previous: int, elapsed: float, limit: tuple[int, int]) -> int:
    """Seconds until one more request fits: until this window's and the carried share of
    the last one's make less than the limit."""
    allowed, window = limit
    room = allowed - 1  # what may already be counted when one more comes
    if current > room:  # only once this window is the last one, and enough of it is gone
        fits_at = window + window * (1 - room / current)
    elif previous > room - current:
        fits_at = window * (1 - (room - current) / previous)
    else:
        fits_at = elapsed
    return max(1, math.ceil(fits_at - elapsed))


def _count(scope: str, ident: str, add: int) -> tuple[int, int]:
    """(the count in the sliding window ending now after adding ``add``, seconds until one
    more request fits); (0, 0), counting nothing, while the cache is unreachable (fail
    open). The window slides (this fixed window's count and the carried share of the
    last's), so no boundary lets twice the limit through at once."""
    limit = limits().get(scope)
    if not limit:
        return 0, 0
    window = limit[1]
    key, last_key, elapsed = _keys(scope, ident, window, time.time())
    try:
        cache = _cache()
        # Kept through the next window too, where it is the carried share.
        current = _counted(cache, key, add, math.ceil(2 * window - elapsed))
        previous = int(cache.get(last_key) or 0)
    except OUTAGE_ERRORS as exc:
        _warn_fail_open(scope, exc)
        return 0, 0
    return current + _carried(previous, elapsed, window), _wait(current, previous, elapsed, limit)


def _uncount(scope: str, ident: str) -> None:
    """Take back one request just counted: a refused request does not count, so the wait
    a refusal names holds however often the client asks meanwhile."""
    limit = limits().get(scope)
    if not limit:
        return
    key, _last, _elapsed = _keys(scope, ident, limit[1], time.time())
    try:
        _cache().decr(key)
    except ValueError:
        pass  # gone: nothing to take back
    except OUTAGE_ERRORS:
        pass  # unreachable: nothing was counted either


def _counted(cache: Any, key: str, add: int, ttl: int) -> int:
    if add:
        cache.add(key, 0, timeout=ttl)
        try:
            return cache.incr(key, add)
        except ValueError:  # expired between add and incr
            cache.set(key, add, timeout=ttl)
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
    count, _ = _count(scope, ident, 1)
    if count > limit[0]:
        _uncount(scope, ident)
        raise RateLimited(scope, _count(scope, ident, 0)[1])


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


def login_account(login: str) -> tuple[Any | None, str]:
    """The account a log-in names (or None) and whom it counts against: that account,
    whether named by its name or its address, else the name as typed."""
    user = account_for_login(login)
    return user, (f"user:{user.pk}" if user is not None else f"name:{login_name(login)}")


def login_idents(request: Any, who: str) -> list[tuple[str, str]]:
    address = client_address(request)
    return [("login", f"{address}|{who}"), ("login-address", address), ("login-account", who)]


def check_login(request: Any, username: str) -> None:
    """Refuse a log-in over its limits (``RateLimited``; ``AccountLocked`` past the
    account's, which first mails the account its unlock link). A browser holding the
    account's unlock cookie passes the account's limit, not the others."""
    user, who = login_account(username)
    for scope, ident in login_idents(request, who):
        if scope != "login-account":
            check(scope, ident)
            continue
        if user is not None and login_unlock.unlocked_account(request) == user.pk:
            continue
        try:
            check(scope, ident)
        except RateLimited as exc:
            login_unlock.send_link(request, user, exc.retry_after)
            raise AccountLocked(exc.scope, exc.retry_after) from None


def login_failed(request: Any, username: str) -> None:
    _user, who = login_account(username)
    for scope, ident in login_idents(request, who):
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
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


def enforce(kind: str, request: Any) -> None:
    """Count one request of ``kind`` against each limit of ``COUNTS_AGAINST``;
    ``RateLimited`` at the first one over (the API answers 429)."""
    ident = ident_of(request)
    counted: list[str] = []
    for scope in COUNTS_AGAINST.get(kind, (kind,)):
        try:
            hit(scope, ident)
        except RateLimited:
            for earlier in counted:  # refused: counts against none of its limits
                _uncount(earlier, ident)
            raise
        counted.append(scope)


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
