"""Each signed-in person's bell, live: their own inbox's unread count and newest notification.

Every socket of a signed-in person (a game page's ``ws/games/<id>/`` and the small
``ws/inbox/`` of the other pages) joins the channel-layer group ``inbox-<their user id>``,
taken from the socket's session, never from the client: a socket only ever hears its own
person's inbox. ``publish_inbox(user_ids)`` (called after a commit: ``game_tx`` for the
notifications a change wrote, the inbox services, scheduled reminders and digests) sends
each person one frame, read fresh from the database::

    {"type": "inbox", "unread": 3, "fresh": true, "desktop_on": false,
     "newest": {"id", "kind", "text", "link", "desktop", "read", "count"} | null}

As with ``publisher``: a commit never waits on, or fails because of, Redis. In the web
server the frames are built and sent by a thread of their own; a push that fails (Redis
away) is logged and retried with a growing pause, the frame then read afresh. A socket also
sends the current frame on connect and when the client asks (``{"type": "inbox"}``, after a
reconnect or a paused layer), so the bell always equals what a reload shows.

``signal_on_commit`` sends any group a message without data, pushed and retried as the
bells are (``close_token_sockets_on_commit``: the sockets of a revoked agent token,
``tokens``; a side domain's page, the league's queues). ``InboxFollower`` lets any socket
follow its person's inbox group, so a suspension or a ban closes it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import transaction

from mafia_site.token_sockets import REFUSED

from .. import hooks
from . import publisher
from .hub import get_hub
from .sender import Sender, went_out
from .tokens import REVOKED, TokenWatch, person_token_group, token_group
from .wire import dumps, server_time

log = logging.getLogger(__name__)


# Sent to a person's inbox group: every socket of theirs closes (a suspension or a ban).
ACCOUNT_CLOSED = "account.closed"
# What a push carries: user ids (their bells) and (group, message type) signals.
Key = int | tuple[str, str]


def group_of(user_id: int) -> str:
    return f"inbox-{int(user_id)}"


def inbox_frame(user_id: int, *, fresh: bool) -> dict[str, Any]:
    """What the person's bell shows now (the side domain's, ``hooks.set_bell``); ``fresh``:
    sent because something changed (a page may then pop up the newest as a desktop
    notification), not on (re)connect."""
    return hooks.bell_frame(user_id, fresh)


def publish_inbox(user_ids: Iterable[int]) -> None:
    """Redraw these people's bells on every socket they have open. Never raises: a push
    that fails is retried by this process's inbox thread until Redis answers."""
    _publish({int(i) for i in user_ids})


def close_token_sockets_on_commit(token_ids: Iterable[int]) -> None:
    """Once the current transaction commits: close every socket signed in with these agent
    tokens (``tokens.TokenWatch``). A socket the push misses closes on its own re-check."""
    for token_id in set(token_ids):
        signal_on_commit(token_group(token_id), REVOKED)


def close_person_token_sockets_on_commit(token_ids: Iterable[int]) -> None:
    """As ``close_token_sockets_on_commit``, for people's tokens (``PersonToken``)."""
    for token_id in set(token_ids):
        signal_on_commit(person_token_group(token_id), REVOKED)


def close_account_sockets_on_commit(user_ids: Iterable[int]) -> None:
    """Once the current transaction commits: close every socket of these people (a
    suspension or a ban). Each follows its person's inbox group (``InboxFollower``); a page
    that reconnects is signed out by then (the account is inactive)."""
    for user_id in set(user_ids):
        signal_on_commit(group_of(user_id), ACCOUNT_CLOSED)


def signal_on_commit(group: str, message_type: str) -> None:
    """Once the current transaction commits (never for a rollback): every consumer in
    ``group`` gets the channel-layer message ``{"type": message_type}``. Never raises."""
    transaction.on_commit(partial(_publish, {(group, message_type)}))


def _push(keys: Iterable[Key]) -> None:
    messages = [
        (group_of(uid), {"type": "inbox.changed", "frame": inbox_frame(uid, fresh=True)})
        for uid in sorted(k for k in keys if isinstance(k, int))
    ]
    for group, message_type in sorted(k for k in keys if isinstance(k, tuple)):
        messages.append((group, {"type": message_type}))
    publisher._send(messages)


def _push_batch(keys: dict[Key, None]) -> dict[Key, None]:
    """Every bell and signal of the batch in one go (frames read now): all, if it failed."""
    if went_out(partial(_push, keys), f"Inbox push to {len(keys)} people", log):
        return {}
    return keys


