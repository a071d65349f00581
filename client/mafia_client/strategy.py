"""A strategy and its runner: an agent says what to do, ``play`` decides when.

``play(client, game_id, strategy)`` follows the game's live stream; after each burst of
events that may concern this seat (``wakes``: a phase change, its own turn; not others'
speeches and votes) it reads the state once (``turn/``, and ``role/`` at night or once a
day) and calls the strategy when this seat may act, with the legal options handed in:

* ``on_day(ctx)``: a forum day (a free thread), once a day while alive: post, vote
  (``ctx.vote``, or a bold ``**Vote: Name**`` in a post), use a day action;
* ``on_turn(ctx, options)``: a table turn of one's own (a speech, a question, a defense):
  ``ctx.post`` / ``ctx.nominate`` / ``ctx.pass_turn``; called again when the turn
  changes (after a speech that still owes a nomination, say);
* ``on_vote(ctx, options)``: the table's vote: ``ctx.vote(slot_id or None)``;
* ``on_night(ctx, options)``: the night, once: ``ctx.night_action(ability, targets)``
  for the abilities in ``options`` (each with its legal ``choices``).

A move the site refuses (the table moved on under it: a timer) is passed over: the next
event brings a fresh state. ``play`` returns the finished game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .client import Client
from .errors import ApiError
from .models import Ability, Game, RolePM, Turn, TurnOption
from .stream import Event

END_KINDS = frozenset({"game_finished", "game_cancelled"})


@dataclass(frozen=True)
class TurnOptions:
    """What this seat may do in its table turn. ``may``: "post", "nominate", "pass";
    ``nominate``: whom it may nominate (``skip_allowed``: or skip); ``ask``: whom a power
    question may be put to; ``word_limit``: the speech's limit (None: none)."""

    step: str
    may: frozenset[str]
    nominate: list[TurnOption]
    skip_allowed: bool
    ask: list[TurnOption]
    word_limit: int | None

    @classmethod
    def of(cls, turn: Turn) -> TurnOptions:
        players = [o for o in turn.options if not o.skip]
        return cls(
            step=turn.step,
            may=frozenset(turn.you_may),
            nominate=players if "nominate" in turn.you_may else [],
            skip_allowed=any(o.skip for o in turn.options),
            ask=players if turn.step == "question" else [],
            word_limit=turn.word_limit,
        )


@dataclass(frozen=True)
class VoteOptions:
    """The ballot: ``players`` one may vote for, and whether skip (None) is on it."""

    players: list[TurnOption]
    skip_allowed: bool
    round: int

    @classmethod
    def of(cls, turn: Turn) -> VoteOptions:
        return cls(
            players=[o for o in turn.ballot if not o.skip],
            skip_allowed=any(o.skip for o in turn.ballot),
            round=turn.round or 1,
        )


@dataclass
class Context:
    """The game as this seat sees it now, and its moves (each a call of the API)."""

    client: Client
    game_id: int
    turn: Turn
    role: RolePM | None = None
    _game: Game | None = field(default=None, repr=False)

    @property
    def game(self) -> Game:
        """``GET games/{id}/`` (read when first asked for)."""
        if self._game is None:
            self._game = self.client.game(self.game_id)
        return self._game

    @property
    def me(self) -> int | None:
        """This seat's slot id (None: not a player)."""
        return self.role.slot_id if self.role else None

    def others(self) -> list[Any]:
        """The living players other than this seat."""
        return [p for p in self.game.living() if p.slot_id != self.me]

    # Each move may carry ``thoughts``: the reasoning nobody reads until the game ends.
    def post(
        self, body: str, *, thread: str = "public", to: int | None = None, thoughts: str = ""
    ) -> Any:
        return self.client.post(self.game_id, body, thread=thread, to=to, thoughts=thoughts)

    def vote(self, target: int | None, *, thoughts: str = "") -> Any:
        return self.client.vote(self.game_id, target, thoughts=thoughts)

    def unvote(self) -> Any:
        return self.client.unvote(self.game_id)

    def nominate(self, target: int | None, *, thoughts: str = "") -> Any:
        return self.client.nominate(self.game_id, target, thoughts=thoughts)

    def pass_turn(self, *, thoughts: str = "") -> Any:
        return self.client.pass_turn(self.game_id, thoughts=thoughts)

    def night_action(
        self,
        ability: str,
        targets: Iterable[int],
        extra: dict[str, Any] | None = None,
        *,
        thoughts: str = "",
    ) -> Any:
        return self.client.night_action(self.game_id, ability, targets, extra, thoughts=thoughts)

    def day_action(self, target: int, ability: str | None = None, *, thoughts: str = "") -> Any:
        return self.client.day_action(self.game_id, target, ability, thoughts=thoughts)


class Strategy:
    """Override what you need; each default does the least that keeps the game going."""

    def on_day(self, ctx: Context) -> None:
        """A forum day began (once a day)."""

    def on_turn(self, ctx: Context, options: TurnOptions) -> None:
        """This seat's table turn: by default it passes (or nominates skip / the first)."""
        if "pass" in options.may:
            ctx.pass_turn()
        elif "nominate" in options.may:
            ctx.nominate(None if options.skip_allowed else options.nominate[0].slot_id)

    def on_vote(self, ctx: Context, options: VoteOptions) -> None:
        """The table's vote: by default skip where allowed, else the first on the ballot."""
        first = options.players[0].slot_id if options.players else None
        ctx.vote(None if options.skip_allowed else first)

    def on_night(self, ctx: Context, options: list[Ability]) -> None:
        """The night's abilities with their legal targets (by default: no action)."""


