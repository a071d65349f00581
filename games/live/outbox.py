"""Per-socket outbox: join, send, merge while a send is in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .wire import dumps, setting


class Outbox:
    """What is waiting to go out on one socket.

    ``items`` keep their order and are never dropped (posts, deaths, phase changes);
    ``states`` hold the newest item of each state kind (the vote count), replacing an
    older one not yet sent. If a socket falls hopelessly behind (its client stopped
    reading), the backlog is dropped and the client is told to resume from its last seq:
    nothing is lost silently.
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        prepare: Callable[[list[tuple[int | None, str]]], Awaitable[list[str]]] | None = None,
    ) -> None:
        self._send = send
        # Turns the next frame's (seq, text) pairs into the texts to send (``own.attach``:
        # a signed-in viewer's own parts). Awaited in the one sending task, before the send,
        # so it never reorders a socket's frames; what arrives meanwhile goes in the next.
        self._prepare = prepare
        self.items: list[tuple[int | None, str]] = []
        self.states: dict[str, tuple[int, str]] = {}
        self.sent_state_seq: dict[str, int] = {}
        self.held = False
        self.sending = False
        self.closed = False
        self.floor = 0  # every visible event up to here has been sent (by a replay)
        self.overflowed = False
        self.limit = int(setting("LIVE_OUTBOX_LIMIT", 1000))
        self.frames_sent = 0

    def push(self, items: list[tuple[int, str]], states: dict[str, tuple[int, str]]) -> None:
        if self.closed or self.overflowed:
            return  # overflowed: the client resumes from the log, then we carry on
        if items and items[0][0] <= self.floor:
            # Published late (a push that was still running during our replay): the
            # replay up to ``floor`` had these already.
            items = [(seq, text) for seq, text in items if seq > self.floor]
        self.items.extend(items)
        for kind, (seq, text) in states.items():
            current = self.states.get(kind)
            if seq > max(
                current[0] if current else 0, self.sent_state_seq.get(kind, 0), self.floor
            ):
                self.states[kind] = (seq, text)
        if len(self.items) > self.limit:
            self.items = [(None, dumps({"type": "resync", "reason": "backlog"}))]
            self.states.clear()
            self.overflowed = True
        self._kick()

    def control(self, message: dict[str, Any]) -> None:
        self.items.append((None, dumps(message)))
        self._kick()

    def hold(self) -> None:
        self.held = True

    def release(self, floor: int, replayed: Sequence[tuple[int | None, str]] = ()) -> None:
        """Resume sending: ``replayed`` (everything visible up to ``floor``) goes first,
        then what arrived live meanwhile, minus what the replay already covered."""
        self.floor = max(self.floor, floor)
        self.overflowed = False
        live = [(s, t) for s, t in self.items if s is None or s > floor]
        self.items = [
            *live[: self._controls_first(live)],
            *replayed,
            *live[self._controls_first(live) :],
        ]
        self.states = {k: v for k, v in self.states.items() if v[0] > floor}
        self.held = False
        self._kick()

    @staticmethod
    def _controls_first(items: list[tuple[int | None, str]]) -> int:
        """How many control messages (hello) lead the queue: they stay in front."""
        n = 0
        while n < len(items) and items[n][0] is None:
            n += 1
        return n

    def seen_state(self, kind: str, seq: int) -> None:
        self.sent_state_seq[kind] = max(self.sent_state_seq.get(kind, 0), seq)

    def _kick(self) -> None:
        if self.held or self.sending or self.closed or not (self.items or self.states):
            return
        self.sending = True
        asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while not self.held and not self.closed and (self.items or self.states):
                batch = list(self.items)
                for kind, (seq, text) in self.states.items():
                    batch.append((seq, text))
                    self.sent_state_seq[kind] = seq
                self.items, self.states = [], {}
                if self._prepare is not None:
                    texts = await self._prepare(batch)
                else:
                    texts = [t for _, t in batch]
                await self._send("[" + ",".join(texts) + "]")
                self.frames_sent += 1
        except Exception:  # the socket went away; the consumer cleans up
            self.closed = True
        finally:
            self.sending = False
