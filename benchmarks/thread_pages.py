"""Thread pages at forum scale: server time, queries and weight of a long game thread.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Thread pages").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_pagebench \\
        .venv/bin/python benchmarks/thread_pages.py --posts 10000 100000 --requests 15

For each thread length it makes (once; later runs reuse it) a started 12-player forum game
whose public thread holds that many posts (inserted in bulk, bodies rendered by the site's
own markup, a quote or a bold vote here and there) and a standing vote count made by real
votes, then requests through Django's test client in this process (``DEBUG=0``, real
PostgreSQL, the whole middleware stack):

- the thread's first, middle and last page (the newest, still filling: 12 posts more than
  the round number), anonymous and as a player (vote count, player panel with vote
  buttons), and as a player a different old page each request (none read before: what
  the per-process page store does not hold), and the last page with another player's post
  before each view (a busy game: nothing kept per game event is reused);
- the ISO view of one player (first and last page of their posts);
- the API's posts page (first, middle, last).

Per page: wall time and CPU time of this process per request (p50, p95; CPU excludes
PostgreSQL's own work, wall includes it), the number of SQL queries and the response size.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_pagebench")

PLAYERS = 12
SAMPLE_BODIES = [
    "I think {a} is scummy: their vote on {b} came out of nowhere.",
    "[quote={a}]I am town, obviously.[/quote]\nThat is exactly what mafia would say.",
    "**Vote: {a}**\n\nReasons above. {b}, where is your case?",
    "Catching up. Page after page of noise; can someone summarise the wagons?",
    "{a} and {b} have been buddying all day. Either both town or a scum pair.",
    "> reads list\n\n- {a}: town\n- {b}: null\n- everyone else: scum until proven otherwise",
    "[b]Unvote[/b] for now, want to hear from {b} first.",
    "Long post incoming.\n\n" + "I have reread the whole day. " * 12,
    "lol",
    "[spoiler]not a claim[/spoiler] but I have something to say tomorrow.",
]


def build_thread(posts: int) -> tuple[int, list[int]]:
    """The game with ``posts`` public posts: (game id, player user ids by seat). Reused
    when a previous run made it."""
    from django.db.models import Max

    from games import markup, services
    from games.models import Game, GameEvent, Post

    tag = f"pages{posts}"
    existing = Game.objects.filter(title=f"Benchmark {tag}").first()
    if existing is not None and existing.posts.filter(thread="public").count() >= posts:
        seats = existing.slots.order_by("seat").values_list("user_id", flat=True)
        return existing.pk, list(seats)
    if existing is not None:  # a run interrupted half-way: start again
        Game.objects.filter(pk=existing.pk).delete()
    game, _host, _users = support.make_game(tag, PLAYERS, vote_rule="plurality", password="pw")
    slots = list(game.slots.select_related("user").order_by("seat"))
    phase = game.current_phase()
    rng = random.Random(posts)
    names = [s.user.username for s in slots]
    rendered: dict[str, str] = {}
    # The standing votes come last, through the service (each is a post of its own).
    voters = slots[: PLAYERS // 2]
    # The site's own announcements (the day's opening post) are already in the thread.
    first = (game.posts.filter(thread="public").aggregate(n=Max("number"))["n"] or 0) + 1
    last = posts - len(voters)
    seq = game.event_seq
    for start in range(first, last + 1, 5000):
        batch: list[Post] = []
        for number in range(start, min(start + 5000, last + 1)):
            slot = rng.choice(slots)
            body = rng.choice(SAMPLE_BODIES).format(a=rng.choice(names), b=rng.choice(names))
            if body not in rendered:
                rendered[body] = markup.render_post(body)
            batch.append(
                Post(
                    game=game,
                    thread="public",
                    author_id=slot.user_id,
                    slot=slot,
                    phase=phase,
                    number=number,
                    body=body,
                    html=rendered[body],
                )
            )
        Post.objects.bulk_create(batch)
        # The event log a real thread has: a post event per post, a vote count every tenth.
        log = []
        for post in batch:
            seq += 1
            log.append(GameEvent(game=game, seq=seq, kind="post", payload={"id": post.pk}))
            if post.number % 10 == 0:
                seq += 1
                log.append(GameEvent(game=game, seq=seq, kind="vote_count", payload={}))
        GameEvent.objects.bulk_create(log)
        Game.objects.filter(pk=game.pk).update(event_seq=seq)
    for i, voter in enumerate(voters):
        services.cast_vote(voter.user, game.pk, slots[(i * 3 + 1) % PLAYERS].pk)
    from django.db import connection

    with connection.cursor() as cursor:  # fresh statistics, as autovacuum would leave them
        cursor.execute("ANALYZE games_post; ANALYZE games_gameevent")
    return game.pk, [s.user_id for s in slots]


def fill_last_page(game_id: int, user_ids: list[int]) -> None:
    """A live thread's newest page is still filling (and is read each time, not kept):
    12 more posts through the site's own service when the thread ends on a full page."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Game
    from games.reads import thread as thread_read

    game = Game.objects.get(pk=game_id)
    if thread_read.last_number(game, "public") % thread_read.POSTS_PER_PAGE:
        return
    users = get_user_model().objects.in_bulk(user_ids)
    for i in range(12):
        user = users[user_ids[i % len(user_ids)]]
        services.submit_post(user, game_id, body=f"Still here. Reading back, post {i}.")


