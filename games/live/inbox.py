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

The league page's queues go the same way (``publish_league_on_commit``): its sockets
(``ws/league/``, anyone: the queues are public) are told ``{"type": "league"}`` after a
join, a leave or a game made; the page's own sockets (``?parts=1``) get its parts with it,
rendered for their viewer (``"parts": {id: html}``, ``page_render``), as they do when they
(re)connect, and the page never fetches itself. ``signal_on_commit`` sends any group such
a message without data, pushed and retried as the bells are
(``close_token_sockets_on_commit``: the sockets of a revoked agent token, ``tokens``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import transaction
from django.urls import reverse

from mafia_site.token_sockets import REFUSED

from ..reads.inbox import desktop_on, is_desktop_kind, newest, unread_count
from ..socket_db import socket_db
from . import publisher
from .hub import get_hub
from .page_render import league_parts, render_page
from .tokens import REVOKED, TokenWatch, person_token_group, token_group
from .wire import dumps, server_time

log = logging.getLogger(__name__)

RETRY_FIRST, RETRY_MAX = 0.5, 5.0  # seconds between retries of a failed push


LEAGUE = "league"  # the league page's group
# Sent to a person's inbox group: every socket of theirs closes (a suspension or a ban).
ACCOUNT_CLOSED = "account.closed"
# What a push carries: user ids (their bells) and (group, message type) signals.
Key = int | tuple[str, str]


def group_of(user_id: int) -> str:
    return f"inbox-{int(user_id)}"


def inbox_frame(user_id: int, *, fresh: bool) -> dict[str, Any]:
    """What the person's bell shows now; ``fresh``: sent because something changed (a page
    may then pop up the newest as a desktop notification), not on (re)connect."""
    top = newest(user_id)
    return {
        "type": "inbox",
        "unread": unread_count(user_id),
        "fresh": fresh,
        "desktop_on": desktop_on(user_id),
        "newest": None
        if top is None
        else {
            "id": top.pk,
            "kind": top.kind,
            "text": top.text,
            "link": f"/notifications/{top.pk}/open/",
            "desktop": is_desktop_kind(top.kind),
            "read": top.read_at is not None,
            "count": top.count,
        },
    }


def publish_inbox(user_ids: Iterable[int]) -> None:
    """Redraw these people's bells on every socket they have open. Never raises: a push
    that fails is retried by this process's inbox thread until Redis answers."""
    _publish({int(i) for i in user_ids})


def publish_league_on_commit() -> None:
    """Once the current transaction commits: the league pages refetch their queues."""
    signal_on_commit(LEAGUE, "league.changed")


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


def _publish(ids: set[Key]) -> None:
    if not ids:
        return
    if publisher._in_background():
        _worker().submit(ids)
    elif not _push_safely(ids):
        _worker().retry_later(ids)


def publish_inbox_on_commit(user_ids: Iterable[int]) -> None:
    """``publish_inbox`` once the current transaction commits (never for a rollback)."""
    transaction.on_commit(partial(publish_inbox, set(user_ids)))


def _push(keys: set[Key]) -> None:
    messages = [
        (group_of(uid), {"type": "inbox.changed", "frame": inbox_frame(uid, fresh=True)})
        for uid in sorted(k for k in keys if isinstance(k, int))
    ]
    for group, message_type in sorted(k for k in keys if isinstance(k, tuple)):
        messages.append((group, {"type": message_type}))
    publisher._send(messages)


def _push_safely(user_ids: set[Key]) -> bool:
    from ..outage import is_outage

    try:
        _push(user_ids)
    except Exception as exc:
        if is_outage(exc) or isinstance(exc, TimeoutError):
            log.warning("Inbox push to %s people failed: %r; will retry", len(user_ids), exc)
        else:
            log.exception("Inbox push to %s people failed", len(user_ids))
        return False
    return True


class _Worker:
    """One thread per process: pushes what commits hand it, retries what failed."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.pending: set[Key] = set()
        self.failed: set[Key] = set()
        self.retry_at = 0.0
        self.pause = RETRY_FIRST
        self.busy = False
        self.close_requested = False
        self.cond = threading.Condition()
        threading.Thread(target=self._run, name="live-inbox", daemon=True).start()

    def submit(self, user_ids: set[Key]) -> None:
        with self.cond:
            self.pending |= user_ids
            self.cond.notify()

    def retry_later(self, user_ids: set[Key]) -> None:
        with self.cond:
            if not self.failed:
                self.retry_at = time.monotonic() + self.pause
                self.pause = min(self.pause * 2, RETRY_MAX)
            self.failed |= user_ids
            self.cond.notify()

    def wait_idle(self, timeout: float) -> bool:
        """Until everything submitted is sent and the connection closed (tests)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            self.close_requested = True
            self.cond.notify_all()
            while self.pending or self.busy or self.close_requested:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def _run(self) -> None:
        from django.db import close_old_connections, connection

        while True:
            with self.cond:
                while not self.pending and not (self.failed and time.monotonic() >= self.retry_at):
                    if self.close_requested:
                        connection.close()
                        self.close_requested = False
                        self.cond.notify_all()
                    wait = 1.0
                    if self.failed:
                        wait = max(self.retry_at - time.monotonic(), 0.01)
                    if not self.cond.wait(timeout=wait) and not self.failed:
                        connection.close()  # idle: give the connection back
                jobs = set(self.pending)
                if self.failed and time.monotonic() >= self.retry_at:
                    jobs |= self.failed
                    self.failed = set()
                self.pending = set()
                self.busy = True
            ok = False
            try:
                # An exception out of here would end this thread for good, and every later
                # bell of the process with it (pytest-django refusing the database between
                # tests did so): log it; the push below finds out if the database answers.
                try:
                    close_old_connections()
                except Exception:
                    log.exception("Inbox thread: closing old database connections failed")
                ok = _push_safely(jobs)
            finally:
                with self.cond:  # (an RLock: ``retry_later`` takes it again)
                    self.busy = False
                    if ok:
                        self.pause = RETRY_FIRST
                    else:
                        self.retry_later(jobs)
                    self.cond.notify_all()


_worker_instance: _Worker | None = None
_guard = threading.Lock()


def _worker() -> _Worker:
    global _worker_instance
    with _guard:
        if _worker_instance is None or _worker_instance.pid != os.getpid():
            _worker_instance = _Worker()
        return _worker_instance


def wait_until_pushed(timeout: float = 10.0) -> bool:
    """Block until this process's inbox thread has nothing left to send (tests)."""
    if _worker_instance is None or _worker_instance.pid != os.getpid():
        return True
    return _worker_instance.wait_idle(timeout)


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
                self.scope, reverse("games:league"), signed_in=signed_in, cut=league_parts
            )
            if rendered.status == 200:
                await self.send(text_data=dumps([{"type": "league", "parts": rendered.parts}]))
        except Exception:  # the database away, or the socket gone: the next change pushes
            log.warning("League socket: the page's parts were not pushed", exc_info=True)
