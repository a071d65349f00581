"""Ties in bots-only classic games: N games of ten reference bots, counted.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Issue 19: ties in
bots-only classic games").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_botties \\
        .venv/bin/python benchmarks/bot_ties.py --games 20

What it does, on the real stack of this machine:
1. ``uvicorn`` serving the site from this checkout (its deadline watchdog is the only
   timer: the bots act at once, the host bot cuts each night);
2. for each game, a ``classic-ten`` table game made by a host through the JSON API, ten
   ``scripts/reference_bot.py`` bots joined, each with its default seed (derived from its
   user name and the game, so every game differs; ``--seed S`` gives bot ``i`` of game
   ``g`` the seed ``S * 1000 + g * 10 + i`` instead, to repeat a run on a fresh database);
3. the game played to its end by ``reference_bot.play`` (bots round-robin over HTTP);
4. from each day's report (its ``site_notes``, the day script's own lines): the days, the
   ties (two or more players tied, or skip tied with one player), the revotes and how they
   ended.

Figures: games with at least one tie (and one revote), the days, the ties of each kind,
the revotes' outcomes, the winners, and the time a game took.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_botties")

PASSWORD = "bot-ties-benchmark"


def reference_bot() -> Any:
    spec = importlib.util.spec_from_file_location(
        "reference_bot", support.ROOT / "scripts" / "reference_bot.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def day_notes(game_id: int) -> list[list[str]]:
    """Each resolved day's explanation lines, in order (read in this process)."""
    from games.models import Phase, PhaseKind

    days = Phase.objects.filter(game_id=game_id, kind=PhaseKind.DAY, resolved=True)
    return [list((p.report or {}).get("site_notes", [])) for p in days.order_by("number")]


def classify(notes: list[str]) -> dict[str, Any]:
    """One day: was there a tie (of which kind), a revote, and how the revote ended."""
    tie = next((line for line in notes if " tie with " in line), None)
    kind = None
    if tie is not None:
        kind = "skip and a player" if tie.startswith("Skip and ") else "players"
    revote = next((line for line in notes if "revote" in line and " tie with " not in line), None)
    ended = None
    if revote is not None:
        if "is eliminated" in revote:
            ended = "a player eliminated"
        elif "Skip wins" in revote:
            ended = "skip won"
        elif "tied again" in revote:
            ended = "tied again"
        else:
            ended = "other"
    return {"tie": kind, "revote": ended}


def play_game(bots: Any, url: str, host: Any, players: list[Any], index: int, seed: int | None,
              timeout: float) -> dict[str, Any]:  # fmt: skip
    game = host.post(
        "games/",
        {
            "title": f"Bot ties {index}",
            "setup": "classic-ten",
            "turn_length_seconds": 30,
            "vote_length_seconds": 30,
        },
    )
    game_id = game["id"]
    table = []
    for i, api in enumerate(players[: game["player_cap"]]):
        api.post(f"games/{game_id}/join/")
        bot_seed = None if seed is None else seed * 1000 + index * 10 + i
        table.append(bots.Bot(api, game_id, bot_seed))
    host.post(f"games/{game_id}/start/")
    started = time.monotonic()
    finished = bots.play([*table, bots.HostBot(host, game_id, night_seconds=0)], game_id, host,
                         timeout=timeout)  # fmt: skip
    days = [classify(notes) for notes in day_notes(game_id)]
    return {
        "game": game_id,
        "seeds": [b.seed for b in table],
        "seconds": round(time.monotonic() - started, 1),
        "winner": finished["winner"],
        "days": days,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a game may take")
    parser.add_argument("--json", type=Path, help="write every game's record here")
    args = parser.parse_args()

    support.ensure_database()
    tag = f"ties{int(time.time())}"
    support.make_users(f"{tag}-host", 1, PASSWORD)
    support.make_users(tag, 10, PASSWORD)
    port = support.free_port()
    server = support.start_server(port, workers=1)
    url = f"http://127.0.0.1:{port}"
    bots = reference_bot()
    records = []
    try:
        host = bots.Api.login(url, f"{tag}-host-0", PASSWORD)
        players = [bots.Api.login(url, f"{tag}-{i}", PASSWORD) for i in range(10)]
        for index in range(args.games):
            record = play_game(bots, url, host, players, index, args.seed, args.timeout)
            records.append(record)
            ties = sum(1 for d in record["days"] if d["tie"])
            print(
                f"game {index + 1}/{args.games} (#{record['game']}): {len(record['days'])} days, "
                f"{ties} tie(s), {record['winner']} wins, {record['seconds']} s",
                flush=True,
            )
    finally:
        support.stop_process_group(server)
    if args.json:
        args.json.write_text(json.dumps(records, indent=2))

    days = [d for r in records for d in r["days"]]
    with_tie = sum(1 for r in records if any(d["tie"] for d in r["days"]))
    with_revote = sum(1 for r in records if any(d["revote"] for d in r["days"]))
    print(f"\n{support.machine()}")
    print(f"games: {len(records)}, days: {len(days)}")
    print(f"games with at least one tie: {with_tie}/{len(records)}")
    print(f"games with at least one revote: {with_revote}/{len(records)}")
    print(f"days with a tie: {sum(1 for d in days if d['tie'])}/{len(days)}")
    print(f"ties by kind: {dict(Counter(d['tie'] for d in days if d['tie']))}")
    print(f"revotes by outcome: {dict(Counter(d['revote'] for d in days if d['revote']))}")
    print(f"winners: {dict(Counter(r['winner'] for r in records))}")
    seconds = sorted(r["seconds"] for r in records)
    if seconds:
        print(f"seconds a game: median {seconds[len(seconds) // 2]}, max {seconds[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
