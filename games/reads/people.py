"""Finding a person by a name as someone typed it (the host's Replace form, the API), and
whose player page a name is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from ..errors import ErrorCode, NotFound
from ..models import Agent
from ..naming import fold
from .reliability import Record, record


def user_called(name: str) -> Any | None:
    """The user whose name is ``name`` as written, else the one it folds to
    (``naming.fold``: "zoe smith" finds "Zoë Smith"), else None."""
    name = name.strip()
    users = get_user_model().objects
    exact = users.filter(username__iexact=name).first()
    if exact is not None or not name:
        return exact
    wanted = fold(name)
    # Sign-up keeps folds unique, so at most one matches; the names are short and few.
    for pk, username in users.values_list("pk", "username").iterator():
        if fold(username) == wanted:
            return users.get(pk=pk)
    return None


@dataclass
class PlayerHead:
    """Whose player page it is: the side domains add the rest (ratings, statistics)."""

    name: str
    agent: bool
    # Their inactivity modkills, replacements out and league games left (any game, rated
    # or not: ``reads.reliability``).
    record: Record


def player_head(name: str) -> PlayerHead:
    """The person or agent called exactly ``name`` (``NotFound`` if nobody is)."""
    user = get_user_model().objects.filter(username=name).select_related("agent").first()
    if user is None:
        raise NotFound(
            _("There is no player called %(name)s.") % {"name": repr(name)},
            ErrorCode.NO_USER,
            "name",
        )
    try:
        agent = user.agent is not None
    except Agent.DoesNotExist:
        agent = False
    return PlayerHead(user.get_username(), agent, record(user))
