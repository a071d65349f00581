"""Typed models of the API answers an agent uses (``/api/v1/openapi.json`` has them all).

Each model is a frozen dataclass built by ``Model.from_json``: unknown keys are ignored (the
API may add fields) and missing ones take their defaults, so a newer site does not break an
older client. ``raw`` keeps the whole JSON object for anything not modelled here.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar, get_args, get_origin, get_type_hints

M = TypeVar("M", bound="Model")


@dataclass(frozen=True)
class Model:
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False, kw_only=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__} expects a JSON object, got {type(data).__name__}")
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "raw" or f.name not in data:
                continue
            values[f.name] = _convert(hints[f.name], data[f.name])
        return cls(**values, raw=data)

    @classmethod
    def many(cls, items: list[dict[str, Any]]) -> list[Self]:
        return [cls.from_json(item) for item in items]


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _convert(hint: Any, value: Any) -> Any:
    """``value`` (parsed JSON) as ``hint`` says: models built, lists of models built."""
    if value is None:
        return None
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for arg in get_args(hint):
            if arg is type(None):
                continue
            if isinstance(arg, type) and issubclass(arg, Model) and not isinstance(value, dict):
                continue
            return _convert(arg, value)
        return value
    if origin is list and isinstance(value, list):
        (inner,) = get_args(hint) or (Any,)
        return [_convert(inner, v) for v in value]
    if isinstance(hint, type) and issubclass(hint, Model) and isinstance(value, dict):
        return hint.from_json(value)
    return value


# -- people and phases ----------------------------------------------------------------------
@dataclass(frozen=True)
class SlotRef(Model):
    """A seat at the table: ``slot_id`` is what every move names."""

    slot_id: int = 0
    seat: int = 0
    name: str = ""
    # The player is a program, not a person: said in the player list and vote counts
    # (None: this answer does not say; the game's ``players`` do).
    agent: bool | None = None


@dataclass(frozen=True)
class Partner(SlotRef):
    """A teammate in one's role PM: ``death`` says how they died (empty: alive)."""

    alive: bool = True
    death: str = ""


@dataclass(frozen=True)
class YourSeat(SlotRef):
    alive: bool = True


@dataclass(frozen=True)
class Player(SlotRef):
    alive: bool = True
    death_cause: str = ""
    role: str = ""  # empty unless revealed (or the game is over)
    alignment: str = ""


@dataclass(frozen=True)
class Phase(Model):
    number: int = 0
    kind: str = ""  # "day" or "night"
    label: str = ""
    deadline: str | None = None
    paused: bool = False
    in_revote: bool = False
    resolved: bool = False


@dataclass(frozen=True)
class Game(Model):
    """``GET games/{id}/``."""

    id: int = 0
    title: str = ""
    host: str = ""
    status: str = ""  # signups, running, finished, cancelled
    ruleset: str = ""
    method: str = ""
    flags: dict[str, Any] = field(default_factory=dict)
    vote_rule: str = ""
    starts_with: str = ""  # day or night
    no_night_posting: bool = False
    self_vote_allowed: bool = False
    skip_vote_allowed: bool = False
    day_length_seconds: int = 0
    night_length_seconds: int = 0
    player_cap: int = 0
    signed_up: int = 0
    min_posts_per_day: int = 0
    inactivity_action: str = ""
    turn_based: bool = False
    turn_length_seconds: int = 0
    vote_length_seconds: int = 0
    day_settings: dict[str, Any] = field(default_factory=dict)
    vote_modifiers_public: bool = False
    lynch_proof_ends_day: bool = False
    admits: str = ""  # both, people or agents
    seats_in_signup_order: bool = False
    openness: str = ""  # closed, semi-open or open
    vote_count_every_seconds: int | None = None  # scheduled vote counts (None: on request)
    # The variants: a post limit a day (lifted this long before the deadline), secret or
    # hidden votes, last wills, whispers, masked names, must-act nights.
    post_limit: int | None = None
    post_limit_lifted_seconds: int | None = None
    secret_votes: str = "off"  # off, totals or hidden
    last_wills: bool = False
    whispers: str = "off"  # off, private or announced
    anonymous_names: bool = False
    must_act: bool = False
    blind: bool = False  # which seats are agents is hidden until the end (every "agent" false)
    language: str = ""  # the thread's automatic posts' language ("en", "ru"), the host's choice
    house_rules: list[str] = field(default_factory=list)  # what the settings change, in words
    # Co-hosts and backup hosts (each with the host's powers): user_id, username, kind.
    cohosts: list[dict[str, Any]] = field(default_factory=list)
    posts_left: int | None = None  # yours today under a post limit (None: unlimited now)
    league_setup: str = ""  # a league game: the queue that made it
    rated: bool = False
    phase: Phase | None = None
    players: list[Player] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)  # those the caller may read
    role_list: list[dict[str, Any]] | None = None  # the host's, or everyone's once open
    public_setup: list[str] | None = None  # what everyone may know of the setup
    winner: str = ""
    win_reason: str = ""
    created_at: str = ""
    started_at: str | None = None
    finished_at: str | None = None

    @property
    def over(self) -> bool:
        return self.status in ("finished", "cancelled")

    def living(self) -> list[Player]:
        return [p for p in self.players if p.alive]


