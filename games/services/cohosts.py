"""Co-hosts, backup hosts and handing a game over.

The host names a co-host or a backup host by user name; either has the host's powers in the
game (``reads.access.is_host``: they see everything and use every host control). A backup
host differs only in what the game says of them: the one who takes over if the host leaves,
as a forum's backup moderator is (the host hands the game over to them). Only the game's
named host (``game.host``) adds, removes or hands over; a co-host may step down themself.

Nobody who plays in the game (or another account of theirs, ``same_person``) may host it,
and no agent account may: it would read every role for its owner, who may be playing.

Handing over: the new host owns the game (``game.host``) and the old host stays on as a
co-host (they ran it until now and know everything already; they may step down).

Each change is a public ``hosts_changed`` event: the nav's "hosted by" redraws for
everyone, and the sockets of whoever gained or lost the host's powers are re-checked (one
that lost them is taken off the host's audiences at once, ``live.hub``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

from ..errors import ErrorCode, InvalidInput, NotFound
from ..models import Agent, CoHost, CoHostKind, Game
from ..reads.access import CoHostRef, set_cohosts
from ..reads.moderation import same_person
from ..reads.people import user_called
from ..reads.policy import require_host_control
from .common import Tx, emit, game_tx

KINDS = frozenset(CoHostKind.values)


def add_cohost(
    user: Any,
    game_id: int,
    username: str,
    kind: str = CoHostKind.COHOST,
    *,
    now: datetime | None = None,
) -> CoHost:
    """The host makes ``username`` a co-host (``kind`` "cohost") or backup host ("backup")."""
    if kind not in KINDS:
        raise InvalidInput(_("Choose a co-host or a backup host."), ErrorCode.COHOST_KIND, "kind")
    with game_tx(game_id, now) as tx:
        game = tx.game
        require_host_control(game, user, "cohosts", tx.phase)
        new = _person(tx, username)
        if CoHost.objects.filter(game=game, user=new).exists():
            raise InvalidInput(
                _("%(name)s is already a host of this game.") % {"name": new.get_username()},
                ErrorCode.ALREADY_COHOST,
                "username",
            )
        cohost = CoHost.objects.create(game=game, user=new, kind=kind)
        _changed(tx, "added", new, kind, [new.pk])
        return cohost


def remove_cohost(
    user: Any, game_id: int, cohost_user_id: int, *, now: datetime | None = None
) -> None:
    """The host removes a co-host or backup host (or one steps down): they stop seeing
    anything a spectator does not, at once."""
    with game_tx(game_id, now) as tx:
        game = tx.game
        stepping_down = getattr(user, "pk", None) == cohost_user_id
        if not stepping_down:
            require_host_control(game, user, "cohosts", tx.phase)
        cohost = CoHost.objects.filter(game=game, user_id=cohost_user_id).select_related("user")
        found = cohost.first()
        if found is None:
            raise NotFound(
                _("That person is not a co-host of this game."), ErrorCode.NOT_COHOST, "user_id"
            )
        found.delete()
        _changed(tx, "removed", found.user, found.kind, [found.user_id])


def hand_over(user: Any, game_id: int, username: str, *, now: datetime | None = None) -> Game:
    """The host hands the game to ``username``: they become its host, and the old host one
    of its co-hosts."""
    with game_tx(game_id, now) as tx:
        game = tx.game
        require_host_control(game, user, "cohosts", tx.phase)
        new = _person(tx, username, handing_over=True)
        old = game.host
        CoHost.objects.filter(game=game, user=new).delete()
        CoHost.objects.create(game=game, user=old, kind=CoHostKind.COHOST)
        game.host = new
        Game.objects.filter(pk=game.pk).update(host=new)
        _changed(tx, "handed_over", new, "", [new.pk, old.pk])
        return game


# -- checks -------------------------------------------------------------------------------
def _person(tx: Tx, username: str, *, handing_over: bool = False) -> Any:
    """The user called ``username``, if they may host this game."""
    new = user_called(username or "")
    if new is None or not new.is_active:
        raise InvalidInput(
            _("There is no user called %(name)s.") % {"name": repr(username)},
            ErrorCode.NO_USER,
            "username",
        )
    name = new.get_username()
    if new.pk == tx.game.host_id:
        if handing_over:
            message = _("%(name)s already hosts it.") % {"name": name}
        else:
            message = _("%(name)s is the host already.") % {"name": name}
        raise InvalidInput(message, ErrorCode.HOST, "username")
    if Agent.objects.filter(user_id=new.pk).exists():
        raise InvalidInput(
            _("%(name)s is an agent: an agent may not host a game (it would see every role).")
            % {"name": name},
            ErrorCode.AGENT_HOST,
            "username",
        )
    theirs = same_person(new.pk)
    if any(s.user_id in theirs for s in tx.slots):
        if tx.locked.slot_of_user(new.pk) is not None:
            message = _("%(name)s plays in this game: a player cannot host it.")
        else:
            message = _("Another account of %(name)s plays in this game: a player cannot host it.")
        raise InvalidInput(message % {"name": name}, ErrorCode.IN_GAME, "username")
    return new


def _changed(tx: Tx, change: str, who: Any, kind: str, user_ids: list[int]) -> None:
    game = tx.game
    rows = list(CoHost.objects.filter(game=game).select_related("user").order_by("added_at", "pk"))
    set_cohosts(game, (CoHostRef(c.user_id, c.user.get_username(), c.kind) for c in rows))
    emit(
        tx,
        "hosts_changed",
        {
            "change": change,
            "name": who.get_username(),
            "kind": kind,
            "host": game.host.get_username(),
            "cohosts": [{"name": c.user.get_username(), "kind": c.kind} for c in rows],
            "user_ids": user_ids,
        },
    )
