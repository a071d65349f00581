"""The league page, live: its socket ``ws/league/`` (anyone: the queues are public), routed
through the core's ``games.hooks.register_socket_route``, and built on the core's live
package (its signals, token watch, inbox following, page rendering).

After a join, a leave, a game made or a seat taken from a queue, ``publish_league_on_commit``
tells the page's sockets ``{"type": "league"}`` (a ``games.live.inbox.signal_on_commit``,
pushed and retried as the bells are); the page's own sockets (``?parts=1``) get its parts
with it, rendered for their viewer (``"parts": {id: html}``, ``games.live.page_render``), as
they do when they (re)connect, and the page never fetches itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from functools import partial
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import URLPattern, path, reverse

from games.live.hub import get_hub
from games.live.inbox import InboxFollower, signal_on_commit
from games.live.page_render import marked_parts, render_page
from games.live.tokens import TokenWatch
from games.live.wire import dumps, server_time
from games.socket_db import socket_db

log = logging.getLogger(__name__)

LEAGUE = "league"  # the league page's group
CHANGED = "league.changed"  # its channel-layer message (``LeagueConsumer.league_changed``)

# The league page's parts (``data-league-part``), by id.
league_parts = partial(marked_parts, attribute="data-league-part")


def publish_league_on_commit() -> None:
    """Once the current transaction commits: the league pages redraw their queues."""
    signal_on_commit(LEAGUE, CHANGED)


class LeagueConsumer(TokenWatch, InboxFollower, AsyncWebsocketConsumer):
    """``ws/league/``: the league page's queues, for anyone. It says ``{"type": "league"}``
    when something changed; the page's socket (``?parts=1``) gets the page's parts with it
    as its viewer's reload would show them (``"parts"``), and once on connect. Client ->
    server ``{"type": "ping"}`` is answered ``pong``.

    A signed-in person's socket follows their inbox group only so that a suspension or a
    ban closes it at once (``account_closed``); the page's bell has its own socket."""

    joined = False
    wants_parts = False
    _pending = False

    async def connect(self) -> None:
        await get_hub().start()
        await self.accept()
        await self.watch_token()  # public, but a revoked key signs in no socket
        query = self.scope.get("query_string", b"").decode("latin-1")
        self.wants_parts = "parts=1" in query.split("&")
        self._push_soon()  # what changed since the page was made
        try:  # Redis away: the page shows what it fetched; a reconnect fetches again
            await asyncio.wait_for(self.channel_layer.group_add(LEAGUE, self.channel_name), 2.0)
            self.joined = True
        except Exception as exc:
            log.warning("League socket: following the queues failed: %r", exc)
        await self.follow_inbox(self.scope.get("user"))

    async def disconnect(self, code: int) -> None:
        await self.unwatch_token()
        await self.unfollow_inbox()
        if self.joined:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    self.channel_layer.group_discard(LEAGUE, self.channel_name), 2.0
                )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "ping":
            await self.send(text_data=dumps([{"type": "pong", "server_time": server_time()}]))

    async def send_inbox(self, frame: dict[str, Any]) -> None:
        """The bell's frames are not this socket's (see the class)."""

    async def league_changed(self, event: dict[str, Any]) -> None:
        if self.wants_parts:
            self._push_soon()
        else:
            await self.send(text_data=dumps([{"type": "league"}]))

    def _push_soon(self) -> None:
        """The page's parts in a moment: a burst of joins is one render."""
        if not self.wants_parts or self._pending:
            return
        self._pending = True
        loop = asyncio.get_running_loop()
        loop.call_later(0.25, lambda: loop.create_task(self._push()))

    async def _push(self) -> None:
        self._pending = False
        user = self.scope.get("user")
        signed_in = bool(getattr(user, "is_authenticated", False))
        try:
            rendered = await socket_db(render_page)(
                self.scope, reverse("league:league"), signed_in=signed_in, cut=league_parts
            )
            if rendered.status == 200:
                await self.send(text_data=dumps([{"type": "league", "parts": rendered.parts}]))
        except Exception:  # the database away, or the socket gone: the next change pushes
            log.warning("League socket: the page's parts were not pushed", exc_info=True)


def socket_route() -> URLPattern:
    """``ws/league/``, for ``games.hooks.register_socket_route``."""
    # django-stubs' path() takes views; Channels routes ASGI consumers through the same
    # patterns (as ``games.live.routing`` does).
    return path("ws/league/", LeagueConsumer.as_asgi())  # type: ignore[arg-type]
