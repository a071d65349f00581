"""Every state change of a game, and nothing else changes state.

Views, the API, websocket consumers and Celery tasks only call the public functions here.
Each one (Zulip-style ``check_*`` / ``do_*`` / ``notify_*`` split):

1. runs in ONE ``transaction.atomic()`` and takes row locks in the fixed order of
   ``games.locks`` (game row, then its slots, then its current phase);
2. checks the rules (``check_*``), raising a ``GameRuleError`` whose message a player can
   read and which never reveals hidden information;
3. writes (``_do_*``) and appends ``GameEvent`` rows for everything that changed;
4. hands the new events to the live layer only after the commit (``_notify`` ->
   ``events.publish_events``), so a rolled-back change is never announced.

Inside the resolver a slot is ``P<seat>`` (``Slot.resolver_name``); text from the resolver
is stored in those names and rendered with ``games.naming`` for people.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Max
from django.utils import timezone

import resolver
from resolver.model import SKIP, GameState
from resolver.rulesets import get_ruleset
from resolver.rulesets.base import Ruleset as ResolverRuleset
from resolver.votes import majority_needed, tally

from . import events, markup, naming, voting
from .errors import GameRuleError, InvalidInput, NotAllowed, NotFound, WrongPhase
from .locks import Locked, lock_all
from .models import (
    DeathCause,
    Game,
    GameEvent,
    GameStatus,
    InactivityAction,
    NightAction,
    Nomination,
    Phase,
    PhaseKind,
    Post,
    PrivateResult,
    Replacement,
    Ruleset,
    Slot,
    StartsWith,
    Thread,
    Vote,
    VoteKind,
    VoteRule,
    resolver_name,
)

log = logging.getLogger(__name__)

MIN_PHASE_LENGTH = timedelta(minutes=1)
MAX_PHASE_LENGTH = timedelta(days=14)
MAX_POST_LENGTH = 20_000
MAX_PLAYERS = 50
# A tied day's revote (classic, city) gets a quarter of the day, at least five minutes.
MIN_REVOTE_LENGTH = timedelta(minutes=5)
# Prods before the host's inactivity action applies ("repeated inactivity").
PRODS_BEFORE_ACTION = 2

SKIP_LABEL = "No elimination"


# ======================================================================================
# Results handed back to callers
# ======================================================================================
@dataclass
class PostResult:
    """A post and what its vote did: ``vote_message`` explains a vote that did not count."""

    post: Post
    vote: Vote | None = None
    vote_message: str = ""
    day_ended: bool = False


@dataclass
class _Tx:
    """What one service call holds: the locked rows and where its events start."""

    locked: Locked
    now: datetime
    first_seq: int
    names: dict[int, str] = field(default_factory=dict)
    # Standing votes read in this transaction (by revote flag); cleared when a vote is written.
    standing: dict[bool, dict[int, Vote]] = field(default_factory=dict)

    @property
    def game(self) -> Game:
        return self.locked.game

    @property
    def phase(self) -> Phase | None:
        return self.locked.phase

    @property
    def slots(self) -> list[Slot]:
        return self.locked.slots


# ======================================================================================
# Transaction, events and small look-ups
# ======================================================================================
@contextmanager
def _game_tx(game_id: int, now: datetime | None = None) -> Iterator[_Tx]:
    with transaction.atomic():
        locked = lock_all(game_id)
        tx = _Tx(locked, now or timezone.now(), locked.game.event_seq + 1)
        tx.names = naming.seat_names(locked.slots)
        yield tx
        if tx.game.event_seq >= tx.first_seq:
            _notify(tx.game.pk, tx.first_seq)


def _notify(game_id: int, from_seq: int) -> None:
    transaction.on_commit(partial(events.publish_events, game_id, from_seq))


def _emit(tx: _Tx, kind: str, payload: dict[str, Any], audience: str = "public") -> GameEvent:
    """Append one event to the game's log (the caller holds the game row lock)."""
    game = tx.game
    game.event_seq += 1
    Game.objects.filter(pk=game.pk).update(event_seq=game.event_seq)
    return GameEvent.objects.create(
        game=game, seq=game.event_seq, kind=kind, audience=audience, payload=payload
    )


def _rules(game: Game) -> ResolverRuleset:
    try:
        return get_ruleset(game.ruleset)
    except ImportError:  # a rule set module still being written
        raise InvalidInput(
            f"The {game.ruleset} rule set is not available on this server yet.", "no_ruleset"
        ) from None


def _state(game: Game) -> GameState:
    return GameState.from_dict(game.resolver_state)


def _render(tx: _Tx, value: Any) -> Any:
    return naming.render_value(value, tx.names)


def _slot_ref(slot: Slot | None) -> dict[str, Any] | None:
    if slot is None:
        return None
    return {"slot_id": slot.pk, "seat": slot.seat, "name": slot.display_name}


def _by_resolver_name(tx: _Tx, name: str) -> Slot | None:
    seat = naming.seat_of(name)
    return tx.locked.slot_at(seat) if seat is not None else None


def _require_host(user: Any, game: Game) -> None:
    if not getattr(user, "is_authenticated", False) or user.pk != game.host_id:
        raise NotAllowed("Only the host can do that.", "not_host")


def _require_running(game: Game) -> None:
    if game.status == GameStatus.SIGNUPS:
        raise WrongPhase("The game has not started yet.", "not_started")
    if game.status == GameStatus.FINISHED:
        raise WrongPhase("The game is over.", "game_over")


def _require_player(tx: _Tx, user: Any, *, alive: bool = True) -> Slot:
    slot = tx.locked.slot_of_user(getattr(user, "pk", None))
    if slot is None:
        raise NotAllowed("You are not playing in this game.", "not_player")
    if alive and not slot.alive:
        raise NotAllowed("You are dead: dead players take no further part.", "dead")
    return slot


def _require_open_phase(tx: _Tx, kind: str) -> Phase:
    phase = tx.phase
    if phase is None or phase.resolved:
        raise WrongPhase("There is no phase in progress.", "no_phase")
    if phase.kind != kind:
        what = "during the day" if kind == PhaseKind.DAY else "at night"
        raise WrongPhase(f"That can only be done {what}.", f"not_{kind}")
    if phase.is_paused:
        raise WrongPhase("The game is paused.", "paused")
    return phase


def _target_slot(tx: _Tx, slot_id: Any) -> Slot:
    slot = tx.locked.slot(slot_id) if isinstance(slot_id, int) else None
    if slot is None:
        raise InvalidInput("There is no such player in this game.", "no_player", "target")
    return slot


