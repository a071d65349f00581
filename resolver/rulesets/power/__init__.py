"""The power-roles game: town, mafia and neutral roles resolved by a fixed-priority pipeline.

Roles live in ``roles.py``, block chains in ``blocks.py``, the night pipeline in
``night.py``; this module holds the rule set itself: input checks, the day vote (plurality,
no revote, jester and executioner co-wins) and the win check.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...errors import InvalidScenario
from ...model import SKIP, Action, DayOutcome, DayVotes, GameState, NightOutcome, Player, Verdict
from ...text import _, gettext_noop
from ...votes import Plurality, plurality
from ..base import FlagSpec, Ruleset, names
from . import night
from .roles import FACTION_KILL, MAFIA, NEUTRAL, ROLES, TOWN

FLAGS = {
    "blockPriority": FlagSpec(
        "blockPriority",
        False,
        gettext_noop(
            "Off: a block landing on a blocker always stops their block (pure chains). On: a "
            "block only stops a blocker of equal or lower priority (jailkeeper 3 > roleblocker 2 "
            "> mafia roleblocker 1). Circles of blocks fail either way."
        ),
        title=gettext_noop("Block priority"),
    ),
}


def nobody_eliminated(top: Plurality) -> str:
    """Why a power day's vote eliminates nobody (no revote in these rules): said once, for
    the day of votes and the table's day script (``resolver.days.power``)."""
    if not top.leaders:
        return _("Nobody is eliminated: nobody voted.")
    if top.single == SKIP:
        return _("Nobody is eliminated: skip has the most votes.")
    return _(
        "Nobody is eliminated: %(players)s tie with %(votes)s each (no revote in these rules)."
    ) % {
        "players": names([_("skip") if t == SKIP else t for t in top.leaders]),
        "votes": top.votes,
    }


