"""The site load test's users (Locust), driven by ``run.py``; the model is ``model.py``.

Not run alone: ``run.py`` prepares the database, starts the site and arms the deadlines,
then runs ``locust -f benchmarks/site_load/locustfile.py --headless`` with

* ``LOAD_PLAN``: the plan ``prepare.py`` wrote (games, seats, sessions, tokens, model);
* ``LOAD_RUN``: the run's own facts (the site's address, each game's deadline, the phase
  model's deadline hour, how many users of each class, which seats are online);
* ``LOAD_OUT``: a directory for ``records.json`` (every request, write and socket, for
  the checks ``run.py`` makes afterwards).

The classes (how many of each: ``model.users``; the counts are fixed, not weighted):

* ``ForumPlayer``: an online player of a forum game, on their seat: the thread's newest
  page open with its live socket (cookie session), page views (older pages, ISO, role
  PM, the vote log, my games), posts and bold votes through the reply form, vote and
  unvote buttons and night actions through the API (token), the mafia's chat at night;
  faster in their game's deadline hour. A visit lasts ``visit_minutes`` on average; then
  the socket closes and a new visit opens the page and a socket again.
* ``Spectator``: a reader (anonymous, or signed in with an account that plays nowhere)
  with a game's live page open and page views now and then; a new game each visit.
* ``LobbyBrowser``: the lobby, the league, leaderboards, setups, players, the games API.
* ``Login``: the log-in form (allauth), as a person does it.
* ``TablePlayer`` / ``TableBot``: the seats of the table games (classic, city, power),
  playing with the reference bot's strategy (``scripts/reference_bot.Bot``) through the
  JSON API, woken by their socket (``mafia_client.strategy.wakes``); a person has the
  page open too (cookie session, its socket's pushed parts) and takes a few seconds to
  act, a bot (agent token, no page) acts at once.

Every open page behaves as ``static/js/live.js`` does: it connects with the page's
positions, its live elements and its address (``own``, ``page``: its socket then renders
and pushes the viewer's own copy of the parts the items do not carry, which is the server's
load of the open pages), resumes after a gap, pings every 30 s, and asks its socket for a
part that should have come with an item and did not (``{"type": "parts"}``, counted as
"ws: parts asked"). No page fetches itself.

Live delivery: a post's body carries ``ltmark-<ms since epoch at the request's start>-
<nonce>``; every socket that receives it fires a Locust request "live: post on a socket"
with the delay, and ``records.json`` keeps every arrival for the exact figures.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import sys
import time
from http.cookiejar import Cookie
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import gevent
import websocket
from gevent.event import Event as GEvent
from locust import FastHttpUser, between, events, task
from locust.exception import StopUser

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "client"))
from model import Model  # noqa: E402

PLAN: dict[str, Any] = json.loads(Path(os.environ["LOAD_PLAN"]).read_text())
RUN: dict[str, Any] = json.loads(Path(os.environ["LOAD_RUN"]).read_text())
OUT = Path(os.environ["LOAD_OUT"])
MODEL = Model.from_dict(PLAN["model"])
BASE = RUN["base"]
ORIGIN = BASE
WS_BASE = BASE.replace("http://", "ws://")
HOST = BASE.split("//", 1)[1].split(":")[0]
COUNTS: dict[str, int] = RUN["users"]
# The deadline hour: a real hour, or the compressed model's last seconds of a day.
RUSH_SECONDS: float = RUN.get("rush_window", MODEL.rush_seconds)
RNG = random.Random(RUN.get("seed", 22))

MARK = re.compile(r"ltmark-(\d+)-([0-9a-f]+)")
POSITIONS = re.compile(r'data-live-positions="([^"]*)"')
PARTS = re.compile(r'id="([^"]+)"\s+data-live-part="([^"]+)"')
KINDS_SCRIPT = re.compile(r'<script id="live-kinds" type="application/json">(.*?)</script>', re.S)
POST_ANCHOR = re.compile(r"#post-(\w+)-(\d+)$")
TEXT = (
    "I think the quiet players are worth a look today because nobody has pressed them "
    "and their votes keep landing late on the wagon that is already winning so let us "
    "read back through day one and compare what each of them said about the early "
    "votes before we decide where to put our own votes tonight"
)
WORDS = TEXT.split()


# ======================================================================================
# Records (one process: gevent greenlets, no locks needed)
# ======================================================================================
REQUESTS: list[tuple[str, float, float, int]] = []  # (name, start, ms, failed)
WRITES: list[dict[str, Any]] = []
SOCKETS: list[dict[str, Any]] = []
EXTRA: dict[str, Any] = {"spawned_at": None, "started_at": time.time(), "errors": {}}
_ids = itertools.count(1)


@events.request.add_listener
def _on_request(request_type, name, response_time, response_length, exception, **kw):
    start = kw.get("start_time") or time.time()
    REQUESTS.append((name, start, response_time, 1 if exception else 0))
    if exception:
        key = f"{name}: {str(exception)[:120]}"
        EXTRA["errors"][key] = EXTRA["errors"].get(key, 0) + 1


@events.spawning_complete.add_listener
def _on_spawned(user_count, **kw):
    EXTRA["spawned_at"] = time.time()


DRAIN_SECONDS = float(os.environ.get("LOAD_DRAIN", "10"))


@events.test_stop.add_listener
def _on_stop(**kw):
    """The users are stopped (no more writes); the sockets still open keep reading for
    ``LOAD_DRAIN`` seconds, so what was posted before the end can arrive."""
    EXTRA["stopped_at"] = time.time()
    gevent.sleep(DRAIN_SECONDS)
    EXTRA["drained_at"] = time.time()
    for s in SOCKETS:
        s.setdefault("closed", EXTRA["stopped_at"])
        s.setdefault("close_reason", "test end")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "records.json").write_text(
        json.dumps({"requests": REQUESTS, "writes": WRITES, "sockets": SOCKETS, "extra": EXTRA})
    )


def fire(name: str, ms: float, kind: str = "LIVE") -> None:
    events.request.fire(
        request_type=kind,
        name=name,
        response_time=ms,
        response_length=0,
        exception=None,
        context={},
    )


# ======================================================================================
# Games as this process knows them (shared by the users of a game)
# ======================================================================================
class GameState:
    def __init__(self, game: dict[str, Any], schedule: dict[str, Any], table: bool) -> None:
        self.id = game["id"]
        self.table = table
        self.slots = game.get("slots", [])
        self.by_seat = {s["seat"]: s for s in self.slots}
        self.living = set(self.by_seat)
        self.kind = schedule.get("kind", "day")
        self.number = schedule.get("number", 1)
        self.deadline = schedule.get("deadline")  # epoch seconds, None: unknown
        self.players = game.get("players", len(self.slots))
        self.online = 1
        self.wagons: tuple[int, list[int]] = (0, [])
        self.over = False

    def rush(self, now: float) -> bool:
        return (
            self.kind == "day"
            and self.deadline is not None
            and 0 < self.deadline - now <= RUSH_SECONDS
        )

    def on_item(self, item: dict[str, Any]) -> None:
        kind = item.get("kind")
        data = item.get("data") or {}
        if kind == "phase_started":
            number = data.get("number") or 0
            if number >= self.number:
                self.number, self.kind = number, data.get("kind") or self.kind
                self.deadline = _epoch(data.get("deadline"))
        elif kind == "deadline_changed" and data.get("number") == self.number:
            self.deadline = _epoch(data.get("deadline"))
        elif kind == "day_ended":
            dead = data.get("eliminated") or {}
            self.living.discard(dead.get("seat"))
        elif kind in ("night_ended", "day_shot"):
            for dead in data.get("deaths") or []:
                self.living.discard(dead.get("seat"))
        elif kind == "modkill":
            self.living.discard(data.get("seat"))
        elif kind == "game_finished":
            self.over = True

    def wagon_targets(self, me: int) -> list[int]:
        """Today's few wagons (forum votes gather on a few players), living, not me."""
        if self.wagons[0] != self.number or not set(self.wagons[1]) <= self.living:
            alive = sorted(self.living)
            self.wagons = (self.number, RNG.sample(alive, min(3, len(alive))))
        return [s for s in self.wagons[1] if s != me] or [s for s in self.living if s != me]