# ======================================================================================
# Sign-ups
# ======================================================================================
def create_game(
    user: Any,
    *,
    title: str,
    ruleset: str,
    role_list: list[dict[str, Any]],
    method: str = "",
    flags: Mapping[str, Any] | None = None,
    day_length: timedelta = timedelta(hours=24),
    night_length: timedelta = timedelta(hours=12),
    player_cap: int | None = None,
    starts_with: str = StartsWith.DAY,
    vote_rule: str | None = None,
    no_night_posting: bool = True,
    self_vote_allowed: bool = False,
    skip_vote_allowed: bool = True,
    min_posts_per_day: int = 0,
    inactivity_action: str = InactivityAction.REPLACE,
    setup: str = "",
    seed: int | None = None,
) -> Game:
    """A new game in sign-ups, hosted by ``user``; the setup is checked by the resolver."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Log in to host a game.", "login")
    title = (title or "").strip()
    if not title or len(title) > 200:
        raise InvalidInput("Give the game a title (at most 200 characters).", "title", "title")
    if ruleset not in Ruleset.values:
        raise InvalidInput(
            f"Unknown rule set {ruleset!r}; use one of {', '.join(Ruleset.values)}.",
            "ruleset",
            "ruleset",
        )
    if vote_rule is None:
        vote_rule = VoteRule.MAJORITY_HAMMER if ruleset == Ruleset.FORUM else VoteRule.PLURALITY
    if vote_rule not in VoteRule.values:
        raise InvalidInput(f"Unknown vote rule {vote_rule!r}.", "vote_rule", "vote_rule")
    if ruleset != Ruleset.FORUM and vote_rule != VoteRule.PLURALITY:
        raise InvalidInput(
            f"The {ruleset} rule set decides the day by plurality at the deadline.",
            "vote_rule",
            "vote_rule",
        )
    if starts_with not in StartsWith.values:
        raise InvalidInput("A game starts with day or night.", "starts_with", "starts_with")
    if inactivity_action not in InactivityAction.values:
        raise InvalidInput("Inactivity means replace or modkill.", "inactivity_action")
    for name, length in (("day_length", day_length), ("night_length", night_length)):
        if not MIN_PHASE_LENGTH <= length <= MAX_PHASE_LENGTH:
            raise InvalidInput(
                "A phase lasts between one minute and fourteen days.", "phase_length", name
            )
    if min_posts_per_day < 0:
        raise InvalidInput("The posting minimum cannot be negative.", "min_posts", "min_posts")
    entries = normalize_role_list(role_list)
    count = sum(e["count"] for e in entries)
    if not 3 <= count <= MAX_PLAYERS:
        raise InvalidInput(
            f"A game needs between 3 and {MAX_PLAYERS} roles.", "role_count", "role_list"
        )
    if player_cap is None:
        player_cap = count
    if player_cap != count:
        raise InvalidInput(
            f"The role list has {count} roles, so the game takes exactly {count} players.",
            "player_cap",
            "player_cap",
        )
    game = Game(
        title=title,
        host=user,
        setup=setup,
        ruleset=ruleset,
        method=method or "",
        flags=dict(flags or {}),
        role_list=entries,
        day_length=day_length,
        night_length=night_length,
        player_cap=player_cap,
        starts_with=starts_with,
        vote_rule=vote_rule,
        no_night_posting=no_night_posting,
        self_vote_allowed=self_vote_allowed,
        skip_vote_allowed=skip_vote_allowed,
        min_posts_per_day=min_posts_per_day,
        inactivity_action=inactivity_action,
    )
    if seed is not None:
        game.seed = seed
    game.flags = resolver_flags(game)
    # A dry run of the deal proves the setup is legal before anyone signs up.
    _build_state(game, _deal(game, list(range(1, count + 1))))
    with transaction.atomic():
        game.save()
        tx = _Tx(Locked(game, [], None), timezone.now(), 1)
        _emit(tx, "game_created", {"title": game.title, "host": user.get_username()})
        _notify(game.pk, 1)
    return game


def normalize_role_list(role_list: Any) -> list[dict[str, Any]]:
    """Check the shape of a role list and fill in defaults (count 1, no modifiers)."""
    if not isinstance(role_list, list) or not role_list:
        raise InvalidInput("The role list must name at least one role.", "role_list", "role_list")
    entries = []
    for i, raw in enumerate(role_list):
        where = f"role_list[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
            raise InvalidInput("Each role list entry needs a role.", "role_list", where)
        count = raw.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAYERS:
            raise InvalidInput(
                f"{raw['role']}: count must be a whole number from 1.", "count", where
            )
        entry: dict[str, Any] = {"role": raw["role"], "count": count}
        modifiers = raw.get("modifiers", [])
        if not isinstance(modifiers, list) or not all(isinstance(m, str) for m in modifiers):
            raise InvalidInput(f"{raw['role']}: modifiers must be a list.", "modifiers", where)
        if modifiers:
            entry["modifiers"] = list(modifiers)
        for key in ("alignment", "sanity"):
            if raw.get(key) is not None:
                if not isinstance(raw[key], str):
                    raise InvalidInput(f"{raw['role']}: {key} must be text.", key, where)
                entry[key] = raw[key]
        if raw.get("immune"):
            entry["immune"] = True
        unknown = set(raw) - {"role", "count", "modifiers", "alignment", "sanity", "immune"}
        if unknown:
            raise InvalidInput(
                f"Unknown role list field {sorted(unknown)[0]!r}.", "role_list", where
            )
        entries.append(entry)
    return entries


# Site settings that some rule sets also know as flags: the site's field is the truth.
_SITE_FLAGS = {
    "dayVote": lambda g: "plurality" if g.vote_rule == VoteRule.PLURALITY else "majority",
    "selfVote": lambda g: g.self_vote_allowed,
    "noEliminationVote": lambda g: g.skip_vote_allowed,
}


def resolver_flags(game: Game) -> dict[str, Any]:
    """The game's rule set flags with the site-level settings written in."""
    rules = _rules(game)
    flags = dict(game.flags or {})
    for name, source in _SITE_FLAGS.items():
        if name in rules.flags:
            flags[name] = source(game)
    return flags


def _deal(game: Game, seats: list[int]) -> list[dict[str, Any]]:
    """Resolver player entries for ``seats``: roles shuffled by the game's seed."""
    rules = _rules(game)
    cards: list[dict[str, Any]] = []
    for entry in game.role_list:
        card = {k: v for k, v in entry.items() if k != "count"}
        cards.extend(dict(card) for _ in range(entry["count"]))
    rng = random.Random(game.seed)
    rng.shuffle(cards)
    players = []
    for seat, card in zip(seats, cards, strict=True):
        players.append({"name": resolver_name(seat), **card})
    if rules.uses_executioner_target:
        for player in players:
            if player["role"] == "executioner":
                town = [
                    p["name"]
                    for p in players
                    if p is not player
                    and p["role"] in rules.roles
                    and p.get("alignment", rules.roles[p["role"]].alignment) == "town"
                ]
                if town:
                    player["target"] = rng.choice(town)
    return players


def _build_state(game: Game, players: list[dict[str, Any]]) -> GameState:
    try:
        return resolver.new_game(
            game.ruleset, players, game.method or None, game.flags, seed=game.seed
        )
    except resolver.InvalidScenario as exc:
        # The message names seats ("P3"): say it about the setup instead.
        message = naming.RESOLVER_NAME.sub("a player", exc.message)
        raise InvalidInput(f"This setup is not legal: {message}", "setup", "role_list") from None


def join_game(user: Any, game_id: int) -> Slot:
    """Sign ``user`` up for the game."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Log in to join a game.", "login")
    with _game_tx(game_id) as tx:
        game = tx.game
        if not game.is_signups:
            raise WrongPhase("Sign-ups are closed.", "signups_closed")
        if user.pk == game.host_id:
            raise NotAllowed("The host cannot play in their own game.", "host")
        if tx.locked.slot_of_user(user.pk) is not None:
            raise InvalidInput("You have already joined this game.", "already_joined")
        if len(tx.slots) >= game.player_cap:
            raise WrongPhase("The game is full.", "full")
        seat = max((s.seat for s in tx.slots), default=0) + 1
        slot = Slot.objects.create(game=game, seat=seat, user=user)
        tx.slots.append(slot)
        _emit(tx, "signup_joined", {**_slot_ref(slot), "count": len(tx.slots)})
        return slot


def leave_game(user: Any, game_id: int) -> None:
    """Withdraw ``user``'s sign-up (only before the start)."""
    with _game_tx(game_id) as tx:
        if not tx.game.is_signups:
            raise WrongPhase(
                "The game has started: ask the host for a replacement.", "signups_closed"
            )
        slot = _require_player(tx, user, alive=False)
        _remove_signup(tx, slot)


