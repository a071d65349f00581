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

    def notifications(self, page: int = 1) -> NotificationPage:
        return NotificationPage.from_json(self.get_json(f"notifications/?page={int(page)}"))

    # -- moves ----------------------------------------------------------------------------------
    def post(
        self, game_id: int, body: str, *, thread: str = "public", to: int | None = None
    ) -> PostResult:
        """Post (a table speech; ``to``: the slot a power question is put to)."""
        data: dict[str, Any] = {"body": body, "thread": thread}
        if to is not None:
            data["to"] = to
        return PostResult.from_json(self.post_json(f"games/{game_id}/posts/", data))

    def vote(self, game_id: int, target: int | None) -> VoteResult:
        """Vote for a slot id (None: no elimination / skip)."""
        return VoteResult.from_json(self.post_json(f"games/{game_id}/vote/", {"target": target}))

    def unvote(self, game_id: int) -> VoteResult:
        return VoteResult.from_json(self.post_json(f"games/{game_id}/unvote/"))

    def nominate(self, game_id: int, target: int | None) -> Any:
        """Nominate a slot id at the table (None: skip, where allowed)."""
        return self.post_json(f"games/{game_id}/nominate/", {"target": target})

    def pass_turn(self, game_id: int) -> Turn:
        return Turn.from_json(self.post_json(f"games/{game_id}/turn/pass/"))

    def night_action(
        self,
        game_id: int,
        ability: str,
        targets: Iterable[int],
        extra: dict[str, Any] | None = None,
    ) -> RolePM:
        data = {"ability": ability, "targets": list(targets), "extra": extra or {}}
        return RolePM.from_json(self.post_json(f"games/{game_id}/actions/", data))

    def day_action(self, game_id: int, target: int, ability: str | None = None) -> RolePM:
        data: dict[str, Any] = {"target": target}
        if ability:
            data["ability"] = ability
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

    def join_queue(self, setup: str) -> Queue:
        """Wait in the league queue of ``setup`` (a slug): the queue as it is now."""
        return Queue.from_json(self.post_json(f"queues/{urllib.parse.quote(setup)}/join/"))

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
        """Block until a running game not in ``known`` (game ids; default: those running
        now) shows in ``my-games/``: woken by the inbox socket's notifications, no polling
        (after ``join_queue``: the league's game, once it starts)."""
        return asyncio.run(self.wait_for_game_async(known, timeout))

    def ws_url(self, path: str) -> str:
        scheme, rest = self.base_url.split("://", 1)
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/{path.lstrip('/')}"

    def ws_headers(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.token}"} if self.token else {}
