"""The demo games: a live forum game of bots and a classic table of bots, so a newcomer
sees the site working at once (a free thread, and a day played turn by turn).

``ensure_demo_game()`` keeps one demo game running (hosted by the ``demo`` account, password
``demo``), and starts a new one when the last has ended and its result has been on screen for
a little while. ``tick()`` lets every living bot act once, the way a player would, only
through ``games.services``: by day they chat and vote with bold ``Vote:`` lines in posts
(so the hammer and the vote count work as for people), by night they send their night
actions and the mafia talk in their chat. Deadlines are not the bots' business: the scanner
(or Celery) ends each phase exactly as for any game.

The bots are server-side and read their own slot (role, partners) from the database, as a
player reads their role PM; they never reveal anything in the thread.

The classic table (``ensure_demo_table``) is the classic ten-player setup with its day
script: night zero, then speeches with nominations, a vote, last words. Its bots take their
turns when the table gives them one (``turn_view`` says whose), like the reference bot in
``scripts/reference_bot.py`` does through the API.
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from . import services
from .errors import GameRuleError
from .models import Game, GameStatus, NightAction, Slot, Thread, Vote, VoteKind
from .reads.table import turn_view
from .setups import SETUPS

log = logging.getLogger(__name__)

DEMO_SETUP = "demo"
DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"
# Names nobody signs up with: a newcomer who picks "alice" must not find it taken.
BOT_NAMES = [
    "Alice-bot",
    "Bob-bot",
    "Carol-bot",
    "Dave-bot",
    "Erin-bot",
    "Frank-bot",
    "Grace-bot",
]
DEMO_ROLES: list[dict[str, Any]] = [
    {"role": "vanilla_townie", "count": 3},
    {"role": "cop"},
    {"role": "doctor"},
    {"role": "goon", "count": 2},
]
DAY_LENGTH = timedelta(minutes=3)
NIGHT_LENGTH = timedelta(minutes=1)
# How long a finished demo game stays the newest before the next one starts.
RESULT_PAUSE = timedelta(seconds=30)

TABLE_SETUP = "demo-classic"
TABLE_BOT_NAMES = ["Hank", "Ivy", "Jack", "Kate", "Liam", "Mona", "Nick", "Olga", "Paul", "Rosa"]
TURN_LENGTH = timedelta(seconds=20)
SPEECHES = [
    "Night zero was quiet, as it must be. I watched who talked first and who waited. "
    "{name} waited, and that is my nomination for now.",
    "I am town. Yesterday's vote split along a line I do not like: {name} followed "
    "the crowd without a reason. I nominate {name}.",
    "Short speech: nothing solid yet, but {name} has been pushing hard on weak points. "
    "Let us hear from {name}.",
]

CHATTER = [
    "Morning all. Anyone have a read yet?",
    "{name} has been very quiet. Not a fan.",
    "FoS: {name}. That last post read like someone buying time.",
    "I'm town, for what it's worth. Let's not lynch on a coin flip.",
    "Can we get a claim from {name}?",
    "Re-reading the thread. {name}'s vote placement looks off to me.",
    "{name} is town in my book. Look elsewhere.",
    "Where's the wagon going? I'd like a lynch before the deadline.",
    "Null on {name} for now.",
    "That's a scummy hedge from {name}.",
]
VOTE_LINES = [
    "Putting pressure where it belongs. **Vote: {name}**",
    "**Vote: {name}**\n\nConvince me otherwise.",
    "Following the wagon. **Vote: {name}**",
    "I've seen enough. **Vote: {name}**",
]
MAFIA_CHAT = [
    "Let's go for {name} tonight, they're reading us too well.",
    "Kill {name}? They look like a power role to me.",
    "Agreed. Keep your day votes spread out tomorrow.",
]

# Per tick, the chance that a living bot posts (day) and that a post carries a vote.
POST_CHANCE = 0.12
VOTE_CHANCE = 0.45
# A bot casts the deciding vote only this far through the day (a hammer at once is dull).
HAMMER_AFTER = 0.6


def demo_user() -> Any:
    """The ``demo``/``demo`` account, the demo game's host (created if missing)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=DEMO_USERNAME)
    if created or not user.check_password(DEMO_PASSWORD):
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


def bot_users(names: list[str] = BOT_NAMES) -> list[Any]:
    User = get_user_model()
    bots = []
    for name in names:
        user, created = User.objects.get_or_create(username=name)
        if created:
            user.set_unusable_password()  # bots never log in
            user.save(update_fields=["password"])
        bots.append(user)
    return bots


def current_demo_game() -> Game | None:
    return Game.objects.filter(setup=DEMO_SETUP).order_by("-created_at", "-pk").first()


