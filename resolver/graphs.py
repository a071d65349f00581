"""Graph algorithms the rule sets share (pure functions over plain dicts)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


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
