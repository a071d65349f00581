"""City mafia data: the seven roles, their night abilities and the house-rule flags."""

from __future__ import annotations

from ..base import ALLOWED, AbilitySpec, FlagSpec, RoleSpec

# Kills and visits may name a player who is already dead: the document makes a stale
# target a no-op ("no phantom death"), not an error. A heal of the dead is the same no-op.
FACTION_KILL = AbilitySpec("kill", factional=True, dead_targets=True)

ROLES: dict[str, RoleSpec] = {
    "citizen": RoleSpec("citizen", "town", (), "Red. No night action; speaks and votes by day."),
    "sheriff": RoleSpec(
        "sheriff", "town", (AbilitySpec("check"),), "Red. Checks one player: red or black."
    ),
    "doctor": RoleSpec(
        "doctor",
        "town",
        (AbilitySpec("heal", self_target=ALLOWED, dead_targets=True),),
        "Red. Heals one player for the whole night (self allowed, not two nights running).",
    ),
    "mistress": RoleSpec(
        "mistress",
        "town",
        (AbilitySpec("visit", self_target=ALLOWED, dead_targets=True),),
        "Red. Visits one player: vote-immunity tomorrow, but drags them along if she dies.",
    ),
    "mafia": RoleSpec("mafia", "mafia", (), "Black. Shares the mafia's kill.", factional_kill=True),
    "don": RoleSpec(
        "don",
        "mafia",
        (AbilitySpec("check"),),
        "Black. Final say on the mafia's kill; checks one player: Sheriff or not.",
        factional_kill=True,
    ),
    "maniac": RoleSpec(
        "maniac",
        "maniac",
        (AbilitySpec("kill", dead_targets=True),),
        "Black, alone. Kills one player a night; not mafia for the parity count.",
    ),
}

FLAGS: dict[str, FlagSpec] = {
    spec.name: spec
    for spec in (
        FlagSpec("healCancelsManiacKill", True, "A Doctor heal also cancels a Maniac kill."),
        FlagSpec("loverGrantsVoteImmunity", True, "A Mistress visit gives next-day vote-immunity."),
        FlagSpec("loverDeathDrag", True, "A Mistress who dies drags the player she visited."),
        FlagSpec("loverDragSavable", False, "A Doctor heal stops the Lover drag."),
        FlagSpec("doctorNoRepeatTarget", True, "The Doctor cannot heal a player 2 nights running."),
        FlagSpec(
            "mistressNoRepeatTarget", True, "The Mistress cannot visit a player 2 nights running."
        ),
        FlagSpec(
            "repeatTargetScope",
            "anyTarget",
            "No-repeat scope: every player (anyTarget) or only oneself (selfOnly).",
            ("anyTarget", "selfOnly"),
        ),
        FlagSpec(
            "maniacWinBeatsParity",
            False,
            "A living Maniac blocks the Mafia parity win (else the standoff is a black win).",
        ),
        FlagSpec("immunityBlocksVote", False, "The immunity card also blocks a day vote-out."),
        FlagSpec("immunitySavesFromDrag", False, "The immunity card saves the dragged partner."),
    )
}
