"""The baseline ladder: two permanent league members with fixed, known play, so the ratings
have fixed points to be read against.

- **Baseline-Reference** plays as the reference bot's idea of sense (``scripts/
  reference_bot.py``, ``games.demo``): by day it votes the biggest wagon it may join (the
  mafia never vote a partner), by night it aims each ability at someone else (the mafia's
  kill never at a partner).
- **Baseline-Random** picks uniformly among the legal choices: a vote, a target.

Both are agents owned by the League account, made by ``manage.py baseline_ladder``
(idempotent: run it on every deploy). They play server-side, through the core's services
as any player does, reading only their own seat (role, partners) as a role PM gives it:
``tick`` lets each act once where the game waits on it (a forum day's vote, a table's vote
step, a night's actions), and its choices are drawn from a random stream seeded by the
game's seed, the phase and the seat, so a replayed game plays the same. ``tick`` runs on
Celery beat (``league.tasks.play_baselines``) or in ``manage.py baseline_ladder --every``.

Queues: the core keeps each account in one queue at a time, so a baseline waits in the
queue that has the most people waiting (the one it helps fill soonest), and goes back to a
queue after each game (``games.hooks.on_game_finished``) and on each tick.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count

from games import services
from games.errors import GameRuleError
from games.models import (
    Agent,
    Game,
    GameStatus,
    NightAction,
    Phase,
    Post,
    Slot,
    Vote,
    VoteKind,
)
from games.reads.options import night_options
from games.reads.table import turn_view

from .formats import FORMATS
from .models import LeagueQueueEntry
from .services import join_queue, league_host

log = logging.getLogger(__name__)

REFERENCE = "Baseline-Reference"
RANDOM = "Baseline-Random"
BASELINES = (REFERENCE, RANDOM)
DESCRIPTIONS = {
    REFERENCE: "The baseline ladder's reference player: votes the biggest wagon it may join, "
    "aims every ability at someone else. Played by the site (league.baseline).",
    RANDOM: "The baseline ladder's random player: every vote and target at random among the "
    "legal ones. Played by the site (league.baseline).",
}


def ensure_baseline_agents() -> list[Any]:
    """The two baseline accounts (made on first use, with unusable passwords: nobody signs
    in as them), in ``BASELINES`` order. An account of that name that is not the League's
    agent is a person's: refused, as ``league_host`` refuses one."""
    owner = league_host()
    users = []
    for name in BASELINES:
        user, created = get_user_model().objects.get_or_create(username=name)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        agent, _ = Agent.objects.get_or_create(
            user=user, defaults={"owner": owner, "description": DESCRIPTIONS[name]}
        )
        if agent.owner_id != owner.pk or user.has_usable_password():
            raise RuntimeError(f'the account "{name}" is not the League\'s agent; rename it')
        users.append(user)
    return users


def baseline_users() -> list[Any]:
    return list(get_user_model().objects.filter(username__in=BASELINES, agent__isnull=False))


def queue_baselines() -> list[str]:
    """Put each baseline that neither plays a running league game nor waits into the queue
    with the most waiting (the first format on a tie); the queues joined."""
    waiting = dict(LeagueQueueEntry.objects.values_list("setup").annotate(n=Count("id")).order_by())
    order = sorted(FORMATS, key=lambda slug: -waiting.get(slug, 0))
    joined = []
    for user in baseline_users():
        if LeagueQueueEntry.objects.filter(user=user).exists():
            continue
        playing = Slot.objects.filter(user=user, alive=True, game__status=GameStatus.RUNNING)
        if playing.exclude(game__league_setup="").exists():
            continue
        try:
            join_queue(user, order[0])
        except GameRuleError as exc:  # a cooldown, a queue gone: next time
            log.info("Baseline %s could not queue: %s", user.username, exc.message)
            continue
        joined.append(order[0])
    return joined


def _rng(game: Game, phase: Phase, slot: Slot, what: str) -> random.Random:
    """The seat's stream for one decision: the same game (seed), phase and seat choose
    alike."""
    return random.Random(f"{game.seed}:{phase.number}:{slot.seat}:{what}")


def _choose(name: str, rng: random.Random, choices: list[int], preferred: list[int]) -> int:
    """The random baseline: any of ``choices``; the reference: among ``preferred`` when it
    has any."""
    if name == REFERENCE and preferred:
        return rng.choice(preferred)
    return rng.choice(choices)


