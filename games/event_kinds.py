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
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from .shapes import Doc, Post, SlotRef

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
    # A carried part's renderer: the name of the ``games.fragments`` function that draws it
    # for an anonymous viewer from the game alone (``live.render.Renderer.part_html``).
    render: str | None = None
    # It changes with each public post, not with the game's state (drawn once per post).
    per_post: bool = False

    def __post_init__(self) -> None:
        assert (self.field is None) == (self.render is None), self.name

    @property
    def pushed(self) -> bool:
        return self.field is not None


PARTS: dict[str, Part] = {
    p.name: p
    for p in (
        # A ``vote_count`` item's own ``html`` is the count as of that event; the other
        # kinds that move it carry the count as it is now.
        Part("vote-count", "vote_count", same_for_everyone=True, render="render_vote_count"),
        # The host's whole count where votes are secret (``Game.secret_votes``): their page
        # has this in place of ``vote-count``, pushed by the host's own socket, never carried
        # by the items everyone gets. Every kind that redraws ``vote-count`` redraws it.
        Part("whole-count"),
        Part("phase-banner", "banner", same_for_everyone=True, render="render_phase_banner"),
        Part("players", field="players", render="render_players"),
        Part("turn-panel", field="turn", render="render_turn_panel"),
        Part("posts", appended=True),  # the thread's post list
        Part("phase"),  # what a phase change reshapes: nav, reply box, role PM, controls
        Part("signups"),
        Part("actions"),  # night actions, results, the host's records and alerts
        Part("chores"),  # V/LA, the replacement queue
        Part("activity"),
        # The ISO bar's players and post counts, as the whole thread's page shows them (no
        # player chosen): the same for everyone, rendered once per post.
        Part(
            "iso-bar",
            field="iso_bar",
            same_for_everyone=True,
            render="render_iso_bar",
            per_post=True,
        ),
        # An ISO view (the chosen players' posts, its bar and page links; the multi-ISO
        # columns): redrawn as a reload of that URL shows it, never appended to.
        Part("iso"),
        # The thread's page links: no event redraws them; an open page asks for them when
        # a post starts a page it has no link to (``static/js/live.js``).
        Part("pages"),
        # The reply box alone (it is also in ``phase``): a player's posts left today under a
        # post limit, redrawn after each of their own posts and when the limit lifts.
        Part("reply"),
        # The role PM's last will (``services.wills``) and the host's list of wills: the
        # writer's and the host's own, never carried.
        Part("will"),
        # The whispers page's conversations (``games.views.whispers``): each viewer's own.
        Part("whispers"),
    )
}


# ======================================================================================
# Payloads
# ======================================================================================
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


class Voter(SlotRef):
    post_number: int | None
    locked: bool
    weight: NotRequired[Annotated[int, Doc("Votes this ballot counts, when not 1 and public.")]]


class Wagon(TypedDict):
    target: SlotRef | None
    name: str
    count: Annotated[int, Doc("Votes on the wagon (a double voter's: 2).")]
    voter_count: Annotated[int, Doc("Players voting for it.")]
    needed: Annotated[int, Doc("Votes that eliminate (as far as public).")]
    l_minus: int
    modifiers: NotRequired[
        Annotated[
            list[str],
            Doc("loved / hated / lynch-proof: only when the setup makes them public."),
        ]
    ]
    locked: bool
    voters: list[Voter]


class AwayRef(SlotRef):
    until: Annotated[str, Doc("The last day of the V/LA.", day=True)]


class Dead(SlotRef):
    role: str | None
    role_title: str | None
    cause: str


