"""A reference bot: plays any of the four rule sets through the public JSON API only.

Standard library only, so an agent's author can read it in one sitting and copy its loop:

    python3 scripts/reference_bot.py --url http://127.0.0.1:8000 --game 12 \\
        --user alice --password secret [--seed 42]

Each round it asks ``GET games/{id}/turn/`` what the table is doing and acts when it may:

* a table day (city, classic, power): speaks when ``your_turn`` (a power question names
  its addressee with ``to``), nominates its suspect in a classic speech (skip now and
  then on day 1), votes in the vote step, passes a defense or statement now and then;
* a forum day (``step == "thread"``): posts a bold vote for a suspect;
* a night: one legal target for each ability on its role PM (``GET role/``).

Its choices are its own (see ``Bot``): each seat suspects others at random, mafia spare
their partners, some follow the table and some do not, so nominations spread and votes
tie now and then. ``--seed`` repeats a run; by default the seed is derived from the user
name and the game (printed at the start).

With ``--host`` it is the game's host instead: it ends each night early (``host/cut/``)
once the players have had ``--night-seconds`` to act, so a table of bots plays fast.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import zlib
from typing import Any

SPEECH = (
    "I have listened to everyone and I am not convinced by the quiet players. "
    "Their reasons change from day to day and nobody has explained last night. "
    "I will follow the votes closely and change my mind if someone gives a good reason."
)


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {body.get('error')}")
        self.status = status
        self.body = body


class Api:
    """The JSON API with a token (``POST auth/token/``)."""

    def __init__(self, base: str, token: str | None = None, username: str = "") -> None:
        self.base = base.rstrip("/") + "/api/v1/"
        self.token = token
        self.username = username

    @classmethod
    def login(cls, base: str, username: str, password: str) -> Api:
        api = cls(base, username=username)
        api.token = api.post("auth/token/", {"username": username, "password": password})["token"]
        return api

    def get(self, path: str) -> Any:
        return self._call("GET", path, None)

    def post(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self._call("POST", path, data or {})

    def _call(self, method: str, path: str, data: dict[str, Any] | None) -> Any:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, body, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, json.loads(error.read() or b"{}")) from None


class Bot:
    """One player. ``act()`` does at most one thing and says whether it did.

    Its choices come from its own ``random.Random(seed)`` (pass ``seed`` to repeat a run;
    by default it is derived from the user name and the game, so every seat and every game
    differs). It plays like a person who knows only what its seat may see:

    * a **suspicion** of every other player, drawn at random at first (town cannot know
      roles); mafia never suspect their partners (``partners`` on the role PM); whoever
      nominates it grows more suspect, and an investigation result decides;
    * a **temperament**: a follower often nominates and votes with the table (the most
      nominated player: ballots are secret until the vote closes), a loner keeps to its
      own suspect; each has its own lean towards skip;
    * nominations and votes are weighted draws over its suspicions, so they spread, and
      ties and revotes happen as they do between people.
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
        self.me: dict[str, Any] | None = None  # the role PM, read once a day
        self.known_day: int | None = None
        self.heard: set[tuple[int, int]] = set()  # (nominator, target) already taken in
        self.acted_night: int | None = None
        self.voted_day: int | None = None
        self.lean: tuple[Any, int | None] | None = None  # (turn key, the speech's suspect)

    def act(self) -> bool:
        turn = self.api.get(f"games/{self.game}/turn/")
        step = turn["step"]
        if step in ("over", "not_started"):
            return False
        if step == "night":
            return self.night()
        if step == "thread":
            return self.forum_day()
        if not turn["your_turn"]:
            return False
        self.know(turn["day"])
        self.listen(turn)
        return self.take_turn(turn)

    # -- what this seat knows ----------------------------------------------------------------
    def know(self, day: int | None) -> None:
        """Read the role PM once a day: partners, own seat, new investigation results."""
        if self.me is not None and self.known_day == day:
            return
        self.me = self.api.get(f"games/{self.game}/role/")
        self.known_day = day
        game = self.api.get(f"games/{self.game}/")
        partners = {p["slot_id"] for p in self.me["partners"]}
        names = {p["name"]: p["slot_id"] for p in game["players"]}
        for p in game["players"]:
            slot = p["slot_id"]
            if slot == self.me["slot_id"] or slot in partners:
                self.suspicion.pop(slot, None)
            elif slot not in self.suspicion:
                self.suspicion[slot] = self.rng.uniform(0.1, 1.0)
        for result in self.me["results"]:
            found = result.get("result")
            if not isinstance(found, dict) or found.get("target") not in names:
                continue
            slot = names[found["target"]]
            if slot in self.suspicion:
                guilty = str(found.get("result")) in ("mafia", "guilty", "scum")
                self.suspicion[slot] = 50.0 if guilty else 0.02

    def listen(self, turn: dict[str, Any]) -> None:
        """Whoever nominates this seat grows more suspect to it."""
        mine = self.me["slot_id"] if self.me else None
        for n in turn["nominations"]:
            if n["skip"] or not n["nominator"] or not n["target"]:
                continue
            key = (n["nominator"]["slot_id"], n["target"]["slot_id"])
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

    def leader(self, turn: dict[str, Any], among: list[int]) -> int | None:
        """The table's favourite among ``among``: the most nominated (suspicion breaks ties)."""
        counts: dict[int, int] = {}
        for n in turn["nominations"]:
            if n["target"] and n["target"]["slot_id"] in among:
                counts[n["target"]["slot_id"]] = counts.get(n["target"]["slot_id"], 0) + 1
        if not counts:
            return None
        return max(counts, key=lambda s: (counts[s], self.suspicion.get(s, 0.0)))

    # -- table days ------------------------------------------------------------------------
    def take_turn(self, turn: dict[str, Any]) -> bool:
        may = set(turn["you_may"])
        g = f"games/{self.game}/"
        try:
            if "vote" in may:
                self.api.post(g + "vote/", {"target": self.choose_vote(turn)})
            elif "post" in may and (turn["step"] == "speech" or self.rng.random() < 0.7):
                data: dict[str, Any] = {"body": self.speech(turn)}
                if turn["step"] == "question":
                    data["to"] = self.rng.choice(turn["options"])["slot_id"]
                self.api.post(g + "posts/", data)
            elif "nominate" in may:
                self.api.post(g + "nominate/", {"target": self.choose_nomination(turn)})
            elif "pass" in may:
                self.api.post(g + "turn/pass/")
            else:
                return False
        except ApiError as error:
            if error.status >= 500:
                raise
            return False  # the table moved on under us (a timer): ask again
        return True

    def speech(self, turn: dict[str, Any]) -> str:
        words = (turn["word_limit"] or 100) - 5
        text = " ".join(SPEECH.split()[: max(words - 12, 5)])
        if "nominate" not in turn["you_may"]:  # not a classic speech: nothing to announce
            return text
        suspect = self.choose_nomination(turn)
        self.lean = (_turn_key(turn), suspect)
        name = next(
            (o["name"] for o in turn["options"] if not o.get("skip") and o["slot_id"] == suspect),
            None,
        )
        if name is None:
            return f"{text} I have no lean yet, so I nominate skip today."
        return f"{text} Right now {name} worries me most, so I nominate {name}."

    def choose_nomination(self, turn: dict[str, Any]) -> int | None:
        """A slot id, or None for skip (day 1 only)."""
        if self.lean and self.lean[0] == _turn_key(turn):
            return self.lean[1]  # what the speech said
        players = [o["slot_id"] for o in turn["options"] if not o.get("skip")]
        skip_allowed = any(o.get("skip") for o in turn["options"])
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

    def choose_vote(self, turn: dict[str, Any]) -> int | None:
        """A slot id on the ballot, or None for skip."""
        players = [o["slot_id"] for o in turn["ballot"] if not o.get("skip")]
        suspects = [s for s in players if s in self.suspicion]
        revote = (turn["round"] or 1) > 1
        lean = self.skip_lean + (0.15 if turn["day"] == 1 and not revote else 0.0)
        if not suspects or self.rng.random() < lean:
            return None
        if self.follower and self.rng.random() < 0.6:
            lead = self.leader(turn, suspects)
            if lead is not None:
                return lead
        return self.pick(suspects, power=3.0)

    # -- forum days and nights ---------------------------------------------------------------
    def forum_day(self) -> bool:
        game = self.api.get(f"games/{self.game}/")
        day = game["phase"]["number"] if game["phase"] else None
        if day is None or self.voted_day == day:
            return False
        self.know(day)
        me = self.me or {}
        living = [p for p in game["players"] if p["alive"] and p["slot_id"] != me.get("slot_id")]
        if not me.get("alive") or not living:
            return False
        by_slot = {p["slot_id"]: p for p in living}
        slot = self.pick(list(by_slot))
        target = by_slot[slot] if slot is not None else self.rng.choice(living)
        self.voted_day = day
        try:
            self.api.post(f"games/{self.game}/posts/", {"body": f"**Vote: {target['name']}**"})
        except ApiError:
            return False
        return True

    def night(self) -> bool:
        me = self.api.get(f"games/{self.game}/role/")
        number = me["phase"]["number"] if me["phase"] else None
        if not me["night_open"] or self.acted_night == number:
            return False
        self.acted_night = number
        for ability in me["abilities"]:
            if not ability["choices"]:
                continue
            slots = [c["slot_id"] for c in ability["choices"]]
            protective = any(w in ability["ability"] for w in ("protect", "heal", "guard"))
            slot = None if protective else self.pick(slots)
            if slot is None:
                slot = self.rng.choice(slots)
            extra = {key: "x" for key in ability["extra"]}
            try:
                self.api.post(
                    f"games/{self.game}/actions/",
                    {"ability": ability["ability"], "targets": [slot] * ability["targets"],
                     "extra": extra},
                )  # fmt: skip
            except ApiError:
                continue  # an illegal pick: this bot simply does without
        return True


