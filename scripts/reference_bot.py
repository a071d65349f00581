"""A reference bot: plays any of the four rule sets through the public API only.

It is written on the client library (``client/``: ``pip install -e ./client``), so an
agent's author can read it in one sitting and copy what they need:

    python3 scripts/reference_bot.py --url http://127.0.0.1:8000 --game 12 \\
        --user alice --password secret [--seed 42]

``Bot`` is a ``mafia_client.Strategy``: ``mafia_client.play`` follows the game's live
stream and hands it the legal options whenever its seat may act:

* a table day (city, classic, power): it speaks in its turn (a power question names its
  addressee with ``to``), nominates its suspect in a classic speech (skip now and then on
  day 1), votes in the vote step, passes a defense or statement now and then;
* a forum day (``step == "thread"``): posts a bold vote for a suspect;
* a night: one legal target for each ability on its role PM.

Its choices are its own (see ``Bot``): each seat suspects others at random, mafia spare
their partners, some follow the table and some do not, so nominations spread and votes
tie now and then. ``--seed`` repeats a run; by default the seed is derived from the user
name and the game (printed at the start).

With ``--host`` it is the game's host instead: it ends each night early (``host/cut/``)
once the players have had ``--night-seconds`` to act, so a table of bots plays fast.

The tests drive many bots from one thread with ``play(bots, game_id, api)``: round-robin,
each ``Bot.act()`` one read of the state and at most one move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Any

try:
    import mafia_client
except ImportError:  # run from a checkout without the client installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))
    import mafia_client

from mafia_client import ApiError, Client, Context, Seat, Strategy, Turn, TurnOptions, VoteOptions

__all__ = ["Api", "ApiError", "Bot", "HostBot", "default_seed", "main", "play"]

SPEECH = (
    "I have listened to everyone and I am not convinced by the quiet players. "
    "Their reasons change from day to day and nobody has explained last night. "
    "I will follow the votes closely and change my mind if someone gives a good reason."
)


class Api:
    """The plain JSON API with a token (``POST auth/token/``): paths under ``/api/v1/``,
    answers as parsed JSON. ``client`` is the same account as a ``mafia_client.Client``."""

    def __init__(self, base: str, token: str | None = None, username: str = "") -> None:
        self.client = Client(base, token, username=username)

    @classmethod
    def login(cls, base: str, username: str, password: str) -> Api:
        api = cls(base, username=username)
        api.client = Client.login(base, username, password)
        return api

    @property
    def token(self) -> str | None:
        return self.client.token

    @property
    def username(self) -> str:
        return self.client.username

    def get(self, path: str) -> Any:
        return self.client.request("GET", path)

    def post(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self.client.request("POST", path, data or {})

    def _call(self, method: str, path: str, data: dict[str, Any] | None) -> Any:
        return self.client.request(method, path, data)


class Bot(Strategy):
    """One player. Its choices come from its own ``random.Random(seed)`` (pass ``seed`` to
    repeat a run; by default it is derived from the user name and the game, so every seat
    and every game differs). It plays like a person who knows only what its seat may see:

    * a **suspicion** of every other player, drawn at random at first (town cannot know
      roles); mafia never suspect their partners (``partners`` on the role PM); whoever
      nominates it grows more suspect, and an investigation result decides;
    * a **temperament**: a follower often nominates and votes with the table (the most
      nominated player: ballots are secret until the vote closes), a loner keeps to its
      own suspect; each has its own lean towards skip;
    * nominations and votes are weighted draws over its suspicions, so they spread, and
      ties and revotes happen as they do between people.

    ``act()`` is one round of the tests' round-robin ``play``: one read, at most one move.
    """

    def __init__(self, api: Api, game_id: int, seed: int | None = None) -> None:
        self.api = api
        self.game = game_id
        who = api.username or api.token or ""  # an Api made from a token has no name
        self.seed = default_seed(who, game_id) if seed is None else seed
        self.rng = random.Random(self.seed)
        self.follower = self.rng.random() < 0.4
        self.skip_lean = self.rng.uniform(0.05, 0.3)
        self.suspicion: dict[int, float] = {}  # slot id -> weight (never self or partners)
        self.me: mafia_client.RolePM | None = None  # the role PM, read once a day
        self.known_day: int | None = None
        self.heard: set[tuple[int, int]] = set()  # (nominator, target) already taken in
        self.lean: tuple[Any, int | None] | None = None  # (turn key, the speech's suspect)
        self.seat = Seat(api.client, game_id, self)
        self.moves = 0

    def act(self) -> bool:
        """Read the state and make at most one move; whether it made one."""
        before = self.moves
        self.seat.step()
        return self.moves > before

    # -- what this seat knows ----------------------------------------------------------------
    def know(self, ctx: Context, day: int | None) -> None:
        """Take in the role PM once a day: partners, own seat, new investigation results."""
        if self.me is not None and self.known_day == day:
            return
        self.me = ctx.client.role(self.game)
        self.known_day = day
        players = ctx.client.game(self.game).players
        partners = {p.slot_id for p in self.me.partners}
        names = {p.name: p.slot_id for p in players}
        for p in players:
            if p.slot_id == self.me.slot_id or p.slot_id in partners:
                self.suspicion.pop(p.slot_id, None)
            elif p.slot_id not in self.suspicion:
                self.suspicion[p.slot_id] = self.rng.uniform(0.1, 1.0)
        for result in self.me.results:
            found = result.result
            if not isinstance(found, dict) or found.get("target") not in names:
                continue
            slot = names[found["target"]]
            if slot in self.suspicion:
                guilty = str(found.get("result")) in ("mafia", "guilty", "scum")
                self.suspicion[slot] = 50.0 if guilty else 0.02

    def listen(self, turn: Turn) -> None:
        """Whoever nominates this seat grows more suspect to it."""
        mine = self.me.slot_id if self.me else None
        for n in turn.nominations:
            if n.skip or not n.nominator or not n.target:
                continue
            key = (n.nominator.slot_id, n.target.slot_id)
            if key in self.heard:
                continue
            self.heard.add(key)
            if key[1] == mine and key[0] in self.suspicion:
                self.suspicion[key[0]] *= 1.5

    def pick(self, slots: list[int], power: float = 2.0) -> int | None:
        """A weighted draw over ``slots`` by suspicion (those it does not suspect left out)."""
        weighted = [(s, self.suspicion[s] ** power) for s in slots if s in self.suspicion]
        if not weighted:
            return None
        return self.rng.choices([s for s, _ in weighted], [w for _, w in weighted])[0]

    def leader(self, turn: Turn, among: list[int]) -> int | None:
        """The table's favourite among ``among``: the most nominated (suspicion breaks ties)."""
        counts: dict[int, int] = {}
        for n in turn.nominations:
            if n.target and n.target.slot_id in among:
                counts[n.target.slot_id] = counts.get(n.target.slot_id, 0) + 1
        if not counts:
            return None
        return max(counts, key=lambda s: (counts[s], self.suspicion.get(s, 0.0)))

    # -- table days ------------------------------------------------------------------------
    def on_vote(self, ctx: Context, options: VoteOptions) -> None:
        self.know(ctx, ctx.turn.day)
        self.listen(ctx.turn)
        target = self.choose_vote(ctx.turn, options)
        self.moves += 1
        ctx.vote(target)

    def on_turn(self, ctx: Context, options: TurnOptions) -> None:
        turn = ctx.turn
        self.know(ctx, turn.day)
        self.listen(turn)
        # A post may only be all it may do (a defense): it then draws again until it posts.
        while True:
            if "post" in options.may and (turn.step == "speech" or self.rng.random() < 0.7):
                body = self.speech(turn)
                to = self.rng.choice(turn.options).slot_id if turn.step == "question" else None
                self.moves += 1
                ctx.post(body, to=to)
            elif "nominate" in options.may:
                target = self.choose_nomination(turn)
                self.moves += 1
                ctx.nominate(target)
            elif "pass" in options.may:
                self.moves += 1
                ctx.pass_turn()
            elif "post" in options.may:
                continue
            return

    def speech(self, turn: Turn) -> str:
        words = (turn.word_limit or 100) - 5
        text = " ".join(SPEECH.split()[: max(words - 12, 5)])
        if "nominate" not in turn.you_may:  # not a classic speech: nothing to announce
            return text
        suspect = self.choose_nomination(turn)
        self.lean = (turn.key, suspect)
        name = next(
            (o.name for o in turn.options if not o.skip and o.slot_id == suspect),
            None,
        )
        if name is None:
            return f"{text} I have no lean yet, so I nominate skip today."
        return f"{text} Right now {name} worries me most, so I nominate {name}."

    def choose_nomination(self, turn: Turn) -> int | None:
        """A slot id, or None for skip (day 1 only)."""
        if self.lean and self.lean[0] == turn.key:
            return self.lean[1]  # what the speech said
        players = [o.slot_id for o in turn.options if not o.skip and o.slot_id is not None]
        skip_allowed = any(o.skip for o in turn.options)
        if skip_allowed and self.rng.random() < self.skip_lean:
            return None
        if self.follower and self.rng.random() < 0.5:
            lead = self.leader(turn, [s for s in players if s in self.suspicion])
            if lead is not None:
                return lead
        choice = self.pick(players)
        if choice is not None:
            return choice
        if skip_allowed or not players:
            return None
        return self.rng.choice(players)  # only itself or partners left: anyone will do

    def choose_vote(self, turn: Turn, options: VoteOptions) -> int | None:
        """A slot id on the ballot, or None for skip."""
        players = [o.slot_id for o in options.players if o.slot_id is not None]
        suspects = [s for s in players if s in self.suspicion]
        revote = options.round > 1
        lean = self.skip_lean + (0.15 if turn.day == 1 and not revote else 0.0)
        if not suspects or self.rng.random() < lean:
            return None
        if self.follower and self.rng.random() < 0.6:
            lead = self.leader(turn, suspects)
            if lead is not None:
                return lead
        return self.pick(suspects, power=3.0)

    # -- forum days and nights ---------------------------------------------------------------
    def on_day(self, ctx: Context) -> None:
        day = ctx.game.phase.number if ctx.game.phase else None
        self.know(ctx, day)
        me = self.me
        living = [p for p in ctx.game.living() if me is None or p.slot_id != me.slot_id]
        if not living:
            return
        by_slot = {p.slot_id: p for p in living}
        slot = self.pick(list(by_slot))
        target = by_slot[slot] if slot is not None else self.rng.choice(living)
        self.moves += 1
        ctx.post(f"**Vote: {target.name}**")

    def on_night(self, ctx: Context, options: list[mafia_client.Ability]) -> None:
        self.moves += 1
        for ability in options:
            slots = [c.slot_id for c in ability.choices]
            protective = any(w in ability.ability for w in ("protect", "heal", "guard"))
            slot = None if protective else self.pick(slots)
            if slot is None:
                slot = self.rng.choice(slots)
            extra = {key: "x" for key in ability.extra}
            try:
                ctx.night_action(ability.ability, [slot] * ability.targets, extra)
            except ApiError as error:
                if error.status >= 500:
                    raise  # an illegal pick (4xx): this bot simply does without


