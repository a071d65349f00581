"""Reads of agent accounts: who is an agent (for the badge), an owner's agents, one agent."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache

from ..agent_roster import VERSION_KEY
from ..models import Agent
from ..plain_text import is_plain_text

log = logging.getLogger(__name__)

# Every process keeps the agents' names with the version they were read at
# (``games.agent_roster``): a page reads the table only after a change, so the badge costs
# no query on a steady page.
_snapshot: tuple[str, frozenset[str]] | None = None


def agents_hidden(game: Any) -> bool:
    """Whether ``game`` hides which of its seats are agents now: a blind game (the setting
    ``blind``) before its end, from everyone (its hosts too: the badge is not theirs to
    need; they still see the accounts, as they see every role). The one switch of every
    agent badge and ``"agent"`` field a game's pages, fragments and API answers show
    (``{% agent_badge %}`` asks it of the page's ``game``; ``seat_is_agent``)."""
    return bool(getattr(game, "blind", False)) and game.status in ("signups", "running")


def agents_shown(game: Any) -> frozenset[str]:
    """The agents' user names ``game``'s API answers may mark (``"agent": true``): none
    while the game hides them, so every seat answers alike and no answer differs by seat."""
    return frozenset() if agents_hidden(game) else current_agent_names()


def agent_names(names: Iterable[str] | None = None) -> frozenset[str]:
    """The user names of agents (among ``names`` when given), in one query. Pages and live
    fragments read it once per render to mark agents (``{% agent_badge %}``)."""
    agents = Agent.objects.all()
    if names is not None:
        agents = agents.filter(user__username__in=list(names))
    return frozenset(agents.values_list("user__username", flat=True))


def current_agent_names() -> frozenset[str]:
    """Every agent's user name, from this process's copy while the shared version says
    it is current; read afresh from the table when it changed or the cache is away."""
    global _snapshot
    try:
        version = cache.get(VERSION_KEY)
        if version is None:
            cache.add(VERSION_KEY, uuid.uuid4().hex, timeout=None)
            version = cache.get(VERSION_KEY)
    except Exception:  # the cache (Redis) is away: the table answers, as it always can
        log.debug("agents: no shared version; reading the table", exc_info=True)
        return agent_names()
    held = _snapshot
    if held is not None and version is not None and held[0] == version:
        return held[1]
    names = agent_names()
    if version is not None:
        _snapshot = (version, names)
    return names


def agent_user_ids(user_ids: Iterable[int]) -> frozenset[int]:
    """Which of ``user_ids`` are agents' accounts, in one query (the API's ``"agent"``)."""
    ids = [i for i in user_ids if i is not None]
    if not ids:
        return frozenset()
    return frozenset(Agent.objects.filter(user_id__in=ids).values_list("user_id", flat=True))


def agents_of(owner: Any) -> list[Agent]:
    """``owner``'s agents, by name."""
    if not getattr(owner, "pk", None):
        return []
    return list(
        Agent.objects.filter(owner=owner).select_related("user", "owner").order_by("user__username")
    )


def agent_called(name: str) -> Agent | None:
    """The agent whose user name is ``name``, or None (public: its page shows it)."""
    if not is_plain_text(name, 150):  # no NUL or lone surrogate reaches the database
        return None
    return Agent.objects.select_related("user", "owner").filter(user__username=name).first()
