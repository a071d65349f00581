"""The ``forum`` rule set: mafiascum-style Normal games, as run on forums.

Nights resolve by Reasonable Action Resolution (``rar``, default, rar.py) or Natural
Action Resolution (``nar``, nar.py); days by majority (or plurality, a house rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from ...errors import InvalidScenario
from ...model import (
    SKIP,
    Action,
    DayActionOutcome,
    DayOutcome,
    DayVotes,
    GameState,
    NightOutcome,
    Player,
    Verdict,
)
from ...text import _, gettext_noop, ngettext
from ...votes import VoteCount
from ..base import AbilitySpec, FlagSpec, Ruleset, split_modifier
from . import common
from . import day as forum_day
from . import win as forum_win
from .day_actions import resolve_day_action
from .roles import CONFLICTS, FACTION_KILL, JESTER, MODIFIERS, ROLES, SANITIES, THIRD_PARTIES

FLAGS = {
    f.name: f
    for f in (
        FlagSpec(
            "dayVote",
            "majority",
            gettext_noop(
                "How the day's elimination is decided: majority of the living, or plurality."
            ),
            ("majority", "plurality"),
            title=gettext_noop("Day vote"),
        ),
        FlagSpec(
            "selfTargeting",
            False,
            gettext_noop(
                "Players may target themselves with any ability (RAR default: only "
                "abilities that only self-target)."
            ),
            title=gettext_noop("Self-targeting"),
        ),
        FlagSpec(
            "selfVote",
            True,
            gettext_noop("A player may vote for themself by day."),
            title=gettext_noop("Self-vote"),
        ),
        FlagSpec(
            "noEliminationVote",
            True,
            gettext_noop('Players may vote "skip" (no elimination).'),
            title=gettext_noop("No-elimination vote"),
        ),
        FlagSpec(
            "protectionStopsAllKills",
            True,
            gettext_noop(
                "One protection stops every kill on its target that night (RAR's reading); "
                "false: it stops one kill."
            ),
            title=gettext_noop("Protection stops all kills"),
        ),
        FlagSpec(
            "narSharedSwaps",
            "compose",
            gettext_noop(
                "NAR only: two bus swaps sharing a player apply one after the other in "
                "resolution order (compose), or cancel out for actions on the shared player, "
                "moving each action at most once (cancel, RAR's reading)."
            ),
            ("compose", "cancel"),
            title=gettext_noop("NAR shared swaps"),
        ),
    )
}


class ForumRuleset(Ruleset):
    name = "forum"
    methods = ("rar", "nar")
    day_shape = "thread"
    vote_rules_allowed = ("majority_hammer", "majority_lock", "plurality")
    default_vote_rule = "majority_hammer"
    weighted_votes = True
    roles = ROLES
    modifier_specs = MODIFIERS
    # RAR gives a blocked player no feedback (Method 1): a cop, tracker or watcher who got
    # nothing is told only that, never why (a block, a jail, a loyal or disloyal miss).
    result_abilities = frozenset({"investigate", "track", "watch"})
    flags = FLAGS
    sanities = SANITIES
    alignments = ("town", "mafia", *THIRD_PARTIES)
    alignment_titles = {
        "town": gettext_noop("Town"),
        "mafia": gettext_noop("Mafia"),
        "serial_killer": gettext_noop("Serial Killer"),
        "survivor": gettext_noop("Survivor"),
        "jester": gettext_noop("Jester"),
    }
    win_conditions = {
        "town": gettext_noop("You win when every mafia member and serial killer is dead."),
        "mafia": gettext_noop(
            "You win when the mafia equal or outnumber everyone else alive and no "
            "serial killer is left (or hold more than half the votes)."
        ),
        "serial_killer": gettext_noop(
            "You win alone when no other killer lives and at most one other player is left."
        ),
        "survivor": gettext_noop("You win if you are alive when the game ends, whoever else wins."),
        "jester": gettext_noop(
            "You win if the day vote eliminates you; the game goes on without you."
        ),
    }
    factional_kill: ClassVar[AbilitySpec | None] = FACTION_KILL

    def check_player(self, player: Player, where: str) -> None:
        """A third party keeps its own alignment; a modifier at most once per player, and
        no contradictory pair (roles.CONFLICTS)."""
        third = player.role in THIRD_PARTIES or player.alignment in THIRD_PARTIES
        if third and player.alignment != player.role:
            raise InvalidScenario(
                _(
                    "%(player)s: a %(role)s cannot be %(alignment)s; third parties keep their "
                    "own alignment."
                )
                % {"player": player.name, "role": player.role, "alignment": player.alignment},
                f"{where}.alignment",
            )
        seen: dict[str, int] = {}
        for j, text in enumerate(player.modifiers):
            slug = split_modifier(text)[0]
            if slug in seen:
                raise InvalidScenario(
                    _("%(player)s has the modifier %(modifier)s twice.")
                    % {"player": player.name, "modifier": slug},
                    f"{where}.modifiers[{j}]",
                )
            seen[slug] = j
        for one, other in CONFLICTS:
            if one in seen and other in seen:
                raise InvalidScenario(
                    _("%(player)s cannot be both %(one)s and %(other)s.")
                    % {"player": player.name, "one": one, "other": other},
                    f"{where}.modifiers[{seen[other]}]",
                )

    def self_target_allowed(
        self, state: GameState, ability: AbilitySpec, actor: Player | None = None
    ) -> bool:
        return bool(state.flags.get("selfTargeting")) or (
            actor is not None and actor.has("self_target")
        )

    # -- night -----------------------------------------------------------------------
    def unavailable(self, state: GameState, player: Player, ability: AbilitySpec) -> str | None:
        """Modifiers that take a player's own abilities away for a night (the faction's
        shared kill is the faction's, not theirs: these never take it away)."""
        why = super().unavailable(state, player, ability)
        if why is not None:
            return why
        return self.spent_shots(state, player) or (
            None if ability.phase != "night" else _night_rule(player, state.night_number + 1)
        )

    def spent_shots(self, state: GameState, player: Player) -> str | None:
        shots = common.modifier_number(player, "shots")
        if shots is not None and common.shots_used(state, player.name) >= shots:
            return ngettext(
                "%(player)s has used all %(shots)s of their shots.",
                "%(player)s has used all %(shots)s of their shots.",
                shots,
            ) % {"player": player.name, "shots": shots}
        return None

    def shots_left(self, state: GameState, player: Player) -> int | None:
        shots = common.modifier_number(player, "shots")
        return None if shots is None else max(0, shots - common.shots_used(state, player.name))

    def check_night(self, state: GameState, actions: tuple[Action, ...], where: str) -> None:
        """A compulsive player who can use an ability of their own tonight must use one:
        leaving it out (or sending no target) makes the night invalid, so the site asks."""
        compulsive = [p for p in state.alive if p.has("compulsive")]
        if not compulsive:
            return
        acted = {a.actor for a in actions if a.targets and not self._faction_kill(state, a)}
        for player in compulsive:
            if player.name in acted:
                continue
            own = [a for a in self.abilities_of(state, player) if not a.factional]
            if own:
                raise InvalidScenario(
                    _("%(player)s is compulsive and must use their %(abilities)s tonight.")
                    % {
                        "player": player.name,
                        "abilities": _(" or ").join(a.slug for a in own),
                    },
                    where,
                )

    def _faction_kill(self, state: GameState, action: Action) -> bool:
        return common.is_factional_kill(state, action)

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        if state.method == "nar":
            from .nar import resolve_nar

            outcome = resolve_nar(self, state, actions)
        else:
            from .rar import resolve_rar

            outcome = resolve_rar(self, state, actions)
        return self._count_shots(state, actions, outcome)

    def _count_shots(
        self, state: GameState, actions: tuple[Action, ...], outcome: NightOutcome
    ) -> NightOutcome:
        """Spend one shot per X-shot action sent with a target, whatever became of it (a
        roleblocked shot is spent, as on mafiascum), and say how many are left."""
        limited = {p.name for p in state.players if common.modifier_number(p, "shots")}
        if not limited:
            return outcome
        used = {
            a.actor
            for a in actions
            if a.targets and a.actor in limited and not self._faction_kill(state, a)
        }
        if not used:
            return outcome
        spent = dict(state.memory.get(common.SHOTS_USED, {}))
        lines = []
        for name in sorted(used):
            spent[name] = spent.get(name, 0) + 1
            total = common.modifier_number(state.player(name), "shots")
            left = max(0, (total or 0) - spent[name])
            lines.append(
                _("%(player)s used a shot: %(left)s of %(total)s left.")
                % {"player": name, "left": left, "total": total}
            )
        after = outcome.state.with_memory(**{common.SHOTS_USED: spent})
        return replace(outcome, state=after, explanation=(*outcome.explanation, *lines))

    # -- day -----------------------------------------------------------------------
    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        if day.revote is not None:
            raise InvalidScenario(_("Forum games have no revote."), f"{where}.revote")
        for voter, target in day.votes.items():
            if target == voter and not state.flags["selfVote"]:
                raise InvalidScenario(
                    _("%(voter)s votes for themself, which this game's rules forbid.")
                    % {"voter": voter},
                    f"{where}.votes.{voter}",
                )
            if target == SKIP and not state.flags["noEliminationVote"]:
                raise InvalidScenario(
                    _("This game has no skip (no elimination) vote."), f"{where}.votes.{voter}"
                )

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        eliminated, lines = forum_day.resolve_day(state, day)
        after = state
        reveals = {}
        if eliminated is not None:
            after = state.with_dead([eliminated])
            reveals = {eliminated: state.player(eliminated).role}
            if state.player(eliminated).alignment == JESTER:
                after = replace(after, co_winners=(*after.co_winners, eliminated))
                lines.append(
                    _("%(player)s was the jester: they win too; the game goes on.")
                    % {"player": eliminated}
                )
        return DayOutcome(eliminated, None, tuple(lines), after, reveals)

    def resolve_day_action(
        self, state: GameState, raw: Any, phase: str = "day", where: str = "$.action"
    ) -> DayActionOutcome:
        return resolve_day_action(self, state, raw, phase, where)

    def count_votes(self, state: GameState, votes: Mapping[str, str]) -> VoteCount:
        return forum_day.count_votes(state, votes)

    def vote_weights(self, state: GameState) -> Mapping[str, int]:
        return forum_day.vote_rules(state).weights

    # -- win -----------------------------------------------------------------------
    def check_winner(self, state: GameState) -> Verdict:
        return forum_win.check_winner(state)


def _night_rule(player: Player, night: int) -> str | None:
    """Why ``player``'s own abilities rest on night ``night`` (novice, odd/even), or None."""
    if player.has("novice") and night == 1:
        return _("%(player)s is a novice: no actions on night 1.") % {"player": player.name}
    values = {"player": player.name, "night": night}
    if player.has("odd_night") and night % 2 == 0:
        return _("%(player)s acts on odd nights only, and this is night %(night)s.") % values
    if player.has("even_night") and night % 2 == 1:
        return _("%(player)s acts on even nights only, and this is night %(night)s.") % values
    return None


RULESET = ForumRuleset()
