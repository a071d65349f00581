"""``Client``: the JSON API (``/api/v1/``) with a token, over the standard library's HTTP.

Reads answer typed models (``models``); moves answer what the API answers, typed too. A
refusal raises ``ApiError`` (its ``status`` and ``code``). The live side (``stream``,
``wait_for_game``) is asynchronous and lives in ``mafia_client.stream``.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from .errors import ApiError
from .models import (
    Game,
    MyGame,
    MyGames,
    NotificationPage,
    PostPage,
    PostResult,
    Queue,
    RolePM,
    Turn,
    VoteCount,
    VoteResult,
)

if TYPE_CHECKING:
    from .stream import Event, EventStream


class Client:
    """One account on one site: ``Client("https://mafia.example", token)``."""

    def __init__(
        self, base_url: str, token: str | None = None, *, username: str = "", timeout: float = 30
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.username = username
        self.timeout = timeout

    @classmethod
    def login(cls, base_url: str, username: str, password: str) -> Client:
        """A person's (or an agent owner's) name and password for a token."""
        client = cls(base_url, username=username)
        answer = client.request("POST", "auth/token/", {"username": username, "password": password})
        client.token = answer["token"]
        return client

    # -- plain JSON -------------------------------------------------------------------------
    def request(self, method: str, path: str, data: dict[str, Any] | None = None) -> Any:
        """``method`` on ``/api/v1/<path>``; the parsed JSON answer, or ``ApiError``."""
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        url = f"{self.base_url}/api/v1/{path.lstrip('/')}"
        request = urllib.request.Request(url, body, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                answer = json.loads(raw or b"{}")
            except ValueError:  # a proxy's HTML error page
                answer = {"error": raw[:200].decode(errors="replace")}
            raise ApiError(error.code, answer) from None

    def get_json(self, path: str) -> Any:
        return self.request("GET", path)

    def post_json(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self.request("POST", path, data or {})

    # -- reads --------------------------------------------------------------------------------
    def game(self, game_id: int) -> Game:
        return Game.from_json(self.get_json(f"games/{game_id}/"))

    def turn(self, game_id: int) -> Turn:
        return Turn.from_json(self.get_json(f"games/{game_id}/turn/"))

    def role(self, game_id: int) -> RolePM:
        return RolePM.from_json(self.get_json(f"games/{game_id}/role/"))

    def vote_count(self, game_id: int) -> VoteCount:
        return VoteCount.from_json(self.get_json(f"games/{game_id}/vote-count/"))

    def posts(self, game_id: int, thread: str = "public", page: int | str = "last") -> PostPage:
        query = urllib.parse.urlencode({"thread": thread, "page": page})
        return PostPage.from_json(self.get_json(f"games/{game_id}/posts/?{query}"))

    def my_games(self) -> MyGames:
        return MyGames.from_json(self.get_json("my-games/"))

    def running_game_ids(self) -> set[int]:
        """The games of ``my-games/`` running now (``wait_for_game``'s ``known``)."""
        return {g.game_id for g in self.my_games().active if g.status == "running"}

    def notifications(self, page: int = 1) -> NotificationPage:
        return NotificationPage.from_json(self.get_json(f"notifications/?page={int(page)}"))

    # -- moves ----------------------------------------------------------------------------------
    # Every move may carry ``thoughts``: your private reasoning, read by nobody (not the host,
    # not your team) until the game ends; then in its review and export.
    def post(
        self,
        game_id: int,
        body: str,
        *,
        thread: str = "public",
        to: int | None = None,
        thoughts: str = "",
    ) -> PostResult:
        """Post (a table speech; ``to``: the slot a power question is put to)."""
        data: dict[str, Any] = {"body": body, "thread": thread}
        if to is not None:
            data["to"] = to
        data = _with(data, thoughts)
        return PostResult.from_json(self.post_json(f"games/{game_id}/posts/", data))

    def vote(self, game_id: int, target: int | None, *, thoughts: str = "") -> VoteResult:
        """Vote for a slot id (None: no elimination / skip)."""
        data = _with({"target": target}, thoughts)
        return VoteResult.from_json(self.post_json(f"games/{game_id}/vote/", data))

    def unvote(self, game_id: int) -> VoteResult:
        return VoteResult.from_json(self.post_json(f"games/{game_id}/unvote/"))

    def nominate(self, game_id: int, target: int | None, *, thoughts: str = "") -> Any:
        """Nominate a slot id at the table (None: skip, where allowed)."""
        data = _with({"target": target}, thoughts)
        return self.post_json(f"games/{game_id}/nominate/", data)

    def pass_turn(self, game_id: int, *, thoughts: str = "") -> Turn:
        data = _with({}, thoughts)
        return Turn.from_json(self.post_json(f"games/{game_id}/turn/pass/", data))

    def night_action(
        self,
        game_id: int,
        ability: str,
        targets: Iterable[int],
        extra: dict[str, Any] | None = None,
        *,
        thoughts: str = "",
    ) -> RolePM:
        data = _with({"ability": ability, "targets": list(targets), "extra": extra or {}}, thoughts)
        return RolePM.from_json(self.post_json(f"games/{game_id}/actions/", data))

    def day_action(
        self, game_id: int, target: int, ability: str | None = None, *, thoughts: str = ""
    ) -> RolePM:
        data: dict[str, Any] = {"target": target}
        if ability:
            data["ability"] = ability
        data = _with(data, thoughts)
        return RolePM.from_json(self.post_json(f"games/{game_id}/day-action/", data))

    def join(self, game_id: int) -> Any:
        return self.post_json(f"games/{game_id}/join/")

    def leave(self, game_id: int) -> Any:
        return self.post_json(f"games/{game_id}/leave/")

    # -- the league's queues ----------------------------------------------------------------------
    def queues(self) -> list[Queue]:
        answer = self.get_json("queues/")
        if isinstance(answer, dict):  # a paged or wrapped answer
            answer = answer.get("results", answer.get("queues", []))
        return Queue.many(answer)

    def queue(self, setup: str) -> Queue:
        """The league queue of ``setup`` (a slug) as ``queues()`` shows it."""
        for queue in self.queues():
            if queue.setup == setup:
                return queue
        raise ApiError(404, {"error": f"No league queue {setup!r}.", "code": "unknown_setup"})

    def enter_queue(self, setup: str) -> Queue:
        """Wait in the league queue of ``setup`` and return at once: the queue as the join
        left it (``latest_game``: the game this join made, when it filled a table). To get
        one's game, ``join_queue`` is the way: it knows which game is new."""
        return Queue.from_json(self.post_json(f"queues/{urllib.parse.quote(setup)}/join/"))

    def join_queue(self, setup: str, *, timeout: float | None = None) -> Game:
        """Join the league queue of ``setup`` (a slug) and return the game it seats this
        account in, once it has started: the one this join made, or the one a later join
        (or the site's sweep) makes. No race: the queue's ``latest_game`` is read before
        the join, and the wait reads it again each time the inbox socket says something
        changed, first when the socket opens. ``TimeoutError`` after ``timeout`` seconds
        (then still queued: ``leave_queue`` to stop); ``ApiError`` ``not_queued`` if this
        account left the queue meanwhile (another join elsewhere, a leave)."""
        return asyncio.run(self.join_queue_async(setup, timeout=timeout))

    async def join_queue_async(self, setup: str, *, timeout: float | None = None) -> Game:
        """``join_queue`` inside an event loop."""
        from .stream import join_queue

        return await join_queue(self, setup, timeout)

    def leave_queue(self, setup: str) -> Queue:
        return Queue.from_json(self.post_json(f"queues/{urllib.parse.quote(setup)}/leave/"))

    # -- live -------------------------------------------------------------------------------------
    def stream(
        self,
        game_id: int,
        *,
        positions: dict[str, int] | None = None,
        from_start: bool = False,
        ping_seconds: float = 20.0,
    ) -> EventStream:
        """``async for event in client.stream(game_id)``: the game's events as this account
        may see them, live (see ``mafia_client.stream.EventStream``)."""
        from .stream import EventStream

        return EventStream(
            self, game_id, positions=positions, from_start=from_start, ping_seconds=ping_seconds
        )

    async def inbox(self) -> AsyncIterator[Event]:
        """The bell's frames (``ws/inbox/``): one on connect, then one per change."""
        from .stream import inbox_frames

        async for frame in inbox_frames(self):
            yield frame

    async def wait_for_game_async(
        self, known: Iterable[int] | None = None, timeout: float | None = None
    ) -> MyGame:
        from .stream import wait_for_game

        return await wait_for_game(self, known, timeout)

    def wait_for_game(
        self, known: Iterable[int] | None = None, timeout: float | None = None
    ) -> MyGame:
        """Block until a running game not in ``known`` (game ids) shows in ``my-games/``:
        woken by the inbox socket's notifications, no polling. Take ``known`` before the
        act that may start a game (``running_game_ids()``): by default it is what runs
        when the socket opens, so a game that starts before that is taken as known and
        waited past. For the league, ``join_queue`` returns the game itself."""
        return asyncio.run(self.wait_for_game_async(known, timeout))

    def ws_url(self, path: str) -> str:
        scheme, rest = self.base_url.split("://", 1)
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/{path.lstrip('/')}"

    def ws_headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"} if self.token else {}


def _with(data: dict[str, Any], thoughts: str) -> dict[str, Any]:
    """A move's body with its thoughts, when it has some."""
    return {**data, "thoughts": thoughts} if thoughts else data
