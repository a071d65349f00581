"""The dependency graph of Natural Action Resolution, and the graph algorithms it needs.

Nodes are players (one node per player who acts tonight, all their actions together);
an edge X -> Y means "the outcome of X's action depends on Y's action", so Y must
resolve first. ``dependency_graph`` states the rule for every forum ability;
``strongly_connected_components`` and ``condensation`` find the cycles NAR must break.
Everything is iterative: no recursion limit, whatever the size of the night.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...model import Action, GameState
from .common import is_strong_willed
from .roles import VISITING_ABILITIES

# Abilities whose single target a redirector can change (a swap or a redirect has two).
ONE_TARGET = 1

# -- graph algorithms ---------------------------------------------------------------------


def strongly_connected_components(graph: Mapping[str, Iterable[str]]) -> list[tuple[str, ...]]:
    """Tarjan's algorithm without recursion.

    ``graph`` maps each node to the nodes it points to (edges to unknown nodes are
    ignored). Components come out sinks first: a component's edges only reach components
    listed before it. Inside a component, nodes keep ``graph``'s order.
    """
    order = {node: i for i, node in enumerate(graph)}
    succ = {node: [m for m in graph[node] if m in order] for node in graph}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []

    def enter(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for root in graph:
        if root in index:
            continue
        enter(root)
        work = [(root, iter(succ[root]))]
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    enter(nxt)
                    work.append((nxt, iter(succ[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    found.append(tuple(sorted(members, key=order.__getitem__)))
    return found


@dataclass(frozen=True)
class Condensation:
    """The acyclic graph of strongly connected components ("supergraph S")."""

    components: tuple[tuple[str, ...], ...]
    edges: tuple[frozenset[int], ...]  # component i points to components edges[i]

    def sinks(self) -> list[int]:
        """Components with no outgoing edge: any of them may resolve first."""
        return [i for i, out in enumerate(self.edges) if not out]

    def component_of(self, node: str) -> int:
        return next(i for i, c in enumerate(self.components) if node in c)


def condensation(graph: Mapping[str, Iterable[str]]) -> Condensation:
    components = strongly_connected_components(graph)
    where = {node: i for i, comp in enumerate(components) for node in comp}
    edges = []
    for i, comp in enumerate(components):
        out = {where[m] for node in comp for m in graph[node] if m in where}
        out.discard(i)
        edges.append(frozenset(out))
    return Condensation(tuple(components), tuple(edges))


# -- NAR dependencies of forum abilities --------------------------------------------------


@dataclass(frozen=True)
class Dependencies:
    """``edges[X][Y]``: why X's actions depend on Y's (one or more short phrases)."""

    edges: Mapping[str, Mapping[str, tuple[str, ...]]]

    def graph(self) -> dict[str, set[str]]:
        return {x: set(ys) for x, ys in self.edges.items()}

    def reasons(self, x: str, y: str) -> tuple[str, ...]:
        return tuple(self.edges.get(x, {}).get(y, ()))


def possible_targets(actions: Sequence[Action], shared_swaps: str) -> dict[int, set[str]]:
    """Every player each action could end up on, once swaps and redirects are applied.

    Keyed by ``Action.index``. For a redirect it is where its first target (whose action
    is redirected) could be. A swap's own targets move with other swaps only when
    ``shared_swaps`` is "compose". Over-approximates on purpose: NAR orders an action after
    everything that *could possibly* change it.
    """
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
            if len(a.targets) == ONE_TARGET:
                for r in redirects:
                    if r is not a and a.actor in spots[r.index]:
                        new.add(r.targets[1])
            moves_with_swaps = a.ability != "swap" or shared_swaps == "compose"
            for s in swaps:
                if moves_with_swaps and s is not a and new & spots[s.index]:
                    new |= spots[s.index]
            if new != spots[a.index]:
                spots[a.index] = new
                changed = True
    return spots


def dependency_graph(
    state: GameState, actions: Sequence[Action], shared_swaps: str
) -> Dependencies:
    """Who waits for whom tonight, with the reason, by the rules in docs/rules/forum-nar.md."""
    spots = possible_targets(actions, shared_swaps)
    edges: dict[str, dict[str, list[str]]] = {a.actor: {} for a in actions}

    def add(x: str, y: str, why: str) -> None:
        if x != y:
            reasons = edges[x].setdefault(y, [])
            if why not in reasons:
                reasons.append(why)

    for a in actions:  # a: Y's action, that may change b: X's action
        y = a.actor
        for b in actions:
            x = b.actor
            if x == y:
                continue
            overlap = bool(spots[a.index] & spots[b.index])
            stoppable = not is_strong_willed(state.player(x))
            # "surely" when x is named, "could" when only a swap or redirect may bring it there
            named = x in a.targets[:1] if a.ability == "redirect" else x in a.targets
            if a.ability in ("block", "jail") and x in spots[a.index] and stoppable:
                verb = "jails" if a.ability == "jail" else "blocks"
                add(x, y, f"{y} {verb} {x}" if named else f"{y}'s {a.ability} could land on {x}")
            if a.ability in ("protect", "jail") and b.ability == "kill" and overlap:
                add(x, y, f"{y}'s protection could stop {x}'s kill")
            if a.ability == "swap":
                moved = b.ability != "swap" or shared_swaps == "compose"
                if x in spots[a.index]:
                    add(x, y, f"{y} swaps {x}" if named else f"{y}'s swap could move {x}")
                elif overlap and moved:
                    add(x, y, f"{y}'s bus swap could move {x}'s action")
            if a.ability == "redirect" and x in spots[a.index]:
                add(x, y, f"{y} redirects {x}" if named else f"{y}'s redirect could land on {x}")
            if a.ability == "frame" and b.ability == "investigate" and overlap:
                add(x, y, f"{y}'s frame could change {x}'s result")
            if a.ability == "clean" and b.ability == "kill" and overlap:
                add(x, y, f"{y}'s clean could hide the role of {x}'s kill")
            if a.ability in VISITING_ABILITIES:
                if b.ability == "track" and y in spots[b.index]:
                    sure = y in b.targets
                    add(x, y, f"{x} tracks {y}" if sure else f"{x}'s track could land on {y}")
                if b.ability == "watch" and overlap:
                    add(x, y, f"{x} watches where {y} may go")
    return Dependencies({x: {y: tuple(r) for y, r in ys.items()} for x, ys in edges.items()})
