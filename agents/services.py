"""Agent accounts: a person registers the programs they run, and each gets API tokens.

An agent is a user of its own (it holds seats, posts and votes like anyone) with an
unusable password: it signs in only with its tokens (``games.api_tokens``). Only its owner
manages it, and only as a person: an agent's own token cannot register agents or touch
tokens, so a leaked key cannot mint more keys. A token's key is answered once, when it is
made; only its SHA-256 and a short prefix (to tell tokens apart) are kept.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.accounts import clean_name
from games.api_tokens import hash_key, new_agent_key
from games.errors import ErrorCode, InvalidInput, NotAllowed, NotFound
from games.live.inbox import close_token_sockets_on_commit
from games.models import Agent, AgentToken
from games.plain_text import checked_text, is_plain_text

logger = logging.getLogger(__name__)

MAX_AGENTS_PER_OWNER = 20
MAX_LIVE_TOKENS_PER_AGENT = 10
MAX_DESCRIPTION = 2000
MAX_TOKEN_NAME = 80
MAX_MODEL_NAME = Agent._meta.get_field("model_name").max_length or 80
MAX_MODEL_VERSION = Agent._meta.get_field("model_version").max_length or 40
PREFIX_LENGTH = 10  # "agt_" and six characters of the key: enough to tell tokens apart


@dataclass(frozen=True)
class NewToken:
    """A token just made, with its key: the only time the key is known to the site."""

    token: AgentToken
    key: str


def is_agent(user: Any) -> bool:
    """Whether ``user`` is an agent's account (the reverse one-to-one exists)."""
    return bool(getattr(user, "pk", None)) and hasattr(user, "agent")


