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
from ..text import _, gettext_noop
from ..votes import plurality
from .base import ALLOWED, NEVER, AbilitySpec, RoleSpec, Ruleset, names

MAFIA = "mafia"
# memory key: the player the last day eliminated (None after a night or a no-elimination day)
DAY_ELIMINATION = "day_elimination"

INVESTIGATE = AbilitySpec(
    "investigate",
    self_target=NEVER,
    description=gettext_noop("Each night, investigate one player: you learn mafia or not mafia."),
)
PROTECT = AbilitySpec(
    "protect",
    self_target=ALLOWED,
    description=gettext_noop(
        "Each night, protect one player (yourself too) from the mafia's kill."
    ),
)
FACTION_KILL = AbilitySpec(
    "kill",
    factional=True,
    description=gettext_noop("Each night the mafia kill one player together."),
)

ROLES: Mapping[str, RoleSpec] = {
    "town": RoleSpec(
        "town",
        "town",
        description=gettext_noop("No night action; finds the mafia by talking."),
        title=gettext_noop("Town"),
    ),
    "detective": RoleSpec(
        "detective",
        "town",
        (INVESTIGATE,),
        gettext_noop("Investigates one player a night and learns mafia or not mafia."),
        cop_like=True,
        title=gettext_noop("Detective"),
    ),
    "doctor": RoleSpec(
        "doctor",
        "town",
        (PROTECT,),
        gettext_noop("Protects one player a night (self allowed) from the kill."),
        title=gettext_noop("Doctor"),
    ),
    "mafia": RoleSpec(
        "mafia",
        MAFIA,
        (),
        gettext_noop("Knows the other mafia; they kill one player a night."),
        True,
        title=gettext_noop("Mafia"),
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
        return Count(None, (), _("Nobody voted, so nobody is eliminated."))
    if top.single == SKIP:
        line = _("Skip has the most votes (%(n)s), so nobody is eliminated.") % {"n": n}
        return Count(None, (), line)
    if top.single is not None:
        line = _("%(player)s has the most votes (%(n)s) and is eliminated.")
        return Count(top.single, (), line % {"player": top.single, "n": n})
    if SKIP in top.leaders and len(players) == 1:
        line = _("Skip and %(player)s tie with %(n)s each: a revote between %(player)s and skip.")
        return Count(None, players, line % {"player": players[0], "n": n})
    # Skip tied with several players: the players' tie decides (skip is on the revote anyway).
    line = (
        _("%(players)s tie with %(n)s each (skip ties too): a revote between them, skip allowed.")
        if SKIP in top.leaders
        else _("%(players)s tie with %(n)s each: a revote between them, skip allowed.")
    )
    return Count(None, players, line % {"players": names(players), "n": n})


def count_revote(votes: Mapping[str, str], options: tuple[str, ...]) -> Count:
    """The revote among the tied players and skip: a tie or skip on top means nobody."""
    top = plurality(votes, (*options, SKIP))
    n = top.votes
    if not top.leaders:
        return Count(None, (), _("Nobody voted in the revote, so nobody is eliminated."))
    if top.single == SKIP:
        line = _("Skip wins the revote (%(n)s), so nobody is eliminated.") % {"n": n}
        return Count(None, (), line)
    if top.single is not None:
        line = _("In the revote %(player)s has the most votes (%(n)s) and is eliminated.")
        return Count(top.single, (), line % {"player": top.single, "n": n})
    line = _("The revote is tied again (%(n)s each), so nobody is eliminated.") % {"n": n}
    return Count(None, (), line)


class Classic(Ruleset):
    name = "classic"
    methods = ("simple",)
    roles = ROLES
    factional_kill = FACTION_KILL
    uses_nominations = True
    reveals_roles_on_death = False  # "Roles are not revealed until the game ends"
    night_attempts = 3  # "After 3 failed attempts ... random valid target for night actions"
    win_conditions = {
        "town": gettext_noop("You win when every mafia member has been eliminated."),
        "mafia": gettext_noop("You win when the mafia equal or outnumber the town."),
    }

    # -- night -----------------------------------------------------------------------
    def parse_night(self, state: GameState, raw: Any, where: str) -> tuple[Action, ...]:
        actions = super().parse_night(state, raw, where)
        seen: set[tuple[str, str]] = set()
        for action in actions:
            key = (action.actor, action.ability)
            if key in seen and action.ability != FACTION_KILL.slug:
                raise InvalidScenario(
                    _(
                        "%(actor)s submitted a second %(ability)s tonight; "
                        "each player acts once a night."
                    )
                    % {"actor": action.actor, "ability": action.ability},
                    f"{where}[{action.index}]",
                )
            seen.add(key)
        return actions

    def check_action(self, state: GameState, action: Action, where: str) -> None:
        if action.ability == FACTION_KILL.slug and is_mafia(state, action.target or ""):
            raise InvalidScenario(
                _("The mafia cannot kill %(target)s: %(target)s is a fellow mafia member.")
                % {"target": action.target},
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
                line = (
                    _("%(actor)s investigates %(target)s: mafia.")
                    if result == MAFIA
                    else _("%(actor)s investigates %(target)s: not mafia.")
                )
                lines.append(line % {"actor": action.actor, "target": action.target})
        kills = [a for a in actions if a.ability == FACTION_KILL.slug]
        dead: tuple[str, ...] = ()
        if not kills or not kills[-1].target:
            lines.append(_("The mafia hold fire tonight: nobody is attacked."))
        else:
            shot = kills[-1]
            victim = shot.target or ""
            if victim in protected:
                lines.append(
                    _(
                        "%(victim)s survives: the mafia's kill (%(actor)s) was stopped by "
                        "%(doctor)s's protection."
                    )
                    % {"victim": victim, "actor": shot.actor, "doctor": protected[victim]}
                )
            else:
                dead = (victim,)
                lines.append(
                    _("%(victim)s is killed by the mafia (%(actor)s).")
                    % {"victim": victim, "actor": shot.actor}
                )
        after = state.with_dead(dead).with_memory(**{DAY_ELIMINATION: None})
        return NightOutcome(dead, results, {}, (), tuple(lines), after)

    # -- day -------------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.nominations is not None:
            first_day = state.night_number == 0
            for nominator, nominee in day.nominations.items():
                if nominee == SKIP and not first_day:
                    raise InvalidScenario(
                        _("%(player)s nominates skip, which is only allowed on day 1.")
                        % {"player": nominator},
                        f"{where}.nominations.{nominator}",
                    )
            ballot = self.ballot(day)
            assert ballot is not None  # nominations were given: a ballot of them
            for voter, target in day.votes.items():
                if target != SKIP and target not in ballot:
                    raise InvalidScenario(
                        _(
                            "%(voter)s cannot vote for an unnominated player (%(target)s); "
                            "only nominated players and skip are on the ballot."
                        )
                        % {"voter": voter, "target": target},
                        f"{where}.votes.{voter}",
                    )
        if day.revote is not None:
            first = count_first_round(day.votes)
            if not first.revote:
                raise InvalidScenario(
                    _("There is no revote today: the first vote was not tied."), f"{where}.revote"
                )
            for voter, target in day.revote.items():
                if target != SKIP and target not in first.revote:
                    raise InvalidScenario(
                        _(
                            "%(voter)s votes for %(target)s in the revote, but only "
                            "%(tied)s and skip are on the revote ballot."
                        )
                        % {"voter": voter, "target": target, "tied": names(first.revote)},
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
        return Verdict("town", _("Every mafia member has been eliminated."))
    if mafia >= town:
        return Verdict(
            MAFIA,
            _("The mafia (%(mafia)s) equal or outnumber the town-aligned players (%(town)s).")
            % {"mafia": mafia, "town": town},
        )
    doctor_alive = any(p.role == "doctor" for p in state.alive)
    if state.memory.get(DAY_ELIMINATION) and not doctor_alive and mafia >= town - 1:
        return Verdict(
            MAFIA,
            _(
                "The doctor is dead, so nothing can stop the next night kill, which would leave "
                "the mafia (%(mafia)s) equal to or outnumbering the town (%(town)s); "
                "the game ends right after this elimination."
            )
            % {"mafia": mafia, "town": town - 1},
        )
    return Verdict(None)


RULESET = Classic()
