"""Votes under contention: N players voting and unvoting at once through the HTTP API.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Votes under
contention").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_votebench \\
        .venv/bin/python benchmarks/vote_contention.py --players 50 --seconds 60

What it does, on the real stack of this machine:
1. a started 50-player forum game (plurality: the day never ends on a vote), an API token
   per player;
2. ``uvicorn --workers W`` (W = cores) serving the site from this checkout;
3. one thread per player, each with its own keep-alive connection, in a closed loop for
   ``--seconds``: ``POST /api/v1/games/<id>/vote/`` for a random living player, or (one time
   in four, when it has a vote) ``POST .../unvote/``;
4. a sampler reads ``pg_stat_activity`` every 20 ms: how many sessions wait on a lock.

Figures: requests a second, p50/p99 latency, status codes, sessions waiting on a lock
(mean and max), CPU of the server processes, of PostgreSQL and of this client, and the check:
the final vote count the API serves is identical to replaying the accepted votes and unvotes
in the order they were committed (their posts' numbers).

``--server-env KEY=VALUE`` passes settings to the server (e.g. a rate limit, once the API
has one: set it high enough that the benchmark measures the votes, not the limiter).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_votebench")


def make_players(players: int) -> tuple[int, list[tuple[int, str]]]:
    """(game id, [(slot id, API token)] by seat)."""
    from games.services import person_tokens

    tag = f"votes{players}-{int(time.time())}"
    game, _host, users = support.make_game(
        tag, players, vote_rule="plurality", day_length=timedelta(days=2)
    )
    slot_of = dict(game.slots.values_list("user_id", "pk"))
    tokens = [person_tokens.create_token(u).key for u in users]
    return game.pk, [(slot_of[u.pk], t) for u, t in zip(users, tokens, strict=True)]


class Player(threading.Thread):
    def __init__(self, port: int, game_id: int, slot_id: int, token: str, targets: list[int],
                 stop_at: float, seed: int) -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.port, self.game_id, self.slot_id, self.token = port, game_id, slot_id, token
        self.targets = [t for t in targets if t != slot_id]  # no self-votes in this game
        self.stop_at = stop_at
        self.rng = random.Random(seed)
        self.records: list[tuple[float, float, int, str, int | None, int | None]] = []
        self.has_vote = False

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json"}
        base = f"/api/v1/games/{self.game_id}"
        while time.monotonic() < self.stop_at:
            if self.has_vote and self.rng.random() < 0.25:
                action, target, url, body = "unvote", None, f"{base}/unvote/", b"{}"
            else:
                target = self.rng.choice(self.targets)
                action, url = "vote", f"{base}/vote/"
                body = json.dumps({"target": target}).encode()
            t0 = time.monotonic()
            try:
                conn.request("POST", url, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                status, data = 0, b""
            t1 = time.monotonic()
            number = None
            if status == 200:
                number = json.loads(data)["post"]["number"]
                self.has_vote = action == "vote"
            self.records.append((t0, t1, status, action, target, number))
        conn.close()


def lock_sampler(stop: threading.Event, samples: list[int], database: str) -> None:
    import psycopg

    with psycopg.connect(f"postgres://postgres@127.0.0.1:5432/{database}", autocommit=True) as conn:
        while not stop.is_set():
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                "AND wait_event_type = 'Lock'",
                [database],
            ).fetchone()
            samples.append(row[0])
            time.sleep(0.02)


def replay(records: list[tuple]) -> dict[int, set[int]]:
    """Standing votes after the accepted votes and unvotes, in commit (post number) order:
    {target slot id: {voter slot ids}}."""
    standing: dict[int, int] = {}
    accepted = sorted((r for r in records if r[1][2] == 200), key=lambda r: r[1][5])
    for voter, rec in accepted:
        _t0, _t1, _status, action, target, _number = rec
        if action == "vote":
            standing[voter] = target
        else:
            standing.pop(voter, None)
    wagons: dict[int, set[int]] = {}
    for voter, target in standing.items():
        wagons.setdefault(target, set()).add(voter)
    return wagons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=None, help="uvicorn workers (cores)")
    parser.add_argument("--pool", type=int, default=8, help="DB_POOL_SIZE per server worker")
    parser.add_argument("--server-env", action="append", default=[], help="KEY=VALUE")
    args = parser.parse_args()
    import os

    support.ensure_database()
    game_id, slots = make_players(args.players)
    from django.db import connections

    database = connections["default"].settings_dict["NAME"]
    connections.close_all()
    port = support.free_port()
    # A bounded pool per worker: PostgreSQL is shared (max_connections), and without a pool
    # every concurrent ASGI request holds a connection of its own.
    env = {"DB_POOL_SIZE": str(args.pool), **dict(kv.split("=", 1) for kv in args.server_env)}
    server = support.start_server(port, args.workers or os.cpu_count() or 1, env)
    try:
        # Warm-up: every worker's first request (imports, templates, connections).
        for _slot_id, token in slots[:4]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", f"/api/v1/games/{game_id}/vote-count/",
                         headers={"Authorization": f"Token {token}"})  # fmt: skip
            conn.getresponse().read()
            conn.close()
        targets = [s for s, _ in slots]
        stop_at = time.monotonic() + args.seconds
        players = [
            Player(port, game_id, slot_id, token, targets, stop_at, seed=i)
            for i, (slot_id, token) in enumerate(slots)
        ]
        stop = threading.Event()
        samples: list[int] = []
        sampler = threading.Thread(target=lock_sampler, args=(stop, samples, database))
        load0 = support.load_average()
        cpu_server0 = support.group_cpu_seconds(server.pid)
        cpu_pg0 = support.postgres_cpu_seconds()
        cpu_client0 = time.process_time()
        t0 = time.monotonic()
        sampler.start()
        for p in players:
            p.start()
        for p in players:
            p.join()
        wall = time.monotonic() - t0
        stop.set()
        sampler.join()
        cpu_server = support.group_cpu_seconds(server.pid) - cpu_server0
        cpu_pg = support.postgres_cpu_seconds() - cpu_pg0
        cpu_client = time.process_time() - cpu_client0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", f"/api/v1/games/{game_id}/vote-count/")
        final = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        support.stop_process_group(server)

    records = [(p.slot_id, r) for p in players for r in p.records]
    latencies = [r[1] - r[0] for _, r in records]
    ok = [r[1] - r[0] for _, r in records if r[2] == 200]
    statuses: dict[int, int] = {}
    for _, r in records:
        statuses[r[2]] = statuses.get(r[2], 0) + 1
    served = {
        w["target"]["slot_id"]: {v["slot_id"] for v in w["voters"]}
        for w in final["wagons"]
        if w["target"]
    }
    expected = replay(records)
    numbers = sorted(r[5] for _, r in records if r[2] == 200)
    print(f"machine: {support.machine()}")
    result = {
        "players": args.players,
        "workers": args.workers or os.cpu_count(),
        "seconds": round(wall, 1),
        "requests": len(records),
        "status_counts": statuses,
        "accepted_per_s": round(len(ok) / wall, 1),
        "latency_ms_p50": support.ms(statistics.median(latencies)),
        "latency_ms_p99": support.ms(support.percentile(latencies, 99)),
        "latency_ms_max": support.ms(max(latencies)),
        "lock_waiting_sessions_mean": round(statistics.mean(samples), 2) if samples else None,
        "lock_waiting_sessions_max": max(samples) if samples else None,
        "cpu_ms_per_accepted_request": {
            "server": round(cpu_server / max(len(ok), 1) * 1000, 1),
            "postgres": round(cpu_pg / max(len(ok), 1) * 1000, 1) if cpu_pg >= 0 else None,
            "client": round(cpu_client / max(len(ok), 1) * 1000, 1),
        },
        "cores_busy": {
            "server": round(cpu_server / wall, 2),
            "postgres": round(cpu_pg / wall, 2),
            "client": round(cpu_client / wall, 2),
        },
        "posts_numbered_without_gaps": numbers == list(range(numbers[0], numbers[-1] + 1))
        if numbers
        else None,
        "final_count_equals_replay": served == expected,
        "load_average_1m": f"{load0} -> {support.load_average()}",
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
