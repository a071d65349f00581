"""NAR's fast bookkeeping against a plain reading of the rules document.

nar.py and nar_graph.py use indexes, a ready queue and loops kept up to date so that big
nights stay fast. These tests check, on random nights and graphs, that they give exactly
what the slow, literal steps of the manual (docs/rules/forum-nar.md) give: the same possible landing
spots, the same arrows (with their reasons), and the same resolution order, including the
seeded random tie-breaks.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path
from types import MappingProxyType

import pytest

from resolver.rulesets import get_ruleset
from resolver.rulesets.forum import common
from resolver.rulesets.forum.nar import PRIORITY_GROUPS, night_rng, priority_group
from resolver.rulesets.forum.nar_graph import (
    ResolutionQueue,
    condensation,
    dependency_graph,
    possible_targets,
)

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "resolver_bench.py"
_spec = importlib.util.spec_from_file_location("resolver_bench", _BENCH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

RULES = get_ruleset("forum")


# -- the literal steps (slow on purpose) -----------------------------------------------------


def reference_spots(actions, shared_swaps):
    """Where each action could land: apply both rules to every action until nothing moves."""
    spots = {
        a.index: {a.targets[0]} if a.ability == "redirect" else set(a.targets) for a in actions
    }
    redirects = [a for a in actions if a.ability == "redirect"]
    swaps = [a for a in actions if a.ability == "swap"]
    changed = True
    while changed:
        changed = False
        for a in actions:
            new = set(spots[a.index])
            if len(a.targets) == 1:
                for r in redirects:
                    if r is not a and a.actor in spots[r.index]:
                        new.add(r.targets[1])
            if a.ability != "swap" or shared_swaps == "compose":
                for s in swaps:
                    if s is not a and new & spots[s.index]:
                        new |= spots[s.index]
            if new != spots[a.index]:
                spots[a.index] = new
                changed = True
    return spots


def reference_order(graph, seats, pick_in_loop):
    """Steps 1-5: take the earliest free player; if none, build the components of what is
    left, take the sink loop with the earliest player, let ``pick_in_loop`` choose."""
    remaining = sorted(graph, key=seats.__getitem__)
    order = []
    while remaining:
        left = set(remaining)
        free = [p for p in remaining if not graph[p] & left]
        if free:
            pick = free[0]
        else:
            cond = condensation({p: graph[p] & left for p in remaining})
            sink = min(cond.sinks(), key=lambda i: seats[cond.components[i][0]])
            pick = pick_in_loop(cond.components[sink])
        order.append(pick)
        remaining.remove(pick)
    return order


def queue_order(graph, seats, pick_in_loop):
    queue = ResolutionQueue(graph, seats)
    order = []
    while queue:
        pick = queue.next_free()
        if pick is None:
            pick = pick_in_loop(queue.sink_loop())
        order.append(pick)
        queue.resolve(pick)
    return order


# -- random nights ----------------------------------------------------------------------------


def random_nights(count, seed):
    """Benchmark-style nights (dense with blocks, jails, swaps and redirects), small enough
    to run the slow reference, with both swap readings and varied seeds."""
    rng = random.Random(seed)
    for i in range(count):
        size = rng.choice([4, 6, 8, 12, 16, 24, 40])
        window = rng.choice([0, 1, 2, 4])
        state, raw = bench.random_night(size, rng, "nar", window)
        flags = dict(state.flags, narSharedSwaps=rng.choice(["compose", "cancel"]))
        state = dataclasses.replace(
            state, flags=MappingProxyType(flags), seed=rng.randrange(10**6), night_number=i % 3
        )
        yield state, RULES.parse_night(state, raw, "$.night")


def test_landing_spots_match_the_repeated_sweep():
    for _state, actions in random_nights(60, seed=1):
        for shared in ("compose", "cancel"):
            assert possible_targets(actions, shared) == reference_spots(actions, shared)


def test_indexed_arrows_match_trying_every_pair():
    for state, actions in random_nights(60, seed=2):
        shared = state.flags["narSharedSwaps"]
        fast = dependency_graph(state, actions, shared).edges
        slow = dependency_graph(state, actions, shared, every_pair=True).edges
        assert fast == slow  # same arrows, each with its reasons in the same order


def test_resolution_order_matches_the_documents_steps():
    loops_broken = ties = 0
    for state, actions in random_nights(80, seed=3):
        outcome = RULES.resolve_night(state, actions)
        standing, _ = common.last_kill_stands(state, actions)
        actions_by = {}
        for a in standing:
            actions_by.setdefault(a.actor, []).append(a)
        deps = dependency_graph(state, standing, state.flags["narSharedSwaps"])
        seats = {p.name: i for i, p in enumerate(state.players)}
        rng = night_rng(state)

        def pick_in_loop(loop, rng=rng, actions_by=actions_by):
            nonlocal loops_broken, ties
            groups = {p: priority_group(actions_by[p]) for p in loop}
            best = min(groups.values(), key=PRIORITY_GROUPS.index)
            top = [p for p in loop if groups[p] == best]
            loops_broken += 1
            ties += len(top) > 1
            return top[0] if len(top) == 1 else rng.choice(top)

        order = reference_order(deps.graph(), seats, pick_in_loop)
        expected = ", ".join(f"{p} ({state.player(p).role})" for p in order)
        assert outcome.explanation[0] == (
            f"Resolution order: {expected}." if order else "Nobody took a night action."
        )
    assert loops_broken > 50 and ties > 20  # the nights really exercise steps 3-5


@pytest.mark.parametrize("density", [0.02, 0.08, 0.3])
def test_queue_matches_recomputing_components_on_random_graphs(density):
    rng = random.Random(int(density * 1000))
    for _ in range(40):
        n = rng.randrange(2, 40)
        nodes = [f"p{i}" for i in range(n)]
        seats = {p: i for i, p in enumerate(rng.sample(nodes, n))}
        graph = {p: {q for q in nodes if q != p and rng.random() < density} for p in nodes}
        seed = rng.randrange(10**6)
        mine, theirs = random.Random(seed), random.Random(seed)
        fast = queue_order(graph, seats, lambda loop, rng=mine: rng.choice(loop))
        slow = reference_order(graph, seats, lambda loop, rng=theirs: rng.choice(loop))
        assert fast == slow
        assert sorted(fast) == sorted(nodes)
