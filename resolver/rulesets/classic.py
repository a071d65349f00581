"""The classic ten-player game: 3 mafia, a detective, a doctor and 5 town.

Nights are simple: the mafia's one kill fails only if the doctor protected its target;
the detective learns ``mafia`` / ``not_mafia``. Days run on nominations: only nominated
players can be voted for, the plurality is eliminated, skip on top means nobody, and a
tie goes to a revote. Roles are not revealed until the game ends, so reveals stay empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidScenario
from ..model import SKIP, Action, DayOutcome, DayVotes, GameState, NightOutcome, Verdict
from ..votes import plurality
from .base import ALLOWED, NEVER, AbilitySpec, RoleSpec, Ruleset, names

MAFIA = "mafia"
# memory key: the player the last day eliminated (None after a night or a no-elimination day)
DAY_ELIMINATION = "day_elimination"

INVESTIGATE = AbilitySpec(
    "investigate",
    self_target=NEVER,
    description="Each night, investigate one player: you learn mafia or not mafia.",
)
PROTECT = AbilitySpec(
    "protect",
    self_target=ALLOWED,
    description="Each night, protect one player (yourself too) from the mafia's kill.",
)
FACTION_KILL = AbilitySpec(
    "kill", factional=True, description="Each night the mafia kill one player together."
)

ROLES: Mapping[str, RoleSpec] = {
    "town": RoleSpec(
        "town", "town", description="No night action; finds the mafia by talking.", title="Town"
    ),
    "detective": RoleSpec(
        "detective",
        "town",
        (INVESTIGATE,),
        "Investigates one player a night and learns mafia or not mafia.",
        cop_like=True,
        title="Detective",
    ),
    "doctor": RoleSpec(
        "doctor",
        "town",
        (PROTECT,),
        "Protects one player a night (self allowed) from the kill.",
        title="Doctor",
    ),
    "mafia": RoleSpec(
        "mafia",
        MAFIA,
        (),
        "Knows the other mafia; they kill one player a night.",
        True,
        title="Mafia",
    ),
}


def is_mafia(state: GameState, name: str) -> bool:
    return state.player(name).alignment == MAFIA


# -- day -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Count:
    """One round of voting: who won it, or who goes to a revote."""

    eliminated: str | None
    revote: tuple[str, ...]  # tied players going to a revote (never "skip")
    line: str


def count_first_round(votes: Mapping[str, str]) -> Count:
    """Plurality with the classic tie rules (see the README, Rules: Classic)."""
    top = plurality(votes)
    players = tuple(t for t in top.leaders if t != SKIP)
    n = top.votes
    if not top.leaders:
        return Count(None, (), "Nobody voted, so nobody is eliminated.")
    if top.single == SKIP:
        return Count(None, (), f"Skip has the most votes ({n}), so nobody is eliminated.")
    if top.single is not None:
        return Count(top.single, (), f"{top.single} has the most votes ({n}) and is eliminated.")
    if SKIP in top.leaders and len(players) == 1:
        line = f"Skip and {players[0]} tie with {n} each: a revote between {players[0]} and skip."
        return Count(None, players, line)
    # Skip tied with several players: the players' tie decides (skip is on the revote anyway).
    also = " (skip ties too)" if SKIP in top.leaders else ""
    line = f"{names(players)} tie with {n} each{also}: a revote between them, skip allowed."
    return Count(None, players, line)


def count_revote(votes: Mapping[str, str], options: tuple[str, ...]) -> Count:
    """The revote among the tied players and skip: a tie or skip on top means nobody."""
    top = plurality(votes, (*options, SKIP))
    n = top.votes
    if not top.leaders:
        return Count(None, (), "Nobody voted in the revote, so nobody is eliminated.")
    if top.single == SKIP:
        return Count(None, (), f"Skip wins the revote ({n}), so nobody is eliminated.")
    if top.single is not None:
        line = f"In the revote {top.single} has the most votes ({n}) and is eliminated."
        return Count(top.single, (), line)
    return Count(None, (), f"The revote is tied again ({n} each), so nobody is eliminated.")


class Classic(Ruleset):
    name = "classic"
    methods = ("simple",)
    roles = ROLES
    factional_kill = FACTION_KILL
    uses_nominations = True
    reveals_roles_on_death = False  # "Roles are not revealed until the game ends"
    night_attempts = 3  # "After 3 failed attempts ... random valid target for night actions"
    win_conditions = {
        "town": "You win when every mafia member has been eliminated.",
        "mafia": "You win when the mafia equal or outnumber the town.",
    }

    # -- night -----------------------------------------------------------------------
    def parse_night(self, state: GameState, raw: Any, where: str) -> tuple[Action, ...]:
        actions = super().parse_night(state, raw, where)
        seen: set[tuple[str, str]] = set()
        for action in actions:
            key = (action.actor, action.ability)
            if key in seen and action.ability != FACTION_KILL.slug:
                raise InvalidScenario(
                    f"{action.actor} submitted a second {action.ability} tonight; "
                    "each player acts once a night.",
                    f"{where}[{action.index}]",
                )
            seen.add(key)
        return actions

    def check_action(self, state: GameState, action: Action, where: str) -> None:
        if action.ability == FACTION_KILL.slug and is_mafia(state, action.target or ""):
            raise InvalidScenario(
                f"The mafia cannot kill {action.target}: {action.target} is a fellow mafia member.",
                f"{where}.targets[0]",
            )

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        lines: list[str] = []
        results: dict[str, tuple[dict[str, str], ...]] = {}
        protected = {a.target: a.actor for a in actions if a.ability == PROTECT.slug and a.target}
        for action in actions:
            if action.ability == INVESTIGATE.slug and action.target:
                result = MAFIA if is_mafia(state, action.target) else "not_mafia"
                results[action.actor] = (
                    {"kind": "investigation", "target": action.target, "result": result},
                )
                shown = "mafia" if result == MAFIA else "not mafia"
                lines.append(f"{action.actor} investigates {action.target}: {shown}.")
        kills = [a for a in actions if a.ability == FACTION_KILL.slug]
        dead: tuple[str, ...] = ()
        if not kills or not kills[-1].target:
            lines.append("The mafia hold fire tonight: nobody is attacked.")
        else:
            shot = kills[-1]
            victim = shot.target or ""
            if victim in protected:
                lines.append(
                    f"{victim} survives: the mafia's kill ({shot.actor}) was stopped by "
                    f"{protected[victim]}'s protection."
                )
            else:
                dead = (victim,)
                lines.append(f"{victim} is killed by the mafia ({shot.actor}).")
        after = state.with_dead(dead).with_memory(**{DAY_ELIMINATION: None})
        return NightOutcome(dead, results, {}, (), tuple(lines), after)

    # -- day -------------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.nominations is not None:
            first_day = state.night_number == 0
            for nominator, nominee in day.nominations.items():
                if nominee == SKIP and not first_day:
                    raise InvalidScenario(
                        f"{nominator} nominates skip, which is only allowed on day 1.",
                        f"{where}.nominations.{nominator}",
                    )
            ballot = self.ballot(day)
            assert ballot is not None  # nominations were given: a ballot of them
            for voter, target in day.votes.items():
                if target != SKIP and target not in ballot:
                    raise InvalidScenario(
                        f"{voter} cannot vote for an unnominated player ({target}); "
                        "only nominated players and skip are on the ballot.",
                        f"{where}.votes.{voter}",
                    )
        if day.revote is not None:
            first = count_first_round(day.votes)
            if not first.revote:
                raise InvalidScenario(
                    "There is no revote today: the first vote was not tied.", f"{where}.revote"
                )
            for voter, target in day.revote.items():
                if target != SKIP and target not in first.revote:
                    raise InvalidScenario(
                        f"{voter} votes for {target} in the revote, but only "
                        f"{names(first.revote)} and skip are on the revote ballot.",
                        f"{where}.revote.{voter}",
                    )

    @staticmethod
    def ballot(day: DayVotes) -> set[str] | None:
        """Players who may be voted for (None: nominations not given, everyone may be)."""
        if day.nominations is None:
            return None
        return {n for n in day.nominations.values() if n != SKIP}

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        first = count_first_round(day.votes)
        lines = [first.line]
        eliminated, revote = first.eliminated, first.revote or None
        if first.revote and day.revote is not None:
            second = count_revote(day.revote, first.revote)
            lines.append(second.line)
            eliminated, revote = second.eliminated, None
        after = state.with_memory(**{DAY_ELIMINATION: eliminated})
        if eliminated is not None:
            after = after.with_dead([eliminated])
        return DayOutcome(eliminated, revote, tuple(lines), after)

    # -- win -------------------------------------------------------------------------
    def check_winner(self, state: GameState) -> Verdict:
        return winner(state)


def winner(state: GameState) -> Verdict:
    """Town: every mafia member is dead. Mafia: parity, or parity they are sure to reach.

    The early end: after a day elimination, with the doctor dead, nothing can stop the
    coming night kill, so if the mafia will reach parity with it the game ends now.
    """
    mafia = sum(1 for p in state.alive if p.alignment == MAFIA)
    town = len(state.alive) - mafia
    if mafia == 0:
        return Verdict("town", "Every mafia member has been eliminated.")
    if mafia >= town:
        return Verdict(
            MAFIA, f"The mafia ({mafia}) equal or outnumber the town-aligned players ({town})."
        )
    doctor_alive = any(p.role == "doctor" for p in state.alive)
    if state.memory.get(DAY_ELIMINATION) and not doctor_alive and mafia >= town - 1:
        return Verdict(
            MAFIA,
            f"The doctor is dead, so nothing can stop the next night kill, which would leave "
            f"the mafia ({mafia}) equal to or outnumbering the town ({town - 1}); "
            "the game ends right after this elimination.",
        )
    return Verdict(None)


RULESET = Classic()
