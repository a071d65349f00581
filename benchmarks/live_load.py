"""Live-update load benchmark: the site's fan-out beside the naive one, same load, same run.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Live updates").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_livebench \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/live_load.py \\
        --spectators 1000 --rate 20 --seconds 15 [--games 50] [--designs site naive]

For each design in turn (``site``: ``mafia_site.asgi``, the hub; ``naive``:
``benchmarks/naive_asgi.py``, a group member per socket and a frame per event), on the real
stack of this machine:
1. creates ``--games`` started games (forum rules, plurality so the day never ends) through
   ``games.services`` (``support.make_game``);
2. starts that design's ASGI app as a subprocess: ``uvicorn --workers W`` (W = cores by
   default, as the Dockerfile does) on 127.0.0.1, with the Redis channel layer;
3. opens N anonymous spectator websockets from this process (the ``websockets`` client
   library), spread evenly over the games, each opened with the page's ``?since=`` like
   ``live.js``;
4. a separate vote-driver process casts ``--rate`` votes a second in all (round robin over
   the games) through ``services.cast_vote`` (each vote is a post, a vote and a vote count)
   and records, for each vote, when it was submitted and the vote count it produced;
5. every spectator records when each vote count (and post) reaches it.

Figures: vote-to-screen latency (submit -> the spectator holds a count at least that new),
p50/p99/max over every (vote, spectator) pair; how far behind the truth each spectator's
count is, sampled every 50 ms (p99 of the age of the oldest committed vote not yet shown);
posts lost (never dropped by design); and whether every spectator's final count is exactly
the last one committed.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import multiprocessing as mp
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_livebench")

LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
APPS = {"site": "mafia_site.asgi:application", "naive": "benchmarks.naive_asgi:application"}


def make_games(tag: str, count: int, players: int) -> list[tuple[int, list[int], int]]:
    """Started plurality games: (game id, voter user ids by seat, event seq) each."""
    games = []
    for g in range(count):
        game, _host, users = support.make_game(f"{tag}-g{g}", players)
        games.append((game.pk, [u.pk for u in users], game.event_seq))
    return games


# ======================================================================================
# The vote driver (its own process: its CPU does not disturb the spectators' clocks)
# ======================================================================================
def drive_votes(
    games: list[tuple[int, list[int]]], rate: float, seconds: float, threads: int, out: Any
) -> None:
    """Cast ``rate`` votes a second in all for ``seconds`` through ``services.cast_vote``,
    vote i in game i % G.

    Records, per vote: its game, when it was submitted, when its transaction committed (the
    moment ``publish_events`` is called from ``on_commit``), when the call returned, and the
    seq of the vote count it produced. Several threads keep the pace when one call is slow
    (they queue on the game's row lock like concurrent requests do).
    """
    import threading

    # Publish like the web server does (a publisher thread), unless asked otherwise.
    os.environ.setdefault("LIVE_PUBLISH_IN_BACKGROUND", "1")
    support.django_setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games import services
    from games.live import publisher
    from games.models import Slot

    local = threading.local()
    original = publisher.publish_events

    def timed_publish(gid: int, from_seq: int) -> None:
        local.commit, local.from_seq = time.monotonic(), from_seq
        original(gid, from_seq)

    publisher.publish_events = timed_publish  # services looks it up at each commit

    all_ids = [pk for _gid, ids in games for pk in ids]
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=all_ids)}
    slots = [list(Slot.objects.filter(game_id=gid).order_by("seat")) for gid, _ in games]
    count = len(games)
    n = len(slots[0])
    total = int(rate * seconds)
    records: list[tuple[int, float, float, float, int]] = []
    lock = threading.Lock()

    def vote(i: int) -> tuple[int, Any, Any]:
        # In each game, voter k % n moves to a new wagon every time (never themselves):
        # every vote changes the count.
        game_index, k = i % count, i // count
        voter = slots[game_index][k % n]
        step = 1 + (k // n) % (n - 1)
        return games[game_index][0], voter, slots[game_index][(voter.seat - 1 + step) % n]

    # Warm-up, not measured: first template renders, Redis connections, the server's
    # first frames. Each voter votes once; the timed votes continue the same rotation.
    warmup = count * n
    for i in range(warmup):
        game_id, voter, target = vote(i)
        services.cast_vote(users[voter.user_id], game_id, target.pk)
    counter = iter(range(warmup, warmup + total))
    time.sleep(1.0)
    start = time.monotonic() + 0.2

    def work() -> None:
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            pause = start + (i - warmup) / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            game_id, voter, target = vote(i)
            t0 = time.monotonic()
            services.cast_vote(users[voter.user_id], game_id, target.pk)
            # The transaction wrote: post, vote, vote count.
            with lock:
                records.append((game_id, t0, local.commit, time.monotonic(), local.from_seq + 2))
        connection.close()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    publisher.wait_until_published(30)
    records.sort(key=lambda r: (r[0], r[4]))
    out.send((records, n))
    out.close()


def number_counts(records: list) -> list:
    """Clients see vote counts numbered 1, 2, 3... per game (never the game-wide seq): turn
    each vote's vote-count seq into that number."""
    from django.db import connection

    from games.models import GameEvent

    number: dict[tuple[int, int], int] = {}
    for game_id in {r[0] for r in records}:
        seqs = GameEvent.objects.filter(game_id=game_id, kind="vote_count").order_by("seq")
        for i, seq in enumerate(seqs.values_list("seq", flat=True), start=1):
            number[(game_id, seq)] = i
    connection.close()
    return [(g, t0, tc, tr, number[(g, seq)]) for g, t0, tc, tr, seq in records]


# ======================================================================================
# Spectators
# ======================================================================================
class Spectator:
    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
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


async def run(
    args: argparse.Namespace, design: str, games: list[tuple[int, list[int], int]]
) -> dict[str, Any]:
    layer = args.naive_layer if design == "naive" else args.layer
    env = {"CHANNEL_LAYER_BACKEND": LAYERS[layer]}
    if args.budget:
        env["LIVE_FRAME_BUDGET"] = args.budget
    # The driver (spawned below) publishes through the same channel layer as the server.
    os.environ["CHANNEL_LAYER_BACKEND"] = LAYERS[layer]
    port = support.free_port()
    server = support.start_server(port, args.workers, env, app=APPS[design])
    load0 = support.load_average()
    try:
        origin = f"http://127.0.0.1:{port}"
        spectators = [Spectator(games[i % len(games)][0]) for i in range(args.spectators)]
        since = {gid: seq for gid, _users, seq in games}
        stop = asyncio.Event()
        tasks = []
        t_connect = time.monotonic()
        for i in range(0, len(spectators), 50):  # connect in waves, like a page going viral
            for s in spectators[i : i + 50]:
                url = f"ws://127.0.0.1:{port}/ws/games/{s.game_id}/?since={since[s.game_id]}"
                tasks.append(asyncio.ensure_future(spectate(url, origin, s, stop)))
            await asyncio.sleep(0.2)
        while sum(1 for s in spectators if s.frames) < len(spectators):
            if time.monotonic() - t_connect > 120:
                raise SystemExit("spectators did not all connect within 120 s")
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.1)
        connect_time = time.monotonic() - t_connect

        cpu_server0 = support.group_cpu_seconds(server.pid)
        cpu_client0 = time.process_time()
        t_votes0 = time.monotonic()
        parent, child = mp.Pipe(duplex=False)
        driver = mp.get_context("spawn").Process(
            target=drive_votes,
            args=(
                [(gid, users) for gid, users, _seq in games],
                args.rate,
                args.seconds,
                args.driver_threads,
                child,
            ),
        )
        driver.start()
        records: list[tuple[int, float, float, float, int]] = []
        while driver.is_alive() or parent.poll():
            if parent.poll():
                records, players = parent.recv()
                records = await asyncio.to_thread(number_counts, records)
                break
            await asyncio.sleep(0.05)
        driver.join()
        final = {}
        for game_id, _t0, _tc, _tr, number in records:
            final[game_id] = max(final.get(game_id, 0), number)
        # Let the last count arrive (bounded), then stop.
        settle_deadline = time.monotonic() + args.settle
        while time.monotonic() < settle_deadline:
            if all(s.last_count_seq >= final[s.game_id] for s in spectators):
                break
            await asyncio.sleep(0.05)
        wall = time.monotonic() - t_votes0
        cpu_server = support.group_cpu_seconds(server.pid) - cpu_server0
        cpu_client = time.process_time() - cpu_client0
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        support.stop_process_group(server)

    # -- figures ------------------------------------------------------------------------------
    by_game: dict[int, list] = {}
    for record in records:
        by_game.setdefault(record[0], []).append(record)
    latencies: list[float] = []
    after_commit: list[float] = []
    behind_samples: list[float] = []
    missing = 0
    for spectator in spectators:
        counts = spectator.counts
        j = 0
        for _g, t0, t_commit, _t_return, vote_seq in by_game[spectator.game_id]:
            while j < len(counts) and counts[j][0] < vote_seq:
                j += 1
            # the first count at least as new as this vote (arrivals are in seq order)
            if j < len(counts):
                latencies.append(max(0.0, counts[j][1] - t0))
                after_commit.append(max(0.0, counts[j][1] - t_commit))
            else:
                missing += 1
    # "How far behind": every 50 ms of the run, for every spectator, the age of the oldest
    # committed vote of its game it does not show yet (0 when it is up to date).
    start = min(r[2] for r in records)
    # Until the last count arrived (a late design is behind long after the last commit).
    arrivals = [s.counts[-1][1] for s in spectators if s.counts]
    end = max([max(r[2] for r in records) + 0.5, *arrivals])
    commits_of = {}
    for game_id, game_records in by_game.items():
        commits = sorted((t_commit, seq) for _g, _t0, t_commit, _tr, seq in game_records)
        commits_of[game_id] = (commits, [seq for _t, seq in commits])
    for spectator in spectators:
        commits, commit_seqs = commits_of[spectator.game_id]
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
        Path(f"{args.dump}.{design}.json").write_text(
            json.dumps({"records": records, "counts": [s.counts for s in spectators[:20]]})
        )
    votes = len(records)
    # Posts per game: the warm-up (one per player) and the timed votes.
    posts_expected = {gid: players + len(rs) for gid, rs in by_game.items()}
    posts_ok = sum(1 for s in spectators if s.posts == posts_expected[s.game_id])
    posts_due = sum(posts_expected[s.game_id] for s in spectators)
    posts_got = sum(min(s.posts, posts_expected[s.game_id]) for s in spectators)
    exact = sum(1 for s in spectators if s.last_count_seq == final[s.game_id])
    frames = [s.frames for s in spectators]
    submit = [t_commit - t0 for _g, t0, t_commit, _t_return, _ in records]
    pct = support.percentile
    commit_times = [r[2] for r in records]
    return {
        "design": design,
        "spectators": args.spectators,
        "games": len(games),
        "workers": args.workers,
        "layer": layer,
        "votes": votes,
        "seconds": args.seconds,
        "connect_s": round(connect_time, 2),
        "achieved_votes_per_s": round(votes / (max(commit_times) - min(r[1] for r in records)), 1),
        "submit_to_commit_ms_p50": support.ms(pct(submit, 50)),
        "submit_to_commit_ms_p99": support.ms(pct(submit, 99)),
        "commit_to_screen_ms_p50": support.ms(pct(after_commit, 50)),
        "commit_to_screen_ms_p99": support.ms(pct(after_commit, 99)),
        "submit_to_screen_ms_p50": support.ms(pct(latencies, 50)),
        "submit_to_screen_ms_p99": support.ms(pct(latencies, 99)),
        "behind_ms_p99": support.ms(pct(behind_samples, 99)),
        "behind_ms_max": support.ms(max(behind_samples)),
        "never_shown": missing,
        "posts_lost_pct": round(100 * (1 - posts_got / posts_due), 1),
        "frames_per_spectator_mean": round(statistics.mean(frames), 1),
        "counts_per_spectator_mean": round(statistics.mean(len(s.counts) for s in spectators), 1),
        "spectators_with_every_post": f"{posts_ok}/{len(spectators)}",
        "final_count_exact": f"{exact}/{len(spectators)}",
        "resyncs": sum(s.resyncs for s in spectators),
        "server_cpu_s": round(cpu_server, 1),
        "server_cpu_share": round(cpu_server / wall, 2),  # cores busy, all ASGI workers
        "client_cpu_share": round(cpu_client / wall, 2),
        "wall_s": round(wall, 1),
        "load_average_1m": f"{load0} -> {support.load_average()}",
    }


