"""The ``forum`` rule set: mafiascum-style Normal games, as run on forums.

Nights resolve by Reasonable Action Resolution (``rar``, default, rar.py) or Natural
Action Resolution (``nar``, nar.py); days by majority (or plurality, a house rule).
"""

from __future__ import annotations

from ...errors import InvalidScenario
from ...model import SKIP, Action, DayOutcome, DayVotes, GameState, NightOutcome, Verdict
from ...votes import majority_needed, plurality, tally
from ..base import AbilitySpec, FlagSpec, Ruleset, names
from .roles import FACTION_KILL, MODIFIERS, ROLES, SANITIES

FLAGS = {
    f.name: f
    for f in (
        FlagSpec(
            "dayVote",
            "majority",
            "How the day's elimination is decided: majority of the living, or plurality.",
            ("majority", "plurality"),
        ),
        FlagSpec(
            "selfTargeting",
            False,
            "Players may target themselves with any ability (RAR default: only "
            "abilities that only self-target).",
        ),
        FlagSpec(
            "selfVote",
            True,
            "A player may vote for themself by day.",
        ),
        FlagSpec(
            "noEliminationVote",
            True,
            'Players may vote "skip" (no elimination).',
        ),
        FlagSpec(
            "protectionStopsAllKills",
            True,
            "One protection stops every kill on its target that night (RAR's reading); "
            "false: it stops one kill.",
        ),
        FlagSpec(
            "narSharedSwaps",
            "compose",
            "NAR only: two bus swaps sharing a player apply one after the other in "
            "resolution order (compose), or cancel out for actions on the shared player, "
            "moving each action at most once (cancel, RAR's reading).",
            ("compose", "cancel"),
        ),
    )
}


class ForumRuleset(Ruleset):
    name = "forum"
    methods = ("rar", "nar")
    roles = ROLES
    modifiers = MODIFIERS
    flags = FLAGS
    sanities = SANITIES
    alignments = ("town", "mafia")
    factional_kill: AbilitySpec | None = FACTION_KILL

    def self_target_allowed(self, state: GameState, ability: AbilitySpec) -> bool:
        return bool(state.flags.get("selfTargeting"))

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        if state.method == "nar":
            from .nar import resolve_nar

            return resolve_nar(self, state, actions)
        from .rar import resolve_rar

        return resolve_rar(self, state, actions)

    # -- day -----------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.revote is not None:
            raise InvalidScenario("Forum games have no revote.", f"{where}.revote")
        for voter, target in day.votes.items():
            if target == voter and not state.flags["selfVote"]:
                raise InvalidScenario(
                    f"{voter} votes for themself, which this game's rules forbid.",
                    f"{where}.votes.{voter}",
                )
            if target == SKIP and not state.flags["noEliminationVote"]:
                raise InvalidScenario(
                    "This game has no skip (no elimination) vote.", f"{where}.votes.{voter}"
                )

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        alive = state.alive_names
        count = tally(day.votes, alive)
        lines: list[str] = []
        eliminated: str | None = None
        if state.flags["dayVote"] == "majority":
            leader = count.majority_target
            need = majority_needed(len(alive))
            if leader is None:
                lines.append(
                    f"No wagon reached majority ({need} of {len(alive)} alive): "
                    "nobody is eliminated."
                )
            elif leader == SKIP:
                lines.append(f"A majority ({need}) voted for no elimination: nobody is eliminated.")
            else:
                eliminated = leader
                voters = count.wagon(leader).voters  # type: ignore[union-attr]
                lines.append(
                    f"{leader} is eliminated: {names(voters)} voted for them, "
                    f"reaching majority ({need} of {len(alive)} alive)."
                )
        else:
            top = plurality(day.votes)
            if not top.leaders:
                lines.append("Nobody voted: nobody is eliminated.")
            elif top.single is None:
                lines.append(
                    f"{names(list(top.leaders))} tied with {top.votes} votes each: "
                    "nobody is eliminated."
                )
            elif top.single == SKIP:
                lines.append("No elimination had the most votes: nobody is eliminated.")
            else:
                eliminated = top.single
                lines.append(f"{eliminated} is eliminated with the most votes ({top.votes}).")
        after = state
        reveals = {}
        if eliminated is not None:
            after = state.with_dead([eliminated])
            reveals = {eliminated: state.player(eliminated).role}
        return DayOutcome(eliminated, None, tuple(lines), after, reveals)

    # -- win -----------------------------------------------------------------------
    def check_winner(self, state: GameState) -> Verdict:
        mafia = sum(1 for p in state.alive if p.alignment == "mafia")
        others = len(state.alive) - mafia
        if mafia == 0:
            return Verdict("town", "Every mafia member is dead.")
        if mafia >= others:
            return Verdict(
                "mafia",
                f"The mafia ({mafia}) equal or outnumber everyone else ({others}): "
                "the town can no longer win a vote.",
            )
        return Verdict(None)


RULESET = ForumRuleset()
