"""Every kind of game event, declared once: its payload, who may hear it, what it redraws.

A ``GameEvent`` row's ``kind`` is one of ``KINDS``. Each ``EventKind`` says

- ``payload``: a ``TypedDict`` of the payload the services write (``check_payload`` checks
  a payload against it; a test checks every event the site's test flows emit);
- ``audiences``: the audience classes it may be addressed to: "public", "host", "slot"
  (a player's own feed, ``slot:<id>``), "mafia", "dead", "team" (a masons'/neighbours'
  thread); ``services.common.emit`` refuses any other;
- ``state``: state rather than news (the vote count): a newer one replaces an older one;
- ``changes_game``: False for posts-only kinds (a post, a refused vote in a post): they do
  not move the game's ``state_seq``;
- ``changes_access``: it may change who may see what (a death, a replacement...);
- ``to_you``: on a player's own feed it speaks to "you" (a result, a prod, your turn);
- ``parts``: the page parts (``PARTS``) it redraws on every page showing them;
  ``own_parts``: the parts it redraws only where they differ per viewer (a signed-in
  viewer's players panel after a vote: their "your vote" mark and Unvote button).

The live layer derives its sets from here (``games.live``), and the pages get the
kind -> parts map as JSON (``kinds_for_pages``) for ``static/js/live.js``.
"""

import types
import typing
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, Union, get_args, get_origin, get_type_hints

# ======================================================================================
# Page parts: elements with this ``data-live-part`` (and an ``id``) on the game pages
# ======================================================================================


@dataclass(frozen=True)
class Part:
    name: str
    # The item field that carries the part as the spectators see it, rendered once per
    # change (``games.live.render.Renderer.part_html``); None: never carried (each
    # signed-in viewer's socket pushes their own copy, ``games.live.own``).
    field: str | None = None
    # That pushed rendering is the same for every viewer (no buttons, no role labels):
    # every page may use it; otherwise only anonymous pages do, and the socket pushes each
    # signed-in viewer's own copy (``games.live.own``).
    same_for_everyone: bool = False
    # Only ever added to, never redrawn (the posts list: each post item is appended).
    appended: bool = False

    @property
    def pushed(self) -> bool:
        return self.field is not None


PARTS: dict[str, Part] = {
    p.name: p
    for p in (
        # A ``vote_count`` item's own ``html`` is the count as of that event; the other
        # kinds that move it carry the count as it is now.
        Part("vote-count", field="vote_count", same_for_everyone=True),
        Part("phase-banner", field="banner", same_for_everyone=True),
        Part("players", field="players"),
        Part("turn-panel", field="turn"),
        Part("posts", appended=True),  # the thread's post list
        Part("phase"),  # what a phase change reshapes: nav, reply box, role PM, controls
        Part("signups"),
        Part("actions"),  # night actions, results, the host's records and alerts
        Part("chores"),  # V/LA, the replacement queue
        Part("activity"),
        # The ISO bar's players and post counts, as the whole thread's page shows them (no
        # player chosen): the same for everyone, rendered once per post.
        Part("iso-bar", field="iso_bar", same_for_everyone=True),
        # An ISO view (the chosen players' posts, its bar and page links; the multi-ISO
        # columns): redrawn as a reload of that URL shows it, never appended to.
        Part("iso"),
        # The thread's page links: no event redraws them; an open page asks for them when
        # a post starts a page it has no link to (``static/js/live.js``).
        Part("pages"),
    )
}


# ======================================================================================
# Payloads
# ======================================================================================
class SlotRef(TypedDict):
    slot_id: int
    seat: int
    name: str


class SignupPayload(SlotRef):
    count: int


class GameCreatedPayload(TypedDict):
    title: str
    host: str


class GameCancelledPayload(TypedDict):
    title: str
    players: list[SlotRef]


class GameStartedPayload(TypedDict):
    players: list[SlotRef]
    starts_with: str


class RolePmPayload(TypedDict):
    slot_id: int
    role: str
    alignment: str
    modifiers: list[str]
    partners: list[dict[str, Any]]
    card: dict[str, Any]
    executioner_target: NotRequired[SlotRef | None]


class SlotRoles(SlotRef):
    role: str
    alignment: str
    modifiers: list[str]
    sanity: str
    alive: bool


class RolesPayload(TypedDict):
    slots: list[SlotRoles]


class PhaseStartedPayload(TypedDict):
    number: int
    kind: str
    label: str
    deadline: str


class DeadlinePayload(TypedDict):
    number: int
    deadline: str | None
    paused_remaining: float | None
    # The deadline before the change (None: the game was paused); events stored before it
    # was added have none.
    was: NotRequired[str | None]


