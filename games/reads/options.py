"""What a player may do now, as the forms and buttons offer it and as the services check it:
tonight's night actions, today's day actions and today's vote, each with the legal targets
(slot ids) and, where refused, why. The services refuse exactly what these do not offer."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from .. import gateway, naming
from ..errors import ErrorCode, GameRuleError, InvalidInput, NotAllowed
from ..gateway import GameState, rules_named
from ..models import Game, Phase, Slot

SKIP = gateway.SKIP  # "no elimination" as a ballot's choice


# -- night actions ----------------------------------------------------------------------
def night_options(game: Game, slot: Slot) -> list[dict[str, Any]]:
    """The abilities ``slot`` has tonight with their legal targets (slot ids), for the form."""
    if not game.is_running or not game.resolver_state:
        return []
    phase = game.current_phase()
    if phase is not None and phase.night_zero:
        return []
    rules = rules_named(game.ruleset)
    state = GameState.from_dict(game.resolver_state)
    player = state.player(slot.resolver_name)
    if not player.alive and not rules.dead_may_act:
        return []
    slots = list(game.slots.select_related("user").order_by("seat"))
    options = []
    for spec in rules.abilities_of(state, player):
        legal = []
        for candidate in slots:
            targets = [candidate] * spec.targets
            raw = gateway.night_order(slot, spec.slug, targets, dict.fromkeys(spec.extra, "x"))
            try:
                rules.parse_action(state, raw, "$", 0)
            except gateway.InvalidScenario:
                # Several targets (swap, redirect) may be legal only as a pair: offer
                # every living player and let the submission check the pair.
                if spec.targets > 1 and candidate.alive:
                    legal.append(candidate.pk)
                continue
            legal.append(candidate.pk)
        options.append(
            {
                "ability": spec.slug,
                "targets": spec.targets,
                "factional": spec.factional,
                "extra": list(spec.extra),
                "choices": legal,
            }
        )
    return options


# -- day actions ------------------------------------------------------------------------
def day_action_options(
    game: Game, slot: Slot, state: GameState | None = None
) -> list[dict[str, Any]]:
    """The player's day actions now (by day, alive), each with its legal targets (slot ids)
    or ``unavailable``: why it cannot be used (spent, already used today)."""
    if not game.is_running or not game.resolver_state or not slot.alive or not slot.role:
        return []
    phase = game.current_phase()
    if phase is None or phase.resolved or not phase.is_day or phase.is_paused:
        return []
    rules = rules_named(game.ruleset)
    spec = rules.roles.get(slot.role)
    day = [a for a in spec.abilities if a.phase == "day"] if spec else []
    if not day:
        return []
    state = state or GameState.from_dict(game.resolver_state)
    slots = list(game.slots.select_related("user").order_by("seat"))
    options = []
    for ability in day:
        legal, why = [], ""
        for candidate in slots:
            raw = {
                "actor": slot.resolver_name,
                "ability": ability.slug,
                "targets": [candidate.resolver_name],
            }
            try:
                rules.resolve_day_action(state, raw, "day")
            except gateway.InvalidScenario as exc:
                if ".actor" in exc.where:  # about the user, not the target: spent, used
                    why = naming.render(exc.message, naming.seat_names(slots))
                    break
                continue
            legal.append(candidate.pk)
        options.append(
            {
                "ability": ability.slug,
                # (the resolver's data is English: said in the reader's language)
                # i18n: marked at its source
                "description": _(ability.description) if ability.description else "",
                "choices": [] if why else legal,
                "unavailable": why,
                "shots_left": rules.shots_left(state, state.player(slot.resolver_name)),
            }
        )
    return options


# -- today's vote -----------------------------------------------------------------------
@dataclass(frozen=True)
class VoteOptions:
    """One player's ballot today: who they may vote for, and why a vote would be refused.

    ``open``: an open (unresolved, unpaused) day of a running game and a living voter.
    ``my_vote``: their standing vote (a slot id, ``SKIP``) or None; ``locked``: it can no
    longer change (a locked wagon). ``nominated`` counts only where the rules use
    nominations and no revote is on; ``revote``: the tied players while the revote is on.
    """

    open: bool
    voter: Slot | None
    my_vote: int | str | None
    locked: bool
    skip: bool
    self_vote: bool
    uses_nominations: bool
    nominated: frozenset[int]
    revote: tuple[int, ...] | None
    names: Mapping[int, str]

    def target_refusal(self, target: Slot | None) -> GameRuleError | None:
        """Why ``target`` (None: no elimination) is not on this voter's ballot (None: it is)."""
        if target is None:
            if not self.skip:
                return InvalidInput(
                    _('This game has no "no elimination" vote.'), ErrorCode.NO_SKIP, "target"
                )
            return None
        if not target.alive:
            return InvalidInput(
                _("%(player)s is dead and cannot be voted for.") % {"player": target.display_name},
                ErrorCode.DEAD_TARGET,
                "target",
            )
        if self.voter is not None and not self.self_vote:
            refused = self_vote_refusal(self.voter.pk, target.pk)
            if refused is not None:
                return refused
        if self.revote is not None:
            if target.pk not in self.revote:
                tied = ", ".join(self.names.get(i, "?") for i in self.revote)
                return InvalidInput(
                    _("Only %(tied)s and no elimination are on the revote ballot.")
                    % {"tied": tied},
                    ErrorCode.NOT_TIED,
                    "target",
                )
        elif self.uses_nominations and target.pk not in self.nominated:
            return InvalidInput(
                _(
                    "%(player)s has not been nominated today; only nominated "
                    "players can be voted for."
                )
                % {"player": target.display_name},
                ErrorCode.NOT_NOMINATED,
                "target",
            )
        return None

    def refusal(self, target: Slot | None) -> GameRuleError | None:
        """Why this voter's vote for ``target`` would be refused (None: it counts)."""
        if self.voter is None or not self.voter.alive:
            return NotAllowed(_("Dead players cannot vote."), ErrorCode.DEAD)
        if self.locked:
            return NotAllowed(
                _("Your vote is locked: it can no longer be changed."), ErrorCode.LOCKED
            )
        return self.target_refusal(target)

    def votable(self, target: Slot | None) -> bool:
        """A vote button for ``target`` (None: no elimination) on an open ballot: none
        while the voter's vote is locked (the service would refuse it)."""
        return self.open and not self.locked and self.target_refusal(target) is None

    def unvote_refusal(self) -> GameRuleError | None:
        """Why this voter could not withdraw their vote (None: they can)."""
        if self.my_vote is None:
            return InvalidInput(_("You are not voting for anyone."), ErrorCode.NO_VOTE)
        if self.locked:
            return NotAllowed(
                _("Your vote is locked: it can no longer be withdrawn."), ErrorCode.LOCKED
            )
        return None

    @property
    def can_unvote(self) -> bool:
        """The unvote button: for a standing vote that is not locked."""
        return self.open and self.unvote_refusal() is None


