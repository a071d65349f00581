"""Reasonable Action Resolution (mafiascum's RAR) for forum nights.

RAR never asks whether "an action" worked; it asks of each end-of-night effect (does X
die, what is the cop told, whom does the tracker see) whether some reason for it holds.
A reason is backed by actions; it holds unless a counter-reason holds, recursively:

- an action is stopped by a roleblock or jail landing on its user (not strong-willed);
- a kill is stopped by a protection or jail landing on its target, by bulletproof, or by
  a one-shot vest (spent only when nothing else stopped the kill);
- an effect is moved from a player by a bus driver's swap, or at its original target by a
  redirector; two moves that apply at one place cancel each other ("you can't redirect
  an effect that's already been redirected elsewhere").

Every question carries its ``chain``: the ids (night-list indexes) of the actions already
in the dependency chain. A counter-reason whose action is in the chain is skipped (rule
#4), which ends every loop. Answers are memoised together with the chain members they
looked at, so an answer is reused in any chain that agrees on those members; this keeps a
dense 100-player night to milliseconds (benchmarks/resolver_bench.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ...model import Action, GameState, NightOutcome, Player
from ...text import _, gettext_noop
from ..base import Ruleset, names
from .common import (
    REDIRECTING,
    ability_noun,
    action_name,
    action_phrase,
    allegiance_failures,
    clean_result,
    components,
    finish_night,
    has_vest,
    investigation_result,
    is_bulletproof,
    is_macho,
    is_ninja,
    is_paranoid_gun_owner,
    is_scum,
    is_strong_willed,
    is_visit,
    is_weak,
    last_kill_stands,
    reading,
    track_result,
    watch_result,
)

Chain = frozenset[int]
Path = tuple["Move", ...]
ONCE = gettext_noop("an action appears once in a chain")
MEMO_SPECIFIC = 4  # chain-specific answers kept per question


@dataclass(frozen=True)
class Move:
    """A swap or redirection that can move an effect away from one position."""

    action: Action
    dest: str

    @property
    def id(self) -> int:
        return self.action.index


@dataclass(frozen=True)
class Landing:
    """Where an action's effect ends up, and the moves that took it there."""

    where: str
    path: Path = ()

    def chain(self, base: Chain) -> Chain:
        return base | {m.id for m in self.path}


@dataclass
class Attempt:
    """One reason a player might die: a kill landing on them, or a visit of theirs that
    landed on a paranoid gun owner (``gun_owner``) or, for a weak player, on a scum player
    (``weak_on``). ``stands`` ignores protection; ``protections`` are the protections that
    hold against it."""

    source: Action
    landing: Landing
    chain: Chain
    gun_owner: str | None = None
    acted: bool = True
    protections: tuple[Action, ...] = ()
    weak_on: str | None = None

    @property
    def stands(self) -> bool:
        return self.acted and not self.protections