def measure(client: Any, url: str | list[str], requests: int, before: Any = None) -> dict[str, Any]:
    """``url``, or each request the next of a list (pages no earlier request read);
    ``before()`` runs (untimed) ahead of each request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    urls = [url] * (requests + 2) if isinstance(url, str) else url
    walls, cpus, queries, sizes = [], [], [], []
    for i in range(requests + 2):  # two warm-up requests: template loading, first plans
        if before is not None:
            before()
        with CaptureQueriesContext(connection) as ctx:
            w0, c0 = time.perf_counter(), time.process_time()
            response = client.get(urls[i])
            content = response.content
            w1, c1 = time.perf_counter(), time.process_time()
        if response.status_code != 200:
            raise SystemExit(f"{urls[i]}: HTTP {response.status_code}")
        if i >= 2:
            walls.append(w1 - w0)
            cpus.append(c1 - c0)
            queries.append(len(ctx.captured_queries))
            sizes.append(len(content))
    return {
        "wall_p50": support.ms(statistics.median(walls)),
        "wall_p95": support.ms(support.percentile(walls, 95)),
        "cpu_p50": support.ms(statistics.median(cpus)),
        "cpu_p95": support.ms(support.percentile(cpus, 95)),
        "queries": max(queries),
        "kb": round(statistics.median(sizes) / 1024, 1),
    }


def run(posts: int, requests: int) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games import services
    from games.models import Post

    game_id, user_ids = build_thread(posts)
    fill_last_page(game_id, user_ids)
    pages = (posts + 24) // 25
    player = get_user_model().objects.get(pk=user_ids[PLAYERS - 1])  # not voting: buttons
    anonymous, logged_in = Client(), Client()
    logged_in.force_login(player)
    iso_seat = 3
    iso_posts = Post.objects.filter(game_id=game_id, thread="public", slot__seat=iso_seat).count()
    base = f"/games/{game_id}/"
    api = f"/api/v1/games/{game_id}/posts/"
    cases = [
        ("thread, first page", "anonymous", anonymous, f"{base}?page=1"),
        ("thread, middle page", "anonymous", anonymous, f"{base}?page={pages // 2}"),
        ("thread, last page", "anonymous", anonymous, f"{base}?page=last"),
        ("thread, first page", "player", logged_in, f"{base}?page=1"),
        ("thread, middle page", "player", logged_in, f"{base}?page={pages // 2}"),
        ("thread, last page", "player", logged_in, f"{base}?page=last"),
        ("thread, a page nobody read yet", "player", logged_in,
         [f"{base}?page={n}" for n in range(2, 2 + requests + 2)]),
        (f"ISO of one player ({iso_posts} posts), first page", "player", logged_in,
         f"{base}?iso={iso_seat}&page=1"),
        (f"ISO of one player ({iso_posts} posts), middle page", "player", logged_in,
         f"{base}?iso={iso_seat}&page={iso_posts // 50 + 1}"),
        (f"ISO of one player ({iso_posts} posts), last page", "player", logged_in,
         f"{base}?iso={iso_seat}&page=last"),
        ("ISO of three players, middle page", "player", logged_in,
         f"{base}?iso=3&iso=5&iso=8&page={3 * iso_posts // 50 + 1}"),
        ("API posts, first page", "anonymous", anonymous, f"{api}?page=1"),
        ("API posts, middle page", "anonymous", anonymous, f"{api}?page={pages // 2}"),
        ("API posts, last page", "anonymous", anonymous, f"{api}?page=last"),
    ]  # fmt: skip
    rows = []
    for what, who, client, url in cases:
        rows.append({"posts": posts, "page": what, "as": who, **measure(client, url, requests)})
    # A busy game: another player's post between every two views, so nothing kept per game
    # event (slots, phase, vote count, players panel, the newest page) is ever reused.
    author = get_user_model().objects.get(pk=user_ids[0])
    counter = iter(range(10**9))

    def new_post() -> None:
        services.submit_post(author, game_id, body=f"One more thought ({next(counter)}).")

    busy = measure(logged_in, f"{base}?page=last", requests, before=new_post)
    rows.append({"posts": posts, "page": "thread, last page, a new post before each view",
                 "as": "player", **busy})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--requests", type=int, default=15, help="measured requests per page")
    parser.add_argument("--json", action="store_true", help="print JSON rows, not a table")
    args = parser.parse_args()
    support.ensure_database()
    load0 = support.load_average()
    rows = []
    for posts in args.posts:
        rows += run(posts, args.requests)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"machine: {support.machine()}")
    print(f"load average (1 min) at start / end: {load0} / {support.load_average()}")
    print(
        "| posts | page | as | wall p50 / p95 ms | CPU p50 / p95 ms | queries | KB |\n"
        "|---:|---|---|---:|---:|---:|---:|"
    )
    for r in rows:
        print(
            f"| {r['posts']:,} | {r['page']} | {r['as']} | {r['wall_p50']} / {r['wall_p95']} "
            f"| {r['cpu_p50']} / {r['cpu_p95']} | {r['queries']} | {r['kb']} |"
        )


if __name__ == "__main__":
    main()