def remove_signup(user: Any, game_id: int, slot_id: int) -> None:
    """The host removes a player from the sign-ups."""
    with _game_tx(game_id) as tx:
        _require_host(user, tx.game)
        if not tx.game.is_signups:
            raise WrongPhase("The game has started: use replace or modkill.", "signups_closed")
        _remove_signup(tx, _target_slot(tx, slot_id))


def _remove_signup(tx: _Tx, slot: Slot) -> None:
    ref = _slot_ref(slot)
    Post.objects.filter(slot=slot).update(slot=None)  # sign-up chatter stays, unlinked
    slot.delete()
    tx.slots.remove(slot)
    _emit(tx, "signup_left", {**ref, "count": len(tx.slots)})


# ======================================================================================
# Start
# ======================================================================================
def start_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Deal the roles (reproducibly from the game's seed) and open the first phase."""
    with _game_tx(game_id, now) as tx:
        game = tx.game
        _require_host(user, game)
        if not game.is_signups:
            raise WrongPhase("The game has already started.", "started")
        if len(tx.slots) != game.role_count:
            raise WrongPhase(
                f"The setup needs {game.role_count} players; {len(tx.slots)} have joined.",
                "not_enough_players",
            )
        _renumber_seats(tx)
        players = _deal(game, [s.seat for s in tx.slots])
        state = _build_state(game, players)
        for slot, player in zip(tx.slots, state.players, strict=True):
            slot.role = player.role
            slot.alignment = player.alignment
            slot.modifiers = list(player.modifiers)
            slot.sanity = player.sanity
            slot.immune = player.immune
            slot.executioner_target = _by_resolver_name(tx, player.target or "")
            slot.save()
        game.resolver_state = state.to_dict()
        game.status = GameStatus.RUNNING
        game.started_at = tx.now
        game.save()
        _emit(
            tx,
            "game_started",
            {"players": [_slot_ref(s) for s in tx.slots], "starts_with": game.starts_with},
        )
        for slot in tx.slots:
            _emit(tx, "role_pm", role_pm(slot, tx.slots), f"slot:{slot.pk}")
        _emit(tx, "roles", {"slots": [_slot_roles(s) for s in tx.slots]}, "host")
        return _open_phase(tx, game.starts_with)


def _renumber_seats(tx: _Tx) -> None:
    """Seats 1..n in join order (leavers leave gaps during sign-ups)."""
    if [s.seat for s in tx.slots] == list(range(1, len(tx.slots) + 1)):
        return
    offset = 10_000  # step aside first: (game, seat) is unique
    Slot.objects.filter(game=tx.game).update(seat=F("seat") + offset)
    for i, slot in enumerate(tx.slots, start=1):
        slot.seat = i
        Slot.objects.filter(pk=slot.pk).update(seat=i)
    tx.names = naming.seat_names(tx.slots)


def role_pm(slot: Slot, slots: Iterable[Slot]) -> dict[str, Any]:
    """What a player's role PM tells them: their role and, for mafia and masons, partners."""
    data: dict[str, Any] = {
        "slot_id": slot.pk,
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "partners": [],
    }
    if slot.executioner_target_id:
        target = next((s for s in slots if s.pk == slot.executioner_target_id), None)
        data["executioner_target"] = _slot_ref(target)
    if slot.is_mafia:
        data["partners"] = [_slot_ref(s) for s in slots if s.is_mafia and s.pk != slot.pk]
    elif slot.is_mason:
        data["partners"] = [_slot_ref(s) for s in slots if s.is_mason and s.pk != slot.pk]
    return data


def _slot_roles(slot: Slot) -> dict[str, Any]:
    return {
        **_slot_ref(slot),
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "sanity": slot.sanity,
        "alive": slot.alive,
    }


def _open_phase(tx: _Tx, kind: str) -> Phase:
    game = tx.game
    number = game.phase_number + 1
    phase = Phase.objects.create(
        game=game,  # the locked instance: vote counts read its event_seq
        number=number,
        kind=kind,
        started_at=tx.now,
        deadline=tx.now + game.phase_length(kind),
    )
    game.phase_number = number
    Game.objects.filter(pk=game.pk).update(phase_number=number)
    tx.locked.phase = phase
    _emit(
        tx,
        "phase_started",
        {
            "number": number,
            "kind": kind,
            "label": phase.label,
            "deadline": phase.deadline.isoformat(),
        },
    )
    if kind == PhaseKind.DAY:
        _emit_vote_count(tx)
    return phase


# ======================================================================================
# Posts
# ======================================================================================
def submit_post(
    user: Any,
    game_id: int,
    *,
    body: str,
    thread: str = Thread.PUBLIC,
    now: datetime | None = None,
) -> PostResult:
    """Post in a thread; a bold vote in a public day post is applied. Posts are final."""
    with _game_tx(game_id, now) as tx:
        if getattr(user, "pk", None) == tx.game.host_id:
            return PostResult(_do_host_post(tx, user, body, thread))
        slot = _check_can_post(tx, user, thread)
        post = _do_post(tx, user, slot, body, thread)
        result = PostResult(post)
        if thread == Thread.PUBLIC and tx.game.is_running:
            _apply_post_vote(tx, slot, post, result)
        return result


def host_post(
    user: Any,
    game_id: int,
    *,
    body: str,
    thread: str = Thread.PUBLIC,
    now: datetime | None = None,
) -> Post:
    """The host posts (any thread, any time); host posts never carry votes."""
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        return _do_host_post(tx, user, body, thread)


def _do_host_post(tx: _Tx, user: Any, body: str, thread: str) -> Post:
    if thread not in Thread.values:
        raise NotFound("There is no such thread.", "no_thread", "thread")
    return _do_post(tx, user, None, body, thread, is_host=True)


def _check_can_post(tx: _Tx, user: Any, thread: str) -> Slot:
    """The poster's slot, or the reason they may not post in this thread now."""
    game = tx.game
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Log in to post.", "login")
    if thread not in Thread.values:
        raise NotFound("There is no such thread.", "no_thread", "thread")
    slot = tx.locked.slot_of_user(user.pk)
    if slot is None:
        raise NotAllowed("Only the players and the host post in this game.", "not_player")
    if game.is_signups:
        if thread != Thread.PUBLIC:
            raise WrongPhase("Only the game thread is open during sign-ups.", "signups")
        return slot
    if game.is_finished:
        if thread != Thread.PUBLIC:
            raise WrongPhase("The game is over: its private threads are closed.", "game_over")
        return slot
    if thread == Thread.PUBLIC:
        if not slot.alive:
            raise NotAllowed(
                "Dead players cannot post in the game thread; use the dead thread.", "dead"
            )
        phase = tx.phase
        if game.no_night_posting and phase is not None and phase.is_night:
            raise WrongPhase("Nobody but the host posts in the game thread at night.", "night")
    elif thread == Thread.MAFIA:
        if not (slot.alive and slot.is_mafia):
            raise NotAllowed("You cannot post in the mafia chat.", "not_mafia")
    elif thread == Thread.DEAD:
        if slot.alive:
            raise NotAllowed("Only dead players post in the dead thread.", "not_dead")
    elif thread == Thread.MASONS and not (slot.alive and slot.is_mason):
        raise NotAllowed("You cannot post in the masons' thread.", "not_mason")
    return slot


def _do_post(
    tx: _Tx, user: Any, slot: Slot | None, body: str, thread: str, *, is_host: bool = False
) -> Post:
    body = (body or "").strip()
    if not body:
        raise InvalidInput("The post is empty.", "empty", "body")
    if len(body) > MAX_POST_LENGTH:
        raise InvalidInput(f"Posts are at most {MAX_POST_LENGTH} characters.", "too_long", "body")
    last = Post.objects.filter(game=tx.game, thread=thread).aggregate(n=Max("number"))["n"]
    post = Post.objects.create(
        game=tx.game,
        thread=thread,
        author=user,
        slot=slot,
        phase=tx.phase if tx.game.is_running else None,
        number=(last or 0) + 1,
        body=body,
        html=markup.render_post(body),
        is_host=is_host,
    )
    _emit(tx, "post", post_payload(post, user.get_username()), _thread_audience(thread))
    return post


def _thread_audience(thread: str) -> str:
    return "public" if thread == Thread.PUBLIC else thread


def post_payload(post: Post, author_name: str) -> dict[str, Any]:
    return {
        "id": post.pk,
        "number": post.number,
        "thread": post.thread,
        "author": author_name,
        "slot_id": post.slot_id,
        "is_host": post.is_host,
        "phase": post.phase.number if post.phase else None,
        "html": post.html,
        "created_at": post.created_at.isoformat(),
    }


def _apply_post_vote(tx: _Tx, slot: Slot, post: Post, result: PostResult) -> None:
    intent = voting.find_vote(post.html)
    if intent is None:
        return
    phase = tx.phase
    if phase is None or phase.resolved or not phase.is_day:
        result.vote_message = "Votes only count during the day; this one counts for nothing."
    elif intent.kind == VoteKind.UNVOTE:
        try:
            _do_unvote(tx, slot, post)
        except GameRuleError as exc:
            result.vote_message = exc.message
    else:
        living = {s.display_name: s.pk for s in tx.locked.alive}
        dead = [s.display_name for s in tx.slots if not s.alive]
        match = voting.match_name(
            intent.name, living, dead=dead, skip_allowed=tx.game.skip_vote_allowed
        )
        if match.error:
            result.vote_message = match.error + " The vote counts for nothing."
        else:
            target = None if match.skip else tx.locked.slot(match.key)
            try:
                result.vote, result.day_ended = _do_vote(tx, slot, target, post)
            except GameRuleError as exc:
                result.vote_message = exc.message + " The vote counts for nothing."
    if result.vote_message:
        _emit(
            tx,
            "vote_refused",
            {"post_id": post.pk, "message": result.vote_message},
            f"slot:{slot.pk}",
        )


# ======================================================================================
# Votes
# ======================================================================================
def cast_vote(
    user: Any, game_id: int, target_slot_id: int | None, *, now: datetime | None = None
) -> PostResult:
    """The vote button: posts "**Vote: Name**" for the player and applies it.

    ``target_slot_id`` None votes "no elimination". Refused votes raise and post nothing.
    """
    with _game_tx(game_id, now) as tx:
        slot = _require_player(tx, user)
        target = None if target_slot_id is None else _target_slot(tx, target_slot_id)
        _check_vote(tx, slot, target)
        name = SKIP_LABEL if target is None else markup.escape_markdown(target.display_name)
        post = _do_post(tx, user, slot, f"**Vote: {name}**", Thread.PUBLIC)
        vote, day_ended = _do_vote(tx, slot, target, post)
        return PostResult(post, vote, "", day_ended)


def unvote(user: Any, game_id: int, *, now: datetime | None = None) -> PostResult:
    """The unvote button: posts "**Unvote**" and withdraws the player's vote."""
    with _game_tx(game_id, now) as tx:
        slot = _require_player(tx, user)
        _check_unvote(tx, slot)
        post = _do_post(tx, user, slot, "**Unvote**", Thread.PUBLIC)
        vote = _do_unvote(tx, slot, post)
        return PostResult(post, vote)


def _current_votes(phase: Phase, *, revote: bool | None = None) -> dict[int, Vote]:
    """Each voter's standing vote (latest row, unvotes dropped), in the order cast."""
    if revote is None:
        revote = phase.in_revote
    # Only each voter's latest row leaves the database: the day's vote log can be long.
    latest_ids = (
        Vote.objects.filter(phase=phase, revote=revote)
        .values("voter")
        .annotate(last=Max("id"))
        .values("last")
    )
    rows = Vote.objects.filter(pk__in=latest_ids).order_by("id").select_related("post")
    return {row.voter_id: row for row in rows if row.kind == VoteKind.VOTE}


def _standing_votes(tx: _Tx, *, revote: bool | None = None) -> dict[int, Vote]:
    """``_current_votes`` of the locked phase, read once per transaction until a write."""
    key = tx.phase.in_revote if revote is None else revote
    if key not in tx.standing:
        tx.standing[key] = _current_votes(tx.phase, revote=key)
    return tx.standing[key]


def _check_vote(tx: _Tx, voter: Slot, target: Slot | None) -> None:
    _require_running(tx.game)
    game, phase = tx.game, _require_open_phase(tx, PhaseKind.DAY)
    if not voter.alive:
        raise NotAllowed("Dead players cannot vote.", "dead")
    current = _standing_votes(tx).get(voter.pk)
    if current is not None and current.locked:
        raise NotAllowed("Your vote is locked: it can no longer be changed.", "locked")
    if target is None:
        if not game.skip_vote_allowed:
            raise InvalidInput('This game has no "no elimination" vote.', "no_skip", "target")
    else:
        if not target.alive:
            raise InvalidInput(
                f"{target.display_name} is dead and cannot be voted for.", "dead_target", "target"
            )
        if target.pk == voter.pk and not game.self_vote_allowed:
            raise InvalidInput("You cannot vote for yourself in this game.", "self_vote", "target")
    if phase.in_revote:
        if target is not None and target.pk not in phase.revote:
            tied = ", ".join(tx.locked.slot(i).display_name for i in phase.revote)
            raise InvalidInput(
                f"Only {tied} and no elimination are on the revote ballot.", "not_tied", "target"
            )
    elif _rules(game).uses_nominations and target is not None:
        nominated = Nomination.objects.filter(phase=phase, target=target).exists()
        if not nominated:
            raise InvalidInput(
                f"{target.display_name} has not been nominated today; only nominated "
                "players can be voted for.",
                "not_nominated",
                "target",
            )


def _do_vote(
    tx: _Tx, voter: Slot, target: Slot | None, post: Post | None
) -> tuple[Vote | None, bool]:
    """Apply a checked vote; returns the vote row (None if unchanged) and whether the day ended."""
    _check_vote(tx, voter, target)
    phase = tx.phase
    current = _standing_votes(tx).get(voter.pk)
    if current is not None and current.target_id == (target.pk if target else None):
        return current, False  # voting again for the same wagon changes nothing
    vote = Vote.objects.create(
        phase=phase,
        voter=voter,
        target=target,
        kind=VoteKind.VOTE,
        post=post,
        revote=phase.in_revote,
    )
    tx.standing.clear()
    _emit(
        tx,
        "vote",
        {
            "voter": _slot_ref(voter),
            "target": _slot_ref(target),
            "post_id": post.pk if post else None,
            "post_number": post.number if post else None,
        },
    )
    day_ended = _after_vote(tx)
    if not day_ended:
        _emit_vote_count(tx)
    return vote, day_ended


def _check_unvote(tx: _Tx, voter: Slot) -> Vote:
    _require_running(tx.game)
    _require_open_phase(tx, PhaseKind.DAY)
    current = _standing_votes(tx).get(voter.pk)
    if current is None:
        raise InvalidInput("You are not voting for anyone.", "no_vote")
    if current.locked:
        raise NotAllowed("Your vote is locked: it can no longer be withdrawn.", "locked")
    return current


def _do_unvote(tx: _Tx, voter: Slot, post: Post | None) -> Vote:
    current = _check_unvote(tx, voter)
    vote = Vote.objects.create(
        phase=tx.phase,
        voter=voter,
        target=None,
        kind=VoteKind.UNVOTE,
        post=post,
        revote=tx.phase.in_revote,
    )
    tx.standing.clear()
    _emit(
        tx,
        "unvote",
        {
            "voter": _slot_ref(voter),
            "target": _slot_ref(tx.locked.slot(current.target_id)) if current.target_id else None,
            "post_id": post.pk if post else None,
            "post_number": post.number if post else None,
        },
    )
    _emit_vote_count(tx)
    return vote


def _after_vote(tx: _Tx) -> bool:
    """Hammer or lock after a vote; True if the day ended (hammer)."""
    game, phase = tx.game, tx.phase
    if not game.uses_majority or phase.in_revote:
        return False
    votes = _standing_votes(tx)
    count = tally(_ballots(tx, votes), [s.resolver_name for s in tx.locked.alive])
    if game.vote_rule == VoteRule.MAJORITY_HAMMER:
        if count.majority_target is not None:
            _emit(tx, "hammer", {"target": _wagon_ref(tx, count.majority_target)})
            _end_day(tx)
            return True
        return False
    # Lock: a wagon one vote past majority locks every vote on it until the deadline.
    for wagon in count.wagons:
        if wagon.size >= count.majority + 1:
            ids = [
                v.pk for v in votes.values() if _vote_key(tx, v) == wagon.target and not v.locked
            ]
            if ids:
                Vote.objects.filter(pk__in=ids).update(locked=True)
                tx.standing.clear()
                _emit(tx, "wagon_locked", {"target": _wagon_ref(tx, wagon.target)})
    return False


def _vote_key(tx: _Tx, vote: Vote) -> str:
    if vote.target_id is None:
        return SKIP
    return tx.locked.slot(vote.target_id).resolver_name


def _ballots(tx: _Tx, votes: Mapping[int, Vote]) -> dict[str, str]:
    """Resolver ballots (voter -> target or "skip") of the living, in the order cast."""
    ballots = {}
    for voter_id, vote in votes.items():
        voter = tx.locked.slot(voter_id)
        target = tx.locked.slot(vote.target_id) if vote.target_id else None
        if voter is None or not voter.alive or (target is not None and not target.alive):
            continue
        ballots[voter.resolver_name] = target.resolver_name if target else SKIP
    return ballots


def _wagon_ref(tx: _Tx, key: str) -> dict[str, Any] | None:
    return None if key == SKIP else _slot_ref(_by_resolver_name(tx, key))


def nominate(
    user: Any, game_id: int, target_slot_id: int | None, *, now: datetime | None = None
) -> Nomination:
    """Classic: put a player (or, on day 1, "skip") on the ballot; once per player per day."""
    with _game_tx(game_id, now) as tx:
        slot = _require_player(tx, user)
        _require_running(tx.game)
        if not _rules(tx.game).uses_nominations:
            raise InvalidInput("This game has no nominations.", "no_nominations")
        phase = _require_open_phase(tx, PhaseKind.DAY)
        if phase.in_revote:
            raise WrongPhase("Nominations are closed during the revote.", "revote")
        if Nomination.objects.filter(phase=phase, nominator=slot).exists():
            raise InvalidInput("You have already nominated today.", "already_nominated")
        target = None if target_slot_id is None else _target_slot(tx, target_slot_id)
        if target is None:
            if _state(tx.game).night_number != 0:
                raise InvalidInput('Nominating "skip" is only allowed on day 1.', "skip_nomination")
            name = "skip"
        else:
            if not target.alive:
                raise InvalidInput(
                    f"{target.display_name} is dead and cannot be nominated.", "dead_target"
                )
            name = markup.escape_markdown(target.display_name)
        post = _do_post(tx, user, slot, f"**Nominate: {name}**", Thread.PUBLIC)
        nomination = Nomination.objects.create(
            phase=phase, nominator=slot, target=target, post=post
        )
        _emit(
            tx,
            "nomination",
            {"nominator": _slot_ref(slot), "target": _slot_ref(target), "post_id": post.pk},
        )
        _emit_vote_count(tx)
        return nomination


# ======================================================================================
# Night actions
# ======================================================================================
def submit_night_action(
    user: Any,
    game_id: int,
    *,
    ability: str,
    targets: list[int],
    extra: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> NightAction:
    """Submit or change tonight's use of ``ability`` (targets are slot ids)."""
    with _game_tx(game_id, now) as tx:
        _require_running(tx.game)
        rules = _rules(tx.game)
        slot = _require_player(tx, user, alive=not rules.dead_may_act)
        phase = _require_open_phase(tx, PhaseKind.NIGHT)
        if not isinstance(targets, list) or not targets:
            raise InvalidInput("Choose a target (or withdraw the action).", "no_target", "targets")
        target_slots = [_target_slot(tx, t) for t in targets]
        extra = dict(extra or {})
        _check_night_action(tx, slot, ability, target_slots, extra)
        action, created = NightAction.objects.update_or_create(
            phase=phase,
            actor=slot,
            ability=ability,
            defaults={"targets": [t.pk for t in target_slots], "extra": extra},
        )
        payload = {
            "actor": _slot_ref(slot),
            "ability": ability,
            "targets": [_slot_ref(t) for t in target_slots],
            "extra": extra,
            "changed": not created,
        }
        _emit(tx, "night_action", payload, f"slot:{slot.pk}")
        _emit(tx, "night_action", payload, "host")
        spec = rules.factional_kill
        if spec is not None and ability == spec.slug and slot.is_mafia:
            _emit(tx, "night_action", payload, "mafia")
        return action


def withdraw_night_action(
    user: Any, game_id: int, *, ability: str, now: datetime | None = None
) -> None:
    """Take back tonight's use of ``ability``."""
    with _game_tx(game_id, now) as tx:
        _require_running(tx.game)
        slot = _require_player(tx, user, alive=not _rules(tx.game).dead_may_act)
        phase = _require_open_phase(tx, PhaseKind.NIGHT)
        deleted, _ = NightAction.objects.filter(phase=phase, actor=slot, ability=ability).delete()
        if not deleted:
            raise NotFound(f"You have no {ability} action tonight.", "no_action", "ability")
        payload = {"actor": _slot_ref(slot), "ability": ability}
        _emit(tx, "night_action_withdrawn", payload, f"slot:{slot.pk}")
        _emit(tx, "night_action_withdrawn", payload, "host")


def _raw_action(actor: Slot, ability: str, targets: list[Slot], extra: Mapping[str, Any]) -> dict:
    return {
        **extra,
        "actor": actor.resolver_name,
        "ability": ability,
        "targets": [t.resolver_name for t in targets],
    }


def _check_night_action(
    tx: _Tx, actor: Slot, ability: str, targets: list[Slot], extra: Mapping[str, Any]
) -> None:
    """The resolver's own validation, so the site and the resolver agree on legality."""
    if not isinstance(ability, str) or not ability:
        raise InvalidInput("Say which ability to use.", "no_ability", "ability")
    if any(not isinstance(k, str) or k in {"actor", "ability", "targets"} for k in extra):
        raise InvalidInput("Unknown extra field on the action.", "extra", "extra")
    rules = _rules(tx.game)
    try:
        rules.parse_action(_state(tx.game), _raw_action(actor, ability, targets, extra), "$", 0)
    except resolver.InvalidScenario as exc:
        raise InvalidInput(naming.render(exc.message, tx.names), "illegal_action") from None


def night_options(game: Game, slot: Slot) -> list[dict[str, Any]]:
    """The abilities ``slot`` has tonight with their legal targets (slot ids), for the form."""
    if not game.is_running or not game.resolver_state:
        return []
    rules = _rules(game)
    state = _state(game)
    player = state.player(slot.resolver_name)
    if not player.alive and not rules.dead_may_act:
        return []
    slots = list(game.slots.select_related("user").order_by("seat"))
    options = []
    for spec in rules.abilities_of(state, player):
        legal = []
        for candidate in slots:
            targets = [candidate] * spec.targets
            raw = _raw_action(slot, spec.slug, targets, dict.fromkeys(spec.extra, "x"))
            try:
                rules.parse_action(state, raw, "$", 0)
            except resolver.InvalidScenario:
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


# ======================================================================================
# Phase transitions
# ======================================================================================
def advance_phase(
    game_id: int, phase_number: int, *, now: datetime | None = None, force: bool = False
) -> bool:
    """End phase ``phase_number`` if it is due: idempotent, safe to call twice or late.

    Does nothing (returns False) unless that phase is the game's current, unresolved,
    unpaused phase and its deadline has passed (``force``: the host cuts it short). A tied
    day that goes to a revote returns True but stays open with the revote's deadline.
    """
    with _game_tx(game_id, now) as tx:
        return _advance(tx, phase_number, force=force)


def _advance(tx: _Tx, phase_number: int, *, force: bool) -> bool:
    game, phase = tx.game, tx.phase
    if not game.is_running or phase is None or phase.number != phase_number or phase.resolved:
        return False
    if phase.is_paused:
        return False
    if not force and (phase.deadline is None or phase.deadline > tx.now):
        return False
    if phase.is_day:
        _end_day(tx)
    else:
        _end_night(tx)
    return True


def due_phases(now: datetime | None = None) -> list[tuple[int, int]]:
    """(game id, phase number) of every running phase whose deadline has passed."""
    now = now or timezone.now()
    rows = Phase.objects.filter(
        resolved=False, deadline__lte=now, game__status=GameStatus.RUNNING
    ).values_list("game_id", "number")
    return list(rows)


def _end_day(tx: _Tx) -> None:
    game, phase = tx.game, tx.phase
    state = _state(game)
    rules = _rules(game)
    notes: list[str] = []
    raw_day: dict[str, Any] = {"votes": _ballots(tx, _standing_votes(tx, revote=False))}
    if rules.uses_nominations:
        raw_day["nominations"] = {
            n.nominator.resolver_name: (n.target.resolver_name if n.target else SKIP)
            for n in phase.nominations.select_related("nominator", "target")
            if n.nominator.alive and (n.target is None or n.target.alive)
        }
    if phase.in_revote:
        raw_day["revote"] = _ballots(tx, _standing_votes(tx, revote=True))
    if game.uses_majority and "dayVote" not in rules.flags:
        # Rule sets without their own majority rule: only a majority wagon eliminates.
        count = tally(raw_day["votes"], state.alive_names)
        if count.majority_target is None:
            notes.append(f"No wagon reached majority ({count.majority} of {count.alive_count}).")
            raw_day["votes"] = {}
    try:
        outcome = resolver.play_day(state, raw_day)
    except resolver.InvalidScenario as exc:
        # Should not happen (every vote was checked when cast); never leave the day stuck.
        log.error("Day %s of game %s: resolver refused the votes: %s", phase.number, game.pk, exc)
        notes.append(f"The votes could not be counted ({exc.message}); nobody is eliminated.")
        outcome = resolver.play_day(state, {"votes": {}})
    if outcome.revote and not phase.in_revote:
        _start_revote(tx, outcome.revote, outcome.explanation)
        return
    eliminated = _by_resolver_name(tx, outcome.eliminated) if outcome.eliminated else None
    if eliminated is not None:
        _kill(tx, eliminated, DeathCause.DAY, outcome.reveals.get(outcome.eliminated, ""))
    report = outcome.to_report(phase.number)
    report["site_notes"] = notes
    _close_phase(tx, report, outcome.state)
    _emit(
        tx,
        "day_ended",
        {
            "number": phase.number,
            "eliminated": _slot_ref(eliminated),
            "revealed_role": eliminated.revealed_role if eliminated else "",
        },
    )
    _emit(tx, "phase_report", _render(tx, report), "host")
    _check_inactivity(tx)
    _after_phase(tx, next_kind=PhaseKind.NIGHT)


def _start_revote(tx: _Tx, tied: Iterable[str], explanation: Iterable[str]) -> None:
    phase = tx.phase
    slots = [_by_resolver_name(tx, name) for name in tied]
    phase.revote = [s.pk for s in slots if s is not None]
    length = max(tx.game.day_length / 4, MIN_REVOTE_LENGTH)
    phase.deadline = tx.now + length
    phase.save(update_fields=["revote", "deadline"])
    _emit(
        tx,
        "revote_started",
        {
            "tied": [_slot_ref(s) for s in slots if s is not None],
            "deadline": phase.deadline.isoformat(),
            "explanation": _render(tx, list(explanation)),
        },
    )
    _emit_vote_count(tx)


def _end_night(tx: _Tx) -> None:
    game, phase = tx.game, tx.phase
    state = _state(game)
    rules = _rules(game)
    notes: list[str] = []
    raw_actions = []
    for action in phase.night_actions.select_related("actor").order_by("updated_at", "id"):
        actor = tx.locked.slot(action.actor_id)
        targets = [tx.locked.slot(t) for t in action.targets]
        raw = _raw_action(actor, action.ability, [t for t in targets if t], action.extra)
        try:  # an action can turn illegal after it was sent (its target was modkilled)
            rules.parse_action(state, raw, "$", len(raw_actions))
        except resolver.InvalidScenario as exc:
            notes.append(f"Dropped {actor.resolver_name}'s {action.ability}: {exc.message}")
            continue
        raw_actions.append(raw)
    try:
        outcome = resolver.play_night(state, raw_actions)
    except resolver.InvalidScenario as exc:
        log.error("Night %s of game %s: resolver refused: %s", phase.number, game.pk, exc)
        notes.append(f"The night could not be resolved ({exc.message}); nothing happens.")
        outcome = resolver.play_night(state, [])
    deaths = []
    for name in outcome.dead:
        slot = _by_resolver_name(tx, name)
        if slot is not None and slot.alive:
            _kill(tx, slot, DeathCause.NIGHT, outcome.reveals.get(name, ""))
            deaths.append(slot)
    for name, results in outcome.results.items():
        slot = _by_resolver_name(tx, name)
        if slot is None:
            continue
        for result in results:
            payload = dict(result)
            text = describe_result(payload, tx.names)
            PrivateResult.objects.create(slot=slot, phase=phase, payload=payload, text=text)
            _emit(
                tx,
                "private_result",
                {"phase": phase.number, "text": text, "result": _render(tx, payload)},
                f"slot:{slot.pk}",
            )
    report = outcome.to_report(phase.number)
    report["site_notes"] = notes
    _close_phase(tx, report, outcome.state)
    _emit(
        tx,
        "night_ended",
        {
            "number": phase.number,
            "deaths": [{**_slot_ref(s), "revealed_role": s.revealed_role} for s in deaths],
        },
    )
    _emit(tx, "phase_report", _render(tx, report), "host")
    _after_phase(tx, next_kind=PhaseKind.DAY)


def _kill(tx: _Tx, slot: Slot, cause: str, revealed_role: str) -> None:
    slot.alive = False
    slot.died_in_phase = tx.game.phase_number
    slot.death_cause = cause
    slot.revealed_role = revealed_role or ""
    slot.save(update_fields=["alive", "died_in_phase", "death_cause", "revealed_role"])


def _close_phase(tx: _Tx, report: dict[str, Any], state: GameState) -> None:
    phase = tx.phase
    phase.resolved = True
    phase.ended_at = tx.now
    phase.report = report
    phase.save(update_fields=["resolved", "ended_at", "report"])
    tx.game.resolver_state = state.to_dict()
    tx.game.save(update_fields=["resolver_state"])


def _after_phase(tx: _Tx, next_kind: str) -> None:
    """The win check, then the game's end or the next phase."""
    if tx.game.is_finished:
        return
    if not _check_win(tx):
        _open_phase(tx, next_kind)


def _check_win(tx: _Tx) -> bool:
    state = _state(tx.game)
    verdict = resolver.check_winner(state)
    if verdict.winner is None:
        return False
    _finish(tx, verdict.winner, verdict.reason, {*state.co_winners, *verdict.co_winners})
    return True


def _finish(tx: _Tx, winner: str, reason: str, co_winners: Iterable[str]) -> None:
    game = tx.game
    game.status = GameStatus.FINISHED
    game.winner = winner
    game.win_reason = naming.render(reason, tx.names)
    game.co_winners = [s.pk for s in (_by_resolver_name(tx, n) for n in co_winners) if s]
    game.finished_at = tx.now
    game.save()
    if tx.phase is not None and not tx.phase.resolved:
        tx.phase.resolved = True
        tx.phase.ended_at = tx.now
        tx.phase.save(update_fields=["resolved", "ended_at"])
    _emit(
        tx,
        "game_finished",
        {
            "winner": winner,
            "reason": game.win_reason,
            "co_winners": [_slot_ref(tx.locked.slot(i)) for i in game.co_winners],
            "slots": [_slot_roles(s) for s in tx.slots],
        },
    )


def _check_inactivity(tx: _Tx) -> None:
    """Prod living players below the posting minimum; repeat offenders get the host's action."""
    game, phase = tx.game, tx.phase
    if not game.min_posts_per_day:
        return
    counts = dict(
        Post.objects.filter(game=game, phase=phase, thread=Thread.PUBLIC, slot__isnull=False)
        .values_list("slot_id")
        .annotate(n=Count("id"))
    )
    for slot in tx.locked.alive:
        posts = counts.get(slot.pk, 0)
        if posts >= game.min_posts_per_day:
            continue
        slot.prods += 1
        slot.save(update_fields=["prods"])
        payload = {
            **_slot_ref(slot),
            "posts": posts,
            "required": game.min_posts_per_day,
            "prods": slot.prods,
        }
        _emit(tx, "prod", payload, f"slot:{slot.pk}")
        _emit(tx, "prod", payload, "host")
        if slot.prods < PRODS_BEFORE_ACTION:
            continue
        if game.inactivity_action == InactivityAction.MODKILL:
            _do_modkill(tx, slot, "inactivity")
        else:
            _emit(tx, "replacement_needed", payload, "host")


# ======================================================================================
# Host actions
# ======================================================================================
def extend_deadline(
    user: Any, game_id: int, *, by: timedelta, now: datetime | None = None
) -> Phase:
    """Push the current phase's deadline back by ``by``."""
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        _require_running(tx.game)
        phase = tx.phase
        if phase is None or phase.resolved:
            raise WrongPhase("There is no phase in progress.", "no_phase")
        if not timedelta(0) < by <= MAX_PHASE_LENGTH:
            raise InvalidInput("Extend by a positive time of at most fourteen days.", "by", "by")
        if phase.is_paused:
            phase.paused_remaining += by
        else:
            phase.deadline += by
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "deadline_changed")
        return phase


def cut_deadline_now(user: Any, game_id: int, *, now: datetime | None = None) -> bool:
    """The host ends the current phase now (the same transition as the deadline)."""
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        _require_running(tx.game)
        phase = tx.phase
        if phase is None or phase.resolved:
            raise WrongPhase("There is no phase in progress.", "no_phase")
        if phase.is_paused:
            raise WrongPhase("Resume the game before ending the phase.", "paused")
        return _advance(tx, phase.number, force=True)


def pause_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Stop the clock: the phase keeps its remaining time until resumed."""
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        _require_running(tx.game)
        phase = tx.phase
        if phase is None or phase.resolved:
            raise WrongPhase("There is no phase in progress.", "no_phase")
        if phase.is_paused:
            raise WrongPhase("The game is already paused.", "paused")
        phase.paused_remaining = max(phase.deadline - tx.now, timedelta(0))
        phase.deadline = None
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "paused")
        return phase


def resume_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Restart the clock with the time that was left."""
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        _require_running(tx.game)
        phase = tx.phase
        if phase is None or not phase.is_paused:
            raise WrongPhase("The game is not paused.", "not_paused")
        phase.deadline = tx.now + phase.paused_remaining
        phase.paused_remaining = None
        phase.save(update_fields=["deadline", "paused_remaining"])
        _emit_deadline(tx, "resumed")
        return phase


def _emit_deadline(tx: _Tx, kind: str) -> None:
    phase = tx.phase
    _emit(
        tx,
        kind,
        {
            "number": phase.number,
            "deadline": phase.deadline.isoformat() if phase.deadline else None,
            "paused_remaining": phase.paused_remaining.total_seconds()
            if phase.paused_remaining is not None
            else None,
        },
    )


def modkill(
    user: Any, game_id: int, slot_id: int, *, reason: str = "", now: datetime | None = None
) -> Slot:
    """The host removes a player from the game; the win check runs at once.

    A modkill does not reveal the role (the host may post it); the player's votes stop
    counting and their night actions are dropped.
    """
    with _game_tx(game_id, now) as tx:
        _require_host(user, tx.game)
        _require_running(tx.game)
        slot = _target_slot(tx, slot_id)
        if not slot.alive:
            raise InvalidInput(f"{slot.display_name} is already dead.", "dead_target")
        _do_modkill(tx, slot, reason)
        return slot


def _do_modkill(tx: _Tx, slot: Slot, reason: str) -> None:
    state = resolver.remove_player(_state(tx.game), slot.resolver_name)
    tx.game.resolver_state = state.to_dict()
    tx.game.save(update_fields=["resolver_state"])
    _kill(tx, slot, DeathCause.MODKILL, "")
    if tx.phase is not None and not tx.phase.resolved:
        NightAction.objects.filter(phase=tx.phase, actor=slot).delete()
    _emit(tx, "modkill", {**_slot_ref(slot), "reason": reason})
    if tx.phase is not None and tx.phase.is_day and not tx.phase.resolved:
        _emit_vote_count(tx)
    # Mid-phase the game can end here; at a phase end the caller checks the win after.
    if tx.phase is not None and not tx.phase.resolved:
        _check_win(tx)


def replace_player(
    user: Any, game_id: int, slot_id: int, new_user: Any, *, now: datetime | None = None
) -> Slot:
    """A new person takes over the slot: same seat, role, votes and history."""
    with _game_tx(game_id, now) as tx:
        game = tx.game
        _require_host(user, game)
        _require_running(game)
        slot = _target_slot(tx, slot_id)
        if new_user is None or not getattr(new_user, "pk", None):
            raise InvalidInput("Choose the replacement player.", "no_user", "new_user")
        if new_user.pk == game.host_id:
            raise InvalidInput("The host cannot play in their own game.", "host", "new_user")
        if tx.locked.slot_of_user(new_user.pk) is not None:
            raise InvalidInput(
                f"{new_user.get_username()} already has a slot in this game.", "in_game"
            )
        old = slot.user
        Replacement.objects.create(
            slot=slot, old_user=old, new_user=new_user, phase_number=game.phase_number
        )
        slot.user = new_user
        slot.prods = 0
        slot.save(update_fields=["user", "prods"])
        tx.names = naming.seat_names(tx.slots)
        _emit(
            tx,
            "replaced",
            {
                "slot_id": slot.pk,
                "seat": slot.seat,
                "old_name": old.get_username(),
                "new_name": new_user.get_username(),
                "old_user_id": old.pk,
            },
        )
        _emit(tx, "role_pm", role_pm(slot, tx.slots), f"slot:{slot.pk}")
        if game.phase_number and tx.phase is not None and tx.phase.is_day:
            _emit_vote_count(tx)
        return slot


# ======================================================================================
# The vote count
# ======================================================================================
def _emit_vote_count(tx: _Tx) -> None:
    if tx.phase is not None and tx.phase.is_day:
        _emit(tx, "vote_count", vote_count(tx.phase, slots=tx.slots, votes=_standing_votes(tx)))


def vote_count(
    phase: Phase, *, slots: list[Slot] | None = None, votes: dict[int, Vote] | None = None
) -> dict[str, Any]:
    """The vote count as plain JSON-ready data (views and the live layer render it).

    ``{"phase", "kind", "label", "vote_rule", "in_revote", "alive_count", "majority",
    "majority_text", "wagons": [{"target": {slot_id, seat, name} | None (no elimination),
    "name", "count", "l_minus", "locked", "voters": [{slot_id, seat, name, post_id,
    post_number, locked}]}], "not_voting": [...], "alive": [...], "dead": [{..., "role"}],
    "nominated": [...] (classic), "deadline", "paused_remaining", "resolved"}``
    """
    game = phase.game
    if slots is None:
        slots = list(game.slots.select_related("user").order_by("seat"))
    by_id = {s.pk: s for s in slots}
    alive = [s for s in slots if s.alive]
    if votes is None:
        votes = _current_votes(phase) if phase.is_day else {}
    wagons: dict[int | None, list[Vote]] = {}
    ballots: dict[str, str] = {}
    for voter_id, vote in votes.items():
        voter, target = by_id.get(voter_id), by_id.get(vote.target_id)
        if voter is None or not voter.alive or (target is not None and not target.alive):
            continue
        wagons.setdefault(vote.target_id, []).append(vote)
        ballots[voter.resolver_name] = target.resolver_name if target else SKIP
    count = tally(ballots, [s.resolver_name for s in alive])
    majority = majority_needed(len(alive))

    def voter_ref(vote: Vote) -> dict[str, Any]:
        return {
            **_slot_ref(by_id[vote.voter_id]),
            "post_id": vote.post_id,
            "post_number": vote.post.number if vote.post else None,
            "locked": vote.locked,
        }

    wagon_list = []
    for wagon in count.wagons:  # biggest first, ties in the order they started
        key = None if wagon.target == SKIP else _seat_slot(slots, wagon.target).pk
        rows = wagons[key]
        wagon_list.append(
            {
                "target": _slot_ref(by_id[key]) if key is not None else None,
                "name": by_id[key].display_name if key is not None else SKIP_LABEL,
                "count": len(rows),
                "l_minus": max(majority - len(rows), 0),
                "locked": any(v.locked for v in rows),
                "voters": [voter_ref(v) for v in rows],
            }
        )
    data: dict[str, Any] = {
        "phase": phase.number,
        "kind": phase.kind,
        "label": phase.label,
        "vote_rule": game.vote_rule,
        "in_revote": phase.in_revote,
        "revote_options": [_slot_ref(by_id[i]) for i in phase.revote or [] if i in by_id],
        "alive_count": len(alive),
        "majority": majority,
        "majority_text": f"With {len(alive)} alive it takes {majority} to eliminate",
        "wagons": wagon_list,
        "not_voting": [_slot_ref(_seat_slot(slots, n)) for n in count.not_voting],
        "alive": [_slot_ref(s) for s in alive],
        "dead": [
            {**_slot_ref(s), "role": s.revealed_role or None, "cause": s.death_cause}
            for s in slots
            if not s.alive
        ],
        "deadline": phase.deadline.isoformat() if phase.deadline else None,
        "paused_remaining": phase.paused_remaining.total_seconds()
        if phase.paused_remaining is not None
        else None,
        "resolved": phase.resolved,
    }
    if game.vote_rule == VoteRule.MAJORITY_LOCK:
        data["lock_text"] = f"A wagon of {majority + 1} locks"
    if game.vote_rule == VoteRule.PLURALITY:
        data["majority_text"] = f"With {len(alive)} alive, the most votes at the deadline eliminate"
    if phase.is_day and get_ruleset(game.ruleset).uses_nominations:
        data["nominated"] = [
            _slot_ref(by_id.get(n.target_id)) if n.target_id else None
            for n in phase.nominations.all()
        ]
    return data


def _seat_slot(slots: list[Slot], name: str) -> Slot:
    seat = naming.seat_of(name)
    return next(s for s in slots if s.seat == seat)


# ======================================================================================
# Private results in words
# ======================================================================================
_RESULT_WORDS = {
    "mafia": "mafia",
    "innocent": "innocent",
    "not_mafia": "not mafia",
    "red": "red (town)",
    "black": "black (mafia)",
    "sheriff": "the Sheriff",
    "not_sheriff": "not the Sheriff",
}


def describe_result(result: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """One sentence for a player's private result, in current names."""
    kind = result.get("kind")
    target = naming.render(str(result.get("target", "")), names)
    if kind == "investigation":
        word = _RESULT_WORDS.get(str(result.get("result")), str(result.get("result")))
        return f"Your investigation of {target}: {word}."
    if kind == "track":
        visited = [naming.render(v, names) for v in result.get("visited", [])]
        where = ", ".join(visited) if visited else "nobody"
        return f"You tracked {target}: they visited {where}."
    if kind == "watch":
        visitors = [naming.render(v, names) for v in result.get("visitors", [])]
        who = ", ".join(visitors) if visitors else "nobody"
        return f"You watched {target}: visited by {who}."
    details = ", ".join(
        f"{k}: {naming.render_value(v, names)}" for k, v in result.items() if k != "kind"
    )
    return f"{str(kind).replace('_', ' ').capitalize()}: {details}."
