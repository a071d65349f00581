"""Ready-made setups a host starts from: the role list, rule set, flags and vote rule as data.

Role slugs are the resolver's (see the rule set table in the resolver CLI contract).
``create_game(user, title=..., **SETUPS[slug].game_kwargs())`` makes a game from one;
the host may change any field before creating it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any


@dataclass(frozen=True)
class Setup:
    slug: str
    name: str
    description: str
    ruleset: str
    role_list: tuple[dict[str, Any], ...]
    vote_rule: str
    method: str = ""
    flags: dict[str, Any] = field(default_factory=dict)
    starts_with: str = "day"
    day_length: timedelta = timedelta(hours=24)
    night_length: timedelta = timedelta(hours=12)
    no_night_posting: bool = True
    self_vote_allowed: bool = False
    skip_vote_allowed: bool = True

    @property
    def player_count(self) -> int:
        return sum(entry.get("count", 1) for entry in self.role_list)

    def game_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``services.create_game`` (everything but the title)."""
        return {
            "setup": self.slug,
            "ruleset": self.ruleset,
            "method": self.method,
            "flags": dict(self.flags),
            "role_list": [dict(entry) for entry in self.role_list],
            "vote_rule": self.vote_rule,
            "starts_with": self.starts_with,
            "day_length": self.day_length,
            "night_length": self.night_length,
            "no_night_posting": self.no_night_posting,
            "self_vote_allowed": self.self_vote_allowed,
            "skip_vote_allowed": self.skip_vote_allowed,
        }


def _roles(*pairs: tuple[str, int]) -> tuple[dict[str, Any], ...]:
    return tuple({"role": role, "count": count} for role, count in pairs)


SETUPS: dict[str, Setup] = {
    setup.slug: setup
    for setup in (
        Setup(
            slug="city-ten",
            name="City mafia table (10)",
            description="Don, mafia and a Maniac against a Sheriff, a Doctor, a Mistress and "
            "four citizens. Plurality vote with a revote on a tie.",
            ruleset="city",
            role_list=_roles(
                ("don", 1),
                ("mafia", 1),
                ("maniac", 1),
                ("sheriff", 1),
                ("doctor", 1),
                ("mistress", 1),
                ("citizen", 4),
            ),
            vote_rule="plurality",
        ),
        Setup(
            slug="classic-ten",
            name="Classic ten-player game",
            description="3 mafia, a detective, a doctor and 5 town. Nominations, plurality "
            "vote, a revote on a tie; roles stay hidden until the game ends.",
            ruleset="classic",
            role_list=_roles(("mafia", 3), ("detective", 1), ("doctor", 1), ("town", 5)),
            vote_rule="plurality",
            self_vote_allowed=True,  # "including themselves if they were nominated"
        ),
        Setup(
            slug="power-nine",
            name="Power roles (9)",
            description="A Godfather and a mafia roleblocker against a cop, a doctor, a "
            "vigilante, two masons and a villager, with a Jester on the side.",
            ruleset="power",
            role_list=_roles(
                ("godfather", 1),
                ("mafia_roleblocker", 1),
                ("cop", 1),
                ("doctor", 1),
                ("vigilante", 1),
                ("mason", 2),
                ("villager", 1),
                ("jester", 1),
            ),
            vote_rule="plurality",
        ),
        Setup(
            slug="forum-vanilla",
            name="Forum vanilla (7)",
            description="Two mafia goons against five vanilla townies. Majority vote; the "
            "hammer ends the day at once.",
            ruleset="forum",
            method="rar",
            role_list=_roles(("goon", 2), ("vanilla_townie", 5)),
            vote_rule="majority_hammer",
        ),
        Setup(
            slug="forum-cop-doctor-nine",
            name="Cop and doctor nine-player",
            description="Seven town (a cop, a doctor, five vanilla townies) against two "
            "goons. Majority vote with the forum's lock rule.",
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("doctor", 1), ("vanilla_townie", 5), ("goon", 2)),
            vote_rule="majority_lock",
        ),
    )
}
