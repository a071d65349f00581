"""Plain immutable data the resolver takes in and gives back.

Nothing here knows a rule set: rule sets read and build these values. ``GameState`` is
JSON-serialisable (``to_dict`` / ``from_dict``) so the web app can store it between phases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any


def frozen_map(data: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """A read-only view of a shallow copy, for dict-valued fields of frozen dataclasses."""
    return MappingProxyType(dict(data or {}))


@dataclass(frozen=True)
class Player:
    """One seat: who sits there and what the rules know about them."""

    name: str
    role: str
    alignment: str
    modifiers: tuple[str, ...] = ()
    sanity: str = "sane"
    immune: bool = False
    target: str | None = None  # executioner's target
    alive: bool = True

    def has(self, modifier: str) -> bool:
        return modifier in self.modifiers

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "alignment": self.alignment,
            "modifiers": list(self.modifiers),
            "sanity": self.sanity,
            "immune": self.immune,
            "target": self.target,
            "alive": self.alive,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Player:
        return cls(
            name=data["name"],
            role=data["role"],
            alignment=data["alignment"],
            modifiers=tuple(data.get("modifiers", ())),
            sanity=data.get("sanity", "sane"),
            immune=bool(data.get("immune", False)),
            target=data.get("target"),
            alive=bool(data.get("alive", True)),
        )


@dataclass(frozen=True)
class Action:
    """A night action as submitted: ``actor`` uses ``ability`` on ``targets``.

    ``index`` is the action's position in the night's list (used for "last one stands"
    and to tell two actions of one player apart). ``extra`` holds ability-specific
    fields such as the forger's shown ``role``.
    """

    actor: str
    ability: str
    targets: tuple[str, ...]
    index: int = 0
    extra: Mapping[str, Any] = field(default_factory=frozen_map)

    @property
    def target(self) -> str | None:
        return self.targets[0] if self.targets else None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "actor": self.actor,
            "ability": self.ability,
            "targets": list(self.targets),
        }
        data.update(self.extra)
        return data


SKIP = "skip"


@dataclass(frozen=True)
class DayVotes:
    """A day's ballots: voter -> target name or ``"skip"``."""

    votes: Mapping[str, str] = field(default_factory=frozen_map)
    nominations: Mapping[str, str] | None = None
    revote: Mapping[str, str] | None = None


@dataclass(frozen=True)
class GameState:
    """Everything that carries from one phase to the next.

    ``memory`` is rule-set-specific plain JSON data (last night's targets, spent one-shots,
    spent vests...). Rule sets never mutate a state: they return a new one.
    """

    ruleset: str
    method: str
    flags: Mapping[str, Any]
    players: tuple[Player, ...]
    phase_number: int = 0  # phases played so far
    night_number: int = 0  # nights played so far
    memory: Mapping[str, Any] = field(default_factory=frozen_map)
    vote_immunity: tuple[str, ...] = ()  # cannot be voted out in the coming day
    co_winners: tuple[str, ...] = ()
    seed: int = 0  # for rule sets that break ties at random (NAR), reproducibly

    # -- look-ups -------------------------------------------------------------------
    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def has_player(self, name: str) -> bool:
        return any(p.name == name for p in self.players)

    @property
    def alive(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.alive)

    @property
    def alive_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.alive)

    def is_alive(self, name: str) -> bool:
        return self.player(name).alive

    # -- new states ------------------------------------------------------------------
    def with_dead(self, names: Iterable[str]) -> GameState:
        dead = set(names)
        return replace(
            self,
            players=tuple(replace(p, alive=False) if p.name in dead else p for p in self.players),
        )

    def with_alive(self, names: Iterable[str]) -> GameState:
        """The same table with exactly ``names`` alive: a count as it stood earlier in the
        game (the review) is counted by who was alive then."""
        alive = set(names)
        return replace(self, players=tuple(replace(p, alive=p.name in alive) for p in self.players))

    def with_player(self, player: Player) -> GameState:
        return replace(
            self, players=tuple(player if p.name == player.name else p for p in self.players)
        )

    def with_memory(self, **changes: Any) -> GameState:
        merged = dict(self.memory)
        merged.update(changes)
        return replace(self, memory=frozen_map(merged))

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "method": self.method,
            "flags": dict(self.flags),
            "players": [p.to_dict() for p in self.players],
            "phase_number": self.phase_number,
            "night_number": self.night_number,
            "memory": _thaw(self.memory),
            "vote_immunity": list(self.vote_immunity),
            "co_winners": list(self.co_winners),
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        return cls(
            ruleset=data["ruleset"],
            method=data["method"],
            flags=frozen_map(data.get("flags")),
            players=tuple(Player.from_dict(p) for p in data["players"]),
            phase_number=int(data.get("phase_number", 0)),
            night_number=int(data.get("night_number", 0)),
            memory=frozen_map(data.get("memory")),
            vote_immunity=tuple(data.get("vote_immunity", ())),
            co_winners=tuple(data.get("co_winners", ())),
            seed=int(data.get("seed", 0)),
        )


def _thaw(value: Any) -> Any:
    """Turn read-only mappings and tuples back into JSON-ready dicts and lists."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class NightOutcome:
    """What a night produced, and the state after it."""

    dead: tuple[str, ...]
    results: Mapping[str, tuple[Mapping[str, Any], ...]]  # private feedback per player
    reveals: Mapping[str, str]  # dead player -> role shown publicly
    vote_immunity: tuple[str, ...]
    explanation: tuple[str, ...]
    state: GameState

    def to_report(self, number: int) -> dict[str, Any]:
        return {
            "kind": "night",
            "number": number,
            "dead": sorted(self.dead),
            "results": {k: [dict(r) for r in v] for k, v in self.results.items()},
            "reveals": dict(self.reveals),
            "vote_immunity": sorted(self.vote_immunity),
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class DayOutcome:
    """What a day's vote produced: an elimination, a revote, or nothing."""

    eliminated: str | None
    revote: tuple[str, ...] | None
    explanation: tuple[str, ...]
    state: GameState
    reveals: Mapping[str, str] = field(default_factory=frozen_map)

    def to_report(self, number: int) -> dict[str, Any]:
        return {
            "kind": "day",
            "number": number,
            "eliminated": self.eliminated,
            "revote": list(self.revote) if self.revote is not None else None,
            "reveals": dict(self.reveals),
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class DayActionOutcome:
    """What one day action did, resolved at once: deaths (a day vigilante's shot), private
    results (a day investigator's), public reveals and the announcement the thread gets
    (None: nothing public happened), the moderator's explanation and the state after."""

    dead: tuple[str, ...]
    results: Mapping[str, tuple[Mapping[str, Any], ...]]
    reveals: Mapping[str, str]
    announcement: str | None
    explanation: tuple[str, ...]
    state: GameState

    def to_report(self) -> dict[str, Any]:
        return {
            "kind": "day_action",
            "dead": sorted(self.dead),
            "results": {k: [dict(r) for r in v] for k, v in self.results.items()},
            "reveals": dict(self.reveals),
            "announcement": self.announcement,
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class Verdict:
    """A win check's answer: ``winner`` is None while the game goes on."""

    winner: str | None
    reason: str = ""
    co_winners: tuple[str, ...] = ()
