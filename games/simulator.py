"""The balance simulator: N games of a setup played by random-but-legal bots through the
resolver (nights, day actions, the day vote with its vote modifiers), and the win rate of
each faction with a 95% Wilson interval. Pure: no database; ``games.tasks`` runs it in
Celery and stores the progress on a ``SimulationRun``."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import gateway
from .gateway import SKIP, GameState, rules_named

MAX_PHASES = 60  # a game that has not ended by then counts as a draw
Z95 = 1.959964


@dataclass(frozen=True)
class Rate:
    faction: str
    wins: int
    games: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (sound near 0 and 1, unlike p ± z·se)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def deal(setup: Mapping[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    cards: list[dict[str, Any]] = []
    for entry in setup["role_list"]:
        card = {k: v for k, v in entry.items() if k != "count"}
        cards.extend(dict(card) for _ in range(entry.get("count", 1)))
    rng.shuffle(cards)
    return [{"name": f"P{i}", **card} for i, card in enumerate(cards, start=1)]


def _legal_target(rules: Any, state: GameState, raw: dict[str, Any], rng: random.Random) -> Any:
    """A random legal single target for ``raw`` (its targets filled in), or None."""
    names = list(state.alive_names)
    rng.shuffle(names)
    for name in names:
        trial = {**raw, "targets": [name] * raw["count"]}
        trial.pop("count")
        try:
            rules.parse_action(state, trial, "$", 0)
        except gateway.InvalidScenario:
            continue
        return trial
    return None


def _night(rules: Any, state: GameState, rng: random.Random) -> list[dict[str, Any]]:
    actions = []
    faction_done = False
    for player in state.alive:
        for ability in rules.abilities_of(state, player):
            if ability.factional:
                if faction_done:
                    continue
                faction_done = True
            extra = dict.fromkeys(ability.extra, "x")
            raw = {**extra, "actor": player.name, "ability": ability.slug}
            raw["count"] = ability.targets
            action = _legal_target(rules, state, raw, rng)
            if action is not None:
                actions.append(action)
    return actions


def _day(rules: Any, state: GameState, rng: random.Random) -> tuple[GameState, dict[str, str]]:
    """Day actions (used at random, half the time) then everyone votes at random."""
    for player in state.alive:
        own = [a for a in rules.roles[player.role].abilities if a.phase == "day"]
        if not own or rng.random() < 0.5 or not state.player(player.name).alive:
            continue
        target = rng.choice(state.alive_names)
        try:
            outcome = gateway.bare_day_action(
                state, {"actor": player.name, "targets": [target]}, "day"
            )
        except gateway.InvalidScenario:
            continue
        state = outcome.state
    alive = list(state.alive_names)
    votes = {}
    allow_self = bool(state.flags.get("selfVote", True))
    for voter in alive:
        options = [n for n in alive if allow_self or n != voter]
        if options:
            votes[voter] = rng.choice(options)
    if state.flags.get("noEliminationVote") and rng.random() < 0.05:
        votes[alive[0]] = SKIP
    return state, votes


def play_one(setup: Mapping[str, Any], rng: random.Random) -> list[str]:
    """One game of random-but-legal bots; the winning factions (co-winners' too)."""
    state = gateway.new_state(
        setup["ruleset"],
        deal(setup, rng),
        method=setup.get("method") or None,
        flags=setup.get("flags") or {},
        seed=rng.randrange(2**31),
    )
    rules = rules_named(state.ruleset)
    night_next = setup.get("starts_with") == "night"
    for _ in range(MAX_PHASES):
        if night_next:
            try:
                state = gateway.bare_night(state, _night(rules, state, rng)).state
            except gateway.InvalidScenario:
                state = gateway.bare_night(state, []).state
        else:
            state, votes = _day(rules, state, rng)
            verdict = gateway.bare_verdict(state)
            if verdict.winner is None:
                try:
                    state = gateway.bare_day(state, {"votes": votes}).state
                except gateway.InvalidScenario:
                    state = gateway.bare_day(state, {"votes": {}}).state
        night_next = not night_next
        verdict = gateway.bare_verdict(state)
        if verdict.winner is not None:
            co = {state.player(n).alignment for n in (*state.co_winners, *verdict.co_winners)}
            return [verdict.winner, *sorted(co - {verdict.winner})]
    return ["draw"]


def simulate(
    setup: Mapping[str, Any],
    games: int,
    *,
    seed: int = 0,
    progress: Callable[[int, dict[str, int]], None] | None = None,
    every: int = 10,
) -> list[Rate]:
    """Play ``games`` games; each faction's wins (a co-winner's win counts for its faction
    too) with a 95% interval. ``progress(done, wins)`` is called every ``every`` games."""
    rng = random.Random(seed)
    wins: dict[str, int] = {}
    for done in range(1, games + 1):
        for faction in play_one(setup, rng):
            wins[faction] = wins.get(faction, 0) + 1
        if progress is not None and (done % every == 0 or done == games):
            progress(done, dict(wins))
    return rates(wins, games)


def rates(wins: Mapping[str, int], games: int) -> list[Rate]:
    out = [Rate(f, n, games, *wilson(n, games)) for f, n in wins.items()]
    return sorted(out, key=lambda r: -r.wins)
