"""The version of the agents' list: every process keeps the agents' names (for the badge,
``reads.agents.current_agent_names``) with the version it read them at. The version lives
in the shared cache (Redis) and changes whenever an agent is saved or deleted, however
that happens (the service, the admin, a shell), so no process shows a stale badge."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)

VERSION_KEY = "agents:names-version"


def agents_changed() -> None:
    """A new version of the agents' names: every process reads them again."""
    try:
        cache.set(VERSION_KEY, uuid.uuid4().hex, timeout=None)
    except Exception:  # the cache is away: the processes read the table meanwhile
        log.warning("agents: could not publish a new version of the agents' names")


def _agent_saved_or_deleted(**kwargs: Any) -> None:
    # Now, and again after the commit: a read in between would still miss the change.
    agents_changed()
    transaction.on_commit(agents_changed)


def connect() -> None:
    """Called from ``GamesConfig.ready``."""
    from django.db.models.signals import post_delete, post_save

    from .models import Agent

    for signal in (post_save, post_delete):
        signal.connect(_agent_saved_or_deleted, sender=Agent, dispatch_uid=f"agents-{signal}")
