"""The live side: a game's events over its websocket, and the bell's inbox socket.

``ws/games/<id>/`` sends JSON arrays of items (``{"n", "kind", "aud", ...}``, numbered per
audience: "public", "slot:<id>", "mafia"...) and control messages (``{"type": ...}``:
hello, replay, resync, reload, access, live, inbox, pong, error). ``EventStream`` keeps
the last number it has of each audience, so after a drop it reconnects with
``?positions=public.12,slot:5.3`` and the server replays exactly what was missed: every
event arrives once and in order. It drops repeats, asks to resume on a gap (and on a
``resync``, on a ``pong`` whose heads are ahead, when the server's live layer comes
back), starts afresh from now on ``reload`` (too far behind; the event is passed on so
the caller reads the state again) and pings now and then.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from .errors import ApiError
from .models import Game, MyGame, Queue

if TYPE_CHECKING:
    from .client import Client

# Close codes after which trying again would be refused the same.
# A handshake refused with 503 (the server has too many under way at once) waits this long
# at least before the next try: retrying at once would only add to the storm.
BUSY_BACKOFF = 2.0
FINAL_CODES = {4400: "bad positions", 4401: "the token was refused", 4404: "no such game"}
STATE_KINDS = frozenset({"vote_count"})  # a newer one replaces an older: never "missed"


@dataclass(frozen=True)
class Event:
    """One thing the socket said. ``type`` is "item" for a game event (then ``kind`` is the
    event's kind: "post", "vote", "turn", "phase_started", "game_finished"...), else the
    control message's type (and ``kind`` the same). ``data`` is the item's payload or the
    control message itself; ``raw`` the whole object as received."""

    type: str
    kind: str
    audience: str | None = None
    n: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_item(self) -> bool:
        return self.type == "item"

    @property
    def thread(self) -> str | None:
        return self.raw.get("thread")

    @property
    def number(self) -> int | None:
        return self.raw.get("number")

    @property
    def html(self) -> str:
        return str(self.raw.get("html") or "")

    @classmethod
    def from_wire(cls, obj: dict[str, Any]) -> Event:
        if "type" in obj:
            return cls(obj["type"], str(obj["type"]), data=obj, raw=obj)
        data = obj.get("data")
        return cls(
            "item",
            str(obj.get("kind") or ""),
            obj.get("aud"),
            obj.get("n"),
            data if isinstance(data, dict) else {},
            obj,
        )


def parse_frame(text: str) -> list[Event]:
    """The events of one websocket frame (an array; a lone object is taken as one)."""
    batch = json.loads(text)
    if not isinstance(batch, list):
        batch = [batch]
    return [Event.from_wire(obj) for obj in batch if isinstance(obj, dict)]


class StreamClosed(ApiError):
    """The server closed the socket for good (no such game, a refused token)."""


class EventStream:
    """``async for event in stream``; ``stream.positions`` is what it holds per audience."""

    def __init__(
        self,
        client: Client,
        game_id: int,
        *,
        positions: dict[str, int] | None = None,
        from_start: bool = False,
        ping_seconds: float = 20.0,
    ) -> None:
        self.client = client
        self.game_id = int(game_id)
        self.positions: dict[str, int] = dict(positions or {})
        self.from_start = from_start
        self.ping_seconds = ping_seconds
        self.connects = 0  # sockets opened so far (more than one: it resumed after a drop)
        self._buffer: deque[Event] = deque()
        self._ws: ClientConnection | None = None
        self._pinger: asyncio.Task[None] | None = None
        self._resyncing: set[str] = set()
        self._paused = False
        self._closed = False
        self._backoff = 0.5

    # -- iteration -----------------------------------------------------------------------------
    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        while not self._buffer:
            if self._closed:
                raise StopAsyncIteration
            await self._read()
        return self._buffer.popleft()

    @property
    def buffered(self) -> int:
        """Events already received and not yet taken (a caller may take them all, then act
        once)."""
        return len(self._buffer)

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._closed = True
        await self._drop()

    # -- the socket --------------------------------------------------------------------------------
    def _url(self) -> str:
        if self.positions:
            query = "positions=" + ",".join(f"{k}.{v}" for k, v in self.positions.items())
        elif self.from_start and self.connects == 0:
            query = "since=0"
        else:
            query = ""  # from now on
        return self.client.ws_url(f"ws/games/{self.game_id}/?{query}")

    async def _refused(self, exc: InvalidStatus) -> None:
        """A handshake refused before the socket opened says no why (the server answers 403
        to a bad token and a game one may not see alike): the API tells. A bad token or game
        ends the stream; anything else (429: too many of its sockets open, a restart) is
        tried again later (503: the site is busy, after a couple of seconds at least)."""
        status = exc.response.status_code
        if status == 503:
            self._backoff = max(self._backoff, BUSY_BACKOFF)
        if status not in (401, 403, 404):
            return
        try:
            await asyncio.to_thread(self.client.request, "GET", f"games/{self.game_id}/")
        except ApiError as error:
            if error.status in (401, 403, 404):
                raise StreamClosed(error.status, {"error": str(exc)}) from None
        except OSError:
            pass

    async def _connect(self) -> None:
        while True:
            try:
                self._ws = await connect(
                    self._url(), additional_headers=self.client.ws_headers(), open_timeout=15
                )
                break
            except InvalidStatus as exc:
                await self._refused(exc)
            except (OSError, TimeoutError, ConnectionClosed):
                pass
            await asyncio.sleep(self._backoff * (1 + random.random() / 2))  # jitter
            self._backoff = min(self._backoff * 2, 30.0)
        self.connects += 1
        self._resyncing.clear()
        self._paused = False
        self._pinger = asyncio.get_running_loop().create_task(self._ping_now_and_then())

    async def _drop(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
            self._pinger = None
        if self._ws is not None:
            ws, self._ws = self._ws, None
            with contextlib.suppress(Exception):
                await ws.close()

    async def _ping_now_and_then(self) -> None:
        while True:
            await asyncio.sleep(self.ping_seconds)
            await self._send({"type": "ping"})

    async def _send(self, message: dict[str, Any]) -> None:
        if self._ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self._ws.send(json.dumps(message))

    async def _resume(self) -> None:
        await self._send({"type": "resume", "positions": dict(self.positions)})

    async def _read(self) -> None:
        if self._ws is None:
            await self._connect()
        assert self._ws is not None
        try:
            text = await self._ws.recv()
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
            await self._drop()
            if code in FINAL_CODES:
                self._closed = True
                raise StreamClosed(code, {"error": FINAL_CODES[code], "code": str(code)}) from None
            if self._closed:
                return
            # A drop: the next read reconnects with our positions and gets what we missed.
            await asyncio.sleep(self._backoff * random.random())
            return
        self._backoff = 0.5
        if isinstance(text, bytes):
            text = text.decode()
        await self._apply(parse_frame(text))

    async def _apply(self, batch: list[Event]) -> None:
        caught_up: dict[str, int] | None = None
        for event in batch:
            if not event.is_item:
                positions = await self._control(event)
                if positions is not None:
                    caught_up = positions
                self._buffer.append(event)
            elif self._take(event):
                self._buffer.append(event)
        if caught_up:  # the replay's items are in: from here we hold the server's numbers
            for key, number in caught_up.items():
                if isinstance(number, int):
                    self.positions[key] = max(self.positions.get(key, 0), number)

    def _take(self, event: Event) -> bool:
        """Whether an item is new: repeats are dropped, a gap asks for a resume."""
        n = event.n if isinstance(event.n, int) else 0
        if event.kind in STATE_KINDS:
            key = f"~{event.kind}"
            if n <= self.positions.get(key, 0):
                return False
            self.positions[key] = n
            return True
        audience = event.audience or "public"
        if audience in self._resyncing:
            return False  # the replay asked for brings it, in order
        if audience in self.positions:
            if n <= self.positions[audience]:
                return False
            if n > self.positions[audience] + 1:
                self._resyncing.add(audience)
                asyncio.get_running_loop().create_task(self._resume())
                return False
        self.positions[audience] = n
        return True

    async def _control(self, event: Event) -> dict[str, int] | None:
        message = event.data
        kind = event.type
        if kind == "replay":
            self._resyncing.clear()
            positions = message.get("positions")
            return positions if isinstance(positions, dict) else {}
        if kind == "resync":
            await self._resume()
        elif kind == "reload":
            # Too far behind to replay: start again from now (the caller reads the state).
            self.positions.clear()
            self._resyncing.clear()
            await self._send({"type": "resume"})
        elif kind == "live":
            if message.get("state") == "paused":
                self._paused = True
            elif self._paused:
                self._paused = False
                await self._resume()
        elif kind == "pong":
            heads = message.get("heads") or {}
            if any(k in self.positions and v > self.positions[k] for k, v in heads.items()):
                await self._resume()  # something was lost on the way
        return None


async def inbox_frames(client: Client) -> AsyncIterator[Event]:
    """The bell's frames from ``ws/inbox/`` (the current one on each connect), for ever."""
    backoff = 0.5
    while True:
        try:
            async with connect(
                client.ws_url("ws/inbox/"), additional_headers=client.ws_headers()
            ) as ws:
                backoff = 0.5
                async for text in ws:
                    for event in parse_frame(text if isinstance(text, str) else text.decode()):
                        if event.type == "inbox":
                            yield event
        except ConnectionClosed as exc:
            if exc.rcvd and exc.rcvd.code == 4401:
                raise StreamClosed(401, {"error": "the token was refused"}) from None
        except InvalidStatus as exc:
            # Refused before it opened (a bad token, 429: too many sockets open, 503: the
            # site is busy): the API tells which; a token it takes is tried again later.
            if exc.response.status_code == 503:
                backoff = max(backoff, BUSY_BACKOFF)
            try:
                await asyncio.to_thread(client.request, "GET", "notifications/")
            except ApiError as error:
                if error.status in (401, 403):
                    raise StreamClosed(error.status, {"error": "the token was refused"}) from None
            except OSError:
                pass
        except (OSError, TimeoutError):
            pass
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, 30.0)


