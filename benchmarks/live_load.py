"""Live-update load benchmark: N spectators on one game, 20 votes a second.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Live updates").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_livebench \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/live_load.py \\
        --spectators 100 --rate 20 --seconds 15

What it does, on the real stack of this machine:
1. migrates the benchmark database and creates a started game (forum rules, plurality so
   the day never ends) through ``games.services``;
2. starts the ASGI app as a subprocess: ``uvicorn --workers W`` (W = cores by default, as
   the Dockerfile does) on 127.0.0.1, with the Redis channel layer;
3. opens N anonymous spectator websockets from this process (the ``websockets`` client
   library), each resuming from the page's seq like ``live.js`` does;
4. a separate vote-driver process casts ``--rate`` votes a second through
   ``services.cast_vote`` (each vote is a post, a vote and a vote count) and records, for
   each vote, when it was submitted and the seq of the vote count it produced;
5. every spectator records when each vote count (and post) reaches it.

Figures: vote-to-screen latency (submit -> the spectator holds a count at least that new),
p50/p99/max over every (vote, spectator) pair; how far behind the truth each spectator's
count is, sampled every 50 ms (p99 of the age of the oldest committed vote not yet shown);
posts received (never dropped); and whether every spectator's final count is exactly the
last one committed.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import multiprocessing as mp
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mafia_livebench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("LOG_LEVEL", "WARNING")

LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}


# ======================================================================================
# Set-up (Django in this process)
# ======================================================================================
def django_setup() -> None:
    import django

    django.setup()


def ensure_database() -> None:
    """Create the benchmark database if needed and migrate it."""
    from urllib.parse import urlsplit

    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    name = url.path.lstrip("/")
    admin = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_game(players: int) -> tuple[int, list[int], int]:
    """A started plurality game: (game id, voter user ids, event seq)."""
    from django.contrib.auth import get_user_model

    from games import services

    User = get_user_model()
    stamp = int(time.time())
    host, _ = User.objects.get_or_create(username=f"bench-host-{stamp}")
    goons = max(1, players // 4)
    game = services.create_game(
        host,
        title=f"Live benchmark {stamp}",
        ruleset="forum",
        method="rar",
        role_list=[
            {"role": "goon", "count": goons},
            {"role": "vanilla_townie", "count": players - goons},
        ],
        player_cap=players,
        vote_rule="plurality",
        starts_with="day",
        seed=1,
    )
    users = []
    for i in range(players):
        user, _ = User.objects.get_or_create(username=f"bench-{stamp}-{i}")
        services.join_game(user, game.pk)
        users.append(user.pk)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    return game.pk, users, game.event_seq


# ======================================================================================
# The vote driver (its own process: its CPU does not disturb the spectators' clocks)
# ======================================================================================
def drive_votes(
    game_id: int, user_ids: list[int], rate: float, seconds: float, threads: int, out: Any
) -> None:
    """Cast ``rate`` votes a second for ``seconds`` through ``services.cast_vote``.

    Records, per vote: when it was submitted, when its transaction committed (the moment
    ``publish_events`` is called from ``on_commit``), when the call returned, and the seq of
    the vote count it produced. Several threads keep the pace when one call is slow (they
    queue on the game's row lock like concurrent requests do).
    """
    import threading

    # Publish like the web server does (a publisher thread), unless asked otherwise.
    os.environ.setdefault("LIVE_PUBLISH_IN_BACKGROUND", "1")
    django_setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games import events, services
    from games.models import Slot

    local = threading.local()
    original = events.publish_events

    def timed_publish(gid: int, from_seq: int) -> None:
        local.commit, local.from_seq = time.monotonic(), from_seq
        original(gid, from_seq)

    events.publish_events = timed_publish  # services looks it up at each commit

    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=user_ids)}
    slots = list(Slot.objects.filter(game_id=game_id).order_by("seat"))
    n = len(slots)
    total = int(rate * seconds)
    records: list[tuple[float, float, float, int]] = []
    counter = iter(range(total))
    lock = threading.Lock()
    start = time.monotonic() + 0.2

    def target_of(i: int) -> Any:
        # Voter i % n moves to a new wagon every time (never themselves): every vote
        # changes the count.
        voter = slots[i % n]
        step = 1 + (i // n) % (n - 1)
        return voter, slots[(voter.seat - 1 + step) % n]

    def work() -> None:
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            pause = start + i / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            voter, target = target_of(i)
            t0 = time.monotonic()
            services.cast_vote(users[voter.user_id], game_id, target.pk)
            # The transaction wrote: post, vote, vote count.
            with lock:
                records.append((t0, local.commit, time.monotonic(), local.from_seq + 2))
        connection.close()

    # Warm-up, not measured: first template renders, Redis connections, the server's
    # first frames. Each voter votes once; the timed votes continue the same rotation.
    for i in range(n):
        voter, target = target_of(i)
        services.cast_vote(users[voter.user_id], game_id, target.pk)
    counter = iter(range(n, n + total))
    time.sleep(1.0)
    start = time.monotonic() - n / rate + 0.2

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    events.wait_until_published(30)
    records.sort(key=lambda r: r[3])
    out.send((records, n))
    out.close()


def number_counts(game_id: int, records: list) -> list:
    """Clients see vote counts numbered 1, 2, 3... (never the game-wide seq): turn each
    vote's vote-count seq into that number."""
    from django.db import connection

    from games.models import GameEvent

    seqs = GameEvent.objects.filter(game_id=game_id, kind="vote_count").order_by("seq")
    number = {seq: i for i, seq in enumerate(seqs.values_list("seq", flat=True), start=1)}
    connection.close()
    return [(t0, t_commit, t_return, number[seq]) for t0, t_commit, t_return, seq in records]


# ======================================================================================
# The server
# ======================================================================================
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int, layer: str, budget: str | None) -> subprocess.Popen:
    env = dict(os.environ, CHANNEL_LAYER_BACKEND=LAYERS[layer])
    if budget:
        env["LIVE_FRAME_BUDGET"] = budget
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "mafia_site.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                time.sleep(1.0 if workers > 1 else 0.2)  # let every worker start
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the ASGI server did not start")


