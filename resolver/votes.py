"""Day-vote arithmetic shared by the rule sets and the web app's live vote count.

Pure functions over ``voter -> target`` ballots (target may be ``"skip"``). Vote
modifiers are optional arguments: per-voter weights (a double voter), per-target threshold
adjustments (loved, hated) and lynch-proof targets; left out, every ballot is one vote and
every target needs the plain majority.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .model import SKIP


def majority_needed(alive_count: int) -> int:
    """Votes that eliminate: half the living, rounded down, plus one."""
    return alive_count // 2 + 1


@dataclass(frozen=True)
class Wagon:
    """A target and the players voting for it, in the order their votes were cast.

    ``size`` counts the voters; ``weight`` counts their votes (a double voter's counts
    twice); without vote weights the two are equal.
    """

    target: str
    voters: tuple[str, ...]
    weight: int = -1  # -1: one vote per voter, filled in below

    def __post_init__(self) -> None:
        if self.weight < 0:
            object.__setattr__(self, "weight", len(self.voters))

    @property
    def size(self) -> int:
        return len(self.voters)


@dataclass(frozen=True)
class VoteCount:
    """The vote count as a forum moderator posts it.

    ``majority`` is the plain majority of the living; ``thresholds`` the per-target
    adjustments to it (loved +1, hated -1); ``proof`` the lynch-proof players, whose wagon
    may reach its threshold without eliminating them.
    """

    wagons: tuple[Wagon, ...]  # heaviest first; ties keep the order the wagons started
    not_voting: tuple[str, ...]
    alive_count: int
    majority: int
    thresholds: Mapping[str, int] = field(default_factory=dict)
    proof: frozenset[str] = frozenset()

    def wagon(self, target: str) -> Wagon | None:
        return next((w for w in self.wagons if w.target == target), None)

    def needed(self, target: str) -> int:
        """Votes that eliminate ``target``: the majority plus their adjustment (at least 1)."""
        return max(1, self.majority + self.thresholds.get(target, 0))

    def distance(self, target: str) -> int:
        """Forum "L-n": votes still missing before ``target`` is eliminated."""
        wagon = self.wagon(target)
        return self.needed(target) - (wagon.weight if wagon else 0)

    @property
    def majority_target(self) -> str | None:
        """The player (or ``"skip"``) whose wagon has reached its threshold, if any; the
        heaviest such wagon when weights let several reach it. Never a lynch-proof player."""
        for wagon in self.wagons:
            if wagon.weight >= self.needed(wagon.target) and wagon.target not in self.proof:
                return wagon.target
        return None

    @property
    def reached_but_proof(self) -> tuple[str, ...]:
        """Lynch-proof players whose wagon has reached their threshold (not eliminated)."""
        return tuple(
            w.target
            for w in self.wagons
            if w.target in self.proof and w.weight >= self.needed(w.target)
        )


def tally(
    votes: Mapping[str, str],
    alive: Sequence[str],
    weights: Mapping[str, int] | None = None,
    thresholds: Mapping[str, int] | None = None,
    proof: Iterable[str] = (),
) -> VoteCount:
    """Group living voters' ballots into wagons. Ballots of the dead are ignored.

    ``weights``: voter -> how many votes their ballot counts (default 1). ``thresholds``:
    target -> added to the votes needed to eliminate them (loved +1, hated -1).
    ``proof``: lynch-proof players. Left out, the count is the plain one-vote majority.
    """
    living = set(alive)
    order: dict[str, list[str]] = {}
    for voter, target in votes.items():
        if voter in living and (target == SKIP or target in living):
            order.setdefault(target, []).append(voter)
    if weights:
        wagons = [Wagon(t, tuple(v), sum(weights.get(x, 1) for x in v)) for t, v in order.items()]
    else:
        wagons = [Wagon(t, tuple(v)) for t, v in order.items()]
    wagons.sort(key=lambda w: -w.weight)  # stable: equal wagons keep their starting order
    voted = {v for w in wagons for v in w.voters}
    return VoteCount(
        wagons=tuple(wagons),
        not_voting=tuple(p for p in alive if p not in voted),
        alive_count=len(alive),
        majority=majority_needed(len(alive)),
        thresholds=dict(thresholds or {}),
        proof=frozenset(proof),
    )


@dataclass(frozen=True)
class Plurality:
    """The top of a plurality count: the leaders (one unless tied) and their votes."""

    leaders: tuple[str, ...]  # may include "skip"
    votes: int

    @property
    def single(self) -> str | None:
        return self.leaders[0] if len(self.leaders) == 1 else None


def plurality(
    votes: Mapping[str, str],
    options: Iterable[str] | None = None,
    weights: Mapping[str, int] | None = None,
    bonus: Mapping[str, int] | None = None,
) -> Plurality:
    """Who has the most votes among ``options`` (every target voted for, if None).

    ``weights``: voter -> votes their ballot counts (default 1). ``bonus``: target -> added
    to their count before comparing (a hated player +1, a loved one -1); targets nobody
    voted for get no bonus. ``Plurality.votes`` is the leaders' count after both.
    """
    allowed = set(options) if options is not None else None
    counts: dict[str, int] = {}
    for voter, target in votes.items():
        if allowed is None or target in allowed:
            counts[target] = counts.get(target, 0) + (weights.get(voter, 1) if weights else 1)
    if bonus:
        for target in counts:
            counts[target] += bonus.get(target, 0)
    if not counts:
        return Plurality((), 0)
    top = max(counts.values())
    leaders = tuple(sorted(t for t, n in counts.items() if n == top))
    return Plurality(leaders, top)
