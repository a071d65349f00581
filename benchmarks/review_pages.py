"""The game review of a long day: server time, queries and weight of its pages.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Review pages").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_reviewbench \\
        .venv/bin/python benchmarks/review_pages.py --posts 1000 --requests 15

It makes (once; later runs reuse it) the thread of ``benchmarks/thread_pages.py`` (a
12-player forum day of ``posts`` public posts with real votes), ends the game (the mafia
modkilled), then requests through Django's test client in this process (``DEBUG=0``, real
PostgreSQL, the whole middleware stack) the review of that day: as it ended, after a post
in the middle (the count and the chart's step then), after its last post, a later page of
its posts, and the API's answer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_reviewbench")
import thread_pages  # noqa: E402  (after the environment: it reads it)


def finished_day(posts: int) -> tuple[int, int, int]:
    """(game id, the day's middle post number, its last post number), the game over."""
    from games import services
    from games.models import Game

    game_id, _users = thread_pages.build_thread(posts)
    game = Game.objects.get(pk=game_id)
    if not game.is_finished:
        for slot in game.slots.filter(alignment="mafia", alive=True):
            game.refresh_from_db()
            if not game.is_finished:
                services.modkill(game.host, game.pk, slot.pk)
    numbers = list(
        game.posts.filter(thread="public", phase__number=1)
        .order_by("number")
        .values_list("number", flat=True)
    )
    return game_id, numbers[len(numbers) // 2], numbers[-1]


def run(posts: int, requests: int, gc_freeze: bool = True) -> list[dict[str, Any]]:
    from django.test import Client

    game_id, middle, last = finished_day(posts)
    url = f"/games/{game_id}/review/?phase=1"
    pages = {
        "the day as it ended": url,
        "after a middle post": f"{url}&post={middle}",
        "after the last post": f"{url}&post={last}",
        "a later page of posts": f"{url}&page=3",
        "API answer": f"/api/v1/games/{game_id}/review/",
    }
    client = Client()
    if gc_freeze:
        support.freeze_as_the_server(client, pages["the day as it ended"])
    return [
        {"posts": posts, "page": name, **thread_pages.measure(client, page, requests)}
        for name, page in pages.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, nargs="+", default=[1_000])
    parser.add_argument("--requests", type=int, default=15, help="measured requests per page")
    support.add_gc_option(parser)
    args = parser.parse_args()
    support.ensure_database()
    load0 = support.load_average()
    rows = [row for posts in args.posts for row in run(posts, args.requests, args.gc_freeze)]
    print(f"machine: {support.machine()}")
    print(f"load average (1 min) at start / end: {load0} / {support.load_average()}")
    print(f"gc.freeze() after start-up, as the web server: {'yes' if args.gc_freeze else 'no'}")
    print(
        "| posts in the day | page | wall p50 / p95 ms | CPU p50 / p95 ms | queries | KB |\n"
        "|---:|---|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r['posts']:,} | {r['page']} | {r['wall_p50']} / {r['wall_p95']} "
            f"| {r['cpu_p50']} / {r['cpu_p95']} | {r['queries']} | {r['kb']} |"
        )


if __name__ == "__main__":
    main()
