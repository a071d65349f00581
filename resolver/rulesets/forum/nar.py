"""Natural Action Resolution (NAR) for the forum rule set: ``"method": "nar"``.

The Golden Rule: resolve an action before the actions it could change. Each player who
acts is a node; X -> Y when X's outcome depends on Y's action (nar_graph.py has the rule
for every ability). Then, as natural-action-resolution-engine.md says:

1. no nodes left: done;
2. a player who depends on no unresolved player resolves (earliest seat first), repeat;
3. otherwise build the strongly connected components, 4. take a component with no
   outgoing edge, 5. resolve its player of highest NAR priority (bus, block, redirect,
   protect, other, kill, inspect); equal priorities: a random pick seeded from the game
   seed and the night number, so a replay picks the same; back to 2.

Resolving a player applies their actions given what already resolved: a block that
resolved first stops every action of its target; swaps and redirects move the targets of
actions resolved after them. Kills, reveals and information results happen at the end of
the night, from what resolved. The README (Rules: NAR) explains the choices.
"""

from __future__ import annotations

import bisect
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...model import Action, GameState, NightOutcome, Player
from ..base import Ruleset, names
from . import common
from .nar_graph import Dependencies, ResolutionQueue, dependency_graph
from .roles import INVESTIGATION_IMMUNE

# mafiascum NAR, "In case of emergency breakdown of the Golden Rule": Copy, Hide, Bus,
# Block, Redirect, Protect, Miscellaneous, Kill, Recruit, Inspect (forum has no copy, hide
# or recruit). A role combining two actions takes the earlier one (jail: block).
PRIORITY_GROUPS = ("bus", "block", "redirect", "protect", "other", "kill", "inspect")
ABILITY_GROUP = {
    "swap": "bus",
    "block": "block",
    "jail": "block",
    "redirect": "redirect",
    "protect": "protect",
    "frame": "other",
    "clean": "other",
    "kill": "kill",
    "investigate": "inspect",
    "track": "inspect",
    "watch": "inspect",
}

VERBS = {
    "kill": "kill",
    "protect": "protection",
    "investigate": "investigation",
    "block": "block",
    "jail": "jail",
    "track": "track",
    "watch": "watch",
    "swap": "bus swap",
    "redirect": "redirect",
    "frame": "frame",
    "clean": "clean",
}


