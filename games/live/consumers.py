"""One websocket per open game page: ``ws/games/<id>/?positions=public.12,slot:5.3``.

On connect the socket's audiences are computed from the database (public always; the
player's own slot; mafia / masons / dead when the rules give access; everything for the
host and, after the game, for everyone) and the socket joins those audiences at the
process's ``hub.Hub``, which is the member of the channel-layer groups. The socket then
catches up from the event log (from the client's ``positions``: its number per audience, as
the page printed them; ``since=0``: from the start) before any live frame goes out, so the
client sees every visible event exactly once and in order; a client too far behind is
told to reload. A page adds ``own=players,phase,...&page=/games/5/role/`` (the parts it
shows, and where it is): its items that redraw the parts it cannot take from the items
carry the viewer's own copy of them (``own``, see ``games.live.own``).

Client -> server messages: ``{"type": "resume", "positions": {audience: n}}`` (after a
gap; ``"since": 0`` asks for everything), ``{"type": "ping"}`` and ``{"type": "inbox"}``
(the signed-in person's bell, ``games.live.inbox``: also sent after the catch-up) and
``{"type": "parts", "parts": [...]}`` (the page's own copy of those parts now, answered
``{"type": "parts", "own", "covered"}``: an item that came without them, page links).
Clients never see the game-wide seq (its jumps would count hidden events): items are
numbered per audience.
Server -> client frames are JSON arrays of items (see ``render``) and
control messages: ``hello``, ``replay``, ``access``, ``resync``, ``reload``, ``pong``,
``inbox``, ``parts``, ``live`` (``"state": "paused"`` while the channel layer's Redis is away,
``"live"`` when it is back: the client then resumes) and ``error`` (``{"code", "error"}``:
positions that are not whole numbers of 0 or more; on connect the socket then closes with
code 4400). A socket signed in with an agent's token is closed with 4401 once that token
is revoked (``tokens``).

Every frame is in the socket's language (``language.socket_language``, read at connect:
the account's, else the browser's): its items (``localize``), its viewer's own parts
(``own``) and its texts. A page keeps that language until it is reloaded, even if its
person changes their account language meanwhile (acceptable: a reload shows the new one;
only the parts of a signed-in page rendered through the site's middleware, ``page_render``,
may follow the new choice before that).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from .. import presence
from ..errors import ErrorCode
from ..socket_db import socket_db
from .audiences import viewer_access
from .hub import Hub, get_hub
from .inbox import InboxFollower
from .language import BASE, socket_language
from .numbering import heads
from .outbox import Outbox
from .own import OwnPage, attach, parts_frame
from .replay import replay
from .tokens import TokenWatch
from .wire import dumps, layer_state, server_time

log = logging.getLogger(__name__)


class GameConsumer(TokenWatch, InboxFollower, AsyncWebsocketConsumer):
    game_id: int
    user_id: int | None = None
    slot_id: int | None = None
    access_seq = 0  # the newest event that may have changed this socket's access
    applied_seq = 0  # the event seq of the access read it holds
    seen_at = float("-inf")  # when presence was last written (``time.monotonic``)
    # The audiences the client was last told (``hello``, ``access``): the hub may already
    # have taken some away (a replaced-out player's seat) before the re-check reads them.
    told: frozenset[str] = frozenset()
    own_page: OwnPage  # the page's parts this socket pushes its viewer's copy of (``own``)
    hub: Hub | None = None
    outbox: Outbox
    # The socket's language, read once at connect (``language.socket_language``). A person
    # who changes their account language while the page is open keeps this socket's frames
    # in the old one until they reload the page: acceptable (see ``language``).
    language: str = BASE

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        user = self.scope.get("user")
        signed_in = user is not None and getattr(user, "is_authenticated", False)
        self.user_id = user.pk if user is not None and signed_in else None  # (narrows user)
        access, self.language = await socket_db(_connect_reads)(self.game_id, self.scope)
        if access is None:
            await self.close(code=4404)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            positions = _positions(query.get("positions", [""])[0])
        except BadPositions as exc:
            await self.accept()
            await self.send(text_data=dumps([exc.control(self.language)]))
            await self.close(code=4400)
            return
        audiences, seq, self.slot_id = access
        self.told = audiences
        self.access_seq = self.applied_seq = seq  # access is known to be right as of this event
        self._rechecks: set[asyncio.Task] = set()
        await self.accept()
        await self._seen(open=True)
        # A page names the parts it shows and where it is (``?own=players,phase&page=...``):
        # its items carry the viewer's own copy of the parts they do not carry (``own``).
        own, page = query.get("own", [""])[0], query.get("page", [""])[0]
        self.own_page = OwnPage.of(self.game_id, self.scope, own, page, self.language)
        # Every frame goes through ``own.attach`` when the page has parts of its viewer's
        # own, or when its items are to be rendered again in the socket's language.
        attach = self.own_page.parts or self.own_page.path or self.language != BASE
        self.outbox = Outbox(self._send_text, self._attach_own if attach else None)
        self.outbox.hold()  # live frames wait until the replay is out
        self.hub = get_hub()
        await self.hub.attach(self, audiences)
        if not self.hub.layer_ok:
            self.outbox.control(layer_state(False))
        self.outbox.items.insert(
            0,
            (
                None,
                dumps(
                    {
                        "type": "hello",
                        "game": self.game_id,
                        "audiences": sorted(audiences),
                        "server_time": server_time(),
                    }
                ),
            ),
        )
        try:
            await self._replay(_int(query.get("since", [None])[0]), positions)
        except Exception:
            log.exception("Game socket: the catch-up replay failed")
            await self.close(code=1011)
            return
        # Signed in with an agent's token: closed when it is revoked (``games.live.tokens``).
        await self.watch_token()
        # A signed-in person's socket also carries their own bell (``games.live.inbox``).
        await self.follow_inbox(user)
        await self.send_current_inbox()

    async def disconnect(self, code: int) -> None:
        await self.unwatch_token()
        await self.unfollow_inbox()
        if self.hub is not None:
            self.outbox.closed = True
            for task in list(getattr(self, "_rechecks", ())):
                task.cancel()
            await self.hub.detach(self)
            self.hub = None
            await self._seen(open=False)  # seen until now, closed from now

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            return
        if not isinstance(message, dict) or self.hub is None:
            return
        try:
            await self._handle(message)
        except Exception:
            # Whatever a client sends, it gets a close frame, never a dropped connection.
            log.exception("Game socket: a message could not be handled")
            await self.close(code=1011)

    async def _handle(self, message: dict[str, Any]) -> None:
        if message.get("type") == "resume":
            if self._replaying:
                return  # one at a time; a gap still open shows again on the next frame
            since = message.get("since")
            try:
                positions = _positions(message.get("positions"))
            except BadPositions as exc:
                # The socket stays: a good resume may follow.
                self.outbox.control(exc.control(self.language))
                return
            await self._replay(since if isinstance(since, int) else None, positions)
        elif message.get("type") == "inbox":
            await self.send_current_inbox()
        elif message.get("type") == "parts":
            frame = await parts_frame(self.own_page, message.get("parts"))
            self.outbox.control(frame)
        elif message.get("type") == "ping":
            if time.monotonic() - self.seen_at >= presence.REFRESH_SECONDS:
                await self._seen(open=True)  # the heartbeat: the page is still open
            assert self.hub is not None  # receive() handles messages only while attached
            audiences = self.hub.audiences(self)
            newest = await socket_db(heads)(self.game_id, audiences)
            self.outbox.control({"type": "pong", "server_time": server_time(), "heads": newest})

    async def _seen(self, *, open: bool) -> None:
        """Presence for the e-mail digests (``games.presence``); never raises."""
        if self.user_id is None:
            return
        self.seen_at = time.monotonic()
        try:
            await socket_db(presence.seen)(self.user_id, self.game_id, open=open)
        except Exception:  # the database is away: the socket goes on without it
            log.warning("Game socket: presence not recorded", exc_info=True)

    async def send_inbox(self, frame: dict[str, Any]) -> None:
        if self.hub is not None:
            self.outbox.control(frame)  # in the socket's one queue, after what came before

    async def refuse_token(self) -> None:
        if self.hub is not None:
            self.outbox.closed = True  # not one more event for a key that signs in no one
        await super().refuse_token()

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def _attach_own(self, batch: list[tuple[int | None, str]]) -> list[str]:
        """The next frame's texts, with this viewer's own parts on the items redrawing them
        (live and replayed items alike: both go out through the outbox)."""
        return await attach(self.own_page, batch)

    _replaying = False

    async def _replay(self, since: int | None, positions: dict[str, int] | None = None) -> None:
        """Send what the client missed, then let live frames through (see ``replay.replay``)."""
        self._replaying = True
        self.outbox.hold()
        try:
            assert self.hub is not None  # replays are asked for only while attached
            audiences = self.hub.audiences(self)
            result = await socket_db(replay)(
                self.game_id, audiences, since, positions, self.language
            )
        finally:
            self._replaying = False
        if result.reload:
            head: dict[str, Any] = {"type": "reload", "reason": "too far behind"}
            replayed: list[tuple[int | None, str]] = [(None, dumps(head))]
        else:
            # The items follow; afterwards the client holds ``positions``.
            head = {"type": "replay", "positions": result.positions}
            replayed = [(None, dumps(head)), *result.items]
            for seq, text in result.items:
                if '"kind":"vote_count"' in text:
                    self.outbox.seen_state("vote_count", seq)
        self.outbox.release(result.floor, replayed)

    # -- access ------------------------------------------------------------------------------
    def access_may_have_changed(self, seq: int, meta: dict[str, Any]) -> None:
        """Called by the hub (which has already revoked what the event takes away)."""
        kind = meta.get("kind")
        concerns_me = (
            kind in ("game_started", "game_finished")
            or self.slot_id in (meta.get("dead") or ())
            or (kind == "replaced" and self.user_id is not None)
            or (kind == "hosts_changed" and self.user_id in (meta.get("hosts") or ()))
        )
        if not concerns_me:
            return
        self.access_seq = max(self.access_seq, seq)
        task = asyncio.get_running_loop().create_task(self._recheck())
        self._rechecks.add(task)
        task.add_done_callback(self._rechecks.discard)

    async def _recheck(self) -> None:
        user = self.scope.get("user")
        access = await socket_db(viewer_access)(self.game_id, user)
        if access is None or self.hub is None:
            return
        audiences, read_seq, slot_id = access
        if read_seq < self.access_seq:
            return  # read before the event that triggered it; a newer recheck follows
        if read_seq < self.applied_seq:
            return  # re-checks run side by side (``socket_db``): a newer read was applied
        self.applied_seq, self.slot_id = read_seq, slot_id
        old, self.told = self.told, audiences
        self.hub.set_audiences(self, audiences)
        if audiences != old:
            self.outbox.control(
                {
                    "type": "access",
                    "audiences": sorted(audiences),
                    # New threads or results appear on the page when it is rendered again;
                    # a seat lost (replaced out) takes its role PM and actions off the page.
                    "reload": bool(audiences - old) or _lost_seat(old, audiences),
                }
            )


def _connect_reads(
    game_id: int, scope: Mapping[str, Any]
) -> tuple[tuple[frozenset[str], int, int | None] | None, str]:
    """What a connect reads from the database, in one trip to it: the viewer's access
    (``viewer_access``) and the socket's language (``socket_language``)."""
    access = viewer_access(game_id, scope.get("user"))
    return access, (socket_language(scope) if access is not None else BASE)


def _lost_seat(old: frozenset[str], new: frozenset[str]) -> bool:
    return any(audience.startswith("slot:") for audience in old - new)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class BadPositions(ValueError):
    """A position that is not a whole number of 0 or more: the client is told so."""

    MESSAGE = _(
        "Positions are whole numbers of 0 or more, one per audience "
        '(positions=public.12,mafia.3 or {"public": 12, "mafia": 3}).'
    )

    @classmethod
    def control(cls, language: str) -> dict[str, Any]:
        """The error control, its text in the socket's language (its code never changes)."""
        with translation.override(language):
            error = str(cls.MESSAGE)
        return {"type": "error", "code": ErrorCode.BAD_POSITIONS, "error": error}


def _position(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    raise BadPositions


def _positions(value: Any) -> dict[str, int] | None:
    """A client's numbers per audience: a dict, or the query form ``public.12,mafia.9``;
    ``BadPositions`` if one is not a whole number of 0 or more (too large ones are
    answered with a reload, see ``replay.replay``)."""
    if isinstance(value, str):
        pairs = (part.rpartition(".") for part in value.split(",") if part)
        value = {aud: number for aud, _, number in pairs}
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadPositions
    return {str(k): _position(v) for k, v in value.items()} or None
