"""API tokens: who an ``Authorization: Token <key>`` header signs in.

Two kinds of key sign in: a person's token (``POST /api/v1/auth/token/``, DRF's ``Token``)
and an agent's (``AgentToken``: several per agent, each revocable, only its SHA-256 kept).
The API (``TokenAuthentication``) and the websockets (``mafia_site.token_sockets``) both
ask ``user_for_key``, so a revoked key is refused everywhere at once.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from .models import AgentToken

AGENT_KEY_PREFIX = "agt_"
# last_used_at is a hint for the owner's token list, not a log: written at most this often.
LAST_USED_EVERY = timedelta(minutes=1)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_agent_key() -> str:
    return AGENT_KEY_PREFIX + secrets.token_urlsafe(32)


def sign_in(key: str) -> tuple[Any, int | None] | None:
    """The active user a token key signs in and, for an agent's key, its ``AgentToken``'s
    id (a socket keeps it to be closed when the token is revoked); None if unknown,
    revoked or inactive."""
    key = (key or "").strip()
    if not key or len(key) > 200:
        return None
    token_id = None
    if key.startswith(AGENT_KEY_PREFIX):
        token = (
            AgentToken.objects.select_related("agent__user")
            .filter(key_hash=hash_key(key), revoked_at__isnull=True)
            .first()
        )
        if token is None:
            return None
        now = timezone.now()
        AgentToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
        ).update(last_used_at=now)
        user, token_id = token.agent.user, token.pk
    else:
        found = Token.objects.select_related("user").filter(key=key).first()
        user = found.user if found else None
    return (user, token_id) if user is not None and user.is_active else None


def user_for_key(key: str) -> Any | None:
    """The active user a token key signs in, or None (unknown, revoked, inactive)."""
    found = sign_in(key)
    return found[0] if found else None


def agent_token_signs_in(token_id: int) -> bool:
    """Whether the agent's token still signs its user in (not revoked or deleted, the
    user active): what ``sign_in`` asks, by primary key."""
    return AgentToken.objects.filter(
        pk=token_id, revoked_at__isnull=True, agent__user__is_active=True
    ).exists()


def key_from_header(value: str) -> str | None:
    """The key of an ``Authorization: Token <key>`` value, or None for another scheme."""
    scheme, _, key = (value or "").strip().partition(" ")
    if scheme.lower() != "token":
        return None
    return key.strip()


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token scheme, for people's and agents' keys alike."""

    def authenticate_credentials(self, key: str) -> tuple[Any, None]:
        user = user_for_key(key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return user, None