class HostBot:
    """The host: ends each night once the players have had their time."""

    def __init__(self, api: Api, game_id: int, night_seconds: float = 1.0) -> None:
        self.api = api
        self.game = game_id
        self.night_seconds = night_seconds
        self.night_seen: dict[int, float] = {}

    def act(self) -> bool:
        game = self.api.get(f"games/{self.game}/")
        phase = game["phase"]
        if game["status"] != "running" or not phase or phase["kind"] != "night":
            return False
        first = self.night_seen.setdefault(phase["number"], time.monotonic())
        if time.monotonic() - first < self.night_seconds:
            return False
        try:
            self.api.post(f"games/{self.game}/host/cut/")
        except ApiError:
            return False
        return True


def default_seed(username: str, game_id: int) -> int:
    """The seed a bot uses unless told: its own for each user and game, and repeatable."""
    return zlib.crc32(f"{username}:{game_id}".encode())


def _turn_key(turn: dict[str, Any]) -> tuple[Any, ...]:
    return (turn["day"], turn["round"], turn["turn_seq"], turn["step"])


def play(bots: list[Any], game_id: int, api: Api, *, timeout: float = 600.0) -> dict[str, Any]:
    """Run the bots round-robin until the game ends; returns the finished game."""
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
    api = Api.login(args.url, args.user, args.password)
    bot: Any
    if args.host:
        bot = HostBot(api, args.game, args.night_seconds)
    else:
        bot = Bot(api, args.game, args.seed)
        print(f"{args.user} plays game {args.game} with --seed {bot.seed}", flush=True)
    game = play([bot], args.game, api, timeout=24 * 3600)
    print(f"Game over: {game['winner']} ({game['win_reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