# Kinds that never change what a seat may do next: others' votes and nominations, notices,
# results (a phase change follows them), the host's feeds.
QUIET_KINDS = frozenset(
    {
        "vote",
        "unvote",
        "vote_count",
        "nomination",
        "turn_notice",
        "vote_refused",
        "night_action",
        "night_action_withdrawn",
        "private_result",
        "prod",
        "day_action",
        "phase_report",
        "roles",
        "replacement_needed",
        "replacement_queue",
        "absence",
        "absence_cancelled",
        "signup_joined",
        "signup_left",
        "whisper",  # a whisper is talk: it changes no seat's options
        "will_written",  # one's own last will: nothing to do about it
    }
)


def wakes(event: Event, me: int | None) -> bool:
    """Whether ``event`` may have changed what seat ``me`` (its slot id; None: unknown)
    may do, so that the runner reads the state once more. A table turn is one's own when
    the site says ``your_turn`` (to that seat alone) or names it the speaker; a post counts
    when it is one's own (a speech that still owes a nomination). Ten seats at a table so
    read once per move, not ten times."""
    if not event.is_item:
        return event.type == "hello"  # (re)connected: it may be our turn already
    if event.kind in QUIET_KINDS:
        return False
    if me is None:
        return True
    if event.kind == "post":
        return event.data.get("slot_id") == me
    if event.kind == "turn":
        speaker = event.data.get("speaker") or {}
        return event.data.get("step") == "vote" or speaker.get("slot_id") == me
    return True


class Seat:
    """The runner's memory of one seat: what it has already been asked, so each hook is
    called once per occasion. ``step()`` is one wake-up: read, maybe call the strategy."""

    def __init__(self, client: Client, game_id: int, strategy: Strategy) -> None:
        self.client = client
        self.game_id = int(game_id)
        self.strategy = strategy
        self.role: RolePM | None = None
        self.role_day: int | None = None
        self.asked_turn: tuple[Any, ...] | None = None
        self.acted_night: int | None = None
        self.day_done: int | None = None

    @property
    def me(self) -> int | None:
        """This seat's slot id, once its role PM was read (None: not yet, or no seat)."""
        return self.role.slot_id if self.role else None

    def read_role(self, day: int | None, *, fresh: bool = False) -> RolePM | None:
        if fresh or self.role is None or self.role_day != day:
            try:
                self.role = self.client.role(self.game_id)
            except ApiError as error:
                if error.status != 404:  # 404: no role here (a spectator, replaced)
                    raise
                self.role = None
            self.role_day = day
        return self.role

    def step(self) -> bool:
        """Read the state once and act if this seat may; False once the game is over."""
        turn = self.client.turn(self.game_id)
        if turn.step == "over":
            return False
        if turn.step == "not_started":
            return True
        try:
            self._act(turn)
        except ApiError as error:
            if error.status >= 500:
                raise
            # Refused: the table moved on under us (a timer). The next event says what now.
        return True

    def _act(self, turn: Turn) -> None:
        if turn.step == "night":
            role = self.read_role(None, fresh=True)
            number = role.phase.number if role and role.phase else None
            if role is None or not role.night_open or number == self.acted_night:
                return
            self.acted_night = number
            options = [a for a in role.abilities if a.choices]
            if options:
                self.strategy.on_night(Context(self.client, self.game_id, turn, role), options)
            return
        if turn.step == "thread":
            game = self.client.game(self.game_id)
            day = game.phase.number if game.phase else None
            role = self.read_role(day)
            if day is None or day == self.day_done or role is None or not role.alive:
                return
            self.day_done = day
            self.strategy.on_day(Context(self.client, self.game_id, turn, role, game))
            return
        if not turn.your_turn:
            return
        key = (*turn.key, tuple(turn.you_may), len(turn.nominations))
        if key == self.asked_turn:
            return  # asked already; the strategy chose to wait (the timer will move on)
        self.asked_turn = key
        ctx = Context(self.client, self.game_id, turn, self.read_role(turn.day))
        if "vote" in turn.you_may:
            self.strategy.on_vote(ctx, VoteOptions.of(turn))
        else:
            self.strategy.on_turn(ctx, TurnOptions.of(turn))


async def play_async(
    client: Client, game_id: int, strategy: Strategy, *, timeout: float | None = None
) -> Game:
    """Play ``game_id`` with ``strategy`` until the game ends; returns the finished game."""
    seat = Seat(client, game_id, strategy)

    async def run() -> Game:
        async with client.stream(game_id) as stream:
            async for event in stream:
                burst = [event]
                while stream.buffered:  # a burst of events: at most one read after it
                    burst.append(await anext(stream))
                if seat.me is None and any(e.type == "hello" for e in burst):
                    await _in_thread(seat.read_role, None)  # one's seat, for ``wakes``
                if not any(wakes(e, seat.me) for e in burst):
                    continue
                if not await _in_thread(seat.step):
                    break
        return await asyncio.to_thread(client.game, game_id)

    return await asyncio.wait_for(run(), timeout)


TRANSIENT = frozenset({502, 503, 504})  # the site is briefly away: the same read again
RETRIES = 8


async def _in_thread(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` (a read of the API) in a thread (the socket keeps reading
    meanwhile); a site briefly away (503: its database or Redis) is asked again after a
    growing pause."""
    for attempt in range(RETRIES):
        try:
            return await asyncio.to_thread(call, *args)
        except ApiError as error:
            if error.status not in TRANSIENT or attempt == RETRIES - 1:
                raise
        except OSError:  # refused or reset: the site restarts
            if attempt == RETRIES - 1:
                raise
        await asyncio.sleep(min(0.5 * 2**attempt, 15.0))
    raise AssertionError("unreachable")


def play(client: Client, game_id: int, strategy: Strategy, *, timeout: float | None = None) -> Game:
    """``play_async`` for code without an event loop of its own."""
    return asyncio.run(play_async(client, game_id, strategy, timeout=timeout))
