"""Statistics pages over many finished games: server time and queries (issue 34, parts 2
and 3: the behaviour metrics and their leaderboard).

Not a test: it prints figures (record them in BENCHMARKS.md, section "Statistics pages").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_statsbench \\
        .venv/bin/python benchmarks/stats_pages.py --games 1000 --requests 20

Makes (once; later runs reuse them) ``--games`` finished games of the ten-seat forum setup
with third parties (``forum-third-party-ten``), inserted in bulk as the services leave a
finished game: a started time, an end time, the phase reached, the winner (town 50%,
mafia 35%, the serial killer 15%) and the survivor a co-winner when alive at the end;
the seats dealt the setup's role list at random to 10 of 100 players (each plays about
90 games), one player ("regular") in every game (the heaviest player page), a tenth of
the seats dead (a fifth of those modkilled), and in half the games one seat replaced in a
random phase (the one replaced counts the game too). Every game's phases are recorded
(a day, a night, ...; majority-hammer days), and each day has a game thread of
``POSTS_PER_DAY`` posts by its living seats, about a third of them votes (on a random
living player, now and then no elimination or an unvote), so the behaviour metrics
(``analytics.metrics``) do real work. Plus a done simulation of the setup (the
prediction beside the real figures).

Then requests through Django's test client in this process (``DEBUG=0``, real
PostgreSQL, the whole middleware stack), anonymous, 2 warm-up requests and ``--requests``
measured per page: the setup's statistics page, its API answer and the setup page with
the panel; the statistics page, API answer and player page (with the panel) of the player
in every game and of a typical one; the rule set's behaviour leaderboard (default sort,
and sorted by a metric); then the setup and player pages without the panels (what the
panels add), and the every-game player's pages as the first view after a game of theirs
ends (their figures, ``analytics.stats.person_figures``, not cached yet). Per page: wall
and CPU time (p50, p95), queries, size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_statsbench")

SETUP = "forum-third-party-ten"
TAG = "Stats benchmark"
PLAYERS = 100
POSTS_PER_DAY = 24


def build(games: int) -> tuple[str, str]:
    """The finished games (reused when a previous run made as many): (the player of every
    game, a typical player)."""
    from django.utils import timezone

    from games.models import Game, GameStatus, Replacement, SimulationRun, Slot, Vote
    from games.setups import SETUPS
    from games.simulator import deal

    host = support.make_users("statsbench-host", 1)[0]
    regular = support.make_users("statsbench-regular", 1)[0]
    people = support.make_users("statsbench", PLAYERS)
    made = Game.objects.filter(title__startswith=TAG, status=GameStatus.FINISHED)
    voted = Vote.objects.filter(phase__game__in=made).exists()  # (an older run made none)
    if made.count() == games and voted:
        return regular.username, people[0].username
    Game.objects.filter(title__startswith=TAG).delete()
    setup = SETUPS[SETUP]
    kwargs = setup.game_kwargs()
    rng = random.Random(games)
    now = timezone.now()
    rows = []
    for i in range(games):
        started = now - timedelta(days=games - i, hours=6)
        rows.append(
            Game(
                title=f"{TAG} {i}",
                host=host,
                setup=SETUP,
                ruleset=setup.ruleset,
                method=setup.method,
                role_list=kwargs["role_list"],
                player_cap=setup.player_count,
                status=GameStatus.FINISHED,
                vote_rule="majority_hammer",
                phase_number=rng.randint(3, 9),
                winner=rng.choices(["town", "mafia", "serial_killer"], [50, 35, 15])[0],
                started_at=started,
                finished_at=started + timedelta(hours=5),
            )
        )
    created = Game.objects.bulk_create(rows, batch_size=500)
    slots = []
    for game in created:
        cards = deal({"role_list": kwargs["role_list"]}, rng)
        seated = [regular, *rng.sample(people, len(cards) - 1)]
        rng.shuffle(seated)
        for seat, (card, user) in enumerate(zip(cards, seated, strict=True), start=1):
            dead = rng.random() < 0.1
            slots.append(
                Slot(
                    game=game,
                    seat=seat,
                    user=user,
                    role=card["role"],
                    alignment=card.get("alignment") or _alignment(card["role"]),
                    modifiers=card.get("modifiers", []),
                    alive=not dead,
                    died_in_phase=rng.randint(1, game.phase_number) if dead else None,
                    death_cause=("modkill" if rng.random() < 0.2 else "night") if dead else "",
                )
            )
    Slot.objects.bulk_create(slots, batch_size=2000)
    # The survivor alive at the end is a co-winner; a tenth of the games a seat replaced.
    for game in created:
        seats = list(Slot.objects.filter(game=game).only("pk", "role", "alive", "user_id"))
        co = [s.pk for s in seats if s.role == "survivor" and s.alive]
        Game.objects.filter(pk=game.pk).update(co_winners=co)
        if rng.random() < 0.5:
            seat = rng.choice(seats)
            old = rng.choice([p for p in people if p.pk not in {s.user_id for s in seats}])
            Replacement.objects.create(
                slot=seat,
                old_user=old,
                new_user_id=seat.user_id,
                phase_number=rng.randint(2, game.phase_number),
            )
    for batch in range(0, len(created), 100):
        days(created[batch : batch + 100], rng)
    SimulationRun.objects.create(
        setup=SETUP, games=1000, done=1000, status="done", wins={"town": 480, "mafia": 400}
    )
    return regular.username, people[0].username


def days(games: list[Any], rng: random.Random) -> None:
    """The games' phases (day 1, night 1, ...) and each day's thread: ``POSTS_PER_DAY``
    posts by living seats, about a third of them votes on a living player (one in ten of
    those no elimination, one in ten an unvote), each vote linked to its post."""
    from django.utils import timezone

    from games.models import Phase, Post, Slot, Vote

    phases = [
        Phase(
            game=game,
            number=n,
            kind="day" if n % 2 else "night",
            started_at=timezone.now(),
            resolved=True,
        )
        for game in games
        for n in range(1, game.phase_number + 1)
    ]
    Phase.objects.bulk_create(phases, batch_size=2000)
    seats: dict[int, list[Any]] = {}
    for slot in Slot.objects.filter(game__in=games).only(
        "pk", "game_id", "user_id", "died_in_phase"
    ):
        seats.setdefault(slot.game_id, []).append(slot)
    posts, ballots = [], []
    numbers = dict.fromkeys((g.pk for g in games), 0)
    for phase in phases:
        if phase.kind != "day":
            continue
        alive = [s for s in seats[phase.game_id] if (s.died_in_phase or 99) >= phase.number]
        for _ in range(POSTS_PER_DAY):
            author = rng.choice(alive)
            numbers[phase.game_id] += 1
            post = Post(
                game_id=phase.game_id,
                author_id=author.user_id,
                slot=author,
                phase=phase,
                number=numbers[phase.game_id],
                body="Thinking out loud.",
                html="<p>Thinking out loud.</p>",
            )
            posts.append(post)
            if rng.random() < 0.35:
                roll = rng.random()
                target = None if roll < 0.1 else rng.choice([s for s in alive if s != author])
                kind = "unvote" if roll > 0.9 else "vote"
                ballots.append((post, author, target if kind == "vote" else None, kind))
    Post.objects.bulk_create(posts, batch_size=2000)
    Vote.objects.bulk_create(
        [
            Vote(phase=post.phase, voter=voter, target=target, kind=kind, post=post)
            for post, voter, target, kind in ballots
        ],
        batch_size=2000,
    )


def _alignment(role: str) -> str:
    from games.gateway import rules_named

    return str(rules_named("forum").roles[role].alignment)


def measure(
    client: Any, url: str, requests: int, before: Callable[[int], None] | None = None
) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    walls, cpus, queries, sizes = [], [], [], []
    for i in range(requests + 2):  # two warm-up requests: template loading, first plans
        if before is not None:
            before(i)
        with CaptureQueriesContext(connection) as ctx:
            w0, c0 = time.perf_counter(), time.process_time()
            response = client.get(url)
            content = response.content
            w1, c1 = time.perf_counter(), time.process_time()
        if response.status_code != 200:
            raise SystemExit(f"{url}: HTTP {response.status_code}")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=20, help="measured requests per page")
    support.add_gc_option(parser)
    args = parser.parse_args()
    support.ensure_database()
    from django.test import Client

    from analytics.stats import player_stats

    t0 = time.perf_counter()
    regular, typical = build(args.games)
    print(f"games ready in {time.perf_counter() - t0:.1f} s")
    counts = {name: player_stats(name).overall.games for name in (regular, typical)}
    load0 = support.load_average()
    client = Client()
    if args.gc_freeze:
        support.freeze_as_the_server(client, f"/setups/{SETUP}/stats/")
    pages = [
        ("setup statistics", f"/setups/{SETUP}/stats/"),
        ("setup statistics, API", f"/api/v1/setups/{SETUP}/stats/"),
        ("setup page with the panel", f"/setups/{SETUP}/"),
    ]
    for who, name in (("player in every game", regular), ("typical player", typical)):
        label = f"{who} ({counts[name]} games)"
        pages += [
            (f"{label}: statistics", f"/players/{name}/stats/"),
            (f"{label}: statistics, API", f"/api/v1/players/{name}/stats/"),
            (f"{label}: player page with the panel", f"/players/{name}/"),
        ]
    from games.setups import SETUPS

    board = f"/leaderboard/{SETUPS[SETUP].ruleset}/behaviour/"
    pages += [
        ("behaviour leaderboard, town (default sort)", board),
        ("behaviour leaderboard, town, by votes after posts", f"{board}?sort=votes_after_posts"),
        (
            "behaviour leaderboard, mafia, by survival ascending",
            f"{board}?side=mafia&sort=survival&order=asc",
        ),
    ]
    rows = [(label, measure(client, url, args.requests)) for label, url in pages]
    # The same core pages without the panels: what the panels add.
    from games import hooks

    kept = {page: list(hooks._panels[page]) for page in ("setup", "player")}
    for page in kept:
        hooks._panels[page].clear()
    for label, url in pages:
        if "with the panel" in label:
            bare = label.replace("with the panel", "without it")
            rows.append((bare, measure(client, url, args.requests)))
    for page, panels in kept.items():
        hooks._panels[page].extend(panels)
    # A person's figures are cached until a game of theirs ends (``person_figures``): the
    # first view after that reads them whole (the games' behaviour figures stay cached).
    from analytics import stats

    def uncached(_: int) -> None:
        stats.PERSON_FIGURES_VERSION = -time.time_ns()  # (a key never used before)

    version = stats.PERSON_FIGURES_VERSION
    for label, url in pages:
        if label.startswith("player in every game") and "without" not in label:
            cold = f"{label}, after a game of theirs ended (their figures not cached)"
            rows.append((cold, measure(client, url, args.requests, before=uncached)))
    stats.PERSON_FIGURES_VERSION = version
    print(f"machine: {support.machine()}")
    print(f"load average (1 min) at start / end: {load0} / {support.load_average()}")
    print(f"gc.freeze() after start-up: {'yes' if args.gc_freeze else 'no'}")
    print(
        f"| page ({args.games:,} finished games) | wall p50 / p95 ms | CPU p50 / p95 ms "
        "| queries | KB |\n|---|---:|---:|---:|---:|"
    )
    for label, r in rows:
        print(
            f"| {label} | {r['wall_p50']} / {r['wall_p95']} | {r['cpu_p50']} / {r['cpu_p95']} "
            f"| {r['queries']} | {r['kb']} |"
        )


if __name__ == "__main__":
    main()