class VoteCountPayload(TypedDict):
    """The vote count (the API's ``vote-count/``, the ``vote_count`` event, the page's
    count: ``reads.vote_count.day_count``)."""

    phase: int
    kind: str
    label: str
    vote_rule: str
    in_revote: bool
    revote_options: list[SlotRef]
    alive_count: int
    majority: int
    majority_text: str
    wagons: list[Wagon]
    not_voting: list[SlotRef]
    alive: list[SlotRef]
    dead: list[Dead]
    vote_modifiers_public: bool
    away: Annotated[list[AwayRef], Doc("Living players away today (V/LA).")]
    deadline: Annotated[str | None, Doc(time=True)]
    paused_remaining: float | None
    resolved: bool
    at_table: NotRequired[
        Annotated[
            bool,
            Doc(
                "A table day: its ballots are the table's (`turn/`), shown when its vote "
                "closes; wagons stay empty."
            ),
        ]
    ]
    lock_text: NotRequired[Annotated[str, Doc("Majority-lock games only.")]]
    nominated: NotRequired[
        Annotated[
            list[SlotRef | None],
            Doc("Games with nominations: today's nominees (null: a skip nomination)."),
        ]
    ]
    # Secret votes while the day runs: "totals" (wagons without voters) or "hidden" (no
    # wagons); ``reads.vote_count.public_count``.
    secret: NotRequired[
        Annotated[
            Literal["totals", "hidden"],
            Doc(
                "Secret votes, while the day runs, for everyone but the host: totals (each "
                "wagon's count and L-n, no voters) or hidden (no wagons). Absent: the whole "
                "count. `not_voting` is empty then too; the day's final count names every "
                "voter."
            ),
        ]
    ]


# No event carries it: here, beside the vote count's shape, which ``games.shapes`` cannot
# import (this module imports it).
class VoteResult(TypedDict):
    """The answer to a vote or an unvote."""

    post: Annotated[
        Post | None,
        Doc(
            "null at a table (ballots are not posts) and with secret votes (the vote "
            "buttons post nothing while a day's votes are secret)."
        ),
    ]
    day_ended: bool
    vote_count: VoteCountPayload | None


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


class ReplacementNeededPayload(SlotRef):
    """A seat the host should fill: prodded past the limit (the prod's counts), or its
    player taken off the site by its moderators (``removed``)."""

    posts: NotRequired[int]
    required: NotRequired[int]
    prods: NotRequired[int]
    removed: NotRequired[bool]


class ModkillPayload(SlotRef):
    reason: str
    # The site's inactivity rule made it, not the host (whose reason is free text): the
    # player's record, the ratings and the league's cooldown read it (games.inactivity).
    inactivity: NotRequired[bool]


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


class TurnOption(TypedDict):
    """Someone one may nominate, vote for or ask; or no one (``skip``, then no seat)."""

    slot_id: NotRequired[int]
    seat: NotRequired[int]
    name: NotRequired[str]
    skip: NotRequired[Annotated[bool, Doc("true: skip (no elimination).")]]


class Nomination(TypedDict):
    nominator: SlotRef
    target: SlotRef | None
    skip: bool


class Ballot(TypedDict):
    voter: SlotRef
    target: SlotRef | None
    skip: bool


class ClosedVote(TypedDict):
    round: int
    votes: list[Ballot]


class TurnPayload(TypedDict):
    """Where a table day is: whose turn, what comes next, and what you may do now (the
    API's ``turn/``, the ``turn`` event, the page's turn panel: ``reads.table.turn_view``)."""

    step: Annotated[
        str,
        Doc(
            "speech, defense, last_words, question, discussion, statement, vote, done; "
            "night; thread (a forum day: no turns); not_started; over."
        ),
    ]
    day: int | None
    round: Annotated[int | None, Doc("2 in a revote; discussion lap.")]
    speaker: SlotRef | None
    next: SlotRef | None
    order: Annotated[list[SlotRef], Doc("This step's turns, in order.")]
    turn: Annotated[int | None, Doc("The speaker's index in order.")]
    deadline: Annotated[str | None, Doc("This turn's (or vote's).", time=True)]
    paused: bool
    turn_seq: Annotated[int, Doc("Counts the day's turns.")]
    ends_on_post: Annotated[bool, Doc("true: your first post ends your turn.")]
    word_limit: int | None
    messages_left: Annotated[int | None, Doc("Power's discussion.")]
    options: Annotated[
        list[TurnOption], Doc("Legal targets now: a nomination or a question's addressee.")
    ]
    nominations: list[Nomination]
    ballot: Annotated[list[TurnOption], Doc("What the open vote may name.")]
    voted: Annotated[list[SlotRef], Doc("Who has voted (not for whom).")]
    closed_votes: list[ClosedVote]
    skip_discussion: list[SlotRef]
    seats: Annotated[list[SlotRef], Doc("Everyone by seat, as dealt at the start (empty before).")]
    your_turn: bool
    you_may: Annotated[
        list[str],
        Doc("post, pass, nominate, vote, vote_skip_discussion, unvote_skip_discussion."),
    ]


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