def resolve_rar(rules: Ruleset, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
    """Resolve one forum night by RAR."""
    kept, lines = last_kill_stands(state, actions)
    kept, failed = allegiance_failures(state, kept)
    night = _Night(state, kept)
    limit = sys.getrecursionlimit()
    # Chains can be as long as the night's action list; each link costs a few frames.
    sys.setrecursionlimit(max(limit, 2000 + 30 * len(kept)))
    try:
        return night.resolve([*lines, *failed])
    finally:
        sys.setrecursionlimit(limit)


_T = TypeVar("_T")


class _Night:
    def __init__(self, state: GameState, actions: Sequence[Action]) -> None:
        self.state = state
        self.actions = tuple(actions)
        self._players = {p.name: p for p in state.players}
        self.swaps_at: dict[str, list[Move]] = {}
        self.redirects_of: dict[str, list[Move]] = {}  # by the player redirected
        self.visits_by: dict[str, list[Action]] = {}
        for a in self.actions:
            if a.ability == "swap" and a.targets[0] != a.targets[1]:
                x, y = a.targets
                self.swaps_at.setdefault(x, []).append(Move(a, y))
                self.swaps_at.setdefault(y, []).append(Move(a, x))
            elif a.ability == "redirect":
                self.redirects_of.setdefault(a.targets[0], []).append(Move(a, a.targets[1]))
            if is_visit(a.ability):
                self.visits_by.setdefault(a.actor, []).append(a)
        self._group = self._swap_groups()
        # component -> position -> actions whose effect could land there
        self.reach: dict[str, dict[str, list[Action]]] = {}
        self.visit_reach: dict[str, list[Action]] = {}
        for a in self.actions:
            if a.ability in REDIRECTING:
                continue
            for pos in self._reachable(a):
                for comp in components(a.ability):
                    self.reach.setdefault(comp, {}).setdefault(pos, []).append(a)
                if is_visit(a.ability):
                    self.visit_reach.setdefault(pos, []).append(a)
        self._cache: dict[Hashable, list[tuple[frozenset[int], frozenset[int], Any]]] = {}
        self._tested: list[set[int]] = [set()]

    # -- indexes ---------------------------------------------------------------------
    def player(self, name: str) -> Player:
        return self._players[name]

    def _swap_groups(self) -> dict[str, frozenset[str]]:
        """Players linked by swaps: an effect can only travel inside its group."""
        parent: dict[str, str] = {}

        def find(p: str) -> str:
            while parent.setdefault(p, p) != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        for pos, moves in self.swaps_at.items():
            for m in moves:
                parent[find(pos)] = find(m.dest)
        groups: dict[str, set[str]] = {}
        for p in list(parent):
            groups.setdefault(find(p), set()).add(p)
        return {p: frozenset(groups[find(p)]) for p in parent}

    def _reachable(self, action: Action) -> set[str]:
        # Every action here has a target (last_kill_stands drops the rest): targets[0] is
        # action.target, typed as a name.
        starts = {action.targets[0], *(m.dest for m in self.redirects_of.get(action.actor, ()))}
        out: set[str] = set()
        for s in starts:
            out |= self._group.get(s, {s})
        return out

    def _moves(self, pos: str, actor: str, first: bool) -> list[Move]:
        """Moves that apply to ``actor``'s effect at ``pos``: swaps of ``pos`` anywhere on
        the path, redirections of ``actor`` only at the original target."""
        moves = self.swaps_at.get(pos, [])
        if first and actor in self.redirects_of:
            return [*moves, *self.redirects_of[actor]]
        return moves

    # -- memo ------------------------------------------------------------------------
    def _skip(self, action_id: int, chain: Chain) -> bool:
        """Rule #4: an action already in the chain has no effect. Recorded for the memo."""
        self._tested[-1].add(action_id)
        return action_id in chain

    def _memo(self, key: Hashable, chain: Chain, compute: Callable[[], _T]) -> _T:
        # An answer depends on the chain only through the chain tests it made: reuse it
        # in any chain that answers those tests the same way. Answers that hit no chain
        # member (the common case) are kept for good; chain-specific ones only a few per
        # question, so a long loop does not make every look-up scan a long list.
        entries = self._cache.get(key)
        if entries:
            for tested, hit, value in entries:
                if hit <= chain and len(tested & chain) == len(hit):
                    self._tested[-1] |= tested
                    kept: _T = value  # a key's answers are all of its question's type
                    return kept
        self._tested.append(set())
        try:
            value = compute()
        finally:
            tested = frozenset(self._tested.pop())
        hit = tested & chain
        entries = self._cache.setdefault(key, [])
        if hit:
            specific = [i for i, e in enumerate(entries) if e[1]]
            if len(specific) >= MEMO_SPECIFIC:
                del entries[specific[0]]
            entries.append((tested, hit, value))
        else:
            entries.insert(0, (tested, hit, value))
        self._tested[-1] |= tested
        return value

    # -- the questions -------------------------------------------------------------------
    def acts(self, actor: str, chain: Chain) -> bool:
        """Do ``actor``'s actions take effect, or does a roleblock (or jail) stop them?"""
        if is_strong_willed(self.player(actor)):
            return True
        return self._memo(("acts", actor), chain, lambda: self.blocker(actor, chain) is None)

    def blocker(self, actor: str, chain: Chain) -> tuple[Action, Chain] | None:
        """The first roleblock or jail that lands on ``actor`` and holds, if any."""
        if is_strong_willed(self.player(actor)):
            return None
        for b in self.reach.get("block", {}).get(actor, ()):
            hit = self.lands_on(b, actor, chain)
            if hit is not None:
                return b, hit
        return None

    def lands_on(self, action: Action, player: str, chain: Chain) -> Chain | None:
        """The chain of a holding reason for ``action``'s effect landing on ``player``
        (``action`` not in ``chain``, its user not blocked), else None."""
        if self._skip(action.index, chain):
            return None
        base = chain | {action.index}
        for landing in self.landings(action, base):
            if landing.where == player:
                full = landing.chain(base)
                if self.acts(action.actor, full):
                    return full
        return None

    def landings(self, action: Action, chain: Chain) -> tuple[Landing, ...]:
        """Where the effect of ``action`` (already in ``chain``) ends up after moves."""
        # The actor matters only to redirections: leave it out of the key otherwise.
        redirected = action.actor if action.actor in self.redirects_of else None
        return self._memo(
            ("land", redirected, action.target),
            chain,
            lambda: tuple(self._walk(action.actor, action.target, chain, True)),  # type: ignore[arg-type]
        )

    def _walk(
        self, actor: str, pos: str, chain: Chain, first: bool, path: frozenset[int] = frozenset()
    ) -> list[Landing]:
        # A move is skipped only when it already moved this very effect (``path``): the
        # chain's rule #4 does not stop a swap that helped a kill from also moving the
        # protection aimed at the kill's new target (Method 1's swapped doctor).
        live = [
            m
            for m in self._moves(pos, actor, first)
            if m.id not in path and self.move_holds(m, pos, actor, first, chain, path)
        ]
        if not live:
            return [Landing(pos)]
        out = []
        for m in live:
            for rest in self._walk(actor, m.dest, chain | {m.id}, False, path | {m.id}):
                out.append(Landing(rest.where, (m, *rest.path)))
        return out

    def move_holds(
        self, move: Move, pos: str, actor: str, first: bool, chain: Chain, path: frozenset[int]
    ) -> bool:
        """Does ``move`` take the effect away from ``pos``? Only if its user is not blocked
        and no other move that applies at ``pos`` (and has not already moved this effect)
        goes ahead too: moves at one place cancel each other, however many there are."""
        if not self.acts(move.action.actor, chain | {move.id}):
            return False
        return not any(
            other.id != move.id
            and other.id not in path
            and self.acts(other.action.actor, chain | {other.id})
            for other in self._moves(pos, actor, first)
        )

    def protections(self, player: str, chain: Chain) -> tuple[Action, ...]:
        """The protections (doctor, jail) that land on ``player`` and hold (none hold on a
        macho player)."""
        if is_macho(self.player(player)):
            return ()

        def compute() -> tuple[Action, ...]:
            return tuple(
                p
                for p in self.reach.get("protect", {}).get(player, ())
                if self.lands_on(p, player, chain) is not None
            )

        return self._memo(("protect", player), chain, compute)

    def effect_on(self, component: str, player: str, chain: Chain) -> Action | None:
        """The first action with this component (frame, clean) that lands and holds."""
        for a in self.reach.get(component, {}).get(player, ()):
            if self.lands_on(a, player, chain) is not None:
                return a
        return None

    # -- the night ---------------------------------------------------------------------
    def resolve(self, lines: list[str]) -> NightOutcome:
        state = self.state
        dead: list[str] = []
        vests: list[str] = []
        for player in state.players:
            attempts = self.attempts_on(player.name)
            if not attempts:
                continue
            dies, vest, line = self.judge(player.name, attempts)
            lines.append(line)
            if dies:
                dead.append(player.name)
            if vest:
                vests.append(player.name)
        results: dict[str, list[dict[str, Any]]] = {}
        cleaned: list[str] = []
        for a in self.actions:
            for result, line in self.results_of(a, set(dead), cleaned):
                if result is not None:
                    results.setdefault(a.actor, []).append(result)
                if line:
                    lines.append(line)
        return finish_night(state, dead, results, cleaned, lines, vests)

    # -- deaths ----------------------------------------------------------------------------
    def attempts_on(self, name: str) -> list[Attempt]:
        """Every kill that was aimed at or landed on ``name``, and every visit of theirs
        that landed on a paranoid gun owner."""
        out: list[Attempt] = []
        for k in self.reach.get("kill", {}).get(name, ()):
            base = frozenset({k.index})
            for landing in self.landings(k, base):
                if landing.where == name or k.target == name:
                    out.append(self._attempt(k, landing, base, name))
        weak = is_weak(self.player(name))
        for v in self.visits_by.get(name, ()):
            base = frozenset({v.index})
            for landing in self.landings(v, base):
                owner = self.player(landing.where)
                if landing.where == name:
                    continue
                if is_paranoid_gun_owner(owner):
                    out.append(self._attempt(v, landing, base, name, owner.name))
                if weak and is_scum(owner):
                    attempt = self._attempt(v, landing, base, name, owner.name)
                    attempt.gun_owner, attempt.weak_on = None, owner.name
                    out.append(attempt)
        return out

    def _attempt(
        self, source: Action, landing: Landing, base: Chain, name: str, owner: str | None = None
    ) -> Attempt:
        chain = landing.chain(base)
        attempt = Attempt(source, landing, chain, owner)
        if landing.where != name and owner is None:
            attempt.acted = False  # moved away: explained, never a death
            return attempt
        attempt.acted = self.acts(source.actor, chain)
        if attempt.acted:
            attempt.protections = self.protections(name, chain)
        return attempt

    def judge(self, name: str, attempts: list[Attempt]) -> tuple[bool, bool, str]:
        """Does ``name`` die; is their vest spent; and the line saying why."""
        player = self.player(name)
        live = [a for a in attempts if a.acted]
        if live and is_bulletproof(player):
            shots = names([self._kill_name(a) for a in live])
            line = _("%(player)s survives: %(player)s is bulletproof, so %(shots)s fails.")
            return False, False, line % {"player": name, "shots": shots}
        if self.state.flags.get("protectionStopsAllKills", True):
            standing = [a for a in live if a.stands]
            note = ""
        else:
            standing, note = self._one_kill_each(name, live)
        # A vest is one more protection: it stops every kill that night, or one kill
        # when protectionStopsAllKills is false. Kills already stopped never spend it.
        vest = (
            bool(standing)
            and has_vest(self.state, name)
            and (len(standing) == 1 or self.state.flags.get("protectionStopsAllKills", True))
        )
        dies = bool(standing) and not vest
        clauses = [self._attempt_clause(name, a) for a in attempts]
        if vest:
            shots = names([self._kill_name(a) for a in standing])
            clauses.append(
                _("%(player)s's one-shot vest stops %(shots)s (the vest is now used up)")
                % {"player": name, "shots": shots}
            )
        elif dies and player.has("one_shot_bulletproof"):
            clauses.append(_("%(player)s's one-shot vest was already used up") % {"player": name})
        text = "; ".join(c for c in [*clauses, note] if c)
        line = _("%(player)s dies: %(why)s.") if dies else _("%(player)s survives: %(why)s.")
        return dies, vest, line % {"player": name, "why": text}

    def _one_kill_each(self, name: str, live: list[Attempt]) -> tuple[list[Attempt], str]:
        """protectionStopsAllKills=false: match each holding protection to one kill it
        holds against (maximum matching; kills in night-list order, protections by their
        order), and the kills left over stand."""
        owner: dict[int, Attempt] = {}  # protection index -> the kill it stops

        def assign(attempt: Attempt, seen: set[int]) -> bool:
            for p in attempt.protections:
                if p.index in seen:
                    continue
                seen.add(p.index)
                if p.index not in owner or assign(owner[p.index], seen):
                    owner[p.index] = attempt
                    return True
            return False

        stopped = {id(a) for a in live if a.protections and assign(a, set())}
        standing = [a for a in live if id(a) not in stopped]
        note = ""
        if any(a.protections for a in standing):
            note = _("one protection stops only one kill in this game")
        for a in live:  # a protection that did not stop this kill is explained as unused
            if id(a) not in stopped:
                a.protections = ()
            else:
                a.protections = tuple(
                    self.actions_by_index(p) for p, owner_a in owner.items() if owner_a is a
                )
        return standing, note

    def actions_by_index(self, index: int) -> Action:
        return next(a for a in self.actions if a.index == index)

    def _kill_name(self, attempt: Attempt) -> str:
        if attempt.weak_on is not None:
            return _("%(player)s's weakness") % {"player": attempt.source.actor}
        if attempt.gun_owner is not None:
            return _("%(player)s's paranoid gun") % {"player": attempt.gun_owner}
        return action_name(self.state, attempt.source)

    def _attempt_clause(self, name: str, a: Attempt) -> str:
        kill = self._kill_name(a)
        if a.gun_owner is not None:
            kill = _(
                "%(owner)s's paranoid gun (fired at %(player)s for visiting with %(action)s)"
            ) % {
                "owner": a.gun_owner,
                "player": name,
                "action": action_name(self.state, a.source),
            }
        if a.weak_on is not None:
            kill = _(
                "%(player)s's weakness (%(player)s is weak and their %(ability)s landed on "
                "%(target)s, who is %(alignment)s)"
            ) % {
                "player": name,
                "ability": ability_noun(self.state, a.source),
                "target": a.weak_on,
                "alignment": self.player(a.weak_on).alignment,
            }
        moved = self._path_text(a.source, a.landing)
        if a.landing.where != name and a.gun_owner is None and a.weak_on is None:
            return _("%(action)s on %(player)s was %(moved)s") % {
                "action": action_name(self.state, a.source),
                "player": name,
                "moved": moved,
            }
        if moved and a.landing.path:
            kill = f"{kill} ({moved})"
        if not a.acted:
            return _("%(kill)s fails: %(why)s") % {
                "kill": kill,
                "why": self._stopped(a.source.actor, a.chain),
            }
        if a.protections:
            p = a.protections[0]
            why = self._goes_ahead(p.actor, self.lands_on(p, name, a.chain) or a.chain)
            # (each clause after it is a translated clause of its own: a list, "; "-joined)
            countered = _("%(kill)s was countered by %(action)s") % {
                "kill": kill,
                "action": action_name(self.state, p),
            }
            return "; ".join([countered, *why])
        parts = [_("%(kill)s stands") % {"kill": kill}]
        if moved and not a.landing.path:
            parts.append(moved)  # moves that cancelled each other
        parts += self._goes_ahead(a.source.actor, a.chain)
        for p in self.reach.get("protect", {}).get(name, ()):
            parts.append(self._failed_protection(p, name, a.chain))
        return "; ".join(x for x in parts if x)

    def _failed_protection(self, p: Action, name: str, chain: Chain) -> str:
        values = {
            "action": action_name(self.state, p),
            "player": name,
            "once": _(ONCE),  # i18n: marked at its source
        }
        if is_macho(self.player(name)) and p.target == name:
            return (
                _("%(action)s does nothing: %(player)s is macho and cannot be protected") % values
            )
        if p.index in chain:
            return _("%(action)s cannot protect %(player)s again (%(once)s)") % values
        base = chain | {p.index}
        for landing in self.landings(p, base):
            if landing.where != name:
                if p.target == name:
                    values["moved"] = self._path_text(p, landing)
                    return _("%(action)s on %(player)s was %(moved)s") % values
                continue
            inner = landing.chain(base)
            if self.acts(p.actor, inner):
                return _("%(action)s already stops another kill") % values
            values["why"] = self._stopped(p.actor, inner)
            return _("%(action)s would have protected %(player)s, but %(why)s") % values
        return ""

    # -- why an action goes ahead or is stopped ------------------------------------------------
    def _stopped(self, actor: str, chain: Chain, depth: int = 3) -> str:
        """'Cat's roleblock on Bob stops it (...)' for an actor who is blocked."""
        found = self.blocker(actor, chain)
        if found is None:
            return _("it has no effect")
        block, inner = found
        text = _("%(action)s stops it") % {"action": action_phrase(self.state, block)}
        why = self._goes_ahead(block.actor, inner, depth - 1) if depth > 0 else []
        return text + (f" ({'; '.join(why)})" if why else "")

    def _goes_ahead(self, actor: str, chain: Chain, depth: int = 3) -> list[str]:
        """Why each roleblock aimed at ``actor`` failed, in the text's words."""
        if depth < 0 or is_strong_willed(self.player(actor)):
            return (
                [
                    _("%(player)s is strong-willed, so roleblocks and jails do not stop them")
                    % {"player": actor}
                ]
                if depth >= 0 and self.reach.get("block", {}).get(actor)
                else []
            )
        out = []
        for b in self.reach.get("block", {}).get(actor, ()):
            label = action_phrase(self.state, b)
            if b.index in chain:
                if b.target == actor:
                    out.append(
                        _("%(action)s cannot counter it again: %(once)s")
                        % {
                            "action": action_name(self.state, b),
                            "once": _(ONCE),  # i18n: marked at its source
                        }
                    )
                continue
            base = chain | {b.index}
            for landing in self.landings(b, base):
                if landing.where != actor:
                    if b.target == actor:
                        out.append(
                            _("%(action)s was %(moved)s")
                            % {"action": label, "moved": self._path_text(b, landing)}
                        )
                    continue
                inner = landing.chain(base)
                found = self.blocker(b.actor, inner)
                if found is None:
                    continue
                counter, deeper = found
                text = _("%(kill)s was countered by %(action)s") % {
                    "kill": label,
                    "action": action_phrase(self.state, counter),
                }
                why = self._goes_ahead(counter.actor, deeper, depth - 1)
                out.append(text + (f" ({'; '.join(why)})" if why else ""))
        return out

    def _path_text(self, action: Action, landing: Landing) -> str:
        """'swapped onto B by Bea's swap' / '' when the effect was not moved."""
        if not landing.path:
            conflict = self._conflict_at(action, landing.where)
            return conflict
        steps = []
        for i, move in enumerate(landing.path):
            values = {"dest": move.dest, "action": action_name(self.state, move.action)}
            if move.action.ability == "swap":
                step = (
                    _("swapped onto %(dest)s by %(action)s")
                    if i == 0
                    else _("then swapped onto %(dest)s by %(action)s")
                )
            else:
                step = (
                    _("redirected onto %(dest)s by %(action)s")
                    if i == 0
                    else _("then redirected onto %(dest)s by %(action)s")
                )
            steps.append(step % values)
        return ", ".join(steps)

    def _conflict_at(self, action: Action, pos: str) -> str:
        moves = self._moves(pos, action.actor, True)
        if len(moves) < 2:
            return ""
        acting = [m for m in moves if self.acts(m.action.actor, frozenset({m.id}))]
        if len(acting) < 2:
            return ""
        who = names([action_name(self.state, m.action) for m in acting])
        return _(
            "%(actions)s cancel each other at %(player)s: an effect cannot be moved two ways"
        ) % {
            "actions": who,
            "player": pos,
        }

    # -- results -------------------------------------------------------------------------------
    def results_of(
        self, a: Action, dead: set[str], cleaned: list[str]
    ) -> list[tuple[dict[str, Any] | None, str]]:
        """The private results of one action and the lines explaining them."""
        kind = next(
            (c for c in ("investigate", "track", "watch", "clean") if c in components(a.ability)),
            None,
        )
        if kind is None:
            return []
        base = frozenset({a.index})
        landings = self.landings(a, base)
        out: list[tuple[dict[str, Any] | None, str]] = []
        for landing in landings:
            chain = landing.chain(base)
            where = landing.where
            moved = self._path_text(a, landing) if landing.path else ""
            label = action_phrase(self.state, a) + (f" ({moved})" if moved else "")
            if not self.acts(a.actor, chain):
                if kind != "clean":
                    line = _("%(player)s gets no result: %(why)s.") % {
                        "player": a.actor,
                        "why": self._stopped(a.actor, chain),
                    }
                    out.append((None, line))
                continue
            if kind == "investigate":
                frame = self.effect_on("frame", where, chain)
                result = investigation_result(
                    self.state,
                    a.actor,
                    a.targets[0],  # a.target: every action here has one (see _reachable)
                    frame is not None,
                    where,
                )
                read = self._why_reading(a.actor, where, frame, result["result"])
                out.append(
                    (result, _("%(action)s: %(result)s") % {"action": label, "result": read})
                )
            elif kind == "track":
                visited = self._visited(where, chain)
                values = {"player": where, "visited": names(visited), "tracker": a.actor}
                seen = (
                    _("%(player)s visited %(visited)s") % values
                    if visited
                    else _("%(player)s went nowhere") % values
                )
                if is_ninja(self.player(where)):
                    seen = _("%(player)s is a ninja, so %(tracker)s sees no visit") % values
                line = _("%(action)s: %(seen)s.") % {"action": label, "seen": seen}
                out.append((track_result(a.target, visited, where), line))  # type: ignore[arg-type]
            elif kind == "watch":
                visitors = self._visitors(where, a.actor, chain)
                values = {"visitors": names(visitors), "player": where}
                seen = (
                    _("%(visitors)s visited %(player)s") % values
                    if visitors
                    else _("nobody visited %(player)s") % values
                )
                hidden = self._visitors(where, a.actor, chain, ninjas=True)
                if hidden:
                    seen = _("%(seen)s (%(hidden)s also visited, unseen: ninja)") % {
                        "seen": seen,
                        "hidden": names(hidden),
                    }
                line = _("%(action)s: %(seen)s.") % {"action": label, "seen": seen}
                out.append((watch_result(a.target, visitors, where), line))  # type: ignore[arg-type]
            elif where in dead and where not in cleaned:
                cleaned.append(where)
                role = self.player(where).role
                out.append(
                    (
                        clean_result(where, role),
                        _(
                            "%(action)s: %(player)s dies and is revealed as unknown; "
                            "%(janitor)s learns %(player)s was a %(role)s."
                        )
                        % {"action": label, "player": where, "janitor": a.actor, "role": role},
                    )
                )
        return out

    def _why_reading(self, cop: str, target: str, frame: Action | None, result: str) -> str:
        player = self.player(target)
        notes = []
        if frame is not None:
            notes.append(
                _("%(player)s was framed by %(framer)s") % {"player": target, "framer": frame.actor}
            )
        elif player.role == "godfather":
            notes.append(_("a godfather reads innocent"))
        sanity = self.player(cop).sanity
        if sanity != "sane":
            notes.append(
                _(
                    SANE_COPS.get(sanity, "%(cop)s is a %(sanity)s cop")
                )  # i18n: marked at its source
                % {"cop": cop, "sanity": sanity}
            )
        values = {
            "player": target,
            "result": reading(result),
            "notes": "; ".join(notes),
        }
        if notes:
            return _("%(player)s reads %(result)s (%(notes)s).") % values
        return _("%(player)s reads %(result)s.") % values

    def _visited(self, tracked: str, chain: Chain) -> list[str]:
        """Where ``tracked``'s visits landed and held (rule #3: track and visit both); a
        ninja's visits are never seen."""
        if is_ninja(self.player(tracked)):
            return []
        visited = []
        for v in self.visits_by.get(tracked, ()):
            if self._skip(v.index, chain):
                continue
            base = chain | {v.index}
            for landing in self.landings(v, base):
                if self.acts(tracked, landing.chain(base)):
                    visited.append(landing.where)
        return sorted(set(visited))

    def _visitors(
        self, watched: str, watcher: str, chain: Chain, ninjas: bool = False
    ) -> list[str]:
        """Who visited ``watched`` and is seen (the watcher does not see their own visit,
        nobody sees a ninja's); ``ninjas``: the ninjas who visited, unseen, instead."""
        return sorted(
            {
                v.actor
                for v in self.visit_reach.get(watched, ())
                if v.actor != watcher
                and is_ninja(self.player(v.actor)) == ninjas
                and self.lands_on(v, watched, chain) is not None
            }
        )


# A cop of each sanity, as the explanation names them.
SANE_COPS = {
    "insane": gettext_noop("%(cop)s is an insane cop"),
    "paranoid": gettext_noop("%(cop)s is a paranoid cop"),
    "naive": gettext_noop("%(cop)s is a naive cop"),
}