def group_cpu_seconds(pgid: int) -> float:
    """CPU time (user + system) of every process in a process group (Linux /proc)."""
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 of stat: the process group
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def stop_server(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


# ======================================================================================
# Spectators
# ======================================================================================
class Spectator:
    def __init__(self) -> None:
        self.counts: list[tuple[int, float]] = []  # (seq, arrival) of every vote count shown
        self.posts = 0
        self.frames = 0
        self.resyncs = 0
        self.last_count_seq = 0

    def apply(self, text: str, now: float) -> None:
        """Reads a frame the cheap way: one Python process plays 1,000 browsers, so it
        scans for the item heads (``{"n":N,"kind":"..."``, as the server writes them)
        instead of parsing every post's HTML; ``--parse`` parses each frame fully."""
        self.frames += 1
        if PARSE_FULLY:
            items = [(i.get("n"), i.get("kind") or i.get("type")) for i in json.loads(text)]
        else:
            items = [(int(seq), kind) for seq, kind in ITEM_HEAD.findall(text)]
            items += [(None, t) for t in CONTROL.findall(text)]
        for seq, kind in items:
            if kind == "vote_count":
                if seq > self.last_count_seq:
                    self.last_count_seq = seq
                    self.counts.append((seq, now))
            elif kind == "post":
                self.posts += 1
            elif kind in ("resync", "reload"):
                self.resyncs += 1


ITEM_HEAD = re.compile(r'\{"n":(\d+),"kind":"(\w+)"')
CONTROL = re.compile(r'\{"type":"(resync|reload)"')
PARSE_FULLY = False


async def spectate(url: str, origin: str, spectator: Spectator, stop: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    async with connect(
        url, origin=origin, max_size=None, compression=None, open_timeout=90, ping_interval=None
    ) as ws:
        reader = asyncio.ensure_future(_read(ws, spectator))
        await stop.wait()
        reader.cancel()


async def _read(ws: Any, spectator: Spectator) -> None:
    async for text in ws:
        spectator.apply(text, time.monotonic())


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    index = min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))
    return values[index]


