"""The dependency graph of Natural Action Resolution, and the graph algorithms it needs.

Nodes are players (one node per player who acts tonight, all their actions together);
an edge X -> Y means "the outcome of X's action depends on Y's action", so Y must
resolve first. ``dependency_graph`` states the rule for every forum ability;
``strongly_connected_components`` and ``condensation`` find the cycles NAR must break;
``ResolutionQueue`` keeps them up to date while the night is resolved.
Everything is iterative: no recursion limit, whatever the size of the night.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...graphs import strongly_connected_components
from ...model import Action, GameState
from ...text import _
from .common import is_strong_willed
from .roles import VISITING_ABILITIES

# Abilities whose single target a redirector can change (a swap or a redirect has two).
ONE_TARGET = 1

# -- graph algorithms ---------------------------------------------------------------------


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


class ResolutionQueue:
    """Who may resolve next while a NAR night is worked through (steps 2 to 4).

    Keeps, for the unresolved players only: how many unresolved players each one waits
    for (a player waiting for nobody is *free*: Kahn's algorithm), and the loops (strongly
    connected components) with how many arrows leave each loop. Resolving a player only
    touches the players waiting for them; breaking a loop re-splits only that loop. So a
    night costs about its number of players and arrows, plus the size of each broken loop,
    instead of a scan of the whole graph after every player.

    ``rank`` orders players (their seat): free players come out earliest first, and of
    several loops nobody in which waits on anyone outside it, the one whose earliest
    member is earliest.
    """

    def __init__(self, graph: Mapping[str, Iterable[str]], rank: Mapping[str, int]) -> None:
        self._rank = rank
        nodes = sorted(graph, key=rank.__getitem__)
        self._succ = {p: [q for q in graph[p] if q in graph and q != p] for p in nodes}
        self._pred: dict[str, list[str]] = {p: [] for p in nodes}
        for p in nodes:
            for q in self._succ[p]:
                self._pred[q].append(p)
        self._waiting = {p: len(self._succ[p]) for p in nodes}
        self._free = [(rank[p], p) for p in nodes if not self._waiting[p]]  # sorted: a heap
        self._left = set(nodes)
        self._loop_of: dict[str, int] = {}  # only players in a loop of two or more
        self._loops: dict[int, tuple[str, ...]] = {}
        self._exits: dict[int, int] = {}  # arrows from a loop to unresolved outsiders
        self._sinks: list[tuple[int, int]] = []  # heap of (rank of first member, loop)
        self._ids = 0
        self._split(nodes)

    def __bool__(self) -> bool:
        return bool(self._left)

    def next_free(self) -> str | None:
        """The earliest-ranked player waiting for nobody unresolved, if any."""
        return self._free[0][1] if self._free else None

    def sink_loop(self) -> tuple[str, ...]:
        """When nobody is free: the loop to break (members in rank order). The caller
        must resolve one of its members next."""
        while self._sinks:
            _, loop = heapq.heappop(self._sinks)
            if loop in self._loops:
                return self._loops[loop]
        raise LookupError("no loop without a way out: the graph has no unresolved player")

    def resolve(self, player: str) -> None:
        """Mark ``player`` resolved: update who is free and which loops became sinks."""
        if self._free and self._free[0][1] == player:
            heapq.heappop(self._free)
        self._left.discard(player)
        mine = self._loop_of.get(player)
        for x in self._pred[player]:
            if x not in self._left:
                continue
            self._waiting[x] -= 1
            if not self._waiting[x]:
                heapq.heappush(self._free, (self._rank[x], x))
            theirs = self._loop_of.get(x)
            if theirs is not None and theirs != mine:
                self._exits[theirs] -= 1
                if not self._exits[theirs]:
                    heapq.heappush(self._sinks, (self._rank[self._loops[theirs][0]], theirs))
        if mine is not None:  # the loop is broken: what is left of it may hold smaller loops
            rest = [p for p in self._loops.pop(mine) if p != player]
            del self._exits[mine], self._loop_of[player]
            for p in rest:
                del self._loop_of[p]
            self._split(rest)

    def _split(self, members: list[str]) -> None:
        """Find the loops among ``members`` (rank order), who are nobody's loop yet."""
        inside = set(members)
        sub = {p: [q for q in self._succ[p] if q in inside] for p in members}
        for comp in strongly_connected_components(sub):
            if len(comp) < 2:
                continue  # a lone player: free once everyone they wait for resolved
            loop = self._ids
            self._ids += 1
            self._loops[loop] = comp
            for p in comp:
                self._loop_of[p] = loop
            self._exits[loop] = sum(
                1
                for p in comp
                for q in self._succ[p]
                if q in self._left and self._loop_of.get(q) != loop
            )
            if not self._exits[loop]:
                heapq.heappush(self._sinks, (self._rank[comp[0]], loop))


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
    # The smallest sets closed under two rules, grown one (action, player) fact at a time
    # (each fact is looked at once; the old "repeat until nothing changes" sweep was
    # cubic on big nights):
    #   redirect r could reach X, X's one-target action b  =>  r's new target is b's spot;
    #   action b (not a swap unless "compose") could share a spot with swap s  =>  every
    #   spot of s is one of b's (b "rides" s from then on).
    spots: dict[int, set[str]] = {a.index: set() for a in actions}
    landing: dict[str, list[Action]] = {}  # player -> actions that could land there
    swaps_at: dict[str, list[Action]] = {}  # player -> swaps that could move them
    riders: dict[int, list[Action]] = {a.index: [] for a in actions if a.ability == "swap"}
    riding: set[tuple[int, int]] = set()  # (swap, action)
    one_target_of: dict[str, list[Action]] = {}  # actor -> their one-target actions
    for a in actions:
        if len(a.targets) == ONE_TARGET:
            one_target_of.setdefault(a.actor, []).append(a)
    todo: list[tuple[Action, str]] = []

    def add(a: Action, spot: str) -> None:
        if spot not in spots[a.index]:
            spots[a.index].add(spot)
            landing.setdefault(spot, []).append(a)
            if a.ability == "swap":
                swaps_at.setdefault(spot, []).append(a)
            todo.append((a, spot))

    def ride(s: Action, b: Action) -> None:
        if (s.index, b.index) not in riding:
            riding.add((s.index, b.index))
            riders[s.index].append(b)
            for spot in list(spots[s.index]):
                add(b, spot)

    def moves(a: Action) -> bool:
        return a.ability != "swap" or shared_swaps == "compose"

    for a in actions:
        for target in a.targets[:1] if a.ability == "redirect" else a.targets:
            add(a, target)
    while todo:
        a, spot = todo.pop()
        if a.ability == "redirect":
            for b in one_target_of.get(spot, ()):
                add(b, a.targets[1])
        if a.ability == "swap":
            for b in list(landing[spot]):
                if b.index != a.index and moves(b):
                    ride(a, b)
            for b in list(riders[a.index]):
                add(b, spot)
        if moves(a):
            for s in list(swaps_at.get(spot, ())):
                if s.index != a.index:
                    ride(s, a)
    return spots


