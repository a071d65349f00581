"""What the game waits for from each player now: the one definition of "needs you".

``needs_of(game, slots)`` answers, for each given slot, the codes of what it still owes this
phase, in this order:

- ``your_turn``: a table day waits for them (they speak, or the vote is open and theirs is
  missing: ``reads.table.is_your_turn``);
- ``vote``: an open day in the thread and no standing vote of theirs (living players only);
- ``night_action``: an open night, they have an ability tonight (``rules.abilities_of``, as
  the role PM offers it) and have not sent it (the faction's kill counts as sent when a
  partner sent it: every living mafioso sees that order on their role PM);
- ``prodded``: they got an inactivity prod since the current phase began (and still hold
  the slot: a replacement starts with no prods).

Each code is about that slot only; nothing here says another slot's role or action, so a
code may be shown to the slot's player (the "my games" page, deadline reminders). The
batch form ``needs_of_games`` reads every game's votes, actions and prods in three queries
whatever the number of games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Max, Q
from django.utils.translation import gettext_lazy

from ..gateway import GameState, rules_named
from ..models import Game, GameEvent, NightAction, Phase, Slot, Vote, VoteKind
from .table import is_your_turn

YOUR_TURN, VOTE, NIGHT_ACTION, PRODDED = "your_turn", "vote", "night_action", "prodded"
NEED_CODES = (YOUR_TURN, VOTE, NIGHT_ACTION, PRODDED)  # the order they are listed in
# Each code in words, to the player ("you").
NEED_LABELS = {
    YOUR_TURN: gettext_lazy("It is your turn at the table"),
    VOTE: gettext_lazy("You have not voted today"),
    NIGHT_ACTION: gettext_lazy("Your night action is missing"),
    PRODDED: gettext_lazy("You were prodded for inactivity"),
}
UNREAD: Any = object()  # "the caller has not read the current phase"


def needs_of(game: Game, slots: list[Slot], phase: Phase | None = UNREAD) -> dict[int, list[str]]:
    """Slot id -> what the game waits for from that slot now (codes of ``NEED_CODES``, in
    that order; an empty list: nothing). ``slots``: some of the game's slots (a player's
    own, or every living one for reminders); ``phase``: the current phase when read."""
    if phase is UNREAD:
        phase = game.current_phase() if game.is_running else None
    return needs_of_games([(game, phase, slots)])


def needs_of_games(
    items: Sequence[tuple[Game, Phase | None, list[Slot]]],
) -> dict[int, list[str]]:
    """``needs_of`` for several games at once: (game, its current phase, slots) each."""
    needs: dict[int, list[str]] = {}
    voting: list[tuple[Phase, list[Slot]]] = []
    acting: list[tuple[Game, Phase, list[Slot]]] = []
    prodded: list[tuple[Phase, Slot]] = []
    for game, phase, slots in items:
        for slot in slots:
            needs[slot.pk] = []
        if not game.is_running or phase is None or phase.resolved or phase.is_paused:
            continue
        if phase.is_day:
            if phase.is_table_day:
                for slot in slots:
                    if slot.alive and is_your_turn(game, phase, slot):
                        needs[slot.pk].append(YOUR_TURN)
            else:
                voting.append((phase, [s for s in slots if s.alive]))
        elif not phase.night_zero and game.resolver_state:
            acting.append((game, phase, slots))
        prodded.extend((phase, s) for s in slots if s.prods > 0)
    for slot_id in _not_voted(voting):
        needs[slot_id].append(VOTE)
    for slot_id in _actions_missing(acting):
        needs[slot_id].append(NIGHT_ACTION)
    for slot_id in _prodded(prodded):
        needs[slot_id].append(PRODDED)
    return needs


def _not_voted(days: list[tuple[Phase, list[Slot]]]) -> set[int]:
    """The slots with no standing vote today (their latest row of the day, or of the
    revote while it is on, is missing or an unvote)."""
    days = [(p, slots) for p, slots in days if slots]
    if not days:
        return set()
    wanted = Q()
    for phase, slots in days:
        wanted |= Q(phase=phase, revote=phase.in_revote, voter_id__in=[s.pk for s in slots])
    # One row per voter, their latest (voters are unique to a game, so to a phase).
    latest = Vote.objects.filter(wanted).values("voter_id").annotate(last=Max("id")).values("last")
    voting = set(
        Vote.objects.filter(pk__in=latest, kind=VoteKind.VOTE).values_list("voter_id", flat=True)
    )
    return {s.pk for _, slots in days for s in slots if s.pk not in voting}


def _actions_missing(nights: list[tuple[Game, Phase, list[Slot]]]) -> set[int]:
    """The slots with an ability tonight they have not used yet."""
    owed: list[tuple[Phase, Slot, list[Any]]] = []
    for game, phase, slots in nights:
        rules = rules_named(game.ruleset)
        assert game.resolver_state is not None  # a running game's, written at its start
        state = GameState.from_dict(game.resolver_state)
        for slot in slots:
            if not state.has_player(slot.resolver_name):
                continue
            player = state.player(slot.resolver_name)
            if not player.alive and not rules.dead_may_act:
                continue
            abilities = list(rules.abilities_of(state, player))
            if abilities:
                owed.append((phase, slot, abilities))
    if not owed:
        return set()
    wanted = Q()
    for phase, slot, abilities in owed:
        wanted |= Q(phase=phase, actor=slot)
        if slot.is_mafia and any(a.factional for a in abilities):
            # The faction's kill, whoever of the living mafia sent it.
            slugs = [a.slug for a in abilities if a.factional]
            wanted |= Q(phase=phase, ability__in=slugs, actor__alignment="mafia")
    rows = list(
        NightAction.objects.filter(wanted).values_list(
            "phase_id", "actor_id", "ability", "actor__alignment"
        )
    )
    sent = {(phase_id, actor_id, ability) for phase_id, actor_id, ability, _ in rows}
    by_faction = {(phase_id, ability) for phase_id, _, ability, team in rows if team == "mafia"}
    missing = set()
    for phase, slot, abilities in owed:
        for ability in abilities:
            done = (
                (phase.pk, ability.slug) in by_faction
                if ability.factional and slot.is_mafia
                else (phase.pk, slot.pk, ability.slug) in sent
            )
            if not done:
                missing.add(slot.pk)
                break
    return missing


def _prodded(candidates: list[tuple[Phase, Slot]]) -> set[int]:
    """The slots prodded at the start of their game's current phase: a prod is sent as the
    day that earned it ends (``services.phases.check_inactivity``), just before the next
    phase opens, so this phase's prods are those after the previous phase's start."""
    previous = {(s.game_id, p.number - 1) for p, s in candidates if p.number > 1}
    if not previous:
        return set()
    starts = Q()
    for game_id, number in previous:
        starts |= Q(game_id=game_id, payload__number=number)
    since = dict(
        GameEvent.objects.filter(starts, kind="phase_started")
        .values("game_id")
        .annotate(seq=Max("seq"))
        .values_list("game_id", "seq")
    )
    wanted = Q()
    for _, slot in candidates:
        if slot.game_id in since:
            wanted |= Q(
                game_id=slot.game_id, audience=f"slot:{slot.pk}", seq__gt=since[slot.game_id]
            )
    if not wanted:
        return set()
    audiences = set(
        GameEvent.objects.filter(wanted, kind="prod").values_list("audience", flat=True).distinct()
    )
    return {slot.pk for _, slot in candidates if f"slot:{slot.pk}" in audiences}