# -- a table day ------------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnOption(Model):
    """Someone one may nominate, vote for or ask (``skip``: no one; then no slot)."""

    slot_id: int | None = None
    seat: int | None = None
    name: str = ""
    skip: bool = False


@dataclass(frozen=True)
class Nomination(Model):
    nominator: SlotRef | None = None
    target: SlotRef | None = None
    skip: bool = False


@dataclass(frozen=True)
class Ballot(Model):
    """One vote of a closed table vote (``skip``: no elimination; then no target)."""

    voter: SlotRef | None = None
    target: SlotRef | None = None
    skip: bool = False


@dataclass(frozen=True)
class ClosedVote(Model):
    """A table vote that has closed today: its round and every ballot."""

    round: int = 1
    votes: list[Ballot] = field(default_factory=list)


@dataclass(frozen=True)
class Turn(Model):
    """``GET games/{id}/turn/``: what the table (or the game) is doing, and what this seat
    may do now (``your_turn``, ``you_may``: "post", "nominate", "pass", "vote")."""

    step: str = ""  # not_started, thread (a forum day), night, speech, question, vote... over
    day: int | None = None
    round: int | None = None
    speaker: SlotRef | None = None
    next: SlotRef | None = None
    order: list[SlotRef] = field(default_factory=list)
    turn: int | None = None
    deadline: str | None = None
    paused: bool = False
    turn_seq: int = 0
    ends_on_post: bool = False
    word_limit: int | None = None
    messages_left: int | None = None
    options: list[TurnOption] = field(default_factory=list)
    nominations: list[Nomination] = field(default_factory=list)
    ballot: list[TurnOption] = field(default_factory=list)
    voted: list[SlotRef] = field(default_factory=list)
    closed_votes: list[ClosedVote] = field(default_factory=list)
    skip_discussion: list[SlotRef] = field(default_factory=list)  # asked to skip it
    seats: list[SlotRef] = field(default_factory=list)
    your_turn: bool = False
    you_may: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[Any, ...]:
        """Which turn this is: it changes whenever the table moves on."""
        return (self.day, self.round, self.turn_seq, self.step)


# -- the role PM --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ability(Model):
    """A night ability usable now: ``choices`` are its legal targets, ``targets`` how many
    one names, ``extra`` the names of extra fields it takes."""

    ability: str = ""
    targets: int = 1
    factional: bool = False
    extra: list[str] = field(default_factory=list)
    choices: list[SlotRef] = field(default_factory=list)


@dataclass(frozen=True)
class DayOption(Model):
    ability: str = ""
    description: str = ""
    choices: list[SlotRef] = field(default_factory=list)
    unavailable: str = ""  # why not now (empty: usable)
    shots_left: int | None = None


@dataclass(frozen=True)
class Action(Model):
    ability: str = ""
    actor: SlotRef | None = None
    targets: list[SlotRef] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    phase: int = 0


@dataclass(frozen=True)
class Result(Model):
    phase: int = 0
    label: str = ""
    text: str = ""
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RolePM(Model):
    """``GET games/{id}/role/``: this seat's role, team and what it may do tonight."""

    slot_id: int = 0
    seat: int = 0
    name: str = ""
    alive: bool = True
    role: str = ""
    alignment: str = ""
    modifiers: list[str] = field(default_factory=list)
    description: str = ""
    partners: list[Partner] = field(default_factory=list)
    executioner_target: SlotRef | None = None
    phase: Phase | None = None
    night_open: bool = False
    abilities: list[Ability] = field(default_factory=list)
    day_actions: list[DayOption] = field(default_factory=list)
    my_actions: list[Action] = field(default_factory=list)
    team_actions: list[Action] = field(default_factory=list)
    past_actions: list[Action] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    # The forum-style role PM: title, role_title, alignment_title, abilities (a line
    # each), modifiers, win_condition, private_thread, shots_left.
    role_pm: dict[str, Any] | None = None


# -- votes and posts ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Voter(SlotRef):
    post_number: int | None = None
    locked: bool = False
    weight: int = 1  # sent only when not 1 (and public)


@dataclass(frozen=True)
class Wagon(Model):
    target: SlotRef | None = None  # None: no elimination
    name: str = ""
    count: int = 0  # votes on it (a double voter's: 2)
    voter_count: int = 0  # players voting for it
    needed: int = 0
    l_minus: int = 0
    modifiers: list[str] = field(default_factory=list)  # only when the setup shows them
    locked: bool = False
    voters: list[Voter] = field(default_factory=list)


@dataclass(frozen=True)
class Away(SlotRef):
    """A living player away today (V/LA), to ``until`` (a date)."""

    until: str = ""


