"""Night end to end: from a 25-player power-role night's deadline to every open page showing
the new day.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Night end to end").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_nightbench \\
    REDIS_URL=redis://127.0.0.1:6379/4 .venv/bin/python benchmarks/night_end_to_end.py \\
        --nights 3 --spectators 25

On the real stack of this machine: a started 25-player forum game (RAR) with power roles
on both sides (cops, doctors, a vigilante, roleblockers, a jailkeeper, a tracker, a
watcher, a bus driver, masons; a godfather, a framer, a janitor; a serial killer), made
through the services; the site (``uvicorn --workers W``) with the pub/sub channel layer; a
Celery worker (prefork, concurrency 2) and beat on a queue of their own; and one websocket
per open page: the host, each of the 25 players logged in (their own audiences: slot,
mafia, masons) and ``--spectators`` anonymous ones.

Each night: every living player with a night ability sends one (a random legal target; the
mafia's factional kill once), the night's deadline is then set ``--lead`` seconds ahead
with the ETA task a deadline change queues, and the worker ends the night when it falls
due: the resolver runs, deaths and results are written, day N+1 opens and its events go
out. The clock stops, per page, when a frame with that day's ``phase_started`` arrives.
The host then ends the day (no elimination under plurality with no votes) and the next
night is played the same way.

Figures: deadline -> the page shows the day (p50/p99/max over every page and night), and
its parts: deadline -> the transition's commit time (``ended_at``; the worker's lateness)
and the transition -> the page; CPU of the worker per night, load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_nightbench")
QUEUE = f"night-bench-{uuid.uuid4().hex[:8]}"
os.environ["CELERY_QUEUE"] = QUEUE  # senders (this process) and the worker share it
# The transition publishes in the worker's own thread, as Celery does in production.
os.environ.setdefault("CHANNEL_LAYER_BACKEND", "channels_redis.pubsub.RedisPubSubChannelLayer")

ROLES = [
    ("cop", 2),
    ("doctor", 2),
    ("vigilante", 1),
    ("roleblocker", 1),
    ("jailkeeper", 1),
    ("tracker", 1),
    ("watcher", 1),
    ("bus_driver", 1),
    ("mason", 2),
    ("vanilla_townie", 6),
    ("godfather", 1),
    ("goon", 2),
    ("mafia_roleblocker", 1),
    ("framer", 1),
    ("janitor", 1),
    ("serial_killer", 1),
]


def make_game(players: int) -> tuple[Any, Any, list[Any]]:
    role_list = [{"role": role, "count": count} for role, count in ROLES]
    assert sum(c for _r, c in ROLES) == players, "the role list is for 25 players"
    return support.make_game(
        f"night{uuid.uuid4().hex[:6]}",
        players,
        role_list=role_list,
        day_length=timedelta(days=2),
        night_length=timedelta(days=1),
    )


def send_night_actions(game_id: int, rng: random.Random) -> int:
    """Every living player with an ability uses one; the factional kill is sent once."""
    from games import services
    from games.errors import GameRuleError
    from games.models import Game

    game = Game.objects.get(pk=game_id)
    sent = 0
    factional_sent = False
    for slot in game.slots.select_related("user").filter(alive=True).order_by("seat"):
        for option in services.night_options(game, slot):
            if option["extra"] or (option["factional"] and factional_sent):
                continue
            choices = [c for c in option["choices"] if c != slot.pk] or option["choices"]
            if len(choices) < option["targets"]:
                continue
            targets = rng.sample(choices, option["targets"])
            try:
                services.submit_night_action(
                    slot.user, game_id, ability=option["ability"], targets=targets
                )
            except GameRuleError:
                continue  # an illegal pair (a swap of the same player...): skip it
            sent += 1
            factional_sent = factional_sent or option["factional"]
            break  # one action a player
    return sent


def login_cookie(user: Any) -> str:
    """A real session for ``user`` (what logging in stores), as a Cookie header."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


class Page:
    """One open game page: when each day's ``phase_started`` reached it (wall clock)."""

    def __init__(self, who: str, cookie: str | None) -> None:
        self.who = who
        self.cookie = cookie
        self.frames = 0
        self.days: dict[int, float] = {}
        self.reloads = 0

    def apply(self, text: str, now: float) -> None:
        self.frames += 1
        if '"phase_started"' not in text and '"reload"' not in text:
            return
        message = json.loads(text)
        for item in message if isinstance(message, list) else [message]:
            if item.get("type") == "reload":
                self.reloads += 1
            data = item.get("data") or {}
            if item.get("kind") == "phase_started" and data.get("kind") == "day":
                self.days.setdefault(data["number"], now)


