"""City mafia data: the seven roles, their night abilities and the house-rule flags."""

from __future__ import annotations

from ...text import gettext_noop
from ..base import ALLOWED, AbilitySpec, FlagSpec, RoleSpec

# Kills and visits may name a player who is already dead: the document makes a stale
# target a no-op ("no phantom death"), not an error. A heal of the dead is the same no-op.
FACTION_KILL = AbilitySpec(
    "kill",
    factional=True,
    dead_targets=True,
    description=gettext_noop(
        "Each night the mafia choose one player to kill; the Don has the final say."
    ),
)

ROLES: dict[str, RoleSpec] = {
    "citizen": RoleSpec(
        "citizen",
        "town",
        (),
        gettext_noop("Red. No night action; speaks and votes by day."),
        title=gettext_noop("Citizen"),
    ),
    "sheriff": RoleSpec(
        "sheriff",
        "town",
        (
            AbilitySpec(
                "check", description=gettext_noop("Each night, check one player: red or black.")
            ),
        ),
        gettext_noop("Red. Checks one player: red or black."),
        title=gettext_noop("Sheriff"),
    ),
    "doctor": RoleSpec(
        "doctor",
        "town",
        (
            AbilitySpec(
                "heal",
                self_target=ALLOWED,
                dead_targets=True,
                description=gettext_noop(
                    "Each night, heal one player (yourself too, not the same one "
                    "two nights running): they survive the night's kills."
                ),
            ),
        ),
        gettext_noop(
            "Red. Heals one player for the whole night (self allowed, not two nights running)."
        ),
        title=gettext_noop("Doctor"),
    ),
    "mistress": RoleSpec(
        "mistress",
        "town",
        (
            AbilitySpec(
                "visit",
                self_target=ALLOWED,
                dead_targets=True,
                description=gettext_noop(
                    "Each night, visit one player: they cannot be voted out "
                    "tomorrow, but die with you if you die tonight."
                ),
            ),
        ),
        gettext_noop(
            "Red. Visits one player: vote-immunity tomorrow, but drags them along if she dies."
        ),
        title=gettext_noop("Mistress"),
    ),
    "mafia": RoleSpec(
        "mafia",
        "mafia",
        (),
        gettext_noop("Black. Shares the mafia's kill."),
        factional_kill=True,
        title=gettext_noop("Mafia"),
    ),
    "don": RoleSpec(
        "don",
        "mafia",
        (
            AbilitySpec(
                "check", description=gettext_noop("Each night, check one player: Sheriff or not.")
            ),
        ),
        gettext_noop("Black. Final say on the mafia's kill; checks one player: Sheriff or not."),
        factional_kill=True,
        title=gettext_noop("Don"),
    ),
    "maniac": RoleSpec(
        "maniac",
        "maniac",
        (
            AbilitySpec(
                "kill",
                dead_targets=True,
                description=gettext_noop("Each night, kill one player on your own."),
            ),
        ),
        gettext_noop("Black, alone. Kills one player a night; not mafia for the parity count."),
        title=gettext_noop("Maniac"),
    ),
}

FLAGS: dict[str, FlagSpec] = {
    spec.name: spec
    for spec in (
        FlagSpec(
            "healCancelsManiacKill",
            True,
            gettext_noop("A Doctor heal also cancels a Maniac kill."),
            title=gettext_noop("Heal cancels the Maniac's kill"),
        ),
        FlagSpec(
            "loverGrantsVoteImmunity",
            True,
            gettext_noop("A Mistress visit gives next-day vote-immunity."),
            title=gettext_noop("Mistress grants vote immunity"),
        ),
        FlagSpec(
            "loverDeathDrag",
            True,
            gettext_noop("A Mistress who dies drags the player she visited."),
            title=gettext_noop("Mistress drags her partner"),
        ),
        FlagSpec(
            "loverDragSavable",
            False,
            gettext_noop("A Doctor heal stops the Lover drag."),
            title=gettext_noop("Heal stops the drag"),
        ),
        FlagSpec(
            "doctorNoRepeatTarget",
            True,
            gettext_noop("The Doctor cannot heal a player 2 nights running."),
            title=gettext_noop("Doctor cannot repeat a target"),
        ),
        FlagSpec(
            "mistressNoRepeatTarget",
            True,
            gettext_noop("The Mistress cannot visit a player 2 nights running."),
            title=gettext_noop("Mistress cannot repeat a target"),
        ),
        FlagSpec(
            "repeatTargetScope",
            "anyTarget",
            gettext_noop("No-repeat scope: every player (anyTarget) or only oneself (selfOnly)."),
            ("anyTarget", "selfOnly"),
            title=gettext_noop("No-repeat scope"),
        ),
        FlagSpec(
            "maniacWinBeatsParity",
            False,
            gettext_noop(
                "A living Maniac blocks the Mafia parity win (else the standoff is a black win)."
            ),
            title=gettext_noop("Maniac blocks the mafia parity win"),
        ),
        FlagSpec(
            "immunityBlocksVote",
            False,
            gettext_noop("The immunity card also blocks a day vote-out."),
            title=gettext_noop("Immunity card blocks the vote"),
        ),
        FlagSpec(
            "immunitySavesFromDrag",
            False,
            gettext_noop("The immunity card saves the dragged partner."),
            title=gettext_noop("Immunity card stops the drag"),
        ),
    )
}
