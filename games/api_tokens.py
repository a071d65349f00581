"""API tokens: who an ``Authorization: Token <key>`` header signs in.

Two kinds of key sign in, each several per owner, each revocable, only its SHA-256 kept:
a person's (``PersonToken``: ``pat_`` keys, made by ``POST /api/v1/auth/token/`` or the
tokens page; keys made before hashing have no prefix) and an agent's (``AgentToken``,
``agt_`` keys). The API (``games.api.authentication``) and the websockets
(``mafia_site.token_sockets``) both ask ``sign_in``, so a revoked key is refused everywhere
at once.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any, NamedTuple

from django.db.models import Q
from django.utils import timezone

from .models import AgentToken, PersonToken

AGENT_KEY_PREFIX = "agt_"
PERSON_KEY_PREFIX = "pat_"
# last_used_at is a hint for the owner's token list, not a log: written at most this often.
LAST_USED_EVERY = timedelta(minutes=1)


class SignedIn(NamedTuple):
    """Who a key signs in, and the token it is (a socket keeps the id, to be closed when
    that token is revoked): ``token_id`` for an agent's token, ``person_token_id`` for a
    person's."""

    user: Any
    token_id: int | None
    person_token_id: int | None = None


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_agent_key() -> str:
    return AGENT_KEY_PREFIX + secrets.token_urlsafe(32)


def new_person_key() -> str:
    return PERSON_KEY_PREFIX + secrets.token_urlsafe(32)


def _touch(model: type, pk: int) -> None:
    now = timezone.now()
    model.objects.filter(pk=pk).filter(  # type: ignore[attr-defined]
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
    ).update(last_used_at=now)


def sign_in(key: str) -> SignedIn | None:
    """The active user a token key signs in, with its token's id; None if unknown,
    revoked or inactive."""
    key = (key or "").strip()
    if not key or len(key) > 200:
        return None
    if key.startswith(AGENT_KEY_PREFIX):
        agent_token = (
            AgentToken.objects.select_related("agent__user")
            .filter(key_hash=hash_key(key), revoked_at__isnull=True)
            .first()
        )
        if agent_token is None or not agent_token.agent.user.is_active:
            return None
        _touch(AgentToken, agent_token.pk)
        return SignedIn(agent_token.agent.user, agent_token.pk)
    # A person's: a ``pat_`` key, or one made before hashing (40 hex digits, no prefix).
    token = (
        PersonToken.objects.select_related("user")
        .filter(key_hash=hash_key(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    _touch(PersonToken, token.pk)
    return SignedIn(token.user, None, token.pk)


def user_for_key(key: str) -> Any | None:
    """The active user a token key signs in, or None (unknown, revoked, inactive)."""
    found = sign_in(key)
    return found.user if found else None


def agent_token_signs_in(token_id: int) -> bool:
    """Whether the agent's token still signs its user in (not revoked or deleted, the
    user active): what ``sign_in`` asks, by primary key."""
    return AgentToken.objects.filter(
        pk=token_id, revoked_at__isnull=True, agent__user__is_active=True
    ).exists()


def person_token_signs_in(token_id: int) -> bool:
    """Whether the person's token still signs them in: as ``agent_token_signs_in``."""
    return PersonToken.objects.filter(
        pk=token_id, revoked_at__isnull=True, user__is_active=True
    ).exists()


def key_from_header(value: str) -> str | None:
    """The key of an ``Authorization: Token <key>`` value, or None for another scheme."""
    scheme, _, key = (value or "").strip().partition(" ")
    if scheme.lower() != "token":
        return None
    return key.strip()


def owners_of_key(key: str) -> list[int]:
    """Whose account a live (not revoked) key is, whatever that account's state: the
    person's, or an agent's and its owner's. Only for saying why a key is refused."""
    key = (key or "").strip()
    if not key or len(key) > 200:
        return []
    digest = hash_key(key)
    if key.startswith(AGENT_KEY_PREFIX):
        row = (
            AgentToken.objects.filter(key_hash=digest, revoked_at__isnull=True)
            .values_list("agent__user_id", "agent__owner_id")
            .first()
        )
        return list(row) if row else []
    return list(
        PersonToken.objects.filter(key_hash=digest, revoked_at__isnull=True).values_list(
            "user_id", flat=True
        )[:1]
    )