def _epoch(iso: str | None) -> float | None:
    if not iso:
        return None
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()


GAMES: dict[int, GameState] = {}
for _g in PLAN["games"]:
    GAMES[_g["id"]] = GameState(_g, RUN["schedule"].get(str(_g["id"]), {}), table=False)
for _t in PLAN["tables"]:
    GAMES[_t["id"]] = GameState({"id": _t["id"], "slots": []}, {}, table=True)
for _gid, _n in RUN["online_per_game"].items():
    GAMES[int(_gid)].online = _n

ONLINE_SEATS = iter(RUN["online_seats"])  # [game id, seat] of each ForumPlayer
TABLE_PEOPLE = iter(RUN["table_people"])  # [table id, user id]
TABLE_BOTS = iter(RUN["table_bots"])
SPECTATOR_ACCOUNTS = itertools.cycle(PLAN["spectators"])
FORUM_IDS = [g["id"] for g in PLAN["games"]]
TABLE_IDS = [t["id"] for t in PLAN["tables"]]
PLAYER_NAMES = [s["name"] for g in PLAN["games"] for s in g["slots"]]
REGISTRY: dict[str, Any] = {}


def set_cookie(jar: Any, name: str, value: str) -> None:
    jar.set_cookie(
        Cookie(
            0, name, value, None, False, HOST, False, False, "/", True, False, None, False,
            None, None, {},
        )
    )  # fmt: skip


