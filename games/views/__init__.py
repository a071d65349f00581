"""The web pages. Views read freely but change state only through ``games.services``;
what each person may see is decided in ``access`` and the live regions live in ``partials``."""

from .accounts import signup
from .archive import archive
from .game import (
    join,
    leave,
    nominate,
    post_link,
    private_thread,
    remove_signup,
    reply,
    start,
    thread,
    unvote,
    vote,
)
from .host import dashboard as host_dashboard
from .host import host_action
from .lobby import create_game, lobby
from .role import role_pm, withdraw

__all__ = [
    "archive",
    "create_game",
    "host_action",
    "host_dashboard",
    "join",
    "leave",
    "lobby",
    "nominate",
    "post_link",
    "private_thread",
    "remove_signup",
    "reply",
    "role_pm",
    "signup",
    "start",
    "thread",
    "unvote",
    "vote",
    "withdraw",
]