def self_vote_refusal(voter_id: int, target_id: int | None) -> GameRuleError | None:
    """The refusal of a vote for oneself in a game whose setting forbids it (the thread's
    ballot and the table's vote alike: the setting is the game's, whatever the day's form)."""
    if target_id is not None and target_id == voter_id:
        return InvalidInput(
            _("You cannot vote for yourself in this game."), ErrorCode.SELF_VOTE, "target"
        )
    return None


def vote_options(
    game: Game,
    phase: Phase | None,
    voter: Slot | None,
    *,
    slots: Sequence[Slot],
    my_vote: int | str | None,
    locked: bool = False,
    nominated: Collection[int] = (),
) -> VoteOptions:
    """``voter``'s ballot in ``phase`` (the game's current phase). ``slots``: the game's;
    ``my_vote`` / ``locked``: the voter's standing vote; ``nominated``: the slot ids on
    today's nominations (classic), from whatever the caller has read."""
    is_open = (
        game.is_running
        and phase is not None
        and phase.is_day
        and not phase.resolved
        and not phase.is_paused
    )
    in_revote = phase is not None and phase.in_revote
    return VoteOptions(
        open=bool(is_open and voter is not None and voter.alive),
        voter=voter,
        my_vote=my_vote,
        locked=locked,
        skip=game.skip_vote_allowed,
        self_vote=game.self_vote_allowed,
        uses_nominations=not in_revote and rules_named(game.ruleset).uses_nominations,
        nominated=frozenset(nominated),
        # (in_revote: there is a phase, with a revote list; the tests only narrow types)
        revote=tuple(phase.revote or ()) if phase is not None and in_revote else None,
        names={s.pk: s.display_name for s in slots},
    )