def resolve_nar(rules: Ruleset, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
    """Resolve one night by NAR; the outcome's state has tonight's deaths and spent vests."""
    night = _Night(rules, state)
    standing = night.standing_actions(actions)
    deps = dependency_graph(state, standing, state.flags.get("narSharedSwaps", "compose"))
    for action in standing:
        night.actions_by[action.actor].append(action)
    night.run(deps)
    return night.finish()


def _at_most(items: Iterable[str], sep: str, limit: int = 8) -> str:
    """Join the first ``limit`` items: a dense loop's full edge list helps nobody read."""
    shown: list[str] = []
    more = 0
    for item in items:
        if len(shown) < limit:
            shown.append(item)
        else:
            more += 1
    if not more:
        return names(shown) if sep == ", " else sep.join(shown)
    return sep.join(shown) + f"{sep}and {more} more"


def priority_group(actions: Sequence[Action]) -> str:
    """A player's NAR priority group: the earliest group of any of their actions."""
    return min((ABILITY_GROUP[a.ability] for a in actions), key=PRIORITY_GROUPS.index)


def night_rng(state: GameState) -> random.Random:
    """The random source for tonight's tie-breaks: same seed and night, same picks."""
    return random.Random(f"nar:{state.seed}:{state.night_number + 1}")


@dataclass
class _Night:
    """The working state of one NAR night (mutable; thrown away after ``finish``)."""

    rules: Ruleset
    state: GameState
    actions_by: dict[str, list[Action]] = field(default_factory=lambda: defaultdict(list))
    resolved: list[str] = field(default_factory=list)  # in resolution order
    done: set[str] = field(default_factory=set)  # the same players, for look-ups
    _explained_loop: set[str] = field(default_factory=set)  # players of cycles explained
    blocked_by: dict[str, str] = field(default_factory=dict)
    swaps: list[tuple[str, str, str]] = field(default_factory=list)  # driver, a, b
    swaps_of: dict[str, list[int]] = field(default_factory=dict)  # player -> places in swaps
    redirects: dict[str, tuple[str, str]] = field(default_factory=dict)  # who -> (by, to)
    protections: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # (by, how)
    kills: list[tuple[str, str, str]] = field(default_factory=list)  # killer, target, kind
    frames: dict[str, list[str]] = field(default_factory=dict)
    cleans: dict[str, list[str]] = field(default_factory=dict)
    visits: dict[str, list[str]] = field(default_factory=dict)  # visitor -> landed targets
    reads: list[tuple[Action, str]] = field(default_factory=list)  # info action, landed on
    order_notes: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    players: dict[str, Player] = field(init=False)  # by name: the state's look-up is a scan
    seats: dict[str, int] = field(init=False)
    _visitors: dict[str, list[str]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.players = {p.name: p for p in self.state.players}
        self.seats = {p.name: i for i, p in enumerate(self.state.players)}

    # -- before the graph ----------------------------------------------------------------
    def standing_actions(self, actions: Sequence[Action]) -> tuple[Action, ...]:
        """Drop "no action" entries, every mafia kill but the last submitted, and the
        actions a loyal or disloyal player's target makes fail."""
        kept, lines = common.last_kill_stands(self.state, actions)
        kept, failed = common.allegiance_failures(self.state, kept)
        self.effects.extend([*lines, *failed])
        return kept

    def _who(self, name: str) -> str:
        return f"{name} ({self.players[name].role})"

    # -- the NAR loop ----------------------------------------------------------------------
    def run(self, deps: Dependencies) -> None:
        seats = self.seats
        graph = deps.graph()
        queue = ResolutionQueue(graph, seats)
        rng = night_rng(self.state)
        while queue:  # step 1
            pick = queue.next_free()
            if pick is not None:  # step 2: everyone pick waits for has resolved
                waited = sorted(graph[pick], key=seats.__getitem__)
                if waited:
                    why = _at_most((r for w in waited for r in deps.reasons(pick, w)), "; ")
                    self.order_notes.append(
                        f"{self._who(pick)} resolves after "
                        f"{_at_most((self._who(w) for w in waited), ', ')}: {why}."
                    )
            else:  # steps 3-5
                pick = self._break_cycle(queue.sink_loop(), graph, deps, rng)
            self.resolve_player(pick)
            self.resolved.append(pick)
            self.done.add(pick)
            queue.resolve(pick)

    def _break_cycle(
        self,
        cycle: tuple[str, ...],
        graph: dict[str, set[str]],
        deps: Dependencies,
        rng: random.Random,
    ) -> str:
        groups = {p: priority_group(self.actions_by[p]) for p in cycle}
        best = min(groups.values(), key=PRIORITY_GROUPS.index)
        top = [p for p in cycle if groups[p] == best]
        pick = top[0] if len(top) == 1 else rng.choice(top)
        if len(top) == 1:
            later = sorted(set(groups.values()) - {best}, key=PRIORITY_GROUPS.index)
            how = (
                f"{self._who(pick)} goes first: {best} actions come before "
                f"{', '.join(later)} in NAR's priority order"
            )
        else:
            sharing = (
                f"{len(top)} of them" if self._explained_loop.issuperset(cycle) else names(top)
            )
            how = (
                f"{sharing} share the highest priority ({best}), so the seeded random "
                f"pick chose {self._who(pick)} to go first"
            )
        if self._explained_loop.issuperset(cycle):
            # What is left of a loop already explained: say only how it was broken again,
            # so a big loop's explanation stays linear in its size.
            self.order_notes.append(f"{len(cycle)} players are still in that cycle: {how}.")
        else:
            self._explained_loop.update(cycle)
            place = {p: i for i, p in enumerate(cycle)}
            why = _at_most(
                (
                    r
                    for x in cycle
                    for y in sorted((y for y in graph[x] if y in place), key=place.__getitem__)
                    for r in deps.reasons(x, y)
                ),
                "; ",
            )
            self.order_notes.append(
                f"{_at_most(cycle, ', ')} depend on each other, a cycle ({why}): {how}."
            )
        return pick

    # -- resolving one player ----------------------------------------------------------------
    def resolve_player(self, actor: str) -> None:
        acts = self.actions_by[actor]
        blocker = self.blocked_by.get(actor)
        if blocker is not None:
            what = names([f"{VERBS[a.ability]} on {names(list(a.targets))}" for a in acts])
            self.effects.append(f"{actor} was blocked by {blocker}, so {actor}'s {what} failed.")
            return
        for action in acts:
            self.apply(action)

    def land(self, action: Action) -> tuple[list[str], list[str]]:
        """Where the action's targets end up now, and why they moved."""
        why: list[str] = []
        targets = list(action.targets)
        if action.ability == "redirect":
            return [self.bus(targets[0], why), targets[1]], why
        if len(targets) == 1 and action.actor in self.redirects:
            by, to = self.redirects[action.actor]
            if to != targets[0]:
                why.append(f"{by} redirected {action.actor} to {to}")
            targets = [to]
        if action.ability == "swap" and self.state.flags.get("narSharedSwaps") == "cancel":
            return targets, why
        return [self.bus(t, why) for t in targets], why

    def bus(self, target: str, why: list[str]) -> str:
        """The player an action aimed at ``target`` reaches after tonight's resolved swaps."""
        if self.state.flags.get("narSharedSwaps") == "cancel":
            mine = [self.swaps[i] for i in self.swaps_of.get(target, ())]
            if len(mine) == 1:
                driver, a, b = mine[0]
                other = b if target == a else a
                why.append(f"{driver} swapped {target} and {other}")
                return other
            if len(mine) > 1:
                why.append(f"{names([s[0] for s in mine])}'s swaps of {target} cancel out")
            return target
        place = -1  # composed in the order they resolved: the next swap naming target
        while True:
            places = self.swaps_of.get(target, [])
            nxt = bisect.bisect_right(places, place)
            if nxt == len(places):
                return target
            place = places[nxt]
            driver, a, b = self.swaps[place]
            other = b if target == a else a
            why.append(f"{driver} swapped {target} and {other}")
            target = other

    def apply(self, action: Action) -> None:
        actor = action.actor
        landed, why = self.land(action)
        if why:
            self.effects.append(
                f"{actor}'s {VERBS[action.ability]} on {names(list(action.targets))} lands on "
                f"{names(landed)}: {'; '.join(why)}."
            )
        if common.is_visit(action.ability):
            self.visits.setdefault(actor, []).extend(landed)
        getattr(self, f"_{action.ability}")(action, landed)

    def _stop(self, action: Action, target: str) -> bool:
        """The blocking half of a block or jail; True when it stops the target acting."""
        actor, verb = action.actor, VERBS[action.ability]
        if common.is_strong_willed(self.players[target]):
            self.effects.append(
                f"{actor}'s {verb} cannot stop {target}: {target} is strong-willed."
            )
        elif target == actor or target in self.done:
            self.effects.append(
                f"{actor}'s {verb} on {target} came too late: {target} had already acted."
            )
        elif target not in self.actions_by:
            self.effects.append(f"{actor}'s {verb} lands on {target}, who took no night action.")
        else:
            self.blocked_by.setdefault(target, actor)
            return True
        return False

    def _block(self, action: Action, landed: list[str]) -> None:
        if self._stop(action, landed[0]):
            self.effects.append(f"{action.actor} blocks {landed[0]}: their actions will fail.")

    def _jail(self, action: Action, landed: list[str]) -> None:
        target = landed[0]
        self.protections.setdefault(target, []).append((action.actor, "jailed"))
        if self._stop(action, target):
            self.effects.append(
                f"{action.actor} jails {target}: they are protected and cannot act."
            )
        else:
            self.effects.append(f"{action.actor} jails {target}: they are protected.")

    def _protect(self, action: Action, landed: list[str]) -> None:
        self.protections.setdefault(landed[0], []).append((action.actor, "protected"))
        self.effects.append(f"{action.actor} protects {landed[0]}.")

    def _swap(self, action: Action, landed: list[str]) -> None:
        a, b = landed
        for player in dict.fromkeys((a, b)):
            self.swaps_of.setdefault(player, []).append(len(self.swaps))
        self.swaps.append((action.actor, a, b))
        self.effects.append(
            f"{action.actor} swaps {a} and {b}: actions aimed at one land on the other."
        )

    def _redirect(self, action: Action, landed: list[str]) -> None:
        who, to = landed
        if who == action.actor or who in self.done:
            self.effects.append(
                f"{action.actor}'s redirect of {who} came too late: {who} had already acted."
            )
            return
        self.redirects[who] = (action.actor, to)
        self.effects.append(f"{action.actor} redirects {who}'s action to {to}.")

    def _kill(self, action: Action, landed: list[str]) -> None:
        kind = "mafia" if common.is_factional_kill(self.state, action) else "vigilante"
        self.kills.append((action.actor, landed[0], kind))

    def _frame(self, action: Action, landed: list[str]) -> None:
        self.frames.setdefault(landed[0], []).append(action.actor)
        self.effects.append(f"{action.actor} frames {landed[0]}: they read as mafia tonight.")

    def _clean(self, action: Action, landed: list[str]) -> None:
        self.cleans.setdefault(landed[0], []).append(action.actor)

    def _read(self, action: Action, landed: list[str]) -> None:
        self.reads.append((action, landed[0]))

    _investigate = _track = _watch = _read

    # -- end of the night --------------------------------------------------------------------
    def finish(self) -> NightOutcome:
        state = self.state
        self._paranoid_gun_owners()
        self._weak_players()
        dead, spent, death_lines = self._deaths()
        results: dict[str, list[dict[str, Any]]] = {}
        cleaned: list[str] = []
        clean_lines: list[str] = []
        for target, janitors in self.cleans.items():
            if target not in dead:
                clean_lines.append(
                    f"{names(janitors)}'s clean on {target} did nothing: they lived."
                )
                continue
            cleaned.append(target)
            clean_lines.append(f"{target}'s role is not revealed: {names(janitors)} cleaned them.")
            for janitor in janitors:
                role = self.players[target].role
                results.setdefault(janitor, []).append(common.clean_result(target, role))
        read_lines = self._information(results)
        order = [self._who(p) for p in self.resolved]
        header = (
            f"Resolution order: {', '.join(order)}." if order else "Nobody took a night action."
        )
        lines = [header, *self.order_notes, *self.effects, *death_lines, *clean_lines, *read_lines]
        return common.finish_night(state, dead, results, cleaned, lines, spent)

    def _paranoid_gun_owners(self) -> None:
        """Passive: every player whose visit landed on a PGO is shot (after all actions)."""
        visitors = self.visitors()
        for pgo in self.state.alive:
            if not common.is_paranoid_gun_owner(pgo):
                continue
            for visitor in sorted(visitors.get(pgo.name, ()), key=self.seats.__getitem__):
                if visitor != pgo.name:
                    self.kills.append((pgo.name, visitor, "pgo"))
                    self.effects.append(
                        f"{pgo.name} (paranoid gun owner) shoots {visitor}, who visited them."
                    )

    def _weak_players(self) -> None:
        """Passive: a weak player whose visit landed on a scum player dies (a kill, after
        all actions: protection, bulletproof and vests stop it)."""
        for visitor, spots in self.visits.items():
            if not common.is_weak(self.players[visitor]):
                continue
            for spot in dict.fromkeys(spots):
                if spot != visitor and common.is_scum(self.players[spot]):
                    self.kills.append((spot, visitor, "weak"))
                    self.effects.append(
                        f"{visitor} is weak and visited {spot}, who is "
                        f"{self.players[spot].alignment}: {visitor} will die unless saved."
                    )

    def visitors(self) -> dict[str, list[str]]:
        """Who visited each player (each visitor once, in the order they first visited
        anyone), read from the finished night; worked out once."""
        if self._visitors is None:
            self._visitors = {}
            for visitor, spots in self.visits.items():
                for spot in dict.fromkeys(spots):
                    self._visitors.setdefault(spot, []).append(visitor)
        return self._visitors

    def _deaths(self) -> tuple[list[str], list[str], list[str]]:
        """Who dies; whose vest was spent; one line per kill saying why it worked or not."""
        state = self.state
        stops_all = bool(state.flags.get("protectionStopsAllKills", True))
        attempts: dict[str, list[tuple[str, str]]] = {}
        for killer, target, kind in self.kills:
            attempts.setdefault(target, []).append((killer, kind))
        dead: list[str] = []
        spent: list[str] = []
        lines: list[str] = []
        for player in state.players:
            shots = attempts.get(player.name)
            if not shots:
                continue
            name = player.name
            shields = list(self.protections.get(name, ()))
            if shields and common.is_macho(player):
                lines.append(
                    f"{name} is macho: {names([by for by, _ in shields])}'s protection "
                    "does nothing."
                )
                shields = []
            vest = common.has_vest(state, name)
            hits = []
            for killer, kind in shots:
                shot = _describe_kill(killer, kind)
                if shields:
                    by, how = shields[0] if stops_all else shields.pop(0)
                    lines.append(f"{name} survives: {by} {how} them, so {shot} failed.")
                elif common.is_bulletproof(player):
                    lines.append(f"{name} survives: they are bulletproof, so {shot} failed.")
                elif vest:
                    vest = False
                    spent.append(name)
                    lines.append(
                        f"{name} survives: their one-shot vest stopped {shot}; "
                        "the vest is now spent."
                    )
                else:
                    hits.append(shot)
            if hits:
                dead.append(name)
                lines.append(f"{name} dies: {names(hits)} killed them.")
        return dead, spent, lines

    def _information(self, results: dict[str, list[dict[str, Any]]]) -> list[str]:
        """Cop, tracker and watcher results, read from the finished night."""
        lines = []
        for action, target in self.reads:
            actor = self.players[action.actor]
            asked = action.targets[0]  # the PM names the player they chose
            if action.ability == "investigate":
                framed = target in self.frames
                entry = common.investigation_result(
                    self.state, actor.name, asked, framed, landed_on=target
                )
                seen = self.players[target]
                why = []
                if framed:
                    why.append(f"{target} was framed by {names(self.frames[target])}")
                elif seen.role in INVESTIGATION_IMMUNE and seen.alignment == "mafia":
                    why.append(f"{target} is a {seen.role}, who reads innocent")
                if actor.sanity != "sane":
                    why.append(f"{actor.name} is a {actor.sanity} cop")
                lines.append(
                    f"{actor.name} investigates {target} and is told {entry['result']}"
                    + (f" ({'; '.join(why)})." if why else ".")
                )
            elif action.ability == "track":
                ninja = common.is_ninja(self.players[target])
                entry = common.track_result(
                    asked, () if ninja else self.visits.get(target, ()), target
                )
                visited = entry["visited"]
                lines.append(
                    f"{actor.name} tracks {target}, a ninja: no visit is seen."
                    if ninja
                    else f"{actor.name} tracks {target}, who visited {names(visited)}."
                    if visited
                    else f"{actor.name} tracks {target}, who went nowhere."
                )
            else:
                came = [v for v in self.visitors().get(target, ()) if v != actor.name]
                visitors = [v for v in came if not common.is_ninja(self.players[v])]
                hidden = [v for v in came if v not in visitors]
                entry = common.watch_result(asked, visitors, target)
                lines.append(
                    f"{actor.name} watches {target}, visited by {names(entry['visitors'])}"
                    + (f" ({names(hidden)} also visited, unseen: ninja)." if hidden else ".")
                )
            results.setdefault(actor.name, []).append(entry)
        return lines


def _describe_kill(killer: str, kind: str) -> str:
    if kind == "mafia":
        return f"the mafia's kill (by {killer})"
    if kind == "pgo":
        return f"{killer}'s paranoid gun"
    if kind == "weak":
        return f"their weakness (they visited {killer})"
    return f"{killer}'s shot"