class WhisperPayload(TypedDict):
    """A whisper, to its sender's and recipient's feeds and the host's. No number: its
    gaps would count the whispers of others."""

    sender: SlotRef
    recipient: SlotRef
    phase: int | None
    html: str
    created_at: str


class WillPayload(SlotRef):
    """A will was written: to its writer's feed and the host's only. No text: the pages
    that show it read it themselves."""

    updated_at: str


class CoHostEntry(TypedDict):
    name: str
    kind: str  # "cohost" or "backup"


class HostsChangedPayload(TypedDict):
    """Who hosts the game changed: a co-host or backup host added or removed, or the game
    handed over to a new host. Public: a forum names its co-hosts and backup hosts."""

    change: str  # "added", "removed" or "handed_over"
    name: str  # whom it is about: the co-host added or removed, the new host
    kind: str  # "cohost" / "backup" (the added or removed one's); "" for a hand-over
    host: str  # the game's host after the change
    cohosts: list[CoHostEntry]  # after the change
    # Whose access changed: for the server only (``live.audiences.access_meta``: the hub
    # re-checks their sockets); never sent to a client (``live.render.SITE_ID_KEYS``).
    user_ids: list[int]


class PostsLeftPayload(TypedDict):
    """A player's posts left today under the post limit, to their own feed."""

    left: int
    limit: int


class PostLimitLiftedPayload(TypedDict):
    """The day's post limit is lifted until its ``deadline`` (one per day and deadline)."""

    number: int
    deadline: str


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
_VOTE_AUDIENCES = frozenset({"public", "host", "slot"})


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
    if "vote-count" in parts:  # the host's whole count is that count too (secret votes)
        parts = (*parts, "whole-count")
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
        # Secret votes: a vote is told to the host and the voter's own feed, not the public.
        _kind("vote", VotePayload, audiences=_VOTE_AUDIENCES),
        _kind("unvote", VotePayload, audiences=_VOTE_AUDIENCES),
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
        _kind(
            "wagon_locked", WagonPayload, "phase", own_parts=("players",), audiences=_VOTE_AUDIENCES
        ),
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
        # The post limit (``services.post_limit``): the poster's reply box after their own
        # post; everyone's at the lift, a moment no request marks.
        _kind("posts_left", PostsLeftPayload, "reply", audiences=SLOT, changes_game=False),
        _kind(
            "post_limit_lifted", PostLimitLiftedPayload, own_parts=("reply",), changes_game=False
        ),
        _kind(
            "vote_refused",
            VoteRefusedPayload,
            audiences=SLOT,
            changes_game=False,
            to_you=True,
        ),
        # A whisper: its two players' feeds and the host's, never anyone else's; like a
        # post it changes nothing of the game's state (``Game.state_seq``).
        _kind(
            "whisper",
            WhisperPayload,
            "whispers",
            audiences=frozenset({"slot", "host"}),
            changes_game=False,
        ),
        # A last will kept or changed: its writer's and the host's pages (never public
        # before the death, when the thread gets it as a post).
        _kind("will_written", WillPayload, "will", audiences=frozenset({"slot", "host"})),
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
        _kind("replacement_needed", ReplacementNeededPayload, "actions", audiences=HOST),
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
        # The nav's "hosted by", the host's controls and dashboard ("phase"), the offer to
        # replace ("chores"); whoever gains or loses the host's powers reloads (access).
        _kind("hosts_changed", HostsChangedPayload, "phase", "chores", changes_access=True),
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