# Which kinds of action b an action of each ability can change through an *overlap* of
# where both could land (spots[a] & spots[b]); None: every kind. Used to look up only the
# actions that could gain an arrow instead of trying every pair.
_CHANGES_BY_OVERLAP: dict[str, tuple[str, ...] | None] = {
    "protect": ("kill",),
    "jail": ("kill",),
    "clean": ("kill",),
    "frame": ("investigate",),
    "swap": None,
}
# Abilities that change the action of the player they could land on (x in spots[a]).
_CHANGES_ACTOR = frozenset({"block", "jail", "swap", "redirect"})


def dependency_graph(
    state: GameState, actions: Sequence[Action], shared_swaps: str, *, every_pair: bool = False
) -> Dependencies:
    """Who waits for whom tonight, with the reason, by the rules in the README (Rules: NAR).

    ``every_pair``: try every pair of actions instead of only those the look-up index
    offers (quadratic; the tests use it to check the index misses no arrow).
    """
    spots = possible_targets(actions, shared_swaps)
    strong_willed = {p.name for p in state.players if is_strong_willed(p)}
    edges: dict[str, dict[str, list[str]]] = {a.actor: {} for a in actions}
    # Index actions (by position) by actor and by where they could land, so each action
    # only meets the actions it could change: the number of pairs tried is the number of
    # arrows (up to repeats), not the square of the night's size.
    by_actor: dict[str, list[int]] = {}
    landing: dict[str, dict[str, list[int]]] = {}  # ability -> player -> positions
    for pos, b in enumerate(actions):
        by_actor.setdefault(b.actor, []).append(pos)
        where = landing.setdefault(b.ability, {})
        for spot in spots[b.index]:
            where.setdefault(spot, []).append(pos)

    def candidates(a: Action) -> list[int]:
        """Positions of every action ``a`` might change, in night order."""
        found: set[int] = set()
        mine = spots[a.index]
        if a.ability in _CHANGES_ACTOR:
            for spot in mine:
                found.update(by_actor.get(spot, ()))
        if a.ability in _CHANGES_BY_OVERLAP:
            kinds = _CHANGES_BY_OVERLAP[a.ability]
            for kind in landing if kinds is None else kinds:
                where = landing.get(kind, {})
                for spot in mine:
                    found.update(where.get(spot, ()))
        if a.ability in VISITING_ABILITIES:
            found.update(landing.get("track", {}).get(a.actor, ()))
            watches = landing.get("watch", {})
            for spot in mine:
                found.update(watches.get(spot, ()))
        return sorted(found)

    def add(x: str, y: str, why: str) -> None:
        if x != y:
            reasons = edges[x].setdefault(y, [])
            if why not in reasons:
                reasons.append(why)

    for a in actions:  # a: Y's action, that may change b: X's action
        y = a.actor
        for pos in range(len(actions)) if every_pair else candidates(a):
            b = actions[pos]
            x = b.actor
            if x == y:
                continue
            overlap = bool(spots[a.index] & spots[b.index])
            stoppable = x not in strong_willed
            # "surely" when x is named, "could" when only a swap or redirect may bring it there
            named = x in a.targets[:1] if a.ability == "redirect" else x in a.targets
            v = {"x": x, "y": y}
            if a.ability in ("block", "jail") and x in spots[a.index] and stoppable:
                if not named:
                    reason = (
                        _("%(y)s's jail could land on %(x)s")
                        if a.ability == "jail"
                        else _("%(y)s's block could land on %(x)s")
                    )
                elif a.ability == "jail":
                    reason = _("%(y)s jails %(x)s")
                else:
                    reason = _("%(y)s blocks %(x)s")
                add(x, y, reason % v)
            if a.ability in ("protect", "jail") and b.ability == "kill" and overlap:
                add(x, y, _("%(y)s's protection could stop %(x)s's kill") % v)
            if a.ability == "swap":
                moved = b.ability != "swap" or shared_swaps == "compose"
                if x in spots[a.index]:
                    reason = _("%(y)s swaps %(x)s") if named else _("%(y)s's swap could move %(x)s")
                    add(x, y, reason % v)
                elif overlap and moved:
                    add(x, y, _("%(y)s's bus swap could move %(x)s's action") % v)
            if a.ability == "redirect" and x in spots[a.index]:
                reason = (
                    _("%(y)s redirects %(x)s")
                    if named
                    else _("%(y)s's redirect could land on %(x)s")
                )
                add(x, y, reason % v)
            if a.ability == "frame" and b.ability == "investigate" and overlap:
                add(x, y, _("%(y)s's frame could change %(x)s's result") % v)
            if a.ability == "clean" and b.ability == "kill" and overlap:
                add(x, y, _("%(y)s's clean could hide the role of %(x)s's kill") % v)
            if a.ability in VISITING_ABILITIES:
                if b.ability == "track" and y in spots[b.index]:
                    sure = y in b.targets
                    reason = (
                        _("%(x)s tracks %(y)s") if sure else _("%(x)s's track could land on %(y)s")
                    )
                    add(x, y, reason % v)
                if b.ability == "watch" and overlap:
                    add(x, y, _("%(x)s watches where %(y)s may go") % v)
    return Dependencies({x: {y: tuple(r) for y, r in ys.items()} for x, ys in edges.items()})