ROW = (
    "| {design} | {spectators} / {games} | {votes} | {achieved_votes_per_s} "
    "| {commit_to_screen_ms_p50:.0f} / {commit_to_screen_ms_p99:.0f} ms "
    "| {submit_to_screen_ms_p99:.0f} ms | {behind_ms_p99:.0f} ms ({behind_ms_max:.0f}) "
    "| {never_shown} | {posts_lost_pct} % | {final_count_exact} "
    "| {frames_per_spectator_mean} | {server_cpu_share} / {client_cpu_share} | {load_average_1m} |"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--games", type=int, default=1, help="spectators spread over these")
    parser.add_argument("--rate", type=float, default=20.0, help="votes a second, in all")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--designs", nargs="+", choices=sorted(APPS), default=["site", "naive"])
    parser.add_argument("--layer", choices=sorted(LAYERS), default="pubsub")
    parser.add_argument(
        "--naive-layer",
        choices=sorted(LAYERS),
        default="core",
        help="the naive design's channel layer (core: channels_redis's usual one)",
    )
    parser.add_argument("--driver-threads", type=int, default=4)
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait at the end")
    parser.add_argument(
        "--inline-publish",
        action="store_true",
        help="publish in the voting thread (as Celery does) instead of a publisher thread",
    )
    parser.add_argument("--dump", help="write raw timings (votes, 20 spectators) to DUMP.*.json")
    parser.add_argument("--budget", help="LIVE_FRAME_BUDGET for the server (frames/s/process)")
    parser.add_argument("--parse", action="store_true", help="parse every frame as JSON")
    args = parser.parse_args()
    global PARSE_FULLY
    PARSE_FULLY = args.parse
    os.environ["LIVE_PUBLISH_IN_BACKGROUND"] = "0" if args.inline_publish else "1"
    if args.budget:
        os.environ["LIVE_FRAME_BUDGET"] = args.budget
    support.ensure_database()
    print(support.machine(), file=sys.stderr)
    results = []
    for design in args.designs:
        # Fresh games for each design: the same thread length, the same load.
        games = make_games(f"live-{design}-{int(time.time())}", args.games, args.players)
        from django.db import connections

        connections.close_all()
        result = asyncio.run(run(args, design, games))
        print(json.dumps(result, indent=2), flush=True)
        results.append(result)
    print(
        "| design | spectators / games | votes | votes/s | commit→screen p50 / p99 "
        "| submit→screen p99 | behind p99 (max) | counts never shown | posts lost "
        "| final count exact | frames per spectator | CPU cores: server / client | load |"
    )
    print("|---" * 13 + "|")
    for result in results:
        print(ROW.format(**result))


if __name__ == "__main__":
    main()
