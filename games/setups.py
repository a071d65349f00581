"""Ready-made setups a host starts from: the role list, rule set, flags and vote rule as data.

Role slugs are the resolver's (see the rule set table in the resolver CLI contract); a
setup names only the settings it changes (``games.game_settings``).
``create_game(user, title=..., **SETUPS[slug].game_kwargs())`` makes a game from one;
the host may change any field before creating it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy

from .game_settings import BY_NAME, defaults
from .gateway import rules_named


def _(text: str) -> str:
    """A setup's name or description, said in the reader's language when it is read."""
    return gettext_lazy(text)  # type: ignore[return-value]  # a lazy str: read as a str


class Setup:
    """A ready-made setup: its role list and rule set, and the game settings it changes
    (by their ``games.game_settings`` names; the others keep their defaults)."""

    def __init__(
        self,
        *,
        slug: str,
        name: str,
        description: str,
        ruleset: str,
        role_list: tuple[dict[str, Any], ...],
        method: str = "",
        flags: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> None:
        unknown = set(settings) - set(BY_NAME)
        if unknown:
            raise TypeError(f"Setup got an unknown setting {min(unknown)!r}")
        self.slug, self.name, self.description = slug, name, description
        self.ruleset, self.role_list, self.method = ruleset, role_list, method
        self.flags = dict(flags or {})
        self.settings = dict(settings)

    def __getattr__(self, name: str) -> Any:
        """A setting by name (``setup.openness``): the setup's own, else the default."""
        if name in BY_NAME:
            return self._settings()[name]
        raise AttributeError(name)

    def _settings(self) -> dict[str, Any]:
        return {**defaults(rules_named(self.ruleset)), **self.settings}

    @property
    def player_count(self) -> int:
        return sum(entry.get("count", 1) for entry in self.role_list)

    def game_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``services.create_game`` (everything but the title): every
        setting the host would otherwise choose (one whose default is None stays out)."""
        return {
            "setup": self.slug,
            "ruleset": self.ruleset,
            "method": self.method,
            "flags": dict(self.flags),
            "role_list": [dict(entry) for entry in self.role_list],
            **{k: v for k, v in self._settings().items() if v is not None},
        }


def _roles(*pairs: tuple[str, int]) -> tuple[dict[str, Any], ...]:
    return tuple({"role": role, "count": count} for role, count in pairs)


def _part(role: str, count: int = 1, *modifiers: str) -> dict[str, Any]:
    """A role-list entry built from parts: ``_part("vigilante", 1, "shots:1")``."""
    entry: dict[str, Any] = {"role": role, "count": count}
    if modifiers:
        entry["modifiers"] = list(modifiers)
    return entry


SETUPS: dict[str, Setup] = {
    setup.slug: setup
    for setup in (
        Setup(
            slug="city-ten",
            name=_("City mafia table (10)"),
            description=_(
                "Don, mafia and a Maniac against a Sheriff, a Doctor, a Mistress and "
                "four citizens. Plurality vote with a revote on a tie."
            ),
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
            name=_("Classic ten-player game"),
            description=_(
                "3 mafia, a detective, a doctor and 5 town. Nominations, plurality "
                "vote, a revote on a tie; roles stay hidden until the game ends."
            ),
            ruleset="classic",
            role_list=_roles(("mafia", 3), ("detective", 1), ("doctor", 1), ("town", 5)),
            vote_rule="plurality",
            self_vote_allowed=True,  # "including themselves if they were nominated"
            turn_based=True,
            starts_with="night",  # night zero: the mafia meet before day 1
        ),
        Setup(
            slug="power-nine",
            name=_("Power roles (9)"),
            description=_(
                "A Godfather and a mafia roleblocker against a cop, a doctor, a "
                "vigilante, two masons and a villager, with a Jester on the side."
            ),
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
            name=_("Forum vanilla (7)"),
            description=_(
                "Two mafia goons against five vanilla townies. Majority vote; the "
                "hammer ends the day at once."
            ),
            ruleset="forum",
            method="rar",
            role_list=_roles(("goon", 2), ("vanilla_townie", 5)),
            vote_rule="majority_hammer",
        ),
        Setup(
            slug="forum-cop-doctor-nine",
            name=_("Cop and doctor nine-player"),
            description=_(
                "Seven town (a cop, a doctor, five vanilla townies) against two "
                "goons. Majority vote with the forum's lock rule."
            ),
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("doctor", 1), ("vanilla_townie", 5), ("goon", 2)),
            vote_rule="majority_lock",
        ),
        # -- the forum setup library: the common setups of the big forums
        Setup(
            slug="forum-mountainous",
            name=_("Mountainous (13)"),
            description=_(
                "Ten vanilla townies against three goons: no power roles at all, "
                "pure discussion. Open setup."
            ),
            ruleset="forum",
            method="rar",
            role_list=_roles(("vanilla_townie", 10), ("goon", 3)),
            vote_rule="majority_hammer",
            openness="open",
        ),
        Setup(
            slug="forum-cop-nine",
            name=_("Cop 9er"),
            description=_(
                "A cop and six vanilla townies against two goons; the game starts "
                "at night so the cop gets a check first. Open setup."
            ),
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("vanilla_townie", 6), ("goon", 2)),
            vote_rule="majority_hammer",
            starts_with="night",
            openness="open",
        ),
        Setup(
            slug="forum-vig-ten",
            name=_("Vig 10er"),
            description=_(
                "A one-shot vigilante and six vanilla townies against three goons. Open setup."
            ),
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
            name=_("Newbie 7"),
            description=_(
                "A small game for new players: a cop and four vanilla townies "
                "against two goons. Open setup."
            ),
            ruleset="forum",
            method="rar",
            role_list=_roles(("cop", 1), ("vanilla_townie", 4), ("goon", 2)),
            vote_rule="majority_hammer",
            openness="open",
        ),
        Setup(
            slug="forum-third-party-ten",
            name=_("Third parties (10)"),
            description=_(
                "A one-shot day vigilante, a loved townie, a double voter and four "
                "more town against two goons and a serial killer, with a survivor on the side. "
                "Vote modifiers are public. Semi-open setup."
            ),
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