def _keep(mark: None, _again: None) -> None:
    return mark


# One per process (``sender``): a bell is read when it is sent, so a person's new bell
# never waits behind a failed one (no order to keep), and a retry sends the bell afresh.
SENDER: Sender[Key, None] = Sender("live-inbox", _push_batch, _keep, in_order=False)


def _publish(ids: set[Key]) -> None:
    SENDER.deliver(dict.fromkeys(ids), background=publisher._in_background())


def publish_inbox_on_commit(user_ids: Iterable[int]) -> None:
    """``publish_inbox`` once the current transaction commits (never for a rollback)."""
    transaction.on_commit(partial(publish_inbox, set(user_ids)))


def wait_until_pushed(timeout: float = 10.0) -> bool:
    """Block until this process's inbox thread has nothing left to send (tests)."""
    return SENDER.wait_idle(timeout)


# -- the sockets' side ---------------------------------------------------------------------
class InboxFollower:
    """Mixed into a consumer: follow the signed-in person's own inbox group.

    The consumer provides ``channel_layer``, ``channel_name`` and ``send_inbox(frame)``."""

    if TYPE_CHECKING:  # what the consumer it is mixed into has (types-channels' types)
        from channels.layers import BaseChannelLayer

        channel_layer: BaseChannelLayer
        channel_name: str

        async def close(
            self, code: int | bool | None = None, reason: str | None = None
        ) -> None: ...

    inbox_user_id: int | None = None
    inbox_group: str | None = None

    async def follow_inbox(self, user: Any) -> None:
        if not getattr(user, "is_authenticated", False) or self.channel_layer is None:
            return
        self.inbox_user_id = int(user.pk)
        group = group_of(self.inbox_user_id)
        try:
            # Bounded: a Redis that is away must not hold the socket's connect.
            await asyncio.wait_for(self.channel_layer.group_add(group, self.channel_name), 2.0)
            self.inbox_group = group
        except Exception as exc:  # Redis away: the bell shows the count it got on connect
            log.warning("Inbox socket: following %s failed: %r", group, exc)

    async def unfollow_inbox(self) -> None:
        group, self.inbox_group = self.inbox_group, None
        if group is None or self.channel_layer is None:
            return
        try:
            await asyncio.wait_for(self.channel_layer.group_discard(group, self.channel_name), 2.0)
        except Exception as exc:
            log.warning("Inbox socket: leaving %s failed: %r", group, exc)

    async def send_current_inbox(self) -> None:
        from ..socket_db import socket_db

        if self.inbox_user_id is None:
            return
        frame = await socket_db(inbox_frame)(self.inbox_user_id, fresh=False)
        await self.send_inbox(frame)

    async def inbox_changed(self, event: dict[str, Any]) -> None:
        """A channel-layer message ``inbox.changed`` (only ever from our own group)."""
        if self.inbox_group is not None:
            await self.send_inbox(event["frame"])

    async def account_closed(self, event: dict[str, Any]) -> None:
        """The channel-layer message ``account.closed`` (a suspension or a ban)."""
        if self.inbox_group is not None:
            with contextlib.suppress(Exception):  # the socket may be gone already
                await self.close(code=REFUSED)

    async def send_inbox(self, frame: dict[str, Any]) -> None:
        raise NotImplementedError


def frame_text(frame: dict[str, Any]) -> str:
    return dumps([frame])


class InboxConsumer(TokenWatch, InboxFollower, AsyncWebsocketConsumer):
    """``ws/inbox/``: the bell of a page without a game socket (the lobby, the inbox...).

    Signed-in people only (anyone else: closed with 4401). On connect it sends the current
    frame; client -> server: ``{"type": "inbox"}`` (send the current frame again) and
    ``{"type": "ping"}`` (answered ``pong``)."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not getattr(user, "is_authenticated", False):
            await self.close(code=4401)
            return
        # The in-memory layer's messages are sent on a loop with a hub (``publisher._send``).
        await get_hub().start()
        await self.accept()
        await self.watch_token()
        await self.follow_inbox(user)
        await self.send_current_inbox()

    async def disconnect(self, code: int) -> None:
        await self.unwatch_token()
        await self.unfollow_inbox()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if message.get("type") == "inbox":
            await self.send_current_inbox()
        elif message.get("type") == "ping":
            await self.send(text_data=dumps([{"type": "pong", "server_time": server_time()}]))

    async def send_inbox(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=frame_text(frame))