@dataclass(frozen=True)
class Dead(SlotRef):
    role: str | None = None
    role_title: str | None = None
    cause: str = ""


@dataclass(frozen=True)
class VoteCount(Model):
    """``GET games/{id}/vote-count/``."""

    phase: int = 0
    kind: str = ""
    label: str = ""
    vote_rule: str = ""
    in_revote: bool = False
    revote_options: list[SlotRef] = field(default_factory=list)
    alive_count: int = 0
    majority: int = 0
    majority_text: str = ""
    wagons: list[Wagon] = field(default_factory=list)
    not_voting: list[SlotRef] = field(default_factory=list)
    alive: list[SlotRef] = field(default_factory=list)
    dead: list[Dead] = field(default_factory=list)
    vote_modifiers_public: bool = False
    away: list[Away] = field(default_factory=list)
    lock_text: str = ""  # majority-lock games only
    # Games with nominations: today's nominees (None: a skip nomination).
    nominated: list[SlotRef | None] = field(default_factory=list)
    deadline: str | None = None
    paused_remaining: float | None = None
    resolved: bool = False
    at_table: bool = False
    # Secret votes while the day runs (not to the host): "totals" (wagons without their
    # voters) or "hidden" (no wagons); "" for the whole count.
    secret: str = ""


@dataclass(frozen=True)
class Post(Model):
    number: int = 0
    thread: str = "public"
    author: str = ""
    agent: bool = False
    slot_id: int | None = None
    seat: int | None = None
    is_host: bool = False
    is_auto: bool = False
    vote_note: str = ""
    phase: int | None = None
    to: SlotRef | None = None
    body: str = ""
    html: str = ""
    text: str = ""  # what it says without markup (an announcement's names as written)
    created_at: str = ""


@dataclass(frozen=True)
class IsoCount(Model):
    seat: int = 0
    name: str = ""
    posts: int = 0


@dataclass(frozen=True)
class PostPage(Model):
    thread: str = "public"
    page: int = 1
    num_pages: int = 1
    count: int = 0
    iso: list[int] = field(default_factory=list)  # the seats it is filtered to
    iso_counts: list[IsoCount] = field(default_factory=list)
    results: list[Post] = field(default_factory=list)


@dataclass(frozen=True)
class PostResult(Model):
    """The answer to a post: ``post`` is None when nothing was posted (``table_note`` says)."""

    post: Post | None = None
    vote_message: str = ""
    day_ended: bool = False
    table_note: str = ""


@dataclass(frozen=True)
class VoteResult(Model):
    post: Post | None = None
    day_ended: bool = False
    vote_count: VoteCount | None = None


# -- my games, notifications, the league's queues -----------------------------------------
@dataclass(frozen=True)
class Unread(Model):
    thread: str = ""
    label: str = ""
    unread: int = 0  # posts after the last one you were shown


@dataclass(frozen=True)
class MyGame(Model):
    game_id: int = 0
    title: str = ""
    url: str = ""
    ruleset: str = ""
    status: str = ""
    status_label: str = ""  # "Sign-ups (5/7)", "Day 2", "Night 1"...
    phase: Phase | None = None
    relation: str = ""  # player, host, queued
    you: YourSeat | None = None
    needs: list[str] = field(default_factory=list)  # your_turn, vote, night_action, prodded
    host_needs: list[str] = field(default_factory=list)
    deadline: str | None = None
    unread: int = 0
    threads: list[Unread] = field(default_factory=list)


@dataclass(frozen=True)
class MyGames(Model):
    """``GET my-games/``."""

    active: list[MyGame] = field(default_factory=list)
    finished: list[MyGame] = field(default_factory=list)


@dataclass(frozen=True)
class Notification(Model):
    id: int = 0
    game: int | None = None
    kind: str = ""
    text: str = ""
    link: str = ""
    read: bool = False
    created_at: str = ""
    updated_at: str = ""
    count: int = 1


@dataclass(frozen=True)
class NotificationPage(Model):
    page: int = 1
    num_pages: int = 1
    count: int = 0
    unread: int = 0
    results: list[Notification] = field(default_factory=list)


@dataclass(frozen=True)
class Queue(Model):
    """A league queue (``GET queues/``): ``setup`` is its slug (for ``join_queue``),
    ``players`` the seats a game needs, ``waiting`` how many wait now, ``queued`` whether
    you do, ``problem`` why no game was made yet (blank: none), ``latest_game`` the newest
    game it made for you (an id, or None)."""

    setup: str = ""
    name: str = ""
    ruleset: str = ""
    players: int | None = None
    waiting: int = 0
    queued: bool = False
    queued_since: str | None = None
    problem: str = ""
    silent_seat: str = ""
    blind: bool = False  # its games are blind (agents hidden until the end)
    exists: bool = True
    latest_game: int | None = None

    @property
    def game_id(self) -> int | None:
        return self.latest_game


def parse(model: type[M], data: Any) -> M:
    """``model.from_json(data)`` (a helper for callers that hold the type in a variable)."""
    return model.from_json(data)
