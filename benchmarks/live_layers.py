"""Channel-layer micro-benchmark: the Redis layers on the live layer's path alone.

Not a test: prints figures for BENCHMARKS.md ("Live updates"). No Django, no database:
``--groups`` groups (audiences), ``--hubs`` receiving hubs (one channel each, like one
ASGI process each) in every group, and one sender doing ``group_send`` of ``--messages``
messages of ``--size`` bytes (a rendered post plus a vote count is ~6 KB) at ``--rate``
a second. It reports send cost, delivery latency (send -> a hub has it) p50/p99, and the
Redis server CPU used, for each layer:

    .venv/bin/python benchmarks/live_layers.py --messages 2000 --rate 200
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import time
import uuid

import redis

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def make_layer(kind: str, prefix: str):
    if kind == "core":
        from channels_redis.core import RedisChannelLayer

        host = {"address": REDIS_URL, "socket_timeout": None}
        return RedisChannelLayer(hosts=[host], prefix=prefix, capacity=10_000)
    from channels_redis.pubsub import RedisPubSubChannelLayer

    return RedisPubSubChannelLayer(hosts=[REDIS_URL], prefix=prefix)


def redis_cpu() -> float:
    info = redis.Redis.from_url(REDIS_URL).info("cpu")
    return info["used_cpu_sys"] + info["used_cpu_user"]


async def run(kind: str, args: argparse.Namespace) -> dict:
    prefix = f"bench{uuid.uuid4().hex[:8]}"
    sender = make_layer(kind, prefix)
    hubs = [make_layer(kind, prefix) for _ in range(args.hubs)]
    # (layer, channel): one channel per hub, or --members channels per hub (every socket
    # its own group member: the design the live layer's hub replaces).
    members = []
    for hub in hubs:
        for _ in range(args.members):
            channel = await hub.new_channel()
            for g in range(args.groups):
                await hub.group_add(f"game-1.aud{g}", channel)
            members.append((hub, channel))
    await asyncio.sleep(0.2)  # subscriptions settle

    latencies: list[float] = []
    received = [0] * len(members)

    async def receive(i: int) -> None:
        hub, channel = members[i]
        while received[i] < args.messages:
            message = await hub.receive(channel)
            latencies.append(time.monotonic() - message["t"])
            received[i] += 1

    receivers = [asyncio.ensure_future(receive(i)) for i in range(len(members))]
    payload = "x" * args.size
    cpu0, t0 = redis_cpu(), time.monotonic()
    send_costs = []
    for n in range(args.messages):
        due = t0 + n / args.rate
        pause = due - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        start = time.monotonic()
        message = {"type": "live.batch", "t": start, "text": payload}
        await sender.group_send(f"game-1.aud{n % args.groups}", message)
        send_costs.append(time.monotonic() - start)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*receivers), 30)
    wall = time.monotonic() - t0
    cpu = redis_cpu() - cpu0
    for layer in [sender, *hubs]:
        if kind == "core":
            await layer.flush()
    latencies.sort()
    return {
        "layer": kind,
        "messages": args.messages,
        "hubs": args.hubs,
        "members_per_hub": args.members,
        "delivered": f"{sum(received)}/{args.messages * len(members)}",
        "send_ms_p50": round(statistics.median(send_costs) * 1000, 2),
        "latency_ms_p50": round(latencies[len(latencies) // 2] * 1000, 2),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 2),
        "redis_cpu_ms_per_message": round(cpu / args.messages * 1000, 3),
        "wall_s": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--size", type=int, default=6000)
    parser.add_argument("--groups", type=int, default=3)
    parser.add_argument("--hubs", type=int, default=2)
    parser.add_argument("--members", type=int, default=1, help="group members per hub")
    args = parser.parse_args()
    for kind in ("core", "pubsub"):
        print(json.dumps(asyncio.run(run(kind, args))))


if __name__ == "__main__":
    main()