async def run(args: argparse.Namespace, game: tuple[int, list[int], int]) -> dict[str, Any]:
    game_id, user_ids, seq = game
    port = free_port()
    server = start_server(port, args.workers, args.layer, args.budget)
    try:
        url = f"ws://127.0.0.1:{port}/ws/games/{game_id}/?since={seq}"
        origin = f"http://127.0.0.1:{port}"
        spectators = [Spectator() for _ in range(args.spectators)]
        stop = asyncio.Event()
        tasks = []
        t_connect = time.monotonic()
        for i in range(0, len(spectators), 50):  # connect in waves, like a page going viral
            wave = spectators[i : i + 50]
            tasks += [asyncio.ensure_future(spectate(url, origin, s, stop)) for s in wave]
            await asyncio.sleep(0.2)
        while sum(1 for s in spectators if s.frames) < len(spectators):
            if time.monotonic() - t_connect > 120:
                raise SystemExit("spectators did not all connect within 120 s")
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.1)
        connect_time = time.monotonic() - t_connect

        cpu_server0 = group_cpu_seconds(server.pid)
        cpu_client0 = time.process_time()
        t_votes0 = time.monotonic()
        parent, child = mp.Pipe(duplex=False)
        driver = mp.get_context("spawn").Process(
            target=drive_votes,
            args=(game_id, user_ids, args.rate, args.seconds, args.driver_threads, child),
        )
        driver.start()
        records: list[tuple[float, float, float, int]] = []
        behind_samples: list[float] = []
        loop = asyncio.get_running_loop()
        while driver.is_alive() or parent.poll():
            if parent.poll():
                records, warmup = parent.recv()
                records = await asyncio.to_thread(number_counts, game_id, records)
                break
            await asyncio.sleep(0.05)
        driver.join()
        final_seq = records[-1][3]
        # Let the last count arrive (bounded), then stop.
        settle_deadline = time.monotonic() + 10
        while time.monotonic() < settle_deadline:
            if all(s.last_count_seq >= final_seq for s in spectators):
                break
            await asyncio.sleep(0.05)
        wall = time.monotonic() - t_votes0
        cpu_server = group_cpu_seconds(server.pid) - cpu_server0
        cpu_client = time.process_time() - cpu_client0
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        del loop
    finally:
        stop_server(server)

    # -- figures ------------------------------------------------------------------------------
    latencies: list[float] = []
    after_commit: list[float] = []
    missing = 0
    for spectator in spectators:
        counts = spectator.counts
        j = 0
        for t0, t_commit, _t_return, vote_seq in records:
            while j < len(counts) and counts[j][0] < vote_seq:
                j += 1
            # the first count at least as new as this vote (arrivals are in seq order)
            if j < len(counts):
                latencies.append(max(0.0, counts[j][1] - t0))
                after_commit.append(max(0.0, counts[j][1] - t_commit))
            else:
                missing += 1
    # "How far behind": every 50 ms of the run, for every spectator, the age of the oldest
    # committed vote it does not show yet (0 when it is up to date).
    commits = sorted((t_commit, seq) for _t0, t_commit, _t_return, seq in records)
    commit_seqs = [seq for _t, seq in commits]
    start = commits[0][0]
    end = commits[-1][0] + 0.5
    for spectator in spectators:
        j = 0
        shown = 0
        counts = spectator.counts
        t = start
        k = 0
        while t <= end:
            while j < len(counts) and counts[j][1] <= t:
                shown = counts[j][0]
                j += 1
            while k < len(commits) and commits[k][0] <= t:
                k += 1
            # Commits happen in seq order (one game row lock): the oldest vote not shown
            # is the first commit with a seq above the shown one.
            oldest = bisect.bisect_right(commit_seqs, shown, 0, k)
            behind_samples.append(t - commits[oldest][0] if oldest < k else 0.0)
            t += 0.05
    if args.dump:
        Path(args.dump).write_text(
            json.dumps({"records": records, "counts": [s.counts for s in spectators[:20]]})
        )
    votes = len(records)
    posts_ok = sum(1 for s in spectators if s.posts == votes + warmup)
    exact = sum(1 for s in spectators if s.last_count_seq == final_seq)
    frames = [s.frames for s in spectators]
    submit = [t_commit - t0 for t0, t_commit, _t_return, _ in records]
    # commit -> publish_events returned (render once, send to Redis), in the voter's thread
    publish = [t_return - t_commit for _t0, t_commit, t_return, _ in records]
    return {
        "spectators": args.spectators,
        "workers": args.workers,
        "layer": args.layer,
        "publish": "inline" if args.inline_publish else "background",
        "votes": votes,
        "seconds": args.seconds,
        "connect_s": round(connect_time, 2),
        "achieved_votes_per_s": round(votes / (commits[-1][0] - records[0][0]), 1),
        "submit_to_commit_ms_p50": round(statistics.median(submit) * 1000, 1),
        "submit_to_commit_ms_p99": round(percentile(submit, 99) * 1000, 1),
        "publish_ms_p50": round(percentile(publish, 50) * 1000, 1),
        "publish_ms_p99": round(percentile(publish, 99) * 1000, 1),
        "commit_to_screen_ms_p50": round(percentile(after_commit, 50) * 1000, 1),
        "commit_to_screen_ms_p99": round(percentile(after_commit, 99) * 1000, 1),
        "submit_to_screen_ms_p50": round(percentile(latencies, 50) * 1000, 1),
        "submit_to_screen_ms_p99": round(percentile(latencies, 99) * 1000, 1),
        "behind_ms_p99": round(percentile(behind_samples, 99) * 1000, 1),
        "behind_ms_max": round(max(behind_samples) * 1000, 1),
        "never_shown": missing,
        "frames_per_spectator_mean": round(statistics.mean(frames), 1),
        "counts_per_spectator_mean": round(statistics.mean(len(s.counts) for s in spectators), 1),
        "spectators_with_every_post": f"{posts_ok}/{len(spectators)}",
        "final_count_exact": f"{exact}/{len(spectators)}",
        "resyncs": sum(s.resyncs for s in spectators),
        "server_cpu_share": round(cpu_server / wall, 2),  # cores busy, all ASGI workers
        "client_cpu_share": round(cpu_client / wall, 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--rate", type=float, default=20.0, help="votes a second")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--layer", choices=sorted(LAYERS), default="pubsub")
    parser.add_argument("--driver-threads", type=int, default=2)
    parser.add_argument(
        "--inline-publish",
        action="store_true",
        help="publish in the voting thread (as Celery does) instead of a publisher thread",
    )
    parser.add_argument("--dump", help="write raw timings (votes, 20 spectators) to this file")
    parser.add_argument("--budget", help="LIVE_FRAME_BUDGET for the server (frames/s/process)")
    parser.add_argument("--parse", action="store_true", help="parse every frame as JSON")
    args = parser.parse_args()
    global PARSE_FULLY
    PARSE_FULLY = args.parse
    # The vote driver publishes through the same channel layer as the server.
    os.environ["CHANNEL_LAYER_BACKEND"] = LAYERS[args.layer]
    os.environ["LIVE_PUBLISH_IN_BACKGROUND"] = "0" if args.inline_publish else "1"
    if args.budget:
        os.environ["LIVE_FRAME_BUDGET"] = args.budget
    ensure_database()
    game = make_game(args.players)
    from django.db import connections

    connections.close_all()
    result = asyncio.run(run(args, game))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