def create_demo_game(*, seed: int | None = None, now: Any = None) -> Game:
    """A fresh demo game, started, on Day 1."""
    host = demo_user()
    number = Game.objects.filter(setup=DEMO_SETUP).count() + 1
    game = services.create_game(
        host,
        title=f"Demo game #{number}: seven bots, a cop, a doctor and two goons",
        ruleset="forum",
        role_list=DEMO_ROLES,
        day_length=DAY_LENGTH,
        night_length=NIGHT_LENGTH,
        setup=DEMO_SETUP,
        seed=seed,
    )
    return _seat_bots_and_start(
        game,
        host,
        bot_users(),
        now,
        "Welcome to the demo game. Seven bots play a forum game with three-minute days "
        "and one-minute nights; votes are bold **Vote:** lines. Log in as "
        f"**{DEMO_USERNAME}** / **{DEMO_PASSWORD}** to see it as the host does.",
    )


def _seat_bots_and_start(game: Game, host: Any, bots: list[Any], now: Any, welcome: str) -> Game:
    """Fill the game with the bots, start it and post the host's welcome."""
    for bot in bots:
        services.join_game(bot, game.pk)
    services.start_game(host, game.pk, now=now)
    services.host_post(host, game.pk, body=welcome)
    game.refresh_from_db()
    log.info("Demo game %s (%s) started", game.pk, game.setup)
    return game


def ensure_demo_game(*, now: Any = None) -> Game:
    """The running demo game; a new one if there is none or the last ended a while ago."""
    return _ensure(current_demo_game(), create_demo_game, now=now)


def current_demo_table() -> Game | None:
    return Game.objects.filter(setup=TABLE_SETUP).order_by("-created_at", "-pk").first()


def create_demo_table(*, seed: int | None = None, now: Any = None) -> Game:
    """A fresh classic table of ten bots, started (on night zero)."""
    host = demo_user()
    number = Game.objects.filter(setup=TABLE_SETUP).count() + 1
    kwargs = {
        **SETUPS["classic-ten"].game_kwargs(),
        "setup": TABLE_SETUP,
        "turn_length": TURN_LENGTH,
        "vote_length": TURN_LENGTH,
        "night_length": NIGHT_LENGTH,
    }
    game = services.create_game(
        host, title=f"Demo table #{number}: ten bots play the classic game", seed=seed, **kwargs
    )
    return _seat_bots_and_start(
        game,
        host,
        bot_users(TABLE_BOT_NAMES),
        now,
        "Welcome to the classic table. Ten bots play the classic ten-player game turn by "
        "turn: night zero, then a speech and a nomination each, a vote, last words.",
    )


def ensure_demo_table(*, now: Any = None) -> Game:
    """The running classic table; a new one if there is none or the last ended a while ago."""
    return _ensure(current_demo_table(), create_demo_table, now=now)


def _ensure(game: Game | None, create: Any, *, now: Any = None) -> Game:
    now = now or timezone.now()
    if game is not None and game.status == GameStatus.RUNNING:
        return game
    if game is not None and game.status == GameStatus.SIGNUPS:
        # A start that failed half-way (e.g. the process stopped): start it now.
        try:
            services.start_game(game.host, game.pk)
            game.refresh_from_db()
            return game
        except GameRuleError:
            pass
    if game is not None and game.finished_at and now - game.finished_at < RESULT_PAUSE:
        return game
    return create()


def tick(rng: random.Random | None = None) -> Game:
    """One round of bot activity in the demo game (starting a new game if needed)."""
    rng = rng or random.Random()
    table = ensure_demo_table()
    if table.status == GameStatus.RUNNING:
        play_table(table, rng)
    game = ensure_demo_game()
    if game.status != GameStatus.RUNNING:
        return game
    play_bots(game, rng)
    return game


def play_table(game: Game, rng: random.Random) -> None:
    """The classic table's bots: the speaker speaks and nominates; in a vote, some vote."""
    phase = game.current_phase()
    if phase is None or phase.resolved:
        return
    slots = list(game.slots.select_related("user").order_by("seat"))
    if phase.is_night:
        for slot in slots:
            if slot.alive:
                try:
                    _night_move(game, phase, slot, slots, rng)
                except GameRuleError as exc:
                    log.debug("Demo table bot %s: %s", slot.display_name, exc.message)
        return
    view = turn_view(game, phase, slots)
    try:
        if view["step"] == "vote":
            voted = {r["slot_id"] for r in view["voted"]}
            for slot in slots:
                if slot.alive and slot.pk not in voted and rng.random() < 0.3:
                    choice = rng.choice(view["ballot"])
                    services.cast_vote(
                        slot.user, game.pk, None if choice.get("skip") else choice["slot_id"]
                    )
        elif view["speaker"] is not None and rng.random() < 0.5:
            _table_turn(
                game, view, next(s for s in slots if s.pk == view["speaker"]["slot_id"]), rng
            )
    except GameRuleError as exc:  # the turn's timer ran out under us
        log.debug("Demo table: %s", exc.message)


def _table_turn(game: Game, view: dict[str, Any], slot: Slot, rng: random.Random) -> None:
    if view["step"] != "speech":  # a defense or last words: a line, then the turn ends
        services.submit_post(
            slot.user, game.pk, body="I have said what I had to say. Think it over."
        )
        return
    options = [o for o in view["options"] if not o.get("skip") and o["slot_id"] != slot.pk]
    target = rng.choice(options)
    body = rng.choice(SPEECHES).format(name=target["name"])
    services.submit_post(slot.user, game.pk, body=body)
    services.nominate(slot.user, game.pk, target["slot_id"])


