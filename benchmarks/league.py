"""The league benchmark: N reference agents play G rated league games unattended.

Not a test: it prints figures (record them in BENCHMARKS.md, section "League (issue 21)").

    .venv/bin/python benchmarks/league.py --mode embedded --agents 100 --games 500
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_bench_league \\
    REDIS_URL=redis://127.0.0.1:6379/13 .venv/bin/python benchmarks/league.py \\
        --mode services --agents 100 --games 500 [--setups classic-ten] [--json out.json]

1. Starts the site. ``embedded``: the README's first command's way (``manage.py migrate``
   then ``manage.py runsite``: SQLite in a file of its own in a temp dir, the in-memory
   channel layer, the in-process deadline scanner and league sweep; ``--no-demo``, so
   only the league plays; DEBUG on as ``scripts/run.sh`` runs it). ``services``: the
   production way on this box: ``python -m mafia_site.serve --workers 2`` (the
   Dockerfile's command, ``DB_POOL_SIZE=10`` as docker-compose), a Celery prefork worker
   (concurrency 2) and beat, against PostgreSQL (``DATABASE_URL``, dropped and made
   afresh) and Redis (``REDIS_URL``, flushed), DEBUG off. Rate limits stay on in both.
2. Makes the owners (an owner may register 20 agents: ``ceil(N/20)`` owners) and N agents,
   each with a token, through ``agents.services``.
3. Runs the N agents in this process (asyncio; the client library's blocking calls in a
   thread pool of N+20): each loops join the queue of a setup (the one with most seats
   still to fill), ``wait_for_game`` (the inbox socket), ``play_async`` with the
   reference bot (``scripts/reference_bot.Bot``) until the game ends, and again, until
   the queues have been given the seats of G games. The league's own timing is used
   (``league.formats.TABLE_TIMING``: 45 s turns, 60 s votes, 2-minute nights), unchanged.
4. Measures: games per hour (games finished / wall time from the first join to the last
   game's end); for every table turn or vote the agent acted in, the time from the turn's
   start (its ``deadline`` in the ``turn/`` answer minus the turn's length: the server set
   it to ``now + length`` when the turn began) to the answer of the accepted move
   (``seen``: to the moment the runner handed it the turn); stuck games (a watcher reads
   the database every 10 s: a running league game with no event for longer than its
   longest deadline + 60 s, or a deadline overdue by more than 60 s); the ratings at the
   end (each finished game has its ``RatedGame`` marker, each final holder of a seat an
   overall and a side ``RatingChange`` row, each agent's overall ``Rating.games`` equal to
   the games it finished); the agents' errors (refusals per status and code, exceptions).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

ROOT = support.ROOT
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "client"))

MARGIN = 60.0  # seconds beyond a game's longest deadline before it counts as stuck
AGENTS_PER_OWNER = 20  # agents.services.MAX_AGENTS_PER_OWNER


# ======================================================================================
# The site
# ======================================================================================
def prepare_env(mode: str, tmp: Path) -> dict[str, str]:
    """The environment of the site's processes (and of this one's Django)."""
    env: dict[str, str] = {
        "DJANGO_SETTINGS_MODULE": "mafia_site.settings",
        "PYTHONUNBUFFERED": "1",
        # Every agent plays from this one address, with an inbox and a game socket each: the
        # socket cap counts each agent's own (mafia_site.socket_limits), so it stays as is.
        # A bot modkilled for silence would otherwise wait out the league's cooldown (72 h)
        # and retry its join all run long: throughput is measured, not reliability.
        "LEAGUE_COOLDOWN_AFTER_MODKILL": "0",
    }
    if mode == "embedded":
        os.environ.pop("REDIS_URL", None)
        env.update(
            DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", DEBUG="true", LOG_LEVEL="WARNING"
        )
    else:
        env.update(
            DATABASE_URL=os.environ.get(
                "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mafia_bench_league"
            ),
            REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13"),
            DEBUG="false",
            SECRET_KEY=os.environ.get("SECRET_KEY") or os.urandom(32).hex(),
            HTTPS="false",
            DB_POOL_SIZE="10",
            LOG_LEVEL="WARNING",
            CELERY_QUEUE="league-bench",
        )
    os.environ.update(env)
    return env


def fresh_services_db(env: dict[str, str]) -> None:
    """Drop and make the PostgreSQL database, flush the Redis database."""
    from urllib.parse import urlsplit

    import psycopg
    import redis

    url = urlsplit(env["DATABASE_URL"])
    name = url.path.lstrip("/")
    admin = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
    )


def start_site(mode: str, port: int, env: dict[str, str], tmp: Path) -> list[subprocess.Popen]:
    full = {**os.environ, **env}
    if mode == "embedded":
        cmd = [sys.executable, "manage.py", "runsite", "--port", str(port), "--no-demo"]
        site = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=full,
            stdout=(tmp / "site.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs = [site]
    else:
        cmd = [sys.executable, "-m", "mafia_site.serve", "--host", "127.0.0.1"]
        cmd += ["--port", str(port), "--workers", "2"]
        site = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=full,
            stdout=(tmp / "site.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker, beat = support.worker_and_beat(env["CELERY_QUEUE"], tmp, concurrency=2)
        procs = [site, worker, beat]
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                time.sleep(2.0)
                return procs
        except OSError:
            time.sleep(0.3)
    for proc in procs:
        support.stop_process_group(proc)
    raise SystemExit(f"the site did not start; see {tmp / 'site.log'}")


def make_agents(n: int, tag: str) -> list[tuple[str, str]]:
    """``n`` agents (name, key) under ``ceil(n / 20)`` owners, through the services."""
    from django.contrib.auth import get_user_model

    from agents import services as agents

    owners = []
    for k in range(math.ceil(n / AGENTS_PER_OWNER)):
        owner, _ = get_user_model().objects.get_or_create(username=f"{tag}owner{k}")
        owners.append(owner)
    made = []
    for i in range(n):
        owner = owners[i // AGENTS_PER_OWNER]
        name = f"{tag}agent{i}"
        agents.register_agent(owner, name, description="League benchmark reference agent")
        made.append((name, agents.create_token(owner, name, token_name="bench").key))
    return made


# ======================================================================================
# The agents
# ======================================================================================
class Record:
    """What every agent saw, shared (the GIL is enough for appends and counters)."""

    def __init__(self, setups: dict[str, int], games: int) -> None:
        self.acts: list[float] = []  # turn start -> accepted move, seconds
        self.seen: list[float] = []  # turn start -> the runner hands the turn over
        self.errors: Counter[str] = Counter()
        self.exceptions: Counter[str] = Counter()
        self.lock = threading.Lock()
        # Seats still to be filled per setup: G games' worth in all, split over the setups.
        share = [
            games // len(setups) + (1 if i < games % len(setups) else 0) for i in range(len(setups))
        ]
        self.seats = {
            slug: count * players
            for (slug, players), count in zip(setups.items(), share, strict=True)
        }
        self.started: dict[int, float] = {}
        self.finished: dict[int, float] = {}
        self.winners: Counter[str] = Counter()
        self.first_join: float | None = None

    def take_seat(self) -> str | None:
        with self.lock:
            slug = max(self.seats, key=lambda s: self.seats[s])
            if self.seats[slug] <= 0:
                return None
            self.seats[slug] -= 1
            if self.first_join is None:
                self.first_join = time.time()
            return slug


def timed_classes(lengths: dict[str, float], record: Record) -> tuple[type, type]:
    import reference_bot
    from mafia_client import ApiError, Client

    class TimedClient(Client):
        """Counts every refusal (status and code) the agents meet."""

        def request(self, method: str, path: str, data: dict[str, Any] | None = None) -> Any:
            try:
                return super().request(method, path, data)
            except ApiError as error:
                where = path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
                record.errors[f"{error.status} {error.code or '-'} ({method} {where}/)"] += 1
                raise

    def turn_start(turn: Any) -> float | None:
        if not turn.deadline:
            return None
        length = lengths["vote"] if turn.step == "vote" else lengths["turn"]
        return datetime.fromisoformat(turn.deadline).timestamp() - length

    class TimedBot(reference_bot.Bot):
        """The reference bot, timing its table turns and votes (an accepted move only: a
        refusal raises and the runner passes it over)."""

        def _timed(self, hook: Any, ctx: Any, options: Any) -> None:
            start = turn_start(ctx.turn)
            if start is not None:
                record.seen.append(time.time() - start)
            hook(ctx, options)
            if start is not None:
                record.acts.append(time.time() - start)

        def on_turn(self, ctx: Any, options: Any) -> None:
            self._timed(super().on_turn, ctx, options)

        def on_vote(self, ctx: Any, options: Any) -> None:
            self._timed(super().on_vote, ctx, options)

    return TimedClient, TimedBot


async def agent(
    base: str,
    name: str,
    key: str,
    record: Record,
    classes: tuple[type, type],
    game_timeout: float,
) -> None:
    import reference_bot
    from mafia_client import ApiError, play_async

    client_class, bot_class = classes
    client = client_class(base, key, username=name)
    api = reference_bot.Api(base, key, name)
    api.client = client
    played: set[int] = set()
    bot = None

    async def persist(what: str, call: Any) -> Any:
        """``call()`` until it succeeds: a failure is counted (the first of each kind is
        shown) and the same step is tried again after a pause, as a careful agent would.
        Giving up on a game would leave its seat silent and queue the agent twice."""
        while True:
            try:
                return await call()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                kind = f"{what}: {type(error).__name__}"
                if isinstance(error, ApiError):
                    kind += f" {error.status} {error.code or ''}".rstrip()
                record.exceptions[kind] += 1
                if record.exceptions[kind] == 1:
                    traceback.print_exc()
                await asyncio.sleep(2.0)

    async def join(setup: str) -> None:
        try:
            await asyncio.to_thread(client.enter_queue, setup)  # waits below, on the inbox
        except ApiError as error:
            if error.code != "already_queued":  # an earlier try got in after all
                raise

    async def play(game_id: int) -> Any:
        game = await play_async(client, game_id, bot, timeout=game_timeout)
        if not game.over:
            raise RuntimeError(f"game {game_id} not over after play")
        return game

    while True:
        setup = record.take_seat()
        if setup is None:
            return
        await persist("join", lambda setup=setup: join(setup))
        mine = await persist("wait", lambda: client.wait_for_game_async(known=played))
        game_id = mine.game_id
        played.add(game_id)
        record.started.setdefault(game_id, time.time())
        bot = bot_class(api, game_id)
        game = await persist("play", lambda game_id=game_id: play(game_id))
        if game_id not in record.finished:
            record.finished[game_id] = time.time()
            record.winners[game.winner or "?"] += 1


# ======================================================================================
# The watcher and the final checks (the database, read directly)
# ======================================================================================
class Watcher(threading.Thread):
    """Every 10 s: running league games silent or overdue for too long."""

    def __init__(self, longest: float) -> None:
        super().__init__(daemon=True)
        self.longest = longest
        self.stop = threading.Event()
        self.stuck: dict[int, str] = {}
        self.max_silence = 0.0
        self.max_overdue = 0.0
        self.samples = 0

    def run(self) -> None:
        from django.db import connection

        while not self.stop.wait(10.0):
            try:
                self.check()
            except Exception as error:  # a locked SQLite read: the next round
                print(f"  (watcher: {error})", flush=True)
            finally:
                connection.close()

    def check(self) -> None:
        from django.db.models import Max
        from django.utils import timezone

        from games.models import Game, GameStatus, Phase

        now = timezone.now()
        running = (
            Game.objects.filter(status=GameStatus.RUNNING)
            .exclude(league_setup="")
            .annotate(last=Max("events__created_at"))
            .values_list("pk", "last", "phase_number")
        )
        self.samples += 1
        for pk, last, number in running:
            silence = (now - last).total_seconds() if last else 0.0
            self.max_silence = max(self.max_silence, silence)
            if silence > self.longest + MARGIN:
                self.stuck.setdefault(pk, f"no event for {silence:.0f} s")
            phase = Phase.objects.filter(game_id=pk, number=number).first()
            if phase and phase.deadline and not phase.is_paused:
                overdue = (now - phase.deadline).total_seconds()
                self.max_overdue = max(self.max_overdue, overdue)
                if overdue > MARGIN:
                    self.stuck.setdefault(pk, f"deadline overdue by {overdue:.0f} s")


def check_ratings(game_ids: set[int]) -> dict[str, Any]:
    """Every finished game rated once; each final holder's two rows; the agents' counts."""
    from collections import defaultdict

    from games.models import Game, GameStatus, Slot
    from ratings.models import RatedGame, Rating, RatingChange

    games = {g.pk: g for g in Game.objects.filter(pk__in=game_ids)}
    finished = {pk for pk, g in games.items() if g.status == GameStatus.FINISHED}
    marked = set(RatedGame.objects.filter(game_id__in=game_ids).values_list("game_id", flat=True))
    rows = Counter(
        RatingChange.objects.filter(game_id__in=game_ids).values_list("game_id", "user_id", "side")
    )
    problems = []
    played: Counter[int] = Counter()
    for slot in Slot.objects.filter(game_id__in=finished):
        played[slot.user_id] += 1
        side = (
            "town" if slot.alignment == "town" else "mafia" if slot.alignment == "mafia" else None
        )
        for wanted in ["overall", side] if side else ["overall"]:
            if rows[slot.game_id, slot.user_id, wanted] != 1:
                count = rows[slot.game_id, slot.user_id, wanted]
                problems.append(f"game {slot.game_id} seat {slot.seat}: {wanted} rows ×{count}")
    per_game = defaultdict(int)
    for (game_id, _u, _s), count in rows.items():
        per_game[game_id] += count
    for pk in finished - marked:
        problems.append(f"game {pk}: finished, no RatedGame marker")
    for pk in marked - finished:
        problems.append(f"game {pk}: a RatedGame marker but not finished")
    overall = dict(
        Rating.objects.filter(side="overall", user_id__in=played).values_list("user_id", "games")
    )
    for user_id, count in played.items():
        if overall.get(user_id) != count:
            problems.append(
                f"user {user_id}: {count} finished games, rating counts {overall.get(user_id)}"
            )
    return {
        "games": len(games),
        "finished": len(finished),
        "rated_markers": len(marked & finished),
        "rating_change_rows": sum(rows.values()),
        "rows_per_game": sorted(set(per_game.values())),
        "once": not problems,
        "problems": problems[:20],
    }


# ======================================================================================
async def drive(
    args: argparse.Namespace,
    base: str,
    keys: list[tuple[str, str]],
    record: Record,
    lengths: dict[str, float],
) -> None:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=len(keys) + 20))
    classes = timed_classes(lengths, record)
    tasks = [
        asyncio.create_task(agent(base, name, key, record, classes, args.game_timeout))
        for name, key in keys
    ]
    last_report = time.monotonic()
    began = time.monotonic()
    quiet_since: float | None = None
    while True:
        await asyncio.sleep(1.0)
        if args.stop_after and time.monotonic() - began > args.stop_after * 60:
            with record.lock:  # no more games: those running play to their end
                record.seats = dict.fromkeys(record.seats, 0)
        active = [t for t in tasks if not t.done()]
        playing = len(record.started) - len(record.finished)
        seats_left = sum(record.seats.values())
        if time.monotonic() - last_report > 30:
            last_report = time.monotonic()
            print(
                f"  {time.strftime('%H:%M:%S')} games started {len(record.started)}, finished "
                f"{len(record.finished)}, agents active {len(active)}, seats left {seats_left}, "
                f"load {support.load_average()}",
                flush=True,
            )
        if not active:
            break
        # Nothing left to make: those still waiting wait for a game that never comes.
        if seats_left == 0 and playing == 0:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 45:
                break
        else:
            quiet_since = None
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["embedded", "services"], default="embedded")
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--setups", nargs="+", default=["classic-ten"])
    parser.add_argument("--game-timeout", type=float, default=1800.0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--stop-after",
        type=float,
        metavar="MINUTES",
        help="make no new game after this long; the running ones play to their end",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, SQLite)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix=f"league-{args.mode}-"))
    env = prepare_env(args.mode, tmp)
    if args.mode == "services":
        fresh_services_db(env)
    migrate(env)
    support.django_setup()
    from league.formats import format_of

    setups = {}
    for slug in args.setups:
        league_format = format_of(slug)
        if league_format is None:
            raise SystemExit(f"no league queue for {slug!r}")
        setups[slug] = league_format.setup.player_count
    kwargs = format_of(args.setups[0]).game_kwargs()
    lengths = {
        "turn": kwargs.get("turn_length").total_seconds() if kwargs.get("turn_length") else 0.0,
        "vote": kwargs.get("vote_length").total_seconds() if kwargs.get("vote_length") else 0.0,
    }
    longest = max(
        format_of(s).game_kwargs().get(k).total_seconds()
        for s in args.setups
        for k in ("turn_length", "vote_length", "night_length")
        if format_of(s).game_kwargs().get(k)
    )
    if args.agents < max(setups.values()):
        raise SystemExit("fewer agents than a game's seats")
    keys = make_agents(args.agents, "lb")
    from django.db import connection

    connection.close()
    port = support.free_port()
    procs = start_site(args.mode, port, env, tmp)
    base = f"http://127.0.0.1:{port}"
    print(support.machine(), flush=True)
    print(
        f"mode {args.mode}: {args.agents} agents, {args.games} games of {', '.join(args.setups)}, "
        f"{base}, logs in {tmp}",
        flush=True,
    )
    record = Record(setups, args.games)
    watcher = Watcher(longest)
    watcher.start()
    cpu_before = [support.group_cpu_seconds(p.pid) for p in procs]
    start = time.time()
    loads = []

    def sample_load() -> None:
        while not watcher.stop.wait(15):
            loads.append(os.getloadavg()[0])

    threading.Thread(target=sample_load, daemon=True).start()
    try:
        asyncio.run(drive(args, base, keys, record, lengths))
    finally:
        watcher.stop.set()
        site_cpu = [
            support.group_cpu_seconds(p.pid) - b for p, b in zip(procs, cpu_before, strict=True)
        ]
        for proc in procs:
            support.stop_process_group(proc)
    with contextlib.suppress(Exception):
        watcher.check()  # once more, the games left running at the end
    end_at = max(record.finished.values(), default=time.time())
    began = record.first_join or start
    wall = end_at - began
    ratings = check_ratings(set(record.started))
    from games.models import Game, GameStatus

    left_running = list(
        Game.objects.filter(pk__in=record.started, status=GameStatus.RUNNING).values_list(
            "pk", flat=True
        )
    )
    results = {
        "mode": args.mode,
        "machine": support.machine(),
        "agents": args.agents,
        "games_asked": args.games,
        "stopped_after_minutes": args.stop_after,
        "setups": args.setups,
        "timing": {k: v for k, v in lengths.items()},
        "games_started": len(record.started),
        "games_finished": len(record.finished),
        "games_left_running": left_running,
        "wall_seconds": round(wall, 1),
        "games_per_hour": round(len(record.finished) / wall * 3600, 1) if wall > 0 else None,
        "game_minutes": _spread(
            [
                (record.finished[g] - record.started[g]) / 60
                for g in record.finished
                if g in record.started
            ]
        ),
        "turn_to_act_ms": _percentiles(record.acts),
        "turn_to_seen_ms": _percentiles(record.seen),
        "stuck_games": watcher.stuck,
        "max_silence_s": round(watcher.max_silence, 1),
        "max_overdue_s": round(watcher.max_overdue, 1),
        "watcher_samples": watcher.samples,
        "ratings": ratings,
        "errors": dict(record.errors.most_common()),
        "exceptions": dict(record.exceptions.most_common()),
        "winners": dict(record.winners),
        "site_cpu_seconds": [round(c, 1) for c in site_cpu],
        "load_average": {
            "mean": round(sum(loads) / len(loads), 2) if loads else None,
            "max": round(max(loads), 2) if loads else None,
        },
    }
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


def _percentiles(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": support.ms(support.percentile(values, 50)) if values else None,
        "p95": support.ms(support.percentile(values, 95)) if values else None,
        "p99": support.ms(support.percentile(values, 99)) if values else None,
        "max": support.ms(max(values)) if values else None,
    }


def _spread(values: list[float]) -> dict[str, Any]:
    if not values:
        return {}
    return {
        "p50": round(support.percentile(values, 50), 2),
        "max": round(max(values), 2),
    }


if __name__ == "__main__":
    main()
