"""City mafia data: the seven roles, their night abilities and the house-rule flags."""

from __future__ import annotations

from ..base import ALLOWED, AbilitySpec, FlagSpec, RoleSpec

# Kills and visits may name a player who is already dead: the document makes a stale
# target a no-op ("no phantom death"), not an error. A heal of the dead is the same no-op.
FACTION_KILL = AbilitySpec(
    "kill",
    factional=True,
    dead_targets=True,
    description="Each night the mafia choose one player to kill; the Don has the final say.",
)

ROLES: dict[str, RoleSpec] = {
    "citizen": RoleSpec(
        "citizen", "town", (), "Red. No night action; speaks and votes by day.", title="Citizen"
    ),
    "sheriff": RoleSpec(
        "sheriff",
        "town",
        (AbilitySpec("check", description="Each night, check one player: red or black."),),
        "Red. Checks one player: red or black.",
        title="Sheriff",
    ),
    "doctor": RoleSpec(
        "doctor",
        "town",
        (
            AbilitySpec(
                "heal",
                self_target=ALLOWED,
                dead_targets=True,
                description="Each night, heal one player (yourself too, not the same one "
                "two nights running): they survive the night's kills.",
            ),
        ),
        "Red. Heals one player for the whole night (self allowed, not two nights running).",
        title="Doctor",
    ),
    "mistress": RoleSpec(
        "mistress",
        "town",
        (
            AbilitySpec(
                "visit",
                self_target=ALLOWED,
                dead_targets=True,
                description="Each night, visit one player: they cannot be voted out "
                "tomorrow, but die with you if you die tonight.",
            ),
        ),
        "Red. Visits one player: vote-immunity tomorrow, but drags them along if she dies.",
        title="Mistress",
    ),
    "mafia": RoleSpec(
        "mafia",
        "mafia",
        (),
        "Black. Shares the mafia's kill.",
        factional_kill=True,
        title="Mafia",
    ),
    "don": RoleSpec(
        "don",
        "mafia",
        (AbilitySpec("check", description="Each night, check one player: Sheriff or not."),),
        "Black. Final say on the mafia's kill; checks one player: Sheriff or not.",
        factional_kill=True,
        title="Don",
    ),
    "maniac": RoleSpec(
        "maniac",
        "maniac",
        (
            AbilitySpec(
                "kill", dead_targets=True, description="Each night, kill one player on your own."
            ),
        ),
        "Black, alone. Kills one player a night; not mafia for the parity count.",
        title="Maniac",
    ),
}

FLAGS: dict[str, FlagSpec] = {
    spec.name: spec
    for spec in (
        FlagSpec(
            "healCancelsManiacKill",
            True,
            "A Doctor heal also cancels a Maniac kill.",
            title="Heal cancels the Maniac's kill",
        ),
        FlagSpec(
            "loverGrantsVoteImmunity",
            True,
            "A Mistress visit gives next-day vote-immunity.",
            title="Mistress grants vote immunity",
        ),
        FlagSpec(
            "loverDeathDrag",
            True,
            "A Mistress who dies drags the player she visited.",
            title="Mistress drags her partner",
        ),
        FlagSpec(
            "loverDragSavable",
            False,
            "A Doctor heal stops the Lover drag.",
            title="Heal stops the drag",
        ),
        FlagSpec(
            "doctorNoRepeatTarget",
            True,
            "The Doctor cannot heal a player 2 nights running.",
            title="Doctor cannot repeat a target",
        ),
        FlagSpec(
            "mistressNoRepeatTarget",
            True,
            "The Mistress cannot visit a player 2 nights running.",
            title="Mistress cannot repeat a target",
        ),
        FlagSpec(
            "repeatTargetScope",
            "anyTarget",
            "No-repeat scope: every player (anyTarget) or only oneself (selfOnly).",
            ("anyTarget", "selfOnly"),
            title="No-repeat scope",
        ),
        FlagSpec(
            "maniacWinBeatsParity",
            False,
            "A living Maniac blocks the Mafia parity win (else the standoff is a black win).",
            title="Maniac blocks the mafia parity win",
        ),
        FlagSpec(
            "immunityBlocksVote",
            False,
            "The immunity card also blocks a day vote-out.",
            title="Immunity card blocks the vote",
        ),
        FlagSpec(
            "immunitySavesFromDrag",
            False,
            "The immunity card saves the dragged partner.",
            title="Immunity card stops the drag",
        ),
    )
}
