"""Day-vote arithmetic shared by the rule sets and the web app's live vote count.

Pure functions over ``voter -> target`` ballots (target may be ``"skip"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .model import SKIP


def majority_needed(alive_count: int) -> int:
    """Votes that eliminate: half the living, rounded down, plus one."""
    return alive_count // 2 + 1


@dataclass(frozen=True)
class Wagon:
    """A target and the players voting for it, in the order their votes were cast."""

    target: str
    voters: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.voters)


@dataclass(frozen=True)
class VoteCount:
    """The vote count as a forum moderator posts it."""

    wagons: tuple[Wagon, ...]  # biggest first; ties keep the order the wagons started
    not_voting: tuple[str, ...]
    alive_count: int
    majority: int

    def wagon(self, target: str) -> Wagon | None:
        return next((w for w in self.wagons if w.target == target), None)

    def distance(self, target: str) -> int:
        """Forum "L-n": votes still missing before ``target`` is eliminated."""
        wagon = self.wagon(target)
        return self.majority - (wagon.size if wagon else 0)

    @property
    def majority_target(self) -> str | None:
        """The player (or ``"skip"``) whose wagon has reached majority, if any."""
        for wagon in self.wagons:
            if wagon.size >= self.majority:
                return wagon.target
        return None


def tally(votes: Mapping[str, str], alive: Sequence[str]) -> VoteCount:
    """Group living voters' ballots into wagons. Ballots of the dead are ignored."""
    living = set(alive)
    order: dict[str, list[str]] = {}
    for voter, target in votes.items():
        if voter in living and (target == SKIP or target in living):
            order.setdefault(target, []).append(voter)
    wagons = [Wagon(t, tuple(v)) for t, v in order.items()]
    wagons.sort(key=lambda w: -w.size)  # stable: equal wagons keep their starting order
    voted = {v for w in wagons for v in w.voters}
    return VoteCount(
        wagons=tuple(wagons),
        not_voting=tuple(p for p in alive if p not in voted),
        alive_count=len(alive),
        majority=majority_needed(len(alive)),
    )


@dataclass(frozen=True)
class Plurality:
    """The top of a plurality count: the leaders (one unless tied) and their votes."""

    leaders: tuple[str, ...]  # may include "skip"
    votes: int

    @property
    def single(self) -> str | None:
        return self.leaders[0] if len(self.leaders) == 1 else None


def plurality(votes: Mapping[str, str], options: Iterable[str] | None = None) -> Plurality:
    """Who has the most votes among ``options`` (every target voted for, if None)."""
    allowed = set(options) if options is not None else None
    counts: dict[str, int] = {}
    for target in votes.values():
        if allowed is None or target in allowed:
            counts[target] = counts.get(target, 0) + 1
    if not counts:
        return Plurality((), 0)
    top = max(counts.values())
    leaders = tuple(sorted(t for t, n in counts.items() if n == top))
    return Plurality(leaders, top)