class VoteCountPayload(TypedDict):
    phase: int
    kind: str
    label: str
    vote_rule: str
    in_revote: bool
    revote_options: list[SlotRef]
    alive_count: int
    majority: int
    majority_text: str
    wagons: list[dict[str, Any]]
    not_voting: list[SlotRef]
    alive: list[SlotRef]
    dead: list[dict[str, Any]]
    vote_modifiers_public: bool
    away: list[dict[str, Any]]
    deadline: str | None
    paused_remaining: float | None
    resolved: bool
    at_table: NotRequired[bool]
    lock_text: NotRequired[str]
    nominated: NotRequired[list[SlotRef | None]]


class DayEndedPayload(TypedDict):
    number: int
    eliminated: SlotRef | None
    revealed_role: str


class Death(SlotRef):
    revealed_role: str


class NightEndedPayload(TypedDict):
    number: int
    deaths: list[Death]


class DayShotPayload(TypedDict):
    deaths: list[Death]


class RevoteStartedPayload(TypedDict):
    tied: list[SlotRef]
    deadline: str
    explanation: list[str]


class GameFinishedPayload(TypedDict):
    winner: str
    reason: str
    co_winners: list[SlotRef | None]
    slots: list[SlotRoles]


class ProdPayload(SlotRef):
    posts: int
    required: int
    prods: int


class ModkillPayload(SlotRef):
    reason: str


class VoteRefusedPayload(TypedDict):
    post_number: int
    thread: str
    message: str


class ReplacedPayload(TypedDict):
    slot_id: int
    seat: int
    old_name: str
    new_name: str
    old_user_id: int


class TableBallot(TypedDict):
    voter: SlotRef | None
    target: SlotRef | None


class TableVoteClosedPayload(TypedDict):
    round: int
    votes: list[TableBallot]


class TurnNoticePayload(TypedDict):
    kind: str
    text: str


class TurnPayload(TypedDict):
    step: str
    day: int | None
    round: int | None
    speaker: SlotRef | None
    next: SlotRef | None
    order: list[SlotRef | None]
    turn: int | None
    deadline: str | None
    paused: bool
    turn_seq: int
    ends_on_post: bool
    word_limit: int | None
    messages_left: int | None
    options: list[dict[str, Any] | None]
    nominations: list[dict[str, Any]]
    ballot: list[dict[str, Any] | None]
    voted: list[SlotRef | None]
    closed_votes: list[dict[str, Any]]
    skip_discussion: list[SlotRef | None]
    seats: list[SlotRef | None]
    your_turn: bool
    you_may: list[str]


class YourTurnPayload(TypedDict):
    step: str
    deadline: str | None


class PostPayload(TypedDict):
    number: int
    thread: str
    author: str
    slot_id: int | None
    is_host: bool
    is_auto: bool
    phase: int | None
    to: SlotRef | None  # a power question's addressee
    html: str
    created_at: str


class VotePayload(TypedDict):
    voter: SlotRef
    target: SlotRef | None
    post_number: int | None


class WagonPayload(TypedDict):
    target: SlotRef | None


class NominationPayload(TypedDict):
    nominator: SlotRef
    target: SlotRef | None
    post_number: int


class NightActionPayload(TypedDict):
    actor: SlotRef
    ability: str
    targets: list[SlotRef]
    extra: dict[str, Any]
    changed: bool
    default: bool  # the rules' random valid target after the refused attempts (classic)


class NightActionWithdrawnPayload(TypedDict):
    actor: SlotRef
    ability: str


class PrivateResultPayload(TypedDict):
    phase: int
    text: str
    result: dict[str, Any]


class PhaseReportPayload(TypedDict):
    """A phase's report for the host: the resolver's ``to_report`` (night or day), rendered
    with the seats' names, plus the site's notes."""

    kind: str
    number: int
    explanation: list[str]
    site_notes: list[str]
    reveals: dict[str, str]
    # a night's
    dead: NotRequired[list[str]]
    results: NotRequired[dict[str, list[dict[str, Any]]]]
    vote_immunity: NotRequired[list[str]]
    # a day's
    eliminated: NotRequired[str | None]
    revote: NotRequired[list[str] | None]


class ReplacementQueuePayload(TypedDict, total=False):
    joined: str
    left: str


class AbsencePayload(SlotRef):
    starts: str
    ends: str


class AbsenceCancelledPayload(SlotRef):
    absence_id: int


class DayActionPayload(TypedDict):
    actor: SlotRef
    ability: str
    target: SlotRef
    explanation: list[str]


# ======================================================================================
# The kinds
# ======================================================================================
PUBLIC = frozenset({"public"})
HOST = frozenset({"host"})
SLOT = frozenset({"slot"})
THREADS = frozenset({"public", "mafia", "dead", "team"})  # where posts are made