class HostBot:
    """The host: ends each night once the players have had their time."""

    def __init__(self, api: Api, game_id: int, night_seconds: float = 1.0) -> None:
        self.api = api
        self.game = game_id
        self.night_seconds = night_seconds
        self.night_seen: dict[int, float] = {}
        self.due: float | None = None  # seconds until the current night may be cut

    def act(self) -> bool:
        self.due = None
        game = self.api.client.game(self.game)
        phase = game.phase
        if game.status != "running" or not phase or phase.kind != "night":
            return False
        first = self.night_seen.setdefault(phase.number, time.monotonic())
        waited = time.monotonic() - first
        if waited < self.night_seconds:
            self.due = self.night_seconds - waited
            return False
        try:
            self.api.post(f"games/{self.game}/host/cut/")
        except ApiError:
            return False
        return True


async def host(api: Api, game_id: int, night_seconds: float) -> mafia_client.Game:
    """``--host``: woken by the game's live events (and by a night's time running out)."""
    bot = HostBot(api, game_id, night_seconds)
    async with api.client.stream(game_id) as stream:
        while True:
            await asyncio.to_thread(bot.act)
            game = await asyncio.to_thread(api.client.game, game_id)
            if game.over:
                return game
            with contextlib.suppress(TimeoutError):  # the night's time is up: act cuts it
                await asyncio.wait_for(anext(stream), bot.due)