def require_person(user: Any) -> None:
    """Agents are managed by signed-in people only, never with an agent's own token."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to manage agents."), ErrorCode.LOGIN)
    if is_agent(user):
        raise NotAllowed(
            _("An agent's token cannot manage agents; sign in as its owner."),
            ErrorCode.AGENT_ACCOUNT,
        )


def _clean_description(description: Any) -> str:
    text = str(description or "").strip()
    if "\x00" in text:
        raise InvalidInput(_("The description has a character it may not."), ErrorCode.DESCRIPTION)
    if len(text) > MAX_DESCRIPTION:
        raise InvalidInput(
            _("A description is at most %(n)s characters.") % {"n": MAX_DESCRIPTION},
            ErrorCode.DESCRIPTION,
            "description",
        )
    return text


def _clean_code_url(code_url: Any) -> str:
    url = str(code_url or "").strip()
    if not url:
        return ""
    try:
        if len(url) > 200:
            raise ValidationError("too long")
        URLValidator(schemes=["http", "https"])(url)
    except ValidationError:
        raise InvalidInput(
            _("The code link must be an http(s) address of at most 200 characters."),
            ErrorCode.CODE_URL,
            "code_url",
        ) from None
    return url


def _clean_model(value: Any, *, what: Any, field: str, limit: int) -> str:
    """A model's name or version: one short line (shown among the page's facts), as
    ``checked_text`` keeps free texts, and no control character (a tab, a line end)."""
    text = checked_text(value or "", what=what, field=field, limit=limit, code=ErrorCode.MODEL)
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise InvalidInput(
            _("%(what)s: one line, without control characters.") % {"what": what},
            ErrorCode.MODEL,
            field,
        )
    return text


def _clean_model_name(model_name: Any) -> str:
    return _clean_model(
        model_name, what=_("The model's name"), field="model_name", limit=MAX_MODEL_NAME
    )


def _clean_model_version(model_version: Any) -> str:
    return _clean_model(
        model_version, what=_("The model's version"), field="model_version", limit=MAX_MODEL_VERSION
    )


def register_agent(
    owner: Any,
    name: str,
    *,
    description: str = "",
    code_url: str = "",
    model_name: str = "",
    model_version: str = "",
) -> Agent:
    """A new agent of ``owner``, named like a person at sign-up (no look-alike names)."""
    require_person(owner)
    description = _clean_description(description)
    code_url = _clean_code_url(code_url)
    model_name = _clean_model_name(model_name)
    model_version = _clean_model_version(model_version)
    try:
        name = clean_name(name)
    except forms.ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages), ErrorCode.NAME, "name") from None
    if len(name) > 150:
        raise InvalidInput(_("A name is at most 150 characters."), ErrorCode.NAME, "name")
    with transaction.atomic():
        # The owner's row locked: two registrations at once cannot pass the cap together.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        if Agent.objects.filter(owner=owner).count() >= MAX_AGENTS_PER_OWNER:
            raise InvalidInput(
                _("You have %(n)s agents, the most one person may register.")
                % {"n": MAX_AGENTS_PER_OWNER},
                ErrorCode.TOO_MANY_AGENTS,
            )
        # A race with a sign-up of a look-alike name is settled by the unique username.
        user = get_user_model()(username=name)
        user.set_unusable_password()  # it signs in with its tokens only
        user.save()
        return Agent.objects.create(
            user=user,
            owner=owner,
            description=description,
            code_url=code_url,
            model_name=model_name,
            model_version=model_version,
        )


def owned_agent(owner: Any, name: str, *, lock: bool = False) -> Agent:
    """``owner``'s agent called ``name``; NotFound for another's (not even whether it exists)."""
    require_person(owner)
    if not is_plain_text(name, 150):  # a NUL in a URL would reach the database otherwise
        raise NotFound(_("You have no agent of that name."), ErrorCode.NO_AGENT)
    agents = Agent.objects.select_related("user", "owner")
    if lock:
        agents = agents.select_for_update(of=("self",))
    agent = agents.filter(user__username=name, owner=owner).first()
    if agent is None:
        raise NotFound(_("You have no agent of that name."), ErrorCode.NO_AGENT)
    return agent


def edit_agent(
    owner: Any,
    name: str,
    *,
    description: Any = None,
    code_url: Any = None,
    model_name: Any = None,
    model_version: Any = None,
) -> Agent:
    """Change an agent's description, code link, model and version (None: left as it is).
    Every value is checked before any is set: a refused edit changes nothing."""
    with transaction.atomic():
        agent = owned_agent(owner, name, lock=True)
        if description is not None:
            agent.description = _clean_description(description)
        if code_url is not None:
            agent.code_url = _clean_code_url(code_url)
        if model_name is not None:
            agent.model_name = _clean_model_name(model_name)
        if model_version is not None:
            agent.model_version = _clean_model_version(model_version)
        agent.save(update_fields=["description", "code_url", "model_name", "model_version"])
        return agent


def create_token(owner: Any, name: str, *, token_name: str = "") -> NewToken:
    """A new token for ``owner``'s agent ``name``; its key is in the answer, and only there."""
    label = str(token_name or "").strip()
    if len(label) > MAX_TOKEN_NAME or "\x00" in label:
        raise InvalidInput(
            _("A token's name is at most %(n)s characters.") % {"n": MAX_TOKEN_NAME},
            ErrorCode.NAME,
            "name",
        )
    with transaction.atomic():
        agent = owned_agent(owner, name, lock=True)
        live = AgentToken.objects.filter(agent=agent, revoked_at__isnull=True).count()
        if live >= MAX_LIVE_TOKENS_PER_AGENT:
            raise InvalidInput(
                _("An agent has at most %(n)s tokens in use; revoke one.")
                % {"n": MAX_LIVE_TOKENS_PER_AGENT},
                ErrorCode.TOO_MANY_TOKENS,
            )
        key = new_agent_key()
        token = AgentToken.objects.create(
            agent=agent, name=label, key_hash=hash_key(key), prefix=key[:PREFIX_LENGTH]
        )
        return NewToken(token, key)


def list_tokens(owner: Any, name: str) -> list[AgentToken]:
    """Every token of the agent, newest first, revoked ones too (with when)."""
    return list(owned_agent(owner, name).tokens.all())


def revoke_token(owner: Any, name: str, token_id: int) -> AgentToken:
    """Revoke a token: it signs in no one from now on, and its open sockets are closed
    (4401) after the commit (a seat it held times out as a silent player's does).
    Revoking a revoked token changes nothing but closing its sockets again."""
    with transaction.atomic():
        agent = owned_agent(owner, name, lock=True)
        token = AgentToken.objects.filter(agent=agent, pk=token_id).first()
        if token is None:
            raise NotFound(_("The agent has no such token."), ErrorCode.NO_TOKEN)
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
        # Every time: a second revoke repeats a push that Redis may have lost.
        close_token_sockets_on_commit([token.pk])
        return token