def tick() -> int:
    """Each baseline seat of each running game acts once where the game waits on it; the
    moves made. Then any baseline out of a game queues again."""
    moves = 0
    seats = (
        Slot.objects.filter(
            user__username__in=BASELINES, alive=True, game__status=GameStatus.RUNNING
        )
        .select_related("user", "game")
        .order_by("game_id", "seat")
    )
    for slot in seats:
        try:
            moves += act(slot.game, slot)
        except GameRuleError as exc:  # the phase moved on under it: next tick
            log.debug("Baseline %s in game %s: %s", slot.user.username, slot.game_id, exc.message)
    queue_baselines()
    return moves


def act(game: Game, slot: Slot) -> int:
    """One baseline seat's moves now (0 when nothing waits on it)."""
    game.refresh_from_db()
    phase = game.current_phase()
    if phase is None or phase.resolved or not game.is_running:
        return 0
    slots = list(game.slots.select_related("user").order_by("seat"))
    if phase.is_night:
        return _night(game, phase, slot, slots)
    if phase.is_table_day:
        return _table_vote(game, phase, slot, slots)
    return _forum_vote(game, phase, slot, slots)


def _partners(slot: Slot, slots: list[Slot]) -> set[int]:
    return {s.pk for s in slots if slot.is_mafia and s.is_mafia}


def _forum_vote(game: Game, phase: Phase, slot: Slot, slots: list[Slot]) -> int:
    """A forum day: one vote a day (its post keeps the seat from the silent-seat rule)."""
    if Post.objects.filter(phase=phase, slot=slot).exists():
        return 0
    others = [s.pk for s in slots if s.alive and s.pk != slot.pk]
    preferred = [pk for pk in others if pk not in _partners(slot, slots)]
    latest: dict[int, int | None] = {}  # each voter's standing vote (an unvote: none)
    for vote in Vote.objects.filter(phase=phase, revote=False).order_by("id"):
        latest[vote.voter_id] = vote.target_id if vote.kind == VoteKind.VOTE else None
    wagons: dict[int, int] = {}
    for voted in latest.values():
        if voted in preferred:
            wagons[voted] = wagons.get(voted, 0) + 1
    if wagons:
        biggest = max(wagons.values())
        preferred = [pk for pk in preferred if wagons.get(pk) == biggest]
    target = _choose(slot.user.username, _rng(game, phase, slot, "vote"), others, preferred)
    services.cast_vote(slot.user, game.pk, target)
    return 1


def _table_vote(game: Game, phase: Phase, slot: Slot, slots: list[Slot]) -> int:
    """A table day: its vote in the vote step (its turns run out to the rules' default)."""
    view = turn_view(game, phase, slots)
    if view["step"] != "vote" or slot.pk in {r["slot_id"] for r in view["voted"]}:
        return 0
    ballot = view["ballot"]
    choices = list(range(len(ballot)))
    partners = _partners(slot, slots)
    preferred = [i for i in choices if ballot[i].get("slot_id") not in partners | {slot.pk}]
    pick = ballot[_choose(slot.user.username, _rng(game, phase, slot, "vote"), choices, preferred)]
    services.cast_vote(slot.user, game.pk, None if pick.get("skip") else pick["slot_id"])
    return 1


def _night(game: Game, phase: Phase, slot: Slot, slots: list[Slot]) -> int:
    """Each single-target ability not sent yet (one faction kill a night for the team)."""
    done = set(NightAction.objects.filter(phase=phase).values_list("actor_id", "ability"))
    partners = _partners(slot, slots)
    moves = 0
    for option in night_options(game, slot):
        ability = option["ability"]
        if option["targets"] != 1 or option["extra"] or not option["choices"]:
            continue
        if (slot.pk, ability) in done:
            continue
        if option["factional"] and any((p, ability) in done for p in partners):
            continue
        choices = list(option["choices"])
        preferred = [pk for pk in choices if pk != slot.pk and pk not in partners]
        rng = _rng(game, phase, slot, f"night:{ability}")
        target = _choose(slot.user.username, rng, choices, preferred)
        services.submit_night_action(slot.user, game.pk, ability=ability, targets=[target])
        moves += 1
    return moves


def game_finished(game_id: int) -> None:
    """``games.hooks.on_game_finished``'s listener: a baseline out of a game queues again."""
    if Slot.objects.filter(game_id=game_id, user__username__in=BASELINES).exists():
        queue_baselines()
