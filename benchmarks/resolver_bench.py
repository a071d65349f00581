"""Time forum night resolution on big random nights (RAR, and NAR when it exists).

    .venv/bin/python benchmarks/resolver_bench.py [--runs 7] [--sizes 25 100 400] [--clock cpu]

Each night is dense with roleblockers, jailkeepers, bus drivers and redirectors (plus
doctors, vigilantes, cops, trackers, watchers, paranoid gun owners and a mafia of goons,
roleblockers, framers and janitors); every player with an ability uses it on random
targets: anyone ("anyone"), or only the 4 seats either side ("nearby-4": actions pile
up on the same players, the dense case). Only ``resolve_night`` is timed (parsing and
checks are not). Prints the median and the worst run per size and method, in ms.
``--clock cpu`` times the process's CPU time instead of the wall clock: steadier when
other jobs share the machine's cores.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from resolver.engine import new_game
from resolver.model import GameState
from resolver.rulesets import get_ruleset

TOWN_MIX = (
    ("roleblocker", 14),
    ("jailkeeper", 14),
    ("bus_driver", 14),
    ("redirector", 10),
    ("doctor", 8),
    ("vigilante", 8),
    ("cop", 6),
    ("tracker", 5),
    ("watcher", 4),
    ("paranoid_gun_owner", 2),
)
MAFIA_MIX = (("goon", 3), ("mafia_roleblocker", 4), ("framer", 2), ("janitor", 2), ("godfather", 1))
MODIFIERS = ("bulletproof", "one_shot_bulletproof", "strong_willed")


def random_night(
    size: int, rng: random.Random, method: str, window: int = 0
) -> tuple[GameState, list[dict]]:
    """A legal setup of ``size`` players (a quarter mafia) and one raw night of actions.

    ``window``: when positive, players only target the ``window`` seats around them, so
    blocks, jails and swaps pile up on the same few players (the dense case)."""
    mafia = max(1, size // 4)
    roles = [_pick(rng, MAFIA_MIX) for _ in range(mafia)]
    roles += [_pick(rng, TOWN_MIX) for _ in range(size - mafia)]
    players = []
    for i, role in enumerate(roles):
        seat = {"name": f"P{i}", "role": role}
        if rng.random() < 0.1:
            seat["modifiers"] = [rng.choice(MODIFIERS)]
        players.append(seat)
    state = new_game("forum", players, method)
    names = [p["name"] for p in players]
    night: list[dict] = []
    rules = get_ruleset("forum")
    for i, seat in enumerate(players):
        near = [names[(i + d) % size] for d in range(-window, window + 1)] if window else names
        for ability in rules.roles[seat["role"]].abilities:
            others = [n for n in near if n != seat["name"]]
            if ability.slug == "redirect":
                targets = [rng.choice(others), rng.choice(others)]
            else:
                targets = rng.sample(others, ability.targets)
            night.append({"actor": seat["name"], "ability": ability.slug, "targets": targets})
    killers = [p["name"] for p in players[:mafia]]
    for killer in rng.sample(killers, min(2, len(killers))):
        target = rng.choice(names[mafia:])
        night.append({"actor": killer, "ability": "kill", "targets": [target]})
    return state, night


def _pick(rng: random.Random, mix: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([r for r, _ in mix], weights=[w for _, w in mix])[0]


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_method(
    method: str, size: int, runs: int, seed: int, window: int, clock: str = "wall"
) -> list[float]:
    rules = get_ruleset("forum")
    now = CLOCKS[clock]
    times = []
    warm_state, warm_raw = random_night(size, random.Random(-1), method, window)
    rules.resolve_night(warm_state, rules.parse_night(warm_state, warm_raw, "$.night"))
    for run in range(runs):
        rng = random.Random(seed * 1000 + size * 10 + run)
        state, raw = random_night(size, rng, method, window)
        actions = rules.parse_night(state, raw, "$.night")
        start = now()
        rules.resolve_night(state, actions)
        times.append((now() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 100, 400])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    args = parser.parse_args(argv)
    methods = ["rar"]
    try:
        from resolver.rulesets.forum import nar  # noqa: F401

        methods.append("nar")
    except ImportError:
        print("(nar.py not found: timing RAR only)")
    head = f"{'method':<6} {'targets':<9} {'players':>7} {'actions':>7}"
    print(f"{head} {'median ms':>10} {'max ms':>8}")
    for method in methods:
        for label, window in (("anyone", 0), ("nearby-4", 4)):
            for size in args.sizes:
                row = f"{method:<6} {label:<9} {size:>7}"
                try:
                    times = time_method(method, size, args.runs, args.seed, window, args.clock)
                except Exception as err:  # NAR may be unfinished: report, keep going
                    print(f"{row} failed: {type(err).__name__}: {err}")
                    continue
                actions = len(random_night(size, random.Random(0), method, window)[1])
                print(f"{row} {actions:>7} {statistics.median(times):>10.2f} {max(times):>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
