"""The power roles as data: who has which night ability, and the blockers' priorities."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...text import gettext_noop
from ..base import ALLOWED, NEVER, AbilitySpec, RoleSpec

TOWN, MAFIA, NEUTRAL = "town", "mafia", "neutral"


def _ability(slug: str, text: str, **options: Any) -> AbilitySpec:
    return AbilitySpec(slug, description=text, **options)


INVESTIGATE = _ability(
    "investigate",
    gettext_noop("Each night, investigate one player: mafia or innocent."),
    self_target=NEVER,
)
PROTECT = _ability(
    "protect",
    gettext_noop("Each night, protect one player (yourself too) from kills."),
    self_target=ALLOWED,
)
# the vigilante's own gun
SHOOT = _ability("kill", gettext_noop("Each night, you may shoot one player."), self_target=NEVER)
BLOCK = _ability(
    "block", gettext_noop("Each night, stop one player's night actions."), self_target=NEVER
)
TRACK = _ability(
    "track", gettext_noop("Each night, learn whom one player visited."), self_target=NEVER
)
JAIL = _ability(
    "jail",
    gettext_noop("Each night, jail one player: they are protected and cannot act."),
    self_target=NEVER,
)
FRAME = _ability(
    "frame",
    gettext_noop("Each night, frame one player: they read mafia to the cop."),
    self_target=NEVER,
)
CLEAN = _ability(
    "clean",
    gettext_noop("Each night, hide the role of the mafia's victim if they die."),
    self_target=NEVER,
)
FORGE = _ability(
    "forge",
    gettext_noop("Each night, choose the role shown for the mafia's victim if they die."),
    self_target=NEVER,
    extra=("role",),
)
FACTION_KILL = _ability(
    "kill",
    gettext_noop("Each night the mafia kill one player; the godfather leads."),
    factional=True,
)


def _town(
    slug: str, title: str, description: str, *abilities: AbilitySpec, cop: bool = False
) -> RoleSpec:
    return RoleSpec(slug, TOWN, abilities, description, cop_like=cop, title=title)


def _mafia(slug: str, title: str, description: str, *abilities: AbilitySpec) -> RoleSpec:
    return RoleSpec(slug, MAFIA, abilities, description, factional_kill=True, title=title)


ROLES: Mapping[str, RoleSpec] = {
    r.slug: r
    for r in (
        _town(
            "villager",
            gettext_noop("Villager"),
            gettext_noop("No night action; relies on discussion and voting."),
        ),
        _town(
            "cop",
            gettext_noop("Cop"),
            gettext_noop("Investigates one player a night: mafia or innocent."),
            INVESTIGATE,
            cop=True,
        ),
        _town(
            "doctor",
            gettext_noop("Doctor"),
            gettext_noop("Protects one player a night (self allowed) from kills."),
            PROTECT,
        ),
        _town(
            "vigilante",
            gettext_noop("Vigilante"),
            gettext_noop("Shoots one player a night, or holds fire."),
            SHOOT,
        ),
        _town(
            "roleblocker",
            gettext_noop("Roleblocker"),
            gettext_noop("Blocks one player's night actions (priority 2)."),
            BLOCK,
        ),
        _town(
            "tracker",
            gettext_noop("Tracker"),
            gettext_noop("Learns whom one player successfully visited."),
            TRACK,
        ),
        _town(
            "jailkeeper",
            gettext_noop("Jailkeeper"),
            gettext_noop("Jails one player: blocks and protects them (priority 3)."),
            JAIL,
        ),
        _town(
            "mason",
            gettext_noop("Mason"),
            gettext_noop("No night action; knows the other masons from the start."),
        ),
        _town(
            "bomb",
            gettext_noop("Bomb"),
            gettext_noop("No night action; whoever kills them at night dies too."),
        ),
        _mafia(
            "godfather",
            gettext_noop("Godfather"),
            gettext_noop("Leads the mafia kill; reads innocent to the cop."),
        ),
        _mafia(
            "mafia",
            gettext_noop("Mafia"),
            gettext_noop("A plain mafia member; takes part in the kill."),
        ),
        _mafia(
            "mafia_roleblocker",
            gettext_noop("Mafia Roleblocker"),
            gettext_noop("Blocks one player's night actions (priority 1)."),
            BLOCK,
        ),
        _mafia(
            "framer",
            gettext_noop("Framer"),
            gettext_noop("Frames one player: they read mafia to the cop that night."),
            FRAME,
        ),
        _mafia(
            "janitor",
            gettext_noop("Janitor"),
            gettext_noop("Cleans the mafia's victim: their role is shown as unknown."),
            CLEAN,
        ),
        _mafia(
            "forger",
            gettext_noop("Forger"),
            gettext_noop("Shows a chosen role for the mafia's victim (beats the janitor)."),
            FORGE,
        ),
        RoleSpec(
            "jester",
            NEUTRAL,
            (),
            gettext_noop("Wins too if voted out during the day."),
            title=gettext_noop("Jester"),
        ),
        RoleSpec(
            "executioner",
            NEUTRAL,
            (),
            gettext_noop(
                "Wins too if their target is voted out; becomes a jester if the target dies "
                "at night."
            ),
            title=gettext_noop("Executioner"),
        ),
    )
}

# Who wins a clash of blocks when the blockPriority flag is on (see blocks.py).
BLOCK_PRIORITY: Mapping[str, int] = {"jailkeeper": 3, "roleblocker": 2, "mafia_roleblocker": 1}