async def open_page(url: str, origin: str, page: Page, stop: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    headers = {"Cookie": page.cookie} if page.cookie else None
    async with connect(
        url, origin=origin, additional_headers=headers, max_size=None, open_timeout=60
    ) as ws:

        async def read() -> None:
            async for text in ws:
                page.apply(text, time.time())

        reader = asyncio.ensure_future(read())
        await stop.wait()
        reader.cancel()


async def play(args: argparse.Namespace) -> dict[str, Any]:
    from django.db import close_old_connections
    from django.utils import timezone

    from games import scheduling, services
    from games.models import Game, GameEvent, Phase

    sync = asyncio.to_thread
    rng = random.Random(args.seed)
    game, host, users = await sync(make_game, args.players)
    # Day 1 -> night 2: the host ends the first day (nothing happens at night before it).
    await sync(services.cut_deadline_now, host, game.pk)
    cookies = await sync(lambda: [login_cookie(u) for u in [host, *users]])
    tmp = Path(tempfile.mkdtemp(prefix="night-bench-"))
    worker, beat = support.worker_and_beat(QUEUE, tmp, args.concurrency)
    port = support.free_port()
    server = support.start_server(port, args.workers)
    pages = [Page("host", cookies[0])]
    pages += [Page(f"player {i + 1}", c) for i, c in enumerate(cookies[1:])]
    pages += [Page("spectator", None) for _ in range(args.spectators)]
    stop = asyncio.Event()
    origin = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws/games/{game.pk}/"
    tasks = [asyncio.ensure_future(open_page(url, origin, p, stop)) for p in pages]
    nights: list[dict[str, Any]] = []
    try:
        while sum(1 for p in pages if p.frames) < len(pages):
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.1)
        await asyncio.sleep(6)  # the worker and beat are up before the first deadline
        for _ in range(args.nights):
            g = await sync(Game.objects.get, pk=game.pk)
            if not g.is_running:
                break
            night = g.phase_number
            sent = await sync(send_night_actions, game.pk, rng)
            deadline = timezone.now() + timedelta(seconds=args.lead)
            await sync(
                lambda n=night, d=deadline: Phase.objects.filter(game=game, number=n).update(
                    deadline=d
                )
            )
            await sync(scheduling.schedule_deadline, game.pk, night, deadline)
            cpu0 = support.group_cpu_seconds(worker.pid)
            load0 = support.load_average()
            give_up = time.monotonic() + args.lead + args.timeout
            day = night + 1
            while time.monotonic() < give_up and not all(day in p.days for p in pages):
                await asyncio.sleep(0.05)
            cpu = support.group_cpu_seconds(worker.pid) - cpu0
            phase = await sync(Phase.objects.get, game=game, number=night)
            at = deadline.timestamp()
            ended = phase.ended_at.timestamp() if phase.ended_at else float("nan")
            deaths = await sync(
                lambda n=night: GameEvent.objects.filter(
                    game=game, kind="night_ended", audience="public"
                ).count()
            )
            nights.append(
                {
                    "night": night,
                    "actions": sent,
                    "ended_late_s": ended - at,
                    "to_page_s": [p.days[day] - at for p in pages if day in p.days],
                    "after_commit_s": [p.days[day] - ended for p in pages if day in p.days],
                    "pages_shown": sum(1 for p in pages if day in p.days),
                    "worker_cpu_s": cpu,
                    "load": f"{load0} -> {support.load_average()}",
                    "night_ended_events": deaths,
                }
            )
            g = await sync(Game.objects.get, pk=game.pk)
            if g.is_running:
                await sync(services.cut_deadline_now, host, game.pk)  # day -> next night
            await sync(close_old_connections)
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        support.stop_process_group(server)
        for proc in (beat, worker):
            support.stop_process_group(proc)
    to_page = [x for n in nights for x in n["to_page_s"]]
    after = [x for n in nights for x in n["after_commit_s"]]
    pct = support.percentile
    return {
        "pages": len(pages),
        "nights": [
            {
                "night": n["night"],
                "actions": n["actions"],
                "worker_late_ms": support.ms(n["ended_late_s"]),
                "to_page_ms_p50": support.ms(pct(n["to_page_s"], 50)),
                "to_page_ms_max": support.ms(max(n["to_page_s"], default=float("nan"))),
                "pages_shown": f"{n['pages_shown']}/{len(pages)}",
                "worker_cpu_ms": support.ms(n["worker_cpu_s"]),
                "load": n["load"],
            }
            for n in nights
        ],
        "deadline_to_page_ms_p50": support.ms(pct(to_page, 50)),
        "deadline_to_page_ms_p99": support.ms(pct(to_page, 99)),
        "deadline_to_page_ms_max": support.ms(max(to_page, default=float("nan"))),
        "commit_to_page_ms_p50": support.ms(pct(after, 50)),
        "commit_to_page_ms_p99": support.ms(pct(after, 99)),
        "reloads": sum(p.reloads for p in pages),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=25)
    parser.add_argument("--spectators", type=int, default=25)
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--lead", type=float, default=5, help="seconds to each night's deadline")
    parser.add_argument("--timeout", type=float, default=60, help="seconds after a deadline")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    support.ensure_database()
    print(f"machine: {support.machine()}", flush=True)
    from django.db import connections

    connections.close_all()
    print(json.dumps(asyncio.run(play(args)), indent=2))


if __name__ == "__main__":
    main()
