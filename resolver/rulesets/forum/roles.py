"""Forum (mafiascum Normal-game) roles, modifiers and cop sanities, as data.

Both night methods (RAR in rar.py, NAR in nar.py) read these tables; a new role is a
``RoleSpec`` line here plus, if its ability is new, a few lines in each method.
"""

from __future__ import annotations

from ..base import ALLOWED, AbilitySpec, RoleSpec

# -- abilities ---------------------------------------------------------------------------
KILL = AbilitySpec("kill")  # the vigilante's own shot
FACTION_KILL = AbilitySpec("kill", factional=True)  # the mafia's one shared kill a night
PROTECT = AbilitySpec("protect")
INVESTIGATE = AbilitySpec("investigate")
BLOCK = AbilitySpec("block")
JAIL = AbilitySpec("jail")
TRACK = AbilitySpec("track")
WATCH = AbilitySpec("watch")
SWAP = AbilitySpec("swap", targets=2)
REDIRECT = AbilitySpec("redirect", targets=2)  # [whose action, new target]
FRAME = AbilitySpec("frame")
CLEAN = AbilitySpec("clean")

TOWN, MAFIA = "town", "mafia"


def _town(slug: str, *abilities: AbilitySpec, text: str, cop: bool = False) -> RoleSpec:
    return RoleSpec(slug, TOWN, abilities, text, cop_like=cop)


def _mafia(slug: str, *abilities: AbilitySpec, text: str) -> RoleSpec:
    return RoleSpec(slug, MAFIA, abilities, text, factional_kill=True)


ROLES: dict[str, RoleSpec] = {
    r.slug: r
    for r in (
        _town("vanilla_townie", text="No night action; wins with the town."),
        _town("cop", INVESTIGATE, text="Learns whether a player is mafia.", cop=True),
        _town("doctor", PROTECT, text="Protects a player from night kills."),
        _town("vigilante", KILL, text="Shoots a player at night (or holds fire)."),
        _town("roleblocker", BLOCK, text="Stops a player's night actions."),
        _town("jailkeeper", JAIL, text="Protects a player and stops their night actions."),
        _town("tracker", TRACK, text="Learns whom a player visited."),
        _town("watcher", WATCH, text="Learns who visited a player."),
        _town("bus_driver", SWAP, text="Swaps two players: actions on one land on the other."),
        _town("redirector", REDIRECT, text="Sends a player's actions to a new target."),
        _town(
            "paranoid_gun_owner",
            text="Passive: shoots everyone who visits them at night.",
        ),
        _mafia("goon", text="Mafia: shares the mafia's night kill."),
        _mafia("godfather", text="Mafia leader: reads innocent to cops."),
        _mafia("mafia_roleblocker", BLOCK, text="Mafia: stops a player's night actions."),
        _mafia("framer", FRAME, text="Mafia: makes a player read mafia to cops tonight."),
        _mafia("janitor", CLEAN, text="Mafia: hides the role of a player who dies tonight."),
    )
}

MODIFIERS: dict[str, str] = {
    "bulletproof": "Survives every night kill.",
    "one_shot_bulletproof": "A vest: the first night kill that would kill them fails.",
    "strong_willed": "Cannot be roleblocked or jailed out of acting.",
}

SANITIES = ("sane", "insane", "paranoid", "naive")

# Roles whose investigation result is "innocent" whatever their alignment.
INVESTIGATION_IMMUNE = frozenset({"godfather"})

# Abilities that are effects on the target rather than visits only the target notices;
# every active ability is a visit (trackable, watchable, blockable, redirectable).
VISITING_ABILITIES = frozenset(
    {"kill", "protect", "investigate", "block", "jail", "track", "watch", "frame", "clean"}
)


def cop_result(sanity: str, looks_mafia: bool) -> str:
    """What a cop of this sanity is told, given whether the target truly reads mafia
    (alignment, godfather immunity and frames already applied)."""
    if sanity == "paranoid":
        return "mafia"
    if sanity == "naive":
        return "innocent"
    if sanity == "insane":
        looks_mafia = not looks_mafia
    return "mafia" if looks_mafia else "innocent"


__all__ = ["ALLOWED", "MODIFIERS", "ROLES", "SANITIES", "cop_result"]
