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
from ...text import _, pgettext
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

# Each ability named in a sentence ("Bea's bus swap on Ann lands on ..."), in the
# reader's language.
VERBS = {
    "kill": lambda: pgettext("NAR action", "kill"),
    "protect": lambda: pgettext("NAR action", "protection"),
    "investigate": lambda: pgettext("NAR action", "investigation"),
    "block": lambda: pgettext("NAR action", "block"),
    "jail": lambda: pgettext("NAR action", "jail"),
    "track": lambda: pgettext("NAR action", "track"),
    "watch": lambda: pgettext("NAR action", "watch"),
    "swap": lambda: pgettext("NAR action", "bus swap"),
    "redirect": lambda: pgettext("NAR action", "redirect"),
    "frame": lambda: pgettext("NAR action", "frame"),
    "clean": lambda: pgettext("NAR action", "clean"),
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
    return sep.join([*shown, _("and %(n)s more") % {"n": more}])


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
        return f"{name} ({self.players[name].role})"  # a name and a role slug: data

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
                        _("%(player)s resolves after %(waited)s: %(why)s.")
                        % {
                            "player": self._who(pick),
                            "waited": _at_most((self._who(w) for w in waited), ", "),
                            "why": why,
                        }
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
            how = _(
                "%(player)s goes first: %(best)s actions come before %(later)s in NAR's "
                "priority order"
            ) % {
                "player": self._who(pick),
                "best": _group(best),
                "later": ", ".join(_group(g) for g in later),
            }
        else:
            sharing = (
                _("%(n)s of them") % {"n": len(top)}
                if self._explained_loop.issuperset(cycle)
                else names(top)
            )
            how = _(
                "%(players)s share the highest priority (%(best)s), so the seeded random "
                "pick chose %(player)s to go first"
            ) % {"players": sharing, "best": _group(best), "player": self._who(pick)}
        if self._explained_loop.issuperset(cycle):
            # What is left of a loop already explained: say only how it was broken again,
            # so a big loop's explanation stays linear in its size.
            self.order_notes.append(
                _("%(n)s players are still in that cycle: %(how)s.") % {"n": len(cycle), "how": how}
            )
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
                _("%(players)s depend on each other, a cycle (%(why)s): %(how)s.")
                % {"players": _at_most(cycle, ", "), "why": why, "how": how}
            )
        return pick

    # -- resolving one player ----------------------------------------------------------------
    def resolve_player(self, actor: str) -> None:
        acts = self.actions_by[actor]
        blocker = self.blocked_by.get(actor)
        if blocker is not None:
            what = names(
                [
                    _("%(verb)s on %(targets)s")
                    % {"verb": VERBS[a.ability](), "targets": names(list(a.targets))}
                    for a in acts
                ]
            )
            self.effects.append(
                _("%(actor)s was blocked by %(blocker)s, so %(actor)s's %(what)s failed.")
                % {"actor": actor, "blocker": blocker, "what": what}
            )
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
                why.append(
                    _("%(by)s redirected %(actor)s to %(to)s")
                    % {"by": by, "actor": action.actor, "to": to}
                )
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
                why.append(
                    _("%(driver)s swapped %(target)s and %(other)s")
                    % {"driver": driver, "target": target, "other": other}
                )
                return other
            if len(mine) > 1:
                why.append(
                    _("%(drivers)s's swaps of %(target)s cancel out")
                    % {"drivers": names([s[0] for s in mine]), "target": target}
                )
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
            why.append(
                _("%(driver)s swapped %(target)s and %(other)s")
                % {"driver": driver, "target": target, "other": other}
            )
            target = other

    def apply(self, action: Action) -> None:
        actor = action.actor
        landed, why = self.land(action)
        if why:
            self.effects.append(
                _("%(actor)s's %(verb)s on %(targets)s lands on %(landed)s: %(why)s.")
                % {
                    "actor": actor,
                    "verb": VERBS[action.ability](),
                    "targets": names(list(action.targets)),
                    "landed": names(landed),
                    "why": "; ".join(why),
                }
            )
        if common.is_visit(action.ability):
            self.visits.setdefault(actor, []).extend(landed)
        getattr(self, f"_{action.ability}")(action, landed)

    def _stop(self, action: Action, target: str) -> bool:
        """The blocking half of a block or jail; True when it stops the target acting."""
        values = {"actor": action.actor, "verb": VERBS[action.ability](), "target": target}
        if common.is_strong_willed(self.players[target]):
            self.effects.append(
                _("%(actor)s's %(verb)s cannot stop %(target)s: %(target)s is strong-willed.")
                % values
            )
        elif target == action.actor or target in self.done:
            self.effects.append(
                _("%(actor)s's %(verb)s on %(target)s came too late: %(target)s had already acted.")
                % values
            )
        elif target not in self.actions_by:
            self.effects.append(
                _("%(actor)s's %(verb)s lands on %(target)s, who took no night action.") % values
            )
        else:
            self.blocked_by.setdefault(target, action.actor)
            return True
        return False

    def _block(self, action: Action, landed: list[str]) -> None:
        if self._stop(action, landed[0]):
            self.effects.append(
                _("%(actor)s blocks %(target)s: their actions will fail.")
                % {"actor": action.actor, "target": landed[0]}
            )

    def _jail(self, action: Action, landed: list[str]) -> None:
        target = landed[0]
        self.protections.setdefault(target, []).append((action.actor, "jailed"))
        values = {"actor": action.actor, "target": target}
        if self._stop(action, target):
            self.effects.append(
                _("%(actor)s jails %(target)s: they are protected and cannot act.") % values
            )
        else:
            self.effects.append(_("%(actor)s jails %(target)s: they are protected.") % values)

    def _protect(self, action: Action, landed: list[str]) -> None:
        self.protections.setdefault(landed[0], []).append((action.actor, "protected"))
        self.effects.append(
            _("%(actor)s protects %(target)s.") % {"actor": action.actor, "target": landed[0]}
        )

    def _swap(self, action: Action, landed: list[str]) -> None:
        a, b = landed
        for player in dict.fromkeys((a, b)):
            self.swaps_of.setdefault(player, []).append(len(self.swaps))
        self.swaps.append((action.actor, a, b))
        self.effects.append(
            _("%(actor)s swaps %(a)s and %(b)s: actions aimed at one land on the other.")
            % {"actor": action.actor, "a": a, "b": b}
        )

    def _redirect(self, action: Action, landed: list[str]) -> None:
        who, to = landed
        if who == action.actor or who in self.done:
            self.effects.append(
                _("%(actor)s's redirect of %(who)s came too late: %(who)s had already acted.")
                % {"actor": action.actor, "who": who}
            )
            return
        self.redirects[who] = (action.actor, to)
        self.effects.append(
            _("%(actor)s redirects %(who)s's action to %(to)s.")
            % {"actor": action.actor, "who": who, "to": to}
        )

    def _kill(self, action: Action, landed: list[str]) -> None:
        kind = "mafia" if common.is_factional_kill(self.state, action) else "vigilante"
        self.kills.append((action.actor, landed[0], kind))

    def _frame(self, action: Action, landed: list[str]) -> None:
        self.frames.setdefault(landed[0], []).append(action.actor)
        self.effects.append(
            _("%(actor)s frames %(target)s: they read as mafia tonight.")
            % {"actor": action.actor, "target": landed[0]}
        )

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
                    _("%(janitors)s's clean on %(target)s did nothing: they lived.")
                    % {"janitors": names(janitors), "target": target}
                )
                continue
            cleaned.append(target)
            clean_lines.append(
                _("%(target)s's role is not revealed: %(janitors)s cleaned them.")
                % {"janitors": names(janitors), "target": target}
            )
            for janitor in janitors:
                role = self.players[target].role
                results.setdefault(janitor, []).append(common.clean_result(target, role))
        read_lines = self._information(results)
        order = [self._who(p) for p in self.resolved]
        header = (
            _("Resolution order: %(order)s.") % {"order": ", ".join(order)}
            if order
            else _("Nobody took a night action.")
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
                        _("%(pgo)s (paranoid gun owner) shoots %(visitor)s, who visited them.")
                        % {"pgo": pgo.name, "visitor": visitor}
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
                        _(
                            "%(visitor)s is weak and visited %(spot)s, who is %(alignment)s: "
                            "%(visitor)s will die unless saved."
                        )
                        % {
                            "visitor": visitor,
                            "spot": spot,
                            "alignment": self.players[spot].alignment,
                        }
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
                    _("%(player)s is macho: %(by)s's protection does nothing.")
                    % {"player": name, "by": names([by for by, _how in shields])}
                )
                shields = []
            vest = common.has_vest(state, name)
            hits = []
            for killer, kind in shots:
                shot = _describe_kill(killer, kind)
                if shields:
                    by, how = shields[0] if stops_all else shields.pop(0)
                    values = {"player": name, "by": by, "shot": shot}
                    line = (
                        _("%(player)s survives: %(by)s jailed them, so %(shot)s failed.")
                        if how == "jailed"
                        else _("%(player)s survives: %(by)s protected them, so %(shot)s failed.")
                    )
                    lines.append(line % values)
                elif common.is_bulletproof(player):
                    lines.append(
                        _("%(player)s survives: they are bulletproof, so %(shot)s failed.")
                        % {"player": name, "shot": shot}
                    )
                elif vest:
                    vest = False
                    spent.append(name)
                    lines.append(
                        _(
                            "%(player)s survives: their one-shot vest stopped %(shot)s; "
                            "the vest is now spent."
                        )
                        % {"player": name, "shot": shot}
                    )
                else:
                    hits.append(shot)
            if hits:
                dead.append(name)
                lines.append(
                    _("%(player)s dies: %(hits)s killed them.")
                    % {"player": name, "hits": names(hits)}
                )
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
                    why.append(
                        _("%(player)s was framed by %(framer)s")
                        % {"player": target, "framer": names(self.frames[target])}
                    )
                elif seen.role in INVESTIGATION_IMMUNE and seen.alignment == "mafia":
                    why.append(
                        _("%(player)s is a %(role)s, who reads innocent")
                        % {"player": target, "role": seen.role}
                    )
                if actor.sanity != "sane":
                    why.append(
                        _("%(cop)s is a %(sanity)s cop")
                        % {"cop": actor.name, "sanity": actor.sanity}
                    )
                values = {
                    "cop": actor.name,
                    "target": target,
                    "result": common.reading(entry["result"]),
                    "why": "; ".join(why),
                }
                lines.append(
                    (
                        _("%(cop)s investigates %(target)s and is told %(result)s (%(why)s).")
                        if why
                        else _("%(cop)s investigates %(target)s and is told %(result)s.")
                    )
                    % values
                )
            elif action.ability == "track":
                ninja = common.is_ninja(self.players[target])
                entry = common.track_result(
                    asked, () if ninja else self.visits.get(target, ()), target
                )
                visited = entry["visited"]
                line = (
                    _("%(actor)s tracks %(target)s, a ninja: no visit is seen.")
                    if ninja
                    else _("%(actor)s tracks %(target)s, who visited %(visited)s.")
                    if visited
                    else _("%(actor)s tracks %(target)s, who went nowhere.")
                )
                lines.append(
                    line % {"actor": actor.name, "target": target, "visited": names(visited)}
                )
            else:
                came = [v for v in self.visitors().get(target, ()) if v != actor.name]
                visitors = [v for v in came if not common.is_ninja(self.players[v])]
                hidden = [v for v in came if v not in visitors]
                entry = common.watch_result(asked, visitors, target)
                values = {
                    "actor": actor.name,
                    "target": target,
                    "visitors": names(entry["visitors"]),
                    "hidden": names(hidden),
                }
                line = (
                    _(
                        "%(actor)s watches %(target)s, visited by %(visitors)s "
                        "(%(hidden)s also visited, unseen: ninja)."
                    )
                    if hidden
                    else _("%(actor)s watches %(target)s, visited by %(visitors)s.")
                )
                lines.append(line % values)
            results.setdefault(actor.name, []).append(entry)
        return lines


def _describe_kill(killer: str, kind: str) -> str:
    values = {"killer": killer}
    if kind == "mafia":
        return _("the mafia's kill (by %(killer)s)") % values
    if kind == "pgo":
        return _("%(killer)s's paranoid gun") % values
    if kind == "weak":
        return _("their weakness (they visited %(killer)s)") % values
    return _("%(killer)s's shot") % values


def _group(group: str) -> str:
    """A NAR priority group's name in a sentence ("bus actions come before ...")."""
    names_ = {
        "bus": lambda: pgettext("NAR priority group", "bus"),
        "block": lambda: pgettext("NAR priority group", "block"),
        "redirect": lambda: pgettext("NAR priority group", "redirect"),
        "protect": lambda: pgettext("NAR priority group", "protect"),
        "other": lambda: pgettext("NAR priority group", "other"),
        "kill": lambda: pgettext("NAR priority group", "kill"),
        "inspect": lambda: pgettext("NAR priority group", "inspect"),
    }
    name = names_.get(group)
    return name() if name else group
