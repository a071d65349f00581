"""Sockets signed in with a token are closed (4401) once that token stops signing in.

``mafia_site.token_sockets`` checks a key only when a socket opens, and puts the token's
id in the scope: an agent token's as ``scope["token_id"]``, a person's as
``scope["person_token_id"]`` (two keys, not one: a socket with ``token_id`` is an agent's,
which has no page, ``own.OwnPage.of``). Every consumer that takes such a socket mixes in
``TokenWatch``, which ends it two ways:

* at once: it joins the token's group (``token_group(id)``,
  ``person_token_group(id)``), to which a revocation sends ``token.revoked`` after its
  commit (``inbox.close_token_sockets_on_commit``,
  ``inbox.close_person_token_sockets_on_commit``: never raise, retried while Redis is
  away);
* whatever became of that push: it asks the database itself every
  ``LIVE_TOKEN_RECHECK_SECONDS`` (``RECHECK_SECONDS`` by default), so a socket is closed
  within that time even when the channel layer's Redis is away. This also ends the sockets
  of a token deleted or a user deactivated outside the services (the admin, a shell: no
  page or API deletes an agent, and an owner with agents cannot be deleted).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mafia_site.token_sockets import REFUSED

from ..api_tokens import agent_token_signs_in, person_token_signs_in
from ..socket_db import socket_db
from .wire import setting

log = logging.getLogger(__name__)

REVOKED = "token.revoked"  # the channel-layer message; consumers handle it as token_revoked
# A timer, not the client's ping: whoever holds a revoked key chooses whether it pings.
# Each check is one primary-key lookup per token socket (token sockets are few: bots').
RECHECK_SECONDS = 10.0


def token_group(token_id: int) -> str:
    """The channel-layer group of the sockets signed in with one agent token."""
    return f"token-{int(token_id)}"


def person_token_group(token_id: int) -> str:
    """The channel-layer group of the sockets signed in with one person's token."""
    return f"person-token-{int(token_id)}"


def _watched(scope: Mapping[str, Any]) -> tuple[int, str, Callable[[int], bool]] | None:
    """The socket's token (id, group, the question whether it still signs in), if any."""
    if scope.get("token_id") is not None:
        token_id = int(scope["token_id"])
        return token_id, token_group(token_id), agent_token_signs_in
    if scope.get("person_token_id") is not None:
        token_id = int(scope["person_token_id"])
        return token_id, person_token_group(token_id), person_token_signs_in
    return None


class TokenWatch:
    """Mixed into a consumer: close it with 4401 when its token stops signing in.

    Call ``watch_token()`` once the socket is accepted and ``unwatch_token()`` on
    disconnect; a consumer that must stop its own sending first overrides ``refuse_token``.
    """

    if TYPE_CHECKING:  # what the consumer it is mixed into has (types-channels' types)
        from channels.consumer import _ChannelScope
        from channels.layers import BaseChannelLayer

        scope: _ChannelScope
        channel_layer: BaseChannelLayer
        channel_name: str

        async def close(
            self, code: int | bool | None = None, reason: str | None = None
        ) -> None: ...

    token_id: int | None = None
    _token_signs_in: Callable[[int], bool] | None = None
    _token_group: str | None = None
    _token_task: asyncio.Task | None = None
    _token_refused = False

    async def watch_token(self) -> None:
        watched = _watched(self.scope)
        if watched is None:
            return
        self.token_id, group, self._token_signs_in = watched
        if self.channel_layer is not None:
            try:
                # Bounded: a Redis that is away must not hold the connect; the timer remains.
                await asyncio.wait_for(self.channel_layer.group_add(group, self.channel_name), 2.0)
                self._token_group = group
            except Exception as exc:
                log.warning("Token socket: following %s failed: %r", group, exc)
        self._token_task = asyncio.get_running_loop().create_task(self._recheck_token())

    async def unwatch_token(self) -> None:
        task, self._token_task = self._token_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        group, self._token_group = self._token_group, None
        if group is not None and self.channel_layer is not None:
            try:
                await asyncio.wait_for(
                    self.channel_layer.group_discard(group, self.channel_name), 2.0
                )
            except Exception as exc:
                log.warning("Token socket: leaving %s failed: %r", group, exc)

    async def token_revoked(self, event: dict[str, Any]) -> None:
        """The channel-layer message ``token.revoked`` (only ever from our token's group)."""
        await self._refuse()

    async def _recheck_token(self) -> None:
        interval = float(setting("LIVE_TOKEN_RECHECK_SECONDS", RECHECK_SECONDS))
        # The first check at once: a revocation between the sign-in and the group_add
        # above was announced before this socket could hear it.
        signs_in, token_id = self._token_signs_in, self.token_id
        if signs_in is None or token_id is None:  # no token to watch (watch_token found none)
            return
        while True:
            try:
                live = await socket_db(signs_in)(token_id)
            except Exception:  # the database is away: the next check decides
                log.warning("Token socket: could not check token %s", self.token_id)
                live = True
            if not live:
                await self._refuse()
                return
            await asyncio.sleep(interval)

    async def _refuse(self) -> None:
        if self._token_refused:
            return  # the push and the timer may both get here
        self._token_refused = True
        task = self._token_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        with contextlib.suppress(Exception):  # the socket may be gone already
            await self.refuse_token()

    async def refuse_token(self) -> None:
        await self.close(code=REFUSED)
