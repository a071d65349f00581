"""The power roles as data: who has which night ability, and the blockers' priorities."""

from __future__ import annotations

from collections.abc import Mapping

from ..base import ALLOWED, NEVER, AbilitySpec, RoleSpec

TOWN, MAFIA, NEUTRAL = "town", "mafia", "neutral"

INVESTIGATE = AbilitySpec("investigate", self_target=NEVER)
PROTECT = AbilitySpec("protect", self_target=ALLOWED)
SHOOT = AbilitySpec("kill", self_target=NEVER)  # the vigilante's own gun
BLOCK = AbilitySpec("block", self_target=NEVER)
TRACK = AbilitySpec("track", self_target=NEVER)
JAIL = AbilitySpec("jail", self_target=NEVER)
FRAME = AbilitySpec("frame", self_target=NEVER)
CLEAN = AbilitySpec("clean", self_target=NEVER)
FORGE = AbilitySpec("forge", self_target=NEVER, extra=("role",))
FACTION_KILL = AbilitySpec("kill", factional=True)


def _town(slug: str, description: str, *abilities: AbilitySpec, cop: bool = False) -> RoleSpec:
    return RoleSpec(slug, TOWN, abilities, description, cop_like=cop)


def _mafia(slug: str, description: str, *abilities: AbilitySpec) -> RoleSpec:
    return RoleSpec(slug, MAFIA, abilities, description, factional_kill=True)


ROLES: Mapping[str, RoleSpec] = {
    r.slug: r
    for r in (
        _town("villager", "No night action; relies on discussion and voting."),
        _town("cop", "Investigates one player a night: mafia or innocent.", INVESTIGATE, cop=True),
        _town("doctor", "Protects one player a night (self allowed) from kills.", PROTECT),
        _town("vigilante", "Shoots one player a night, or holds fire.", SHOOT),
        _town("roleblocker", "Blocks one player's night actions (priority 2).", BLOCK),
        _town("tracker", "Learns whom one player successfully visited.", TRACK),
        _town("jailkeeper", "Jails one player: blocks and protects them (priority 3).", JAIL),
        _town("mason", "No night action; knows the other masons from the start."),
        _town("bomb", "No night action; whoever kills them at night dies too."),
        _mafia("godfather", "Leads the mafia kill; reads innocent to the cop."),
        _mafia("mafia", "A plain mafia member; takes part in the kill."),
        _mafia("mafia_roleblocker", "Blocks one player's night actions (priority 1).", BLOCK),
        _mafia("framer", "Frames one player: they read mafia to the cop that night.", FRAME),
        _mafia("janitor", "Cleans the mafia's victim: their role is shown as unknown.", CLEAN),
        _mafia("forger", "Shows a chosen role for the mafia's victim (beats the janitor).", FORGE),
        RoleSpec("jester", NEUTRAL, (), "Wins too if voted out during the day."),
        RoleSpec(
            "executioner",
            NEUTRAL,
            (),
            "Wins too if their target is voted out; becomes a jester if the target dies at night.",
        ),
    )
}

# Who wins a clash of blocks when the blockPriority flag is on (see blocks.py).
BLOCK_PRIORITY: Mapping[str, int] = {"jailkeeper": 3, "roleblocker": 2, "mafia_roleblocker": 1}
