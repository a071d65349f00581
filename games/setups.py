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
    turn_based: bool = False  # the day runs turn by turn (the rule set's day script)
    turn_length: timedelta = timedelta(minutes=2)
    vote_length: timedelta = timedelta(minutes=2)
    vote_modifiers_public: bool = False
    lynch_proof_ends_day: bool = False
    # closed: the role list stays hidden until the end; semi-open: the roles that may be in
    # the game are public (not how many); open: the whole role list is public.
    openness: str = "closed"

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
            "turn_based": self.turn_based,
            "turn_length": self.turn_length,
            "vote_length": self.vote_length,
            "vote_modifiers_public": self.vote_modifiers_public,
            "lynch_proof_ends_day": self.lynch_proof_ends_day,
            "openness": self.openness,
        }


def _roles(*pairs: tuple[str, int]) -> tuple[dict[str, Any], ...]:
    return tuple({"role": role, "count": count} for role, count in pairs)


def _part(role: str, count: int = 1, *modifiers: str) -> dict[str, Any]:
    """A role-list entry built from parts: ``_part("vigilante", 1, "shots:1")``."""
    entry: dict[str, Any] = {"role": role, "count": count}
    if modifiers:
        entry["modifiers"] = list(modifiers)
    return entry


OPENNESS = (("closed", "Closed"), ("semi-open", "Semi-open"), ("open", "Open"))


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
            turn_based=True,
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
            turn_based=True,
            starts_with="night",  # night zero: the mafia meet before day 1
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
            turn_based=True,
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
        # -- the forum setup library: the common setups of the big forums
        Setup(
            slug="forum-mountainous",
            name="Mountainous (13)",
            description="Ten vanilla townies against three goons: no power roles at all, "
            "pure discussion. Open setup.",
            ruleset="forum",
            method="rar",
            role_list=_roles(("vanilla_townie", 10), ("goon", 3)),
            vote_rule="majority_hammer",
            openness="open",
        ),
        Setup(
            slug="forum-cop-nine",
            name="Cop 9er",
            description="A cop and six vanilla townies against two goons; the game starts "
            "at night so the cop gets a check first. Open setup.",
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("vanilla_townie", 6), ("goon", 2)),
            vote_rule="majority_hammer",
            starts_with="night",
            openness="open",
        ),
        Setup(
            slug="forum-vig-ten",
            name="Vig 10er",
            description="A one-shot vigilante and six vanilla townies against three goons. "
            "Open setup.",
            ruleset="forum",
            method="rar",
            role_list=(
                _part("vigilante", 1, "shots:1"),
                _part("vanilla_townie", 6),
                _part("goon", 3),
            ),
            vote_rule="majority_hammer",
            openness="open",
        ),
        Setup(
            slug="forum-newbie-seven",
            name="Newbie 7",
            description="A small game for new players: a cop and four vanilla townies "
            "against two goons. Open setup.",
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("vanilla_townie", 4), ("goon", 2)),
            vote_rule="majority_hammer",
            openness="open",
        ),
        Setup(
            slug="forum-third-party-ten",
            name="Third parties (10)",
            description="A one-shot day vigilante, a loved townie, a double voter and four "
            "more town against two goons and a serial killer, with a survivor on the side. "
            "Vote modifiers are public. Semi-open setup.",
            ruleset="forum",
            method="rar",
            role_list=(
                _part("day_vigilante", 1, "shots:1"),
                _part("vanilla_townie", 1, "double_voter"),
                _part("vanilla_townie", 1, "loved"),
                _part("cop", 1),
                _part("vanilla_townie", 2),
                _part("goon", 2),
                _part("serial_killer", 1),
                _part("survivor", 1),
            ),
            vote_rule="majority_hammer",
            vote_modifiers_public=True,
            openness="semi-open",
        ),
    )
}