class Power(Ruleset):
    name = "power"
    methods = ("priority",)
    roles = ROLES
    flags = FLAGS
    alignments = (TOWN, MAFIA, NEUTRAL)
    alignment_titles = {
        TOWN: gettext_noop("Town"),
        MAFIA: gettext_noop("Mafia"),
        NEUTRAL: gettext_noop("Neutral"),
    }
    win_conditions = {
        TOWN: gettext_noop("You win when every mafia-aligned player is dead."),
        MAFIA: gettext_noop("You win when the mafia equal or outnumber everyone else alive."),
        NEUTRAL: gettext_noop(
            "You win by your role's own goal (see your role), whoever else wins."
        ),
    }
    factional_kill = FACTION_KILL
    # Only a block (or a jail, which blocks) stops a cop's or tracker's result here, so
    # the missing result already tells them; the PM says it plainly (issue 33).
    result_abilities = frozenset({"investigate", "track"})
    no_result_line = gettext_noop("You were blocked tonight: your action got no result.")
    uses_executioner_target = True

    # -- setup -------------------------------------------------------------------------
    def check_setup(self, state: GameState) -> None:
        for i, p in enumerate(state.players):
            where = f"$.players[{i}].target"
            if p.role != "executioner":
                if p.target is not None:
                    raise InvalidScenario(
                        _("Only an executioner has a target, not %(player)s.") % {"player": p.name},
                        where,
                    )
                continue
            target = state.player(p.target) if p.target else None
            if target is None or target.name == p.name:
                raise InvalidScenario(
                    _("Executioner %(player)s needs a target: another player's name.")
                    % {"player": p.name},
                    where,
                )
            if p.alive and (not target.alive or target.alignment != TOWN):
                raise InvalidScenario(
                    _("Executioner %(player)s's target %(target)s must be a living town player.")
                    % {"player": p.name, "target": target.name},
                    where,
                )

    # -- night -------------------------------------------------------------------------
    def parse_night(self, state: GameState, raw: Any, where: str) -> tuple[Action, ...]:
        actions = super().parse_night(state, raw, where)
        seen: set[tuple[str, str]] = set()
        for a in actions:
            faction = night.is_faction_kill(state, a)
            if (a.actor, a.ability) in seen and not faction:
                raise InvalidScenario(
                    _(
                        "%(actor)s submitted a second %(ability)s tonight; each ability is used "
                        "once a night."
                    )
                    % {"actor": a.actor, "ability": a.ability},
                    f"{where}[{a.index}]",
                )
            if not faction:
                seen.add((a.actor, a.ability))
        return actions

    def check_action(self, state: GameState, action: Action, where: str) -> None:
        target = action.target or ""
        if night.is_faction_kill(state, action) and state.player(target).alignment == MAFIA:
            raise InvalidScenario(
                _("The mafia cannot kill %(target)s: %(target)s is mafia-aligned.")
                % {"target": target},
                f"{where}.targets[0]",
            )
        if action.ability == "forge" and action.extra.get("role") not in ROLES:
            raise InvalidScenario(
                _("%(actor)s can only forge a role of this game (%(roles)s), not %(role)s.")
                % {
                    "actor": action.actor,
                    "roles": ", ".join(ROLES),
                    "role": repr(action.extra.get("role")),
                },
                f"{where}.role",
            )

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        return night.resolve(state, actions, bool(state.flags.get("blockPriority")))

    # -- day ---------------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.revote is not None:
            raise InvalidScenario(
                _("The power rule set has no revote: a tied vote eliminates nobody."),
                f"{where}.revote",
            )

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        top = plurality(day.votes)
        out = top.single if top.single != SKIP else None
        if out is None:
            return DayOutcome(None, None, (nobody_eliminated(top),), state)
        role = state.player(out).role
        shown = role.replace("_", " ")  # the role's slug, as the reveal names it
        lines = [
            _("%(player)s has the most votes (%(votes)s) and is eliminated. Role: %(role)s.")
            % {"player": out, "votes": top.votes, "role": shown}
        ]
        winners = co_winners_of(state, out)
        lines += [
            _("%(player)s wins too: %(reason)s.") % {"player": p, "reason": reason}
            for p, reason in winners.items()
        ]
        after = replace(
            state.with_dead([out]),
            co_winners=tuple(dict.fromkeys((*state.co_winners, *winners))),
        )
        return DayOutcome(out, None, tuple(lines), after, {out: role})

    # -- win ---------------------------------------------------------------------------
    def check_winner(self, state: GameState) -> Verdict:
        return winner(state)


def co_winners_of(state: GameState, eliminated: str) -> dict[str, str]:
    """Players who co-win because ``eliminated`` was voted out, with the reason."""
    won: dict[str, str] = {}
    if state.player(eliminated).role == "jester":
        won[eliminated] = _("the jester was voted out")
    for p in state.alive:
        if p.role == "executioner" and p.target == eliminated:
            won[p.name] = _("their target %(target)s was voted out") % {"target": eliminated}
    return won


def winner(state: GameState) -> Verdict:
    """Town: no mafia-aligned player alive. Mafia: they equal or outnumber everyone else.

    Neutral players count with the town here: they are not mafia and they vote.
    """
    mafia = sum(1 for p in state.alive if p.alignment == MAFIA)
    others = len(state.alive) - mafia
    if mafia == 0:
        return Verdict(TOWN, _("Every mafia-aligned player is dead."))
    if mafia >= others:
        return Verdict(
            MAFIA,
            _("The mafia (%(mafia)s) equal or outnumber everyone else alive (%(others)s).")
            % {"mafia": mafia, "others": others},
        )
    return Verdict(None)


def default_shooter(state: GameState) -> Player | None:
    """Who carries out the mafia kill when the team does not say: the godfather, else the
    first living mafia member in seating order (for the web app's night form)."""
    mafia = [p for p in state.alive if p.alignment == MAFIA]
    return next((p for p in mafia if p.role == "godfather"), mafia[0] if mafia else None)


RULESET = Power()
