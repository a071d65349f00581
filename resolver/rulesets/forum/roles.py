"""Forum (mafiascum Normal-game) roles, modifiers and cop sanities, as data.

Both night methods (RAR in rar.py, NAR in nar.py) read these tables; a new role is a
``RoleSpec`` line here plus, if its ability is new, a few lines in each method.
"""

from __future__ import annotations

from ...text import gettext_noop
from ..base import ALLOWED, AbilitySpec, ModifierSpec, RoleSpec

# -- abilities ---------------------------------------------------------------------------
# Each carries the line a role PM shows for it.
KILL = AbilitySpec("kill", description=gettext_noop("Each night, you may shoot one player."))
FACTION_KILL = AbilitySpec(
    "kill",
    factional=True,
    description=gettext_noop(
        "Each night, the mafia may kill one player; any member may send the kill "
        "(the last one sent stands)."
    ),
)
PROTECT = AbilitySpec(
    "protect",
    description=gettext_noop("Each night, protect one other player from the night's kills."),
)
INVESTIGATE = AbilitySpec(
    "investigate",
    description=gettext_noop("Each night, investigate one player: mafia or innocent."),
)
BLOCK = AbilitySpec(
    "block", description=gettext_noop("Each night, roleblock one player: their actions fail.")
)
JAIL = AbilitySpec(
    "jail",
    description=gettext_noop("Each night, jail one player: they are protected and cannot act."),
)
TRACK = AbilitySpec("track", description=gettext_noop("Each night, learn whom one player visits."))
WATCH = AbilitySpec("watch", description=gettext_noop("Each night, learn who visits one player."))
SWAP = AbilitySpec(
    "swap",
    targets=2,
    description=gettext_noop(
        "Each night, swap two players: every action on one lands on the other."
    ),
)
REDIRECT = AbilitySpec(  # [whose action, new target]
    "redirect",
    targets=2,
    description=gettext_noop(
        "Each night, send one player's actions to a new target of your choice."
    ),
)
FRAME = AbilitySpec(
    "frame",
    description=gettext_noop("Each night, frame one player: they read mafia to cops tonight."),
)
CLEAN = AbilitySpec(
    "clean",
    description=gettext_noop(
        "Each night, clean one player: if they die tonight their role stays hidden "
        "and you learn it."
    ),
)

SK_KILL = AbilitySpec(
    "kill",
    description=gettext_noop("Each night, you may kill one player; you act alone, for yourself."),
)

# Day actions: resolved at once, by day (forum/day_actions.py), never with the night.
DAY_KILL = AbilitySpec(
    "day_kill",
    phase="day",
    description=gettext_noop(
        "Once a day, you may shoot one player in the thread; the shot is resolved "
        "at once and announced."
    ),
)
DAY_INVESTIGATE = AbilitySpec(
    "day_investigate",
    phase="day",
    description=gettext_noop(
        "Once a day, you may investigate one player: mafia or innocent, told only to you."
    ),
)

TOWN, MAFIA = "town", "mafia"
# Third parties: each is its own faction, named after its role (forum/win.py).
SERIAL_KILLER, SURVIVOR, JESTER = "serial_killer", "survivor", "jester"
THIRD_PARTIES = (SERIAL_KILLER, SURVIVOR, JESTER)


def _town(slug: str, title: str, *abilities: AbilitySpec, text: str, cop: bool = False) -> RoleSpec:
    return RoleSpec(slug, TOWN, abilities, text, cop_like=cop, title=title)


def _mafia(slug: str, title: str, *abilities: AbilitySpec, text: str) -> RoleSpec:
    return RoleSpec(slug, MAFIA, abilities, text, factional_kill=True, title=title)