async def wait_for_game(
    client: Client, known: Iterable[int] | None = None, timeout: float | None = None
) -> MyGame:
    """The first running game of ``my-games/`` not in ``known`` (default: those running
    when the socket opened): a league game made for a queue, a game one signed up for that
    has started. ``my-games/`` is read once when the inbox socket opens (a game started in
    between is not missed) and again on each notification: no polling."""
    known_ids = set(known) if known is not None else None

    async def wait() -> MyGame:
        nonlocal known_ids
        async for _frame in inbox_frames(client):
            mine = await asyncio.to_thread(client.my_games)
            running = [g for g in mine.active if g.status == "running"]
            if known_ids is None:
                known_ids = {g.game_id for g in running}
                continue
            for game in running:
                if game.game_id not in known_ids:
                    return game
        raise AssertionError("unreachable")  # inbox_frames never ends

    return await asyncio.wait_for(wait(), timeout)


NOT_QUEUED = "not_queued"


async def join_queue(client: Client, setup: str, timeout: float | None = None) -> Game:
    """Join the league queue of ``setup``; the game it seats ``client`` in, once started.

    Which game is new is told by the queue's ``latest_game`` (one's newest league game
    from it), read BEFORE the join: a game made by this join, by a later one or by the
    site's sweep, before or after the inbox socket opens, differs from it. The join's own
    answer often has it already (the join that fills a table starts the game at once);
    otherwise each inbox frame (the first when the socket opens, then one per
    notification: "the game started") reads the queue again. Waiting from "what runs
    when the socket opens" instead lost every game made before the socket was up."""
    before = await asyncio.to_thread(client.queue, setup)
    running = await asyncio.to_thread(client.running_game_ids)
    try:
        answer: Queue | None = await asyncio.to_thread(client.enter_queue, setup)
    except ApiError as error:
        if error.code == "already_playing":  # seated already (an earlier join's game)
            return await asyncio.to_thread(_playing, client)
        if error.code != "already_queued":  # queued already: wait as if we had joined
            raise
        answer = None

    async def wait() -> Game:
        if answer is not None:  # the join filled a table: its answer names the game
            game_id = await asyncio.to_thread(_new_game, answer, before, running, client)
            if game_id is not None:
                return await asyncio.to_thread(client.game, game_id)
        async for _frame in inbox_frames(client):
            now = await asyncio.to_thread(client.queue, setup)
            game_id = await asyncio.to_thread(_new_game, now, before, running, client)
            if game_id is not None:
                return await asyncio.to_thread(client.game, game_id)
        raise AssertionError("unreachable")  # inbox_frames never ends

    return await asyncio.wait_for(wait(), timeout)


def _new_game(now: Queue, before: Queue, running: set[int], client: Client) -> int | None:
    """The game the queue seated us in since ``before`` (None: still waiting). Out of the
    queue with no new game from it: seated as a forum game's replacement (a game older
    than our newest, so ``latest_game`` stays), or we left it (``ApiError`` not_queued)."""
    if now.latest_game is not None and now.latest_game != before.latest_game:
        return now.latest_game
    if now.queued:
        return None
    fresh = sorted(client.running_game_ids() - running)
    if fresh:
        return fresh[-1]
    raise ApiError(
        409, {"error": f"Not waiting in the queue of {now.setup} any more.", "code": NOT_QUEUED}
    )


def _playing(client: Client) -> Game:
    """The running league game ``client`` holds a living seat in (a join is refused
    ``already_playing`` then): the newest game of a queue that is running and has us
    alive."""
    running = client.running_game_ids()
    for queue in client.queues():
        if queue.latest_game in running:
            assert queue.latest_game is not None
            try:
                if client.role(queue.latest_game).alive:
                    return client.game(queue.latest_game)
            except ApiError as error:
                if error.status != 404:
                    raise
    raise ApiError(
        409, {"error": "Playing a league game, but not found.", "code": "already_playing"}
    )