def default_seed(username: str, game_id: int) -> int:
    """The seed a bot uses unless told: its own for each user and game, and repeatable."""
    return zlib.crc32(f"{username}:{game_id}".encode())


def play(bots: list[Any], game_id: int, api: Api, *, timeout: float = 600.0) -> dict[str, Any]:
    """Run many bots from one thread, round-robin, until the game ends (the tests' way: a
    single bot follows the live stream instead, see ``main``); returns the finished game."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        game = api.get(f"games/{game_id}/")
        if game["status"] == "finished":
            return game
        if not any([bot.act() for bot in bots]):
            time.sleep(0.2)
    raise TimeoutError(f"game {game_id} did not finish in {timeout} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--host", action="store_true", help="play the host's part")
    parser.add_argument("--night-seconds", type=float, default=5.0)
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the bot's random seed (default: derived from --user and --game; printed)",
    )
    args = parser.parse_args(argv)
    try:
        api = Api.login(args.url, args.user, args.password)
    except (ApiError, OSError) as error:
        print(f"Cannot sign in at {args.url}: {error}", file=sys.stderr)
        return 2
    if args.host:
        game = asyncio.run(host(api, args.game, args.night_seconds))
    else:
        bot = Bot(api, args.game, args.seed)
        print(f"{args.user} plays game {args.game} with --seed {bot.seed}", flush=True)
        game = mafia_client.play(api.client, args.game, bot)
    print(f"Game over: {game.winner} ({game.win_reason})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
