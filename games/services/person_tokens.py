"""A person's API tokens: made at each ``POST /api/v1/auth/token/`` (or on the tokens page),
listed, revoked one by one, and all revoked when the password changes or is reset.

As an agent's (the agents app's ``services``): the key is answered once, when it is made; only
its SHA-256 and a short prefix (to tell tokens apart) are kept. Revoking closes the sockets
signed in with the token after the commit (``inbox.close_person_token_sockets_on_commit``).

A password change, set or reset revokes every token of the person: a stolen key must not
outlive the account's recovery. ``connect()`` (``GamesConfig.ready``) hooks allauth's
signals for its pages and Django's ``pre_save`` of a user for every other path (the admin,
``manage.py changepassword``, a shell's ``set_password`` then ``save``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from allauth.account import signals as allauth_signals
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.functions import Coalesce
from django.db.models.signals import post_save, pre_save
from django.utils import timezone
from django.utils.translation import gettext as _

from ..api_tokens import hash_key, new_person_key
from ..errors import ErrorCode, InvalidInput, NotAllowed, NotFound
from ..live.inbox import close_person_token_sockets_on_commit
from ..models import Agent, PersonToken
from ..plain_text import is_plain_text

MAX_TOKEN_NAME = 80
PREFIX_LENGTH = 10  # "pat_" and six characters of the key: enough to tell tokens apart
# Tokens in use at once per person. Each log-in of a bot makes one, so past this the one
# used longest ago is revoked (a bot that logs in at every start never hits a wall).
MAX_LIVE_TOKENS = 25
LOGIN_TOKEN_NAME = "API log-in"


@dataclass(frozen=True)
class NewPersonToken:
    """A token just made, with its key: the only time the key is known to the site."""

    token: PersonToken
    key: str


def require_person(user: Any) -> None:
    """People's tokens are a person's own: an agent has its own kind (``AgentToken``)."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to manage your tokens."), ErrorCode.LOGIN)
    if Agent.objects.filter(user_id=user.pk).exists():
        raise NotAllowed(
            _("An agent's tokens are managed on its page by its owner."), ErrorCode.AGENT_ACCOUNT
        )


def _clean_name(name: Any) -> str:
    label = str(name or "").strip()
    if not is_plain_text(label, MAX_TOKEN_NAME):
        raise InvalidInput(
            _("A token's name is at most %(limit)s characters of plain text.")
            % {"limit": MAX_TOKEN_NAME},
            ErrorCode.NAME,
            "name",
        )
    return label


def create_token(user: Any, *, name: str = LOGIN_TOKEN_NAME) -> NewPersonToken:
    """A new token for ``user``; its key is in the answer, and only there. Past
    ``MAX_LIVE_TOKENS`` the token used longest ago is revoked (its sockets closed)."""
    require_person(user)
    label = _clean_name(name)
    with transaction.atomic():
        # The person's row serialises their token changes (two log-ins at once).
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        live = PersonToken.objects.filter(user_id=user.pk, revoked_at__isnull=True)
        over = live.count() + 1 - MAX_LIVE_TOKENS
        if over > 0:
            used = Coalesce("last_used_at", "created_at")
            oldest = list(live.order_by(used, "pk").values_list("pk", flat=True)[:over])
            PersonToken.objects.filter(pk__in=oldest).update(revoked_at=timezone.now())
            close_person_token_sockets_on_commit(oldest)
        key = new_person_key()
        token = PersonToken.objects.create(
            user_id=user.pk, name=label, key_hash=hash_key(key), prefix=key[:PREFIX_LENGTH]
        )
        return NewPersonToken(token, key)


def list_tokens(user: Any) -> list[PersonToken]:
    """Every token of the person, newest first, revoked ones too (with when)."""
    require_person(user)
    return list(PersonToken.objects.filter(user_id=user.pk))


def revoke_token(user: Any, token_id: int) -> PersonToken:
    """Revoke one of the person's tokens: it signs in no one from now on, and its open
    sockets are closed (4401) after the commit. Revoking a revoked token changes nothing
    but closing its sockets again (a push Redis may have lost)."""
    require_person(user)
    with transaction.atomic():
        token = PersonToken.objects.select_for_update().filter(user_id=user.pk, pk=token_id).first()
        if token is None:
            raise NotFound(_("You have no such token."), ErrorCode.NO_TOKEN)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
        close_person_token_sockets_on_commit([token.pk])
        return token


def revoke_every_token(user_id: int) -> int:
    """Revoke every live token of the person and close their sockets after the commit:
    the password changed. How many were revoked."""
    with transaction.atomic():
        live = list(
            PersonToken.objects.filter(user_id=user_id, revoked_at__isnull=True).values_list(
                "pk", flat=True
            )
        )
        if live:
            PersonToken.objects.filter(pk__in=live).update(revoked_at=timezone.now())
            close_person_token_sockets_on_commit(live)
        return len(live)


PASSWORD_CHANGED = "_person_tokens_password_changed"  # set on the instance between the two


def _password_saving(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    """Before a user is saved: is it with a new password (any path: the admin,
    ``changepassword``, ``set_password`` then ``save``)? A fixture load (``raw``) and a
    new account (no tokens yet) are not, and neither is a hash upgraded at a log-in: Django
    saves it with ``update_fields=["password"]`` and clears ``_password`` (the plain text
    ``set_password`` keeps until the save), so "no plain text, only the password saved"
    is an upgrade of the same secret."""
    setattr(instance, PASSWORD_CHANGED, False)
    fields = kwargs.get("update_fields")
    if raw or instance.pk is None or (fields is not None and "password" not in fields):
        return
    if fields is not None and set(fields) == {"password"} and instance._password is None:
        return
    rows = type(instance).objects.filter(pk=instance.pk).values_list("password", flat=True)
    before = rows.first()
    setattr(instance, PASSWORD_CHANGED, before is not None and before != instance.password)


def _password_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    """After the save (never for one that failed): the new password's person loses their
    tokens."""
    if getattr(instance, PASSWORD_CHANGED, False):
        setattr(instance, PASSWORD_CHANGED, False)
        revoke_every_token(instance.pk)


def _password_changed_by_allauth(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """allauth's ``password_changed``, ``password_set`` and ``password_reset``: revoke even
    when the new password equals the old one (a reset means the account was recovered)."""
    revoke_every_token(user.pk)


def connect() -> None:
    """Revoke a person's tokens whenever their password changes (once, at start)."""
    user_model = get_user_model()
    pre_save.connect(_password_saving, sender=user_model, dispatch_uid="person-tokens-saving")
    post_save.connect(_password_saved, sender=user_model, dispatch_uid="person-tokens-saved")
    for signal in (
        allauth_signals.password_changed,
        allauth_signals.password_set,
        allauth_signals.password_reset,
    ):
        signal.connect(_password_changed_by_allauth, dispatch_uid=f"person-tokens-{id(signal)}")