ROLES: dict[str, RoleSpec] = {
    r.slug: r
    for r in (
        _town(
            "vanilla_townie",
            gettext_noop("Vanilla Townie"),
            text=gettext_noop("No night action; wins with the town."),
        ),
        _town(
            "cop",
            gettext_noop("Cop"),
            INVESTIGATE,
            text=gettext_noop("Learns whether a player is mafia."),
            cop=True,
        ),
        _town(
            "doctor",
            gettext_noop("Doctor"),
            PROTECT,
            text=gettext_noop("Protects a player from night kills."),
        ),
        _town(
            "vigilante",
            gettext_noop("Vigilante"),
            KILL,
            text=gettext_noop("Shoots a player at night (or holds fire)."),
        ),
        _town(
            "roleblocker",
            gettext_noop("Roleblocker"),
            BLOCK,
            text=gettext_noop("Stops a player's night actions."),
        ),
        _town(
            "jailkeeper",
            gettext_noop("Jailkeeper"),
            JAIL,
            text=gettext_noop("Protects a player and stops their night actions."),
        ),
        _town(
            "tracker",
            gettext_noop("Tracker"),
            TRACK,
            text=gettext_noop("Learns whom a player visited."),
        ),
        _town(
            "watcher",
            gettext_noop("Watcher"),
            WATCH,
            text=gettext_noop("Learns who visited a player."),
        ),
        _town(
            "bus_driver",
            gettext_noop("Bus Driver"),
            SWAP,
            text=gettext_noop("Swaps two players: actions on one land on the other."),
        ),
        _town(
            "redirector",
            gettext_noop("Redirector"),
            REDIRECT,
            text=gettext_noop("Sends a player's actions to a new target."),
        ),
        _town(
            "paranoid_gun_owner",
            gettext_noop("Paranoid Gun Owner"),
            text=gettext_noop("Passive: shoots everyone who visits them at night."),
        ),
        _town(
            "day_vigilante",
            gettext_noop("Day Vigilante"),
            DAY_KILL,
            text=gettext_noop("Shoots a player by day, at once; the shot is announced."),
        ),
        _town(
            "day_investigator",
            gettext_noop("Day Investigator"),
            DAY_INVESTIGATE,
            text=gettext_noop("Investigates a player by day; only they learn the result."),
            cop=True,
        ),
        RoleSpec(
            "mason",
            TOWN,
            (),
            gettext_noop("Town: knows the other masons and talks with them in a private thread."),
            title=gettext_noop("Mason"),
            private_thread="masons",
        ),
        RoleSpec(
            "neighbor",
            TOWN,
            (),
            gettext_noop("Town: shares a private thread with the other neighbors from day 1."),
            title=gettext_noop("Neighbor"),
            private_thread="neighbors",
        ),
        _mafia(
            "goon", gettext_noop("Goon"), text=gettext_noop("Mafia: shares the mafia's night kill.")
        ),
        _mafia(
            "godfather",
            gettext_noop("Godfather"),
            text=gettext_noop("Mafia leader: reads innocent to cops."),
        ),
        _mafia(
            "mafia_roleblocker",
            gettext_noop("Mafia Roleblocker"),
            BLOCK,
            text=gettext_noop("Mafia: stops a player's night actions."),
        ),
        _mafia(
            "framer",
            gettext_noop("Framer"),
            FRAME,
            text=gettext_noop("Mafia: makes a player read mafia to cops tonight."),
        ),
        _mafia(
            "janitor",
            gettext_noop("Janitor"),
            CLEAN,
            text=gettext_noop("Mafia: hides the role of a player who dies tonight."),
        ),
        RoleSpec(
            "serial_killer",
            SERIAL_KILLER,
            (SK_KILL,),
            gettext_noop("Third party: kills one player a night and wins alone."),
            title=gettext_noop("Serial Killer"),
        ),
        RoleSpec(
            "survivor",
            SURVIVOR,
            (),
            gettext_noop("Third party: wins if alive at the end, whoever else wins."),
            title=gettext_noop("Survivor"),
        ),
        RoleSpec(
            "jester",
            JESTER,
            (),
            gettext_noop("Third party: wins if eliminated by the day vote; the game goes on."),
            title=gettext_noop("Jester"),
        ),
    )
}