@dataclass(frozen=True)
class EventKind:
    name: str
    payload: type
    audiences: frozenset[str] = PUBLIC
    state: bool = False
    changes_game: bool = True
    changes_access: bool = False
    to_you: bool = False
    parts: frozenset[str] = frozenset()
    own_parts: frozenset[str] = frozenset()


def _kind(name: str, payload: type, *parts: str, **flags: Any) -> EventKind:
    own = frozenset(flags.pop("own_parts", ()))
    return EventKind(name, payload, parts=frozenset(parts), own_parts=own, **flags)


# What a change of the clock or the phase reshapes on every page.
_CLOCK = ("phase-banner", "vote-count", "players", "turn-panel", "phase")
_PHASE_OVER = ("phase-banner", "players", "turn-panel", "phase", "activity")

KINDS: dict[str, EventKind] = {
    k.name: k
    for k in (
        # -- sign-ups ----------------------------------------------------------------------
        _kind("game_created", GameCreatedPayload),
        _kind(
            "signup_joined",
            SignupPayload,
            "phase-banner",
            "players",
            "signups",
            own_parts=("phase",),
        ),
        _kind(
            "signup_left",
            SignupPayload,
            "phase-banner",
            "players",
            "signups",
            own_parts=("phase",),
        ),
        _kind(
            "game_cancelled",
            GameCancelledPayload,
            "phase-banner",
            "vote-count",
            "players",
            "signups",
            "phase",
        ),
        _kind(
            "game_started",
            GameStartedPayload,
            "phase-banner",
            "players",
            "phase",
            changes_access=True,
        ),
        _kind("role_pm", RolePmPayload, audiences=SLOT),
        _kind("roles", RolesPayload, audiences=HOST),
        # -- phases ------------------------------------------------------------------------
        _kind("phase_started", PhaseStartedPayload, *_CLOCK),
        _kind("day_ended", DayEndedPayload, *_PHASE_OVER, changes_access=True),
        _kind("night_ended", NightEndedPayload, *_PHASE_OVER, changes_access=True),
        _kind("revote_started", RevoteStartedPayload, "phase-banner", "players", "phase"),
        _kind("phase_report", PhaseReportPayload, "actions", audiences=HOST),
        _kind("deadline_changed", DeadlinePayload, *_CLOCK),
        _kind("paused", DeadlinePayload, *_CLOCK),
        _kind("resumed", DeadlinePayload, *_CLOCK),
        _kind(
            "game_finished",
            GameFinishedPayload,
            "phase-banner",
            "players",
            "turn-panel",
            "phase",
            "chores",
            "activity",
            changes_access=True,
        ),
        # -- the day's vote ----------------------------------------------------------------
        _kind("vote", VotePayload),
        _kind("unvote", VotePayload),
        _kind("nomination", NominationPayload, "players"),
        _kind(
            "vote_count",
            VoteCountPayload,
            "vote-count",
            "activity",
            state=True,
            own_parts=("players",),
        ),
        _kind("hammer", WagonPayload, "phase-banner", "players", "phase"),
        _kind("wagon_locked", WagonPayload, "phase", own_parts=("players",)),
        _kind("table_vote_closed", TableVoteClosedPayload, "phase-banner", "players", "turn-panel"),
        # A turn moves the banner's turn clock and, at a table with nominations, the badges.
        _kind("turn", TurnPayload, "turn-panel", "phase-banner", "players"),
        _kind("turn_notice", TurnNoticePayload, audiences=frozenset({"public", "slot", "host"})),
        _kind("your_turn", YourTurnPayload, audiences=SLOT, to_you=True),
        _kind("day_action", DayActionPayload, "actions", audiences=HOST),
        _kind(
            "day_shot",
            DayShotPayload,
            "phase-banner",
            "players",
            "phase",
            "activity",
            changes_access=True,
        ),
        # -- the thread --------------------------------------------------------------------
        _kind(
            "post",
            PostPayload,
            "posts",
            "activity",
            "iso-bar",
            "iso",
            audiences=THREADS,
            changes_game=False,
        ),
        _kind(
            "vote_refused",
            VoteRefusedPayload,
            audiences=SLOT,
            changes_game=False,
            to_you=True,
        ),
        # -- the night ---------------------------------------------------------------------
        _kind(
            "night_action",
            NightActionPayload,
            "actions",
            audiences=frozenset({"slot", "host", "mafia"}),
        ),
        _kind(
            "night_action_withdrawn",
            NightActionWithdrawnPayload,
            "actions",
            audiences=frozenset({"slot", "host"}),
        ),
        _kind("private_result", PrivateResultPayload, "actions", audiences=SLOT, to_you=True),
        # -- the host's chores -------------------------------------------------------------
        _kind(
            "prod",
            ProdPayload,
            "actions",
            audiences=frozenset({"slot", "host"}),
            to_you=True,
        ),
        _kind("replacement_needed", ProdPayload, "actions", audiences=HOST),
        _kind(
            "modkill",
            ModkillPayload,
            "phase-banner",
            "players",
            "phase",
            "activity",
            changes_access=True,
        ),
        _kind(
            "replaced",
            ReplacedPayload,
            "players",
            "phase",
            "chores",
            "activity",
            "iso-bar",  # the new player's name
            "iso",
            changes_access=True,
        ),
        _kind("replacement_queue", ReplacementQueuePayload, "chores"),
        _kind("absence", AbsencePayload, "chores", "activity"),
        _kind("absence_cancelled", AbsenceCancelledPayload, "chores", "activity"),
    )
}