def play_bots(game: Game, rng: random.Random) -> None:
    """Every living bot of ``game`` acts once (a refused action is simply skipped)."""
    phase = game.current_phase()
    if phase is None or phase.resolved:
        return
    slots = list(game.slots.select_related("user").order_by("seat"))
    bots = {u.pk for u in bot_users()}
    for slot in slots:
        if not slot.alive or slot.user_id not in bots:
            continue
        try:
            if phase.is_day:
                _day_move(game, phase, slot, slots, rng)
            else:
                _night_move(game, phase, slot, slots, rng)
        except GameRuleError as exc:  # the phase ended under us, or a rule said no
            log.debug("Demo bot %s: %s", slot.display_name, exc.message)
        game.refresh_from_db(fields=["phase_number", "status"])
        if not game.is_running or game.phase_number != phase.number:
            return  # a hammer ended the day: the rest act next tick


def _others(slot: Slot, slots: list[Slot]) -> list[Slot]:
    return [s for s in slots if s.alive and s.pk != slot.pk]


def _progress(phase: Any) -> float:
    """How far through the day we are, 0..1 (1 when there is no running clock)."""
    if phase.deadline is None:
        return 1.0
    length = (phase.deadline - phase.started_at).total_seconds()
    if length <= 0:
        return 1.0
    return min(max((timezone.now() - phase.started_at).total_seconds() / length, 0.0), 1.0)


def _day_move(game: Game, phase: Any, slot: Slot, slots: list[Slot], rng: random.Random) -> None:
    if rng.random() > POST_CHANCE:
        return
    others = _others(slot, slots)
    if slot.is_mafia:  # the mafia do not vote their partners
        others = [s for s in others if not s.is_mafia] or others
    progress = _progress(phase)
    body = rng.choice(CHATTER).format(name=rng.choice(others).display_name)
    # Votes come slowly at first and pile up towards the deadline; nobody hammers early.
    if rng.random() < VOTE_CHANCE * (0.3 + progress):
        target, hammers = _wagon_target(phase, slot, slots, others, rng)
        if not hammers or progress >= HAMMER_AFTER:
            body = rng.choice(VOTE_LINES).format(name=target.display_name)
    services.submit_post(slot.user, game.pk, body=body)


def _wagon_target(
    phase: Any, slot: Slot, slots: list[Slot], others: list[Slot], rng: random.Random
) -> tuple[Slot, bool]:
    """Mostly join the biggest wagon (so days tend to end in a hammer), sometimes start one.

    Returns the target and whether this vote would reach majority.
    """
    latest: dict[int, int | None] = {}
    for vote in Vote.objects.filter(phase=phase, revote=False).order_by("id"):
        latest[vote.voter_id] = vote.target_id if vote.kind == VoteKind.VOTE else None
    sizes: dict[int, int] = {}
    for voter, voted in latest.items():
        if voted is not None and voter != slot.pk:
            sizes[voted] = sizes.get(voted, 0) + 1
    allowed = {s.pk: s for s in others}
    wagons = sorted((n, pk) for pk, n in sizes.items() if pk in allowed)
    join = wagons and rng.random() < 0.7
    target = allowed[wagons[-1][1]] if join else rng.choice(others)
    majority = sum(1 for s in slots if s.alive) // 2 + 1
    return target, sizes.get(target.pk, 0) + 1 >= majority


def _night_move(game: Game, phase: Any, slot: Slot, slots: list[Slot], rng: random.Random) -> None:
    options = services.night_options(game, slot)
    done = set(
        NightAction.objects.filter(phase=phase, actor=slot).values_list("ability", flat=True)
    )
    by_pk = {s.pk: s for s in slots}
    for option in options:
        if option["ability"] in done or option["targets"] != 1 or option["extra"]:
            continue
        if option["factional"]:
            if done_by_partner(phase, slot, slots, option["ability"]):
                continue
            choices = [pk for pk in option["choices"] if not by_pk[pk].is_mafia]
        else:
            choices = [pk for pk in option["choices"] if pk != slot.pk] or option["choices"]
        choices = [pk for pk in choices if by_pk[pk].alive]
        if not choices:
            continue
        target = rng.choice(choices)
        services.submit_night_action(
            slot.user, game.pk, ability=option["ability"], targets=[target]
        )
        if option["factional"] and rng.random() < 0.5:
            services.submit_post(
                slot.user,
                game.pk,
                body=rng.choice(MAFIA_CHAT).format(name=by_pk[target].display_name),
                thread=Thread.MAFIA,
            )


def done_by_partner(phase: Any, slot: Slot, slots: list[Slot], ability: str) -> bool:
    """One faction kill a night: a partner who already sent it speaks for the team."""
    partners = [s.pk for s in slots if s.is_mafia and s.pk != slot.pk]
    return NightAction.objects.filter(phase=phase, actor_id__in=partners, ability=ability).exists()