def cookie(jar: Any, name: str) -> str | None:
    for c in jar:
        if c.name == name:
            return c.value
    return None


def body_text(words: int) -> str:
    start = RNG.randrange(len(WORDS))
    return " ".join(WORDS[(start + i) % len(WORDS)] for i in range(words))


def mark() -> tuple[str, str, float]:
    t0 = time.time()
    nonce = f"{RNG.getrandbits(48):012x}"
    return f"ltmark-{int(t0 * 1000)}-{nonce}", nonce, t0


def exp_wait(rate_per_hour: float) -> float:
    """Seconds to the next event of a Poisson process of this rate."""
    return RNG.expovariate(rate_per_hour / 3600) if rate_per_hour > 0 else 3600.0


# ======================================================================================
# A page with its live socket, as live.js runs it
# ======================================================================================
class LivePage:
    """One open game page: its socket, positions and parts."""

    def __init__(self, user: PageUser, game_id: int, url: str, name: str, html: str) -> None:
        self.user = user
        self.game_id = game_id
        self.url = url
        self.name = name
        self.last: dict[str, int] = {}
        for pair in (POSITIONS.search(html).group(1) if POSITIONS.search(html) else "").split(","):
            if "." in pair:
                aud, _, n = pair.rpartition(".")
                self.last[aud] = int(n)
        self.parts = [(el_id, parts.split()) for el_id, parts in PARTS.findall(html)]
        if not REGISTRY:
            found = KINDS_SCRIPT.search(html)
            if found:
                REGISTRY.update(json.loads(found.group(1)))
        self.ws: websocket.WebSocket | None = None
        self.resyncing: set[str] = set()
        self.path = urlsplit(url).path + (f"?{urlsplit(url).query}" if urlsplit(url).query else "")
        self.closed = False
        self.record: dict[str, Any] = {}
        self.greenlets: list[gevent.Greenlet] = []

    # -- connection ---------------------------------------------------------------------------
    def connect(self) -> bool:
        if self.last:
            query = "?positions=" + ",".join(f"{k}.{v}" for k, v in self.last.items())
        elif self.user.token_socket:
            query = ""  # a bot's stream starts from now (the client library's way)
        else:
            query = "?since=0"  # a page without positions (live.js's way)
        # live.js: a page names its live elements and its address, and the server pushes
        # its own copy of the parts the items do not carry (item["own"]).
        mine = [f"{el_id}:{'+'.join(el_parts)}" for el_id, el_parts in self.parts]
        if mine and not self.user.token_socket:
            query += ("&" if query else "?") + "own=" + quote(",".join(mine))
            query += "&page=" + quote(self.path)
        url = f"{WS_BASE}/ws/games/{self.game_id}/{query}"
        headers = []
        cookies = None
        if self.user.token_socket:
            headers.append(f"Authorization: Token {self.user.token}")
        else:
            cookies = "; ".join(f"{c.name}={c.value}" for c in self.user.client.cookiejar)
        t0 = time.time()
        try:
            self.ws = websocket.create_connection(
                url, header=headers, cookie=cookies or None, origin=ORIGIN, timeout=60
            )
        except Exception as exc:
            events.request.fire(
                request_type="WS", name="ws: connect", response_time=(time.time() - t0) * 1000,
                response_length=0, exception=exc, context={},
            )  # fmt: skip
            return False
        self.ws.settimeout(None)  # the 60 s was for the handshake: a quiet game sends nothing
        fire("ws: connect", (time.time() - t0) * 1000, "WS")
        self.record = {
            "id": next(_ids),
            "game": self.game_id,
            "who": type(self.user).__name__,
            "signed_in": self.user.signed_in,
            "opened": time.time(),
            "posts": {},  # public thread post number -> arrival (epoch)
            "resumes": 0,
            "reloads": 0,
            "frames": 0,
        }
        SOCKETS.append(self.record)
        self.greenlets = [gevent.spawn(self._read), gevent.spawn(self._ping)]
        return True

    def close(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        if self.record:
            self.record["closed"] = time.time()
            self.record["close_reason"] = reason
        for g in self.greenlets:
            if g is not gevent.getcurrent():
                g.kill(block=False)
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close(timeout=1)

    def send(self, message: dict[str, Any]) -> None:
        try:
            if self.ws is not None and not self.closed:
                self.ws.send(json.dumps(message))
        except Exception:
            pass

    def _ping(self) -> None:
        while not self.closed:
            gevent.sleep(30)
            self.send({"type": "ping"})

    def _read(self) -> None:
        ws = self.ws
        while not self.closed:
            try:
                text = ws.recv()
            except Exception as exc:
                if not self.closed:
                    # Closed before its first frame: the site turned it away (4503, too
                    # many handshakes at once), as live.js tells from the close code.
                    busy = not self.record["frames"]
                    self.record["close_reason"] = (
                        "refused: busy" if busy else f"dropped: {type(exc).__name__}"
                    )
                    self.record["closed"] = time.time()
                    self.closed = True
                    self.user.on_socket_lost(self)
                return
            if not text:
                continue
            if not self.record["frames"]:
                self.user.backoff = 0.5  # caught up: live.js resets its backoff here
            self.record["frames"] += 1
            now = time.time()
            try:
                batch = json.loads(text)
            except ValueError:
                continue
            if not isinstance(batch, list):
                batch = [batch]
            caught_up = None
            for item in batch:
                if not isinstance(item, dict):
                    continue
                if "type" in item:
                    positions = self._control(item)
                    if positions is not None:
                        caught_up = positions
                else:
                    self._item(item, now)
            if caught_up:
                for k, v in caught_up.items():
                    self.last[k] = max(self.last.get(k, 0), v)

    def _control(self, message: dict[str, Any]) -> dict[str, int] | None:
        kind = message.get("type")
        if kind == "replay":
            self.resyncing.clear()
            return message.get("positions") or {}
        if kind == "resync":
            self._resume()
        elif kind == "reload" or (kind == "access" and message.get("reload")):
            self.record["reloads"] += 1
            gevent.spawn(self.user.reload_page, self)
        elif kind == "pong":
            heads = message.get("heads") or {}
            if any(k in self.last and v > self.last[k] for k, v in heads.items()):
                self._resume()
        return None

    def _resume(self) -> None:
        self.record["resumes"] += 1
        if self.last:
            self.send({"type": "resume", "positions": self.last})
        else:
            self.send({"type": "resume", "since": 0})

    def _item(self, item: dict[str, Any], now: float) -> None:
        kind = item.get("kind")
        game = GAMES.get(self.game_id)
        if kind == "vote_count":
            n = item.get("n") or 0
            if n > self.last.get("~vote_count", 0):
                self.last["~vote_count"] = n
                self._redraw(kind, item)
            return
        aud = item.get("aud") or "public"
        if aud in self.resyncing:
            return
        if aud in self.last:
            n = item.get("n") or 0
            if n <= self.last[aud]:
                return
            if n > self.last[aud] + 1:
                self.resyncing.add(aud)
                self._resume()
                return
        self.last[aud] = item.get("n") or 0
        if game is not None:
            game.on_item(item)
        if kind == "post":
            if item.get("thread") == "public":
                self.record["posts"].setdefault(item.get("number"), now)
            found = MARK.search(item.get("html") or "")
            if found:
                fire("live: post on a socket", now * 1000 - int(found.group(1)))
        elif not self.user.token_socket and (
            kind == "game_started" or (kind == "role_pm" and self.name.startswith("page: role"))
        ):
            gevent.spawn(self.user.reload_page, self)  # live.js reloads the page
            return
        self.user.on_item(self, item)
        self._redraw(kind, item)

    # -- live.js's redraw: the parts that came, and those to ask the socket for ---------------
    def _redraw(self, kind: str | None, item: dict[str, Any]) -> None:
        spec = (REGISTRY.get("kinds") or {}).get(kind or "")
        if not spec or "user_stopped" in self.record or self.user.token_socket:
            return
        signed_in = self.user.signed_in
        parts = list(spec.get("parts", [])) + (list(spec.get("own", [])) if signed_in else [])
        carried = set(REGISTRY.get("appended", [])) | set(
            REGISTRY.get("shared" if signed_in else "pushed", [])
        )
        own, covered = item.get("own") or {}, set(item.get("covered") or ())
        if item.get("own_status"):
            gevent.spawn(self.user.reload_page, self)  # live.js reloads the page
            return
        missing = {
            part
            for part in parts
            if part not in carried
            for el_id, el_parts in self.parts
            if part in el_parts and el_id not in own and not covered & set(el_parts)
        }
        if missing:
            fire("ws: parts asked", 0)
            self.send({"type": "parts", "parts": sorted(missing)})


class PageUser(FastHttpUser):
    """A person (or bot) with at most one open live page."""

    abstract = True
    wait_time = between(0, 0)
    signed_in = False
    token_socket = False
    token: str | None = None
    game_id: int = 0

    def on_start(self) -> None:
        self.page: LivePage | None = None
        self.visit_ends = 0.0
        # Redirects are never followed (a browser's next GET is its own request here).
        # Set once: ``allow_redirects=False`` swaps a setting of the user's HTTP client for
        # the length of one request, which another greenlet of the same user (the page's
        # live refresh) may then restore under it.
        self.client.client.redirect_response_codes = frozenset()

    def on_stop(self) -> None:
        # The page's socket stays open: at the test's end every socket drains for a few
        # seconds (``_on_stop``) so that a post made just before the end is not "lost".
        if self.page is not None:
            self.page.record["user_stopped"] = time.time()

    # -- requests ----------------------------------------------------------------------------
    def get(self, path: str, name: str, headers: dict[str, str] | None = None) -> str:
        with self.client.get(path, name=name, headers=headers, catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"HTTP {r.status_code}")
                return ""
            return r.text or ""

    def api(self, method: str, path: str, name: str, data: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        kwargs: dict[str, Any] = {"name": name, "headers": headers, "catch_response": True}
        if data is not None:
            kwargs["json"] = data
        with self.client.request(method, f"/api/v1/{path}", **kwargs) as r:
            status = r.status_code or 0
            try:
                answer = json.loads(r.text or "null")
            except ValueError:
                answer = None
            if status >= 500 or status == 0:
                r.failure(f"HTTP {status}")
            else:
                r.success()  # a refusal (4xx) is the game's answer, not the site failing
            return status, answer

    def post_form(self, path: str, name: str, fields: dict[str, str]) -> tuple[int, str]:
        token = cookie(self.client.cookiejar, "csrftoken") or ""
        data = urlencode({**fields, "csrfmiddlewaretoken": token})
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Referer": BASE + path}
        with self.client.post(
            path, data=data, headers=headers, name=name, catch_response=True,
        ) as r:  # fmt: skip
            status = r.status_code or 0
            location = r.headers.get("Location", "") if r.headers else ""
            if status >= 500 or status in (0, 403):
                r.failure(f"HTTP {status}")
            else:
                r.success()
            return status, location

    # -- the live page -----------------------------------------------------------------------
    def open_page(self, game_id: int, path: str, name: str) -> None:
        if self.page is not None:
            self.page.close("navigated")
            self.page = None
        html = self.get(path, name)
        if not html:
            return
        self.page = LivePage(self, game_id, path, name, html)
        self.page.connect()
        self.visit_ends = time.time() + RNG.expovariate(1 / (MODEL.visit_minutes * 60))

    def reload_page(self, page: LivePage) -> None:
        if page is not self.page or page.closed:
            return
        if self.token_socket:  # a bot has no page: it reads the state again, from now on
            page.close("reload")
            self.page = LivePage(self, page.game_id, "", page.name, "")
            self.page.connect()
        else:
            self.open_page(page.game_id, page.url, page.name)

    backoff = 0.5  # live.js's: doubled at each try, reset by a socket's first frame

    def on_socket_lost(self, page: LivePage) -> None:
        """live.js reconnects after a drop, resuming from its positions: at once after a
        drop (half a second, jittered), from two seconds when the site was busy, doubling
        until a socket catches up."""
        if page.record.get("close_reason") == "refused: busy":
            fire("ws: refused, busy", 0, "WS")
            self.backoff = max(self.backoff, 2.0)
        wait = self.backoff * (1 + RNG.random() / 2)
        self.backoff = min(self.backoff * 2, 30.0)

        def again() -> None:
            gevent.sleep(wait)
            if page is self.page:
                fresh = LivePage(self, page.game_id, page.url, page.name, "")
                fresh.last = dict(page.last)
                fresh.parts = page.parts
                self.page = fresh
                fresh.connect()

        gevent.spawn(again)

    def on_item(self, page: LivePage, item: dict[str, Any]) -> None:
        pass

    def note_write(self, kind: str, game: int, thread: str, t0: float, **more: Any) -> None:
        WRITES.append(
            {"kind": kind, "game": game, "thread": thread, "t0": t0, "t1": time.time(), **more}
        )


# ======================================================================================
# Forum players
# ======================================================================================
class ForumPlayer(PageUser):
    fixed_count = COUNTS.get("ForumPlayer", 0)
    signed_in = True

    def on_start(self) -> None:
        super().on_start()
        try:
            game_id, seat = next(ONLINE_SEATS)
        except StopIteration:
            raise StopUser() from None
        self.game = GAMES[game_id]
        self.game_id = game_id
        self.slot = self.game.by_seat[seat]
        self.seat = seat
        self.token = self.slot["token"]
        self.mafia = self.slot["alignment"] == "mafia"
        self.voting = False
        self.acted_night: int | None = None
        self.night_plan: list[tuple[float, str]] = []
        set_cookie(self.client.cookiejar, "sessionid", self.slot["session"])
        self.open_page(game_id, f"/games/{game_id}/?page=last", "page: thread (newest)")

    @property
    def alive(self) -> bool:
        return self.seat in self.game.living

    @task
    def step(self) -> None:
        now = time.time()
        if now >= self.visit_ends:  # another visit: the page and its socket again
            gevent.sleep(RNG.uniform(0, 2))
            self.open_page(
                self.game_id, f"/games/{self.game_id}/?page=last", "page: thread (newest)"
            )
        game = self.game
        actions = self.rates(now)
        total = sum(rate for _name, rate in actions)
        # The next action of a Poisson process at today's rates; if it is more than 5 s
        # away, wait 5 s and draw again (the process is memoryless, and the rates move:
        # the deadline hour, the night).
        wait = RNG.expovariate(total / 3600) if total > 0 else 3600.0
        due = [(t, a) for t, a in self.night_plan if t <= now + min(wait, 5.0)]
        if due:
            t, action = min(due)
            self.night_plan.remove((t, action))
            gevent.sleep(max(0.0, t - time.time()))
            self.night_step(action)
            return
        if wait > 5.0:
            gevent.sleep(5.0)
            return
        gevent.sleep(wait)
        if game.over:
            return
        pick = RNG.uniform(0, total)
        for name, rate in actions:
            pick -= rate
            if pick <= 0:
                getattr(self, name)()
                return

    def rates(self, now: float) -> list[tuple[str, float]]:
        """This person's actions and their rates an hour (real time) right now."""
        game = self.game
        online = max(1, game.online)
        rates = [("read", MODEL.player_views_per_hour)]
        if not self.alive or game.over:
            return rates
        if game.kind == "day":
            rush = game.rush(now)
            votes = MODEL.vote_rate(game.players, rush) / online
            posts = MODEL.post_rate(game.players, rush) / online
            bold = votes * MODEL.bold_vote_share
            rates += [
                ("post", max(0.0, posts - bold)),
                ("bold_vote", bold),
                ("button_vote", votes - bold),
            ]
        elif game.kind == "night":
            self.plan_night(now)
            if self.mafia:
                rates.append(("mafia_post", MODEL.mafia_posts_per_night / MODEL.night_hours))
        return rates

    # -- day ---------------------------------------------------------------------------------
    def post(self) -> None:
        text, nonce, t0 = mark()
        self._post(f"{body_text(RNG.randint(30, 90))} {text}", nonce, t0, "post")

    def bold_vote(self) -> None:
        text, nonce, t0 = mark()
        if self.voting and RNG.random() < MODEL.unvote_share:
            self._post(
                f"{body_text(RNG.randint(10, 40))}\n\n**Unvote**\n\n{text}",
                nonce,
                t0,
                "bold unvote",
            )
            return
        target = self.game.by_seat[RNG.choice(self.game.wagon_targets(self.seat))]
        body = f"{body_text(RNG.randint(10, 40))}\n\n**Vote: {target['name']}**\n\n{text}"
        self._post(body, nonce, t0, "bold vote")

    def _post(self, body: str, nonce: str, t0: float, kind: str, thread: str = "public") -> None:
        path = (
            f"/games/{self.game_id}/post/"
            if thread == "public"
            else f"/games/{self.game_id}/t/{thread}/post/"
        )
        name = {"post": "form: post", "mafia post": "form: mafia chat post"}.get(
            kind, f"form: post ({kind})"
        )
        status, location = self.post_form(path, name, {"body": body})
        found = POST_ANCHOR.search(location)
        ok = status == 302 and found is not None
        self.note_write(
            kind, self.game_id, thread, t0, nonce=nonce, status=status, ok=ok,
            number=int(found.group(2)) if found else None,
            refused=status == 302 and not ok,
        )  # fmt: skip
        if ok and kind == "bold vote":
            self.voting = True
        elif ok and kind == "bold unvote":
            self.voting = False
        if status == 302 and location:  # the browser follows the redirect
            self.get(location.split("#")[0].replace(BASE, ""), "page: thread (after posting)")

    def button_vote(self) -> None:
        t0 = time.time()
        if self.voting and RNG.random() < MODEL.unvote_share:
            status, answer = self.api("POST", f"games/{self.game_id}/unvote/", "api: unvote")
            kind = "unvote"
        else:
            target = self.game.by_seat[RNG.choice(self.game.wagon_targets(self.seat))]
            status, answer = self.api(
                "POST", f"games/{self.game_id}/vote/", "api: vote", {"target": target["slot_id"]}
            )
            kind = "vote"
        post = (answer or {}).get("post") if isinstance(answer, dict) else None
        ok = status == 200 and bool(post)
        self.note_write(
            kind, self.game_id, "public", t0, status=status, ok=ok,
            number=post.get("number") if post else None,
            refused=400 <= status < 500, slot=self.slot["slot_id"],
        )  # fmt: skip
        if ok:
            self.voting = kind == "vote"

    # -- night -------------------------------------------------------------------------------
    def plan_night(self, now: float) -> None:
        """Once a night: when this person will look at their role PM and send actions."""
        game = self.game
        if self.acted_night == game.number or game.deadline is None:
            return
        self.acted_night = game.number
        self.voting = False
        left = max(5.0, game.deadline - now - 3)
        visits = int(MODEL.role_pm_visits_per_night) + (
            RNG.random() < MODEL.role_pm_visits_per_night % 1
        )
        plan = [(now + RNG.uniform(0, left), "role_pm") for _ in range(visits)]
        if self.slot["role"] not in ("vanilla_townie",):
            sends = int(MODEL.night_actions_per_role) + (
                RNG.random() < MODEL.night_actions_per_role % 1
            )
            plan += [(now + RNG.uniform(0, left * 0.8), "night_action") for _ in range(sends)]
        self.night_plan = sorted(plan)

    def night_step(self, action: str) -> None:
        if action == "role_pm":
            self.get(f"/games/{self.game_id}/role/", "page: role PM")
        elif action == "night_action":
            self.night_action()

    def night_action(self) -> None:
        status, role = self.api("GET", f"games/{self.game_id}/role/", "api: role")
        if status != 200 or not isinstance(role, dict) or not role.get("night_open"):
            return
        abilities = [a for a in role.get("abilities") or [] if a.get("choices")]
        if not abilities:
            return
        ability = RNG.choice(abilities)
        targets = [RNG.choice(ability["choices"])["slot_id"]] * int(ability.get("targets") or 1)
        extra = {key: "x" for key in (ability.get("extra") or {})}
        t0 = time.time()
        status, _answer = self.api(
            "POST", f"games/{self.game_id}/actions/", "api: night action",
            {"ability": ability["ability"], "targets": targets, "extra": extra},
        )  # fmt: skip
        self.note_write(
            "night action", self.game_id, "", t0, status=status, ok=status == 200,
            slot=self.slot["slot_id"], ability=ability["ability"], refused=400 <= status < 500,
        )  # fmt: skip

    def mafia_post(self) -> None:
        text, nonce, t0 = mark()
        self._post(f"{body_text(RNG.randint(10, 40))} {text}", nonce, t0, "mafia post", "mafia")

    # -- reading -----------------------------------------------------------------------------
    def read(self) -> None:
        gid = self.game_id
        roll = RNG.random()
        if roll < 0.3:
            self.get(f"/games/{gid}/?page=last", "page: thread (newest)")
        elif roll < 0.5:
            self.get(f"/games/{gid}/?page={RNG.randint(1, 3)}", "page: thread (older)")
        elif roll < 0.75:
            seat = RNG.choice(list(self.game.by_seat))
            self.get(f"/games/{gid}/?iso={seat}", "page: ISO")
        elif roll < 0.85:
            self.get(f"/games/{gid}/role/", "page: role PM")
        elif roll < 0.9:
            self.get(f"/games/{gid}/votes/", "page: vote log")
        else:
            self.get("/my-games/", "page: my games")


# ======================================================================================
# Spectators
# ======================================================================================
class Spectator(PageUser):
    fixed_count = COUNTS.get("Spectator", 0)

    def on_start(self) -> None:
        super().on_start()
        if RNG.random() < MODEL.signed_in_spectator_share:
            account = next(SPECTATOR_ACCOUNTS)
            self.signed_in = True
            set_cookie(self.client.cookiejar, "sessionid", account["session"])
        self.new_visit()

    def new_visit(self) -> None:
        if TABLE_IDS and RNG.random() < 0.1:
            self.game_id = RNG.choice(TABLE_IDS)
        else:
            self.game_id = RNG.choice(FORUM_IDS)
        self.open_page(self.game_id, f"/games/{self.game_id}/?page=last", "page: thread (newest)")

    @task
    def step(self) -> None:
        gevent.sleep(exp_wait(MODEL.spectator_views_per_hour))
        if time.time() >= self.visit_ends:
            self.new_visit()
            return
        gid = self.game_id
        roll = RNG.random()
        if roll < 0.3:
            self.get(f"/games/{gid}/?page=last", "page: thread (newest)")
        elif roll < 0.65:
            self.get(f"/games/{gid}/?page={RNG.randint(1, 3)}", "page: thread (older)")
        elif roll < 0.9:
            self.get(f"/games/{gid}/?iso={RNG.randint(1, 12)}", "page: ISO")
        else:
            self.get(f"/games/{gid}/votes/", "page: vote log")


# ======================================================================================
# The lobby and log-ins
# ======================================================================================
class LobbyBrowser(PageUser):
    fixed_count = COUNTS.get("LobbyBrowser", 0)

    @task
    def step(self) -> None:
        gevent.sleep(exp_wait(MODEL.lobby_views_per_hour))
        roll = RNG.random()
        if roll < 0.4:
            self.get("/", "page: lobby")
        elif roll < 0.55:
            self.get("/league/", "page: league")
        elif roll < 0.7:
            ruleset = RNG.choice(["classic", "city", "power", "forum"])
            self.get(f"/leaderboard/{ruleset}/", "page: leaderboard")
        elif roll < 0.8:
            slug = RNG.choice([s for s, _ in MODEL.forum_setups] + list(MODEL.table_setups))
            self.get(f"/setups/{slug}/", "page: setup")
        elif roll < 0.9:
            self.get(f"/players/{RNG.choice(PLAYER_NAMES)}/", "page: player")
        else:
            self.get("/api/v1/games/", "api: games list")


class Login(PageUser):
    fixed_count = COUNTS.get("Login", 0)

    def wait_time(self) -> float:
        return RNG.expovariate(1 / RUN["login_pacing"])

    @task
    def login(self) -> None:
        self.client.cookiejar.clear()
        if not self.get("/accounts/login/", "login: form page"):
            return
        status, location = self.post_form(
            "/accounts/login/",
            "login: post",
            {"username": RNG.choice(PLAYER_NAMES), "password": PLAN["password"]},
        )
        if status == 302:
            self.get(location.replace(BASE, "") or "/", "page: lobby (after login)")
        else:
            EXTRA["errors"][f"login answered {status}"] = (
                EXTRA["errors"].get(f"login answered {status}", 0) + 1
            )


# ======================================================================================
# Table games: people and bots, with the reference bot's strategy
# ======================================================================================
def _client_class() -> type:
    from mafia_client import ApiError, Client

    class LocustClient(Client):
        """The client library's API over this Locust user's HTTP session."""

        user: PageUser

        def request(self, method: str, path: str, data: dict[str, Any] | None = None) -> Any:
            head = path.split("?")[0].strip("/").split("/")
            name = "table api: " + ("/".join(h for h in head[2:] if not h.isdigit()) or head[0])
            status, answer = self.user.api(method, path, name, data)
            if status >= 400 or status == 0:
                raise ApiError(status, answer if isinstance(answer, dict) else {})
            return answer

    return LocustClient


class TableSeat(PageUser):
    abstract = True
    person = False

    def on_start(self) -> None:
        super().on_start()
        import reference_bot
        from mafia_client import Event
        from mafia_client.strategy import wakes

        self._event, self._wakes = Event, wakes
        source = TABLE_PEOPLE if self.person else TABLE_BOTS
        try:
            table_id, user_id = next(source)
        except StopIteration:
            raise StopUser() from None
        table = next(t for t in PLAN["tables"] if t["id"] == table_id)
        seat = next(s for s in table["seats"] if s["user_id"] == user_id)
        self.game_id = table_id
        self.token = seat["token"]
        client = _client_class()(BASE, self.token, username=seat["name"])
        client.user = self
        api = reference_bot.Api(BASE, self.token, seat["name"])
        api.client = client
        self.bot = reference_bot.Bot(api, table_id, seed=RNG.randrange(2**31))
        self.wake = GEvent()
        self.wake.set()
        if self.person:
            self.signed_in = True
            set_cookie(self.client.cookiejar, "sessionid", seat["session"])
            self.open_page(table_id, f"/games/{table_id}/?page=last", "page: thread (newest)")
        else:
            self.token_socket = True
            self.page = LivePage(self, table_id, "", "bot", "")
            self.page.connect()
            self.visit_ends = float("inf")

    def on_item(self, page: LivePage, item: dict[str, Any]) -> None:
        try:
            event = self._event.from_wire(item)
            if self._wakes(event, self.bot.seat.me):
                self.wake.set()
        except Exception:
            self.wake.set()

    def on_socket_lost(self, page: LivePage) -> None:
        self.wake.set()
        super().on_socket_lost(page)

    @task
    def step(self) -> None:
        self.wake.wait(timeout=15)
        self.wake.clear()
        if GAMES[self.game_id].over:
            gevent.sleep(30)
            return
        if self.person:
            gevent.sleep(RNG.uniform(2, 6))  # reading the table, typing
        try:
            self.bot.act()
        except Exception as exc:  # a refusal the strategy did not expect: the next wake
            key = f"table act: {type(exc).__name__} {str(exc)[:80]}"
            EXTRA["errors"][key] = EXTRA["errors"].get(key, 0) + 1


class TablePlayer(TableSeat):
    fixed_count = COUNTS.get("TablePlayer", 0)
    person = True


class TableBot(TableSeat):
    fixed_count = COUNTS.get("TableBot", 0)
    person = False