for _k in KINDS.values():  # a typo in a part name fails at import, not in a browser
    assert _k.parts | _k.own_parts <= PARTS.keys(), _k.name


def kinds_where(flag: str) -> frozenset[str]:
    """The names of the kinds whose ``flag`` is set (``state``, ``changes_access``...)."""
    return frozenset(k.name for k in KINDS.values() if getattr(k, flag))


def kinds_redrawing(part: str) -> frozenset[str]:
    """The kinds that redraw ``part`` on every page showing it."""
    return frozenset(k.name for k in KINDS.values() if part in k.parts)


def audience_class(audience: str) -> str:
    """ "slot:12" -> "slot"; a team thread ("masons", "neighbors") -> "team"."""
    if audience.startswith("slot:"):
        return "slot"
    if audience in ("public", "host", "mafia", "dead"):
        return audience
    return "team"


class UndeclaredEvent(Exception):
    """A service emitted a kind not in ``KINDS``, or to an audience the kind does not
    allow: a programming error, never a player's."""


def check_emit(kind: str, audience: str) -> EventKind:
    """The declared kind, or ``UndeclaredEvent``."""
    declared = KINDS.get(kind)
    if declared is None:
        raise UndeclaredEvent(f"event kind {kind!r} is not declared in games.event_kinds")
    if audience_class(audience) not in declared.audiences:
        raise UndeclaredEvent(f"event kind {kind!r} may not be addressed to {audience!r}")
    return declared


def kinds_for_pages() -> dict[str, Any]:
    """What ``live.js`` needs of the registry (rendered into every live game page)."""
    return {
        "kinds": {
            k.name: {
                "parts": sorted(k.parts),
                "own": sorted(k.own_parts),
                **({"state": True} if k.state else {}),
                **({"you": True} if k.to_you else {}),
            }
            for k in KINDS.values()
            if k.parts or k.own_parts or k.state or k.to_you
        },
        "shared": sorted(p.name for p in PARTS.values() if p.same_for_everyone),
        "appended": sorted(p.name for p in PARTS.values() if p.appended),
        "pushed": sorted(p.name for p in PARTS.values() if p.pushed),
        "fields": {p.name: p.field for p in PARTS.values() if p.field},
    }


# ======================================================================================
# Checking a payload against its kind's schema
# ======================================================================================
def check_payload(kind: str, payload: Any) -> list[str]:
    """What is wrong with ``payload`` for ``kind`` (empty: nothing)."""
    declared = KINDS.get(kind)
    if declared is None:
        return [f"undeclared kind {kind!r}"]
    return _check(payload, declared.payload, kind)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _check(value: Any, tp: Any, where: str) -> list[str]:
    if tp is Any:
        return []
    if _is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: a dict expected, got {type(value).__name__}"]
        hints = get_type_hints(tp)
        required = tp.__required_keys__
        errors = [f"{where}: missing {key!r}" for key in sorted(required - value.keys())]
        errors += [f"{where}: unexpected {key!r}" for key in sorted(value.keys() - hints.keys())]
        for key, item in value.items():
            if key in hints:
                errors += _check(item, hints[key], f"{where}.{key}")
        return errors
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if any(not _check(value, option, where) for option in options):
            return []
        return [f"{where}: {value!r} is none of {tp}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: a list expected, got {type(value).__name__}"]
        (item_type,) = get_args(tp) or (Any,)
        return [e for i, item in enumerate(value) for e in _check(item, item_type, f"{where}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{where}: a dict expected"]
    if tp is type(None):
        return [] if value is None else [f"{where}: None expected, got {value!r}"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where}: a number expected, got {value!r}"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: an int expected, got {value!r}"]
    if isinstance(tp, type):
        return [] if isinstance(value, tp) else [f"{where}: {tp.__name__} expected, got {value!r}"]
    return []