MODIFIERS: dict[str, ModifierSpec] = {
    m.slug: m
    for m in (
        ModifierSpec(
            "bulletproof",
            gettext_noop("Bulletproof"),
            gettext_noop("Survives every night kill."),
            kind="defence",
        ),
        ModifierSpec(
            "one_shot_bulletproof",
            gettext_noop("One-Shot Bulletproof"),
            gettext_noop("A vest: the first night kill that would kill them fails."),
            kind="defence",
        ),
        ModifierSpec(
            "strong_willed",
            gettext_noop("Strong-Willed"),
            gettext_noop("Cannot be roleblocked or jailed out of acting."),
        ),
        # -- parts of a role: checked at input (forum/__init__.py) or applied by both night
        # methods (common.py helpers, used by rar.py and nar.py)
        ModifierSpec(
            "shots",
            gettext_noop("N-Shot"),
            gettext_noop("Can use their own abilities N time{s} in the game, day or night."),
            param="N",
        ),
        ModifierSpec(
            "odd_night",
            gettext_noop("Odd-Night"),
            gettext_noop("Can use their own abilities on odd nights only."),
        ),
        ModifierSpec(
            "even_night",
            gettext_noop("Even-Night"),
            gettext_noop("Can use their own abilities on even nights only."),
        ),
        ModifierSpec(
            "novice",
            gettext_noop("Novice"),
            gettext_noop("Cannot use their own abilities on night 1."),
        ),
        ModifierSpec(
            "compulsive",
            gettext_noop("Compulsive"),
            gettext_noop("Must use one of their own abilities every night they can."),
        ),
        ModifierSpec(
            "self_target",
            gettext_noop("Self-Targeting"),
            gettext_noop("May target themself with any ability."),
        ),
        ModifierSpec(
            "ninja",
            gettext_noop("Ninja"),
            gettext_noop(
                "Trackers and watchers do not see their visits (a paranoid gun owner still does)."
            ),
        ),
        ModifierSpec(
            "macho",
            gettext_noop("Macho"),
            gettext_noop("Cannot be protected: doctors' and jails' protection does nothing."),
        ),
        ModifierSpec(
            "weak",
            gettext_noop("Weak"),
            gettext_noop("Dies if one of their visits lands on a mafia member or serial killer."),
        ),
        ModifierSpec(
            "loyal",
            gettext_noop("Loyal"),
            gettext_noop(
                "Their actions fail, as if roleblocked, on any target outside their own faction."
            ),
        ),
        ModifierSpec(
            "disloyal",
            gettext_noop("Disloyal"),
            gettext_noop(
                "Their actions fail, as if roleblocked, on any target of their own faction."
            ),
        ),
        # -- votes (forum/day.py)
        ModifierSpec(
            "loved",
            gettext_noop("Loved"),
            gettext_noop("Needs one more vote than the majority to be eliminated."),
            kind="vote",
        ),
        ModifierSpec(
            "hated",
            gettext_noop("Hated"),
            gettext_noop("Needs one vote less than the majority to be eliminated."),
            kind="vote",
        ),
        ModifierSpec(
            "double_voter",
            gettext_noop("Double Voter"),
            gettext_noop("Their vote counts twice."),
            kind="vote",
        ),
        ModifierSpec(
            "vote_weight",
            gettext_noop("N-Vote"),
            gettext_noop("Their vote counts N time{s}."),
            param="N",
            least=0,
            kind="vote",
        ),
        ModifierSpec(
            "lynch_proof",
            gettext_noop("Lynch-Proof"),
            gettext_noop(
                "Cannot be eliminated by the day vote: a wagon that reaches them does nothing."
            ),
            kind="vote",
        ),
    )
}

# Modifiers that cannot go together on one player: each pair contradicts itself.
CONFLICTS: tuple[tuple[str, str], ...] = (
    ("loved", "hated"),
    ("double_voter", "vote_weight"),
    ("odd_night", "even_night"),
    ("loyal", "disloyal"),
)

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
