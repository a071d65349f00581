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
from ...votes import plurality
from ..base import FlagSpec, Ruleset, names
from . import night
from .roles import FACTION_KILL, MAFIA, NEUTRAL, ROLES, TOWN

FLAGS = {
    "blockPriority": FlagSpec(
        "blockPriority",
        False,
        "Off: a block landing on a blocker always stops their block (pure chains). On: a "
        "block only stops a blocker of equal or lower priority (jailkeeper 3 > roleblocker 2 "
        "> mafia roleblocker 1). Circles of blocks fail either way.",
        title="Block priority",
    ),
}


class Power(Ruleset):
    name = "power"
    methods = ("priority",)
    roles = ROLES
    flags = FLAGS
    alignments = (TOWN, MAFIA, NEUTRAL)
    alignment_titles = {TOWN: "Town", MAFIA: "Mafia", NEUTRAL: "Neutral"}
    win_conditions = {
        TOWN: "You win when every mafia-aligned player is dead.",
        MAFIA: "You win when the mafia equal or outnumber everyone else alive.",
        NEUTRAL: "You win by your role's own goal (see your role), whoever else wins.",
    }
    factional_kill = FACTION_KILL
    # Only a block (or a jail, which blocks) stops a cop's or tracker's result here, so
    # the missing result already tells them; the PM says it plainly (issue 33).
    result_abilities = frozenset({"investigate", "track"})
    no_result_line = "You were blocked tonight: your action got no result."
    uses_executioner_target = True

    # -- setup -------------------------------------------------------------------------
    def check_setup(self, state: GameState) -> None:
        for i, p in enumerate(state.players):
            where = f"$.players[{i}].target"
            if p.role != "executioner":
                if p.target is not None:
                    raise InvalidScenario(f"Only an executioner has a target, not {p.name}.", where)
                continue
            target = state.player(p.target) if p.target else None
            if target is None or target.name == p.name:
                raise InvalidScenario(
                    f"Executioner {p.name} needs a target: another player's name.", where
                )
            if p.alive and (not target.alive or target.alignment != TOWN):
                raise InvalidScenario(
                    f"Executioner {p.name}'s target {target.name} must be a living town player.",
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
                    f"{a.actor} submitted a second {a.ability} tonight; each ability is used "
                    "once a night.",
                    f"{where}[{a.index}]",
                )
            if not faction:
                seen.add((a.actor, a.ability))
        return actions

    def check_action(self, state: GameState, action: Action, where: str) -> None:
        target = action.target or ""
        if night.is_faction_kill(state, action) and state.player(target).alignment == MAFIA:
            raise InvalidScenario(
                f"The mafia cannot kill {target}: {target} is mafia-aligned.",
                f"{where}.targets[0]",
            )
        if action.ability == "forge" and action.extra.get("role") not in ROLES:
            raise InvalidScenario(
                f"{action.actor} can only forge a role of this game "
                f"({', '.join(ROLES)}), not {action.extra.get('role')!r}.",
                f"{where}.role",
            )

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        return night.resolve(state, actions, bool(state.flags.get("blockPriority")))

    # -- day ---------------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.revote is not None:
            raise InvalidScenario(
                "The power rule set has no revote: a tied vote eliminates nobody.",
                f"{where}.revote",
            )

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        top = plurality(day.votes)
        out = top.single if top.single != SKIP else None
        if out is None:
            if not top.leaders:
                why = "nobody voted"
            elif top.single == SKIP:
                why = "skip has the most votes"
            else:
                why = f"{names(top.leaders)} tie with {top.votes} each (no revote in these rules)"
            return DayOutcome(None, None, (f"Nobody is eliminated: {why}.",), state)
        role = state.player(out).role
        shown = role.replace("_", " ")
        lines = [f"{out} has the most votes ({top.votes}) and is eliminated. Role: {shown}."]
        winners = co_winners_of(state, out)
        lines += [f"{p} wins too: {reason}." for p, reason in winners.items()]
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
        won[eliminated] = "the jester was voted out"
    for p in state.alive:
        if p.role == "executioner" and p.target == eliminated:
            won[p.name] = f"their target {eliminated} was voted out"
    return won


def winner(state: GameState) -> Verdict:
    """Town: no mafia-aligned player alive. Mafia: they equal or outnumber everyone else.

    Neutral players count with the town here: they are not mafia and they vote.
    """
    mafia = sum(1 for p in state.alive if p.alignment == MAFIA)
    others = len(state.alive) - mafia
    if mafia == 0:
        return Verdict(TOWN, "Every mafia-aligned player is dead.")
    if mafia >= others:
        return Verdict(
            MAFIA, f"The mafia ({mafia}) equal or outnumber everyone else alive ({others})."
        )
    return Verdict(None)


def default_shooter(state: GameState) -> Player | None:
    """Who carries out the mafia kill when the team does not say: the godfather, else the
    first living mafia member in seating order (for the web app's night form)."""
    mafia = [p for p in state.alive if p.alignment == MAFIA]
    return next((p for p in mafia if p.role == "godfather"), mafia[0] if mafia else None)


RULESET = Power()
