"""The unlock link: how an account's owner logs in past the per-account limit.

Wrong passwords for one account from many addresses are counted together (``ratelimit``'s
``login-account`` scope). Past that limit the account's log-in is refused from everywhere,
so a guesser with a thousand addresses gets a handful of guesses an hour; the owner is not
locked out with them: the refusal mails the account's verified address (at most once per
window) a link that, opened and confirmed in a browser, lets that browser log in to that
account past the limit for ``UNLOCK_SECONDS`` (a signed cookie). The password is still
needed, and the per-address limits still hold.

The refusal says the same whether or not the account exists or has an address, and no mail
leaves for an unknown account: nobody learns anything from it. The API's token exchange has
no browser: it waits out the window (``Retry-After``); keys made before keep working.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sites.shortcuts import get_current_site
from django.core import signing
from django.core.cache import caches
from django.urls import reverse

from .accounts import verified_email
from .outage import OUTAGE_ERRORS

log = logging.getLogger(__name__)

SALT = "games.login_unlock"
COOKIE = "login_unlock"
LINK_SECONDS = 3600  # a mailed link opens for an hour
UNLOCK_SECONDS = 3600  # and lets its browser past the account's limit for an hour


def link_for(user: Any) -> str:
    """The path of the account's unlock link (signed: its id and password hash's tail, so
    a password change voids the link)."""
    key = signing.dumps({"u": user.pk, "p": user.password[-12:]}, salt=SALT, compress=True)
    return reverse("login_unlock", args=[key])


def user_of_link(key: str) -> Any | None:
    """The account an unlock link is for, or None (forged, expired, or the password changed
    since it was sent)."""
    try:
        data = signing.loads(key, salt=SALT, max_age=LINK_SECONDS)
        user = get_user_model().objects.filter(pk=int(data["u"]), is_active=True).first()
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None
    if user is None or user.password[-12:] != data.get("p"):
        return None
    return user


def cookie_value(user: Any) -> str:
    return signing.dumps({"u": user.pk}, salt=SALT + ".cookie")


def unlocked_account(request: Any) -> int | None:
    """The account whose limit this browser may pass (its unlock cookie), or None."""
    value = getattr(request, "COOKIES", {}).get(COOKIE)
    if not value:
        return None
    try:
        data = signing.loads(value, salt=SALT + ".cookie", max_age=UNLOCK_SECONDS)
        return int(data["u"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def send_link(request: Any, user: Any | None, window_left: int) -> None:
    """Mail the account's verified address its unlock link, at most once while the limit's
    window lasts; nothing for no account or no verified address. Never raises, and never
    waits for the mail server: the message leaves from a thread of its own, so the refusal
    takes as long whether or not anyone was mailed (its time would tell otherwise)."""
    address = verified_email(user) if user is not None else None
    if user is None or not address:  # (no user, no address: the first test only narrows)
        return
    try:
        cache = caches[getattr(settings, "RATE_LIMIT_CACHE", "default")]
        namespace = getattr(settings, "RATE_LIMIT_NAMESPACE", "")
        if not cache.add(f"unlock-sent:{namespace}:{user.pk}", 1, timeout=max(window_left, 1)):
            return  # already sent in this window
    except OUTAGE_ERRORS:
        pass  # the cache is away: send (a second mail beats none)
    context = {
        "request": request,
        "email": address,
        "current_site": get_current_site(request),
        "unlock_url": request.build_absolute_uri(link_for(user)),
        "user": user,
    }
    try:
        message = get_adapter(request).render_mail("account/email/login_unlock", address, context)
    except Exception:
        log.warning("Unlock link to user %s not written", user.pk, exc_info=True)
        return
    threading.Thread(target=_send, args=(message, user.pk), name="unlock-mail", daemon=True).start()


def _send(message: Any, user_id: int) -> None:
    try:
        message.send()
    except Exception:  # the mail server is away: the owner can wait out the window
        log.warning("Unlock link to user %s not sent", user_id, exc_info=True)
