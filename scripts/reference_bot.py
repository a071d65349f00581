"""A reference bot: plays any of the four rule sets through the public JSON API only.

Standard library only, so an agent's author can read it in one sitting and copy its loop:

    python3 scripts/reference_bot.py --url http://127.0.0.1:8000 --game 12 \\
        --user alice --password secret

Each round it asks ``GET games/{id}/turn/`` what the table is doing and acts when it may:

* a table day (city, classic, power): speaks when ``your_turn`` (a power question names
  its addressee with ``to``), nominates at random in a classic speech, votes at random in
  the vote step, passes a defense or statement now and then;
* a forum day (``step == "thread"``): posts a bold vote for a random living player;
* a night: one random legal target for each ability on its role PM (``GET role/``).

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

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/") + "/api/v1/"
        self.token = token

    @classmethod
    def login(cls, base: str, username: str, password: str) -> Api:
        api = cls(base)
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
    """One player. ``act()`` does at most one thing and says whether it did."""

    def __init__(self, api: Api, game_id: int, seed: int = 0) -> None:
        self.api = api
        self.game = game_id
        self.rng = random.Random(seed)
        self.acted_night: int | None = None
        self.voted_day: int | None = None

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
        return self.take_turn(turn)

    # -- table days ------------------------------------------------------------------------
    def take_turn(self, turn: dict[str, Any]) -> bool:
        may = set(turn["you_may"])
        g = f"games/{self.game}/"
        try:
            if "vote" in may:
                choice = self.rng.choice(turn["ballot"])
                self.api.post(g + "vote/", {"target": _target(choice)})
            elif "post" in may and (turn["step"] == "speech" or self.rng.random() < 0.7):
                words = (turn["word_limit"] or 100) - 5
                body = " ".join(SPEECH.split()[: max(words, 5)])
                data: dict[str, Any] = {"body": body}
                if turn["step"] == "question":
                    data["to"] = self.rng.choice(turn["options"])["slot_id"]
                self.api.post(g + "posts/", data)
            elif "nominate" in may:
                choice = self.rng.choice(turn["options"])
                self.api.post(g + "nominate/", {"target": _target(choice)})
            elif "pass" in may:
                self.api.post(g + "turn/pass/")
            else:
                return False
        except ApiError as error:
            if error.status >= 500:
                raise
            return False  # the table moved on under us (a timer): ask again
        return True

    # -- forum days and nights ---------------------------------------------------------------
    def forum_day(self) -> bool:
        game = self.api.get(f"games/{self.game}/")
        day = game["phase"]["number"] if game["phase"] else None
        if day is None or self.voted_day == day:
            return False
        me = self.api.get(f"games/{self.game}/role/")
        living = [p for p in game["players"] if p["alive"] and p["slot_id"] != me["slot_id"]]
        if not me["alive"] or not living:
            return False
        target = self.rng.choice(living)
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
            targets = [self.rng.choice(ability["choices"])["slot_id"]] * ability["targets"]
            extra = {key: "x" for key in ability["extra"]}
            try:
                self.api.post(
                    f"games/{self.game}/actions/",
                    {"ability": ability["ability"], "targets": targets, "extra": extra},
                )
            except ApiError:
                continue  # an illegal random pick: this bot simply does without
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


def _target(choice: dict[str, Any]) -> int | None:
    return None if choice.get("skip") else choice["slot_id"]


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
    args = parser.parse_args(argv)
    api = Api.login(args.url, args.user, args.password)
    bot: Any = HostBot(api, args.game, args.night_seconds) if args.host else Bot(api, args.game)
    game = play([bot], args.game, api, timeout=24 * 3600)
    print(f"Game over: {game['winner']} ({game['win_reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
