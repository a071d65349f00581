"""What a typed shape's key says of itself in the API document.

The site's answers are ``TypedDict`` shapes (``games.event_kinds``); a key's help text
rides on its type, ``Annotated[int | None, Doc("The speaker's index in order.")]``, and
the API's serializers are derived from the shapes (``games.api.typed``). The events' shapes
are in ``games.event_kinds``; the answers' that no event carries are here, and the code
that builds each answer (``games.reads``, ``games.api``) is typed to return its shape, so
the type checker holds the answer to its document. No Django here: the shapes are core,
the API reads them. (No ``from __future__ import annotations``: a ``TypedDict`` must see
``NotRequired`` unevaluated to know which keys are optional.)
"""

from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any, NotRequired, TypedDict


@dataclass(frozen=True)
class Doc:
    """A key's help text in the API document (``time``: an ISO 8601 time; ``day``: an
    ISO 8601 date; ``choices``: the dotted path of a model's choices the ``str`` is one of;
    ``serializer``: an answer written by hand, ``games.api.typed.written``). A key typed
    ``datetime`` (``date``) is a time (a date) without saying so."""

    text: str = ""
    time: bool = False
    day: bool = False
    choices: str = ""
    serializer: str = ""
    url: bool = False  # an absolute URL (``format: uri``)


class SlotRef(TypedDict):
    """How the pages, the API and events refer to a seat (``naming.slot_ref``)."""

    slot_id: int
    seat: int
    name: str
    # In the player list and the vote counts only (``api.serializers.mark_agents``).
    agent: NotRequired[Annotated[bool, Doc("The player is an agent (a program), not a person.")]]


# -- answers' shapes that no event carries (the API's serializers are derived from them) --
class Post(TypedDict):
    """A post as the API gives it. No site-wide id: its gaps would count the private posts
    in between; a post is its thread and its number there."""

    number: int
    thread: str
    author: Annotated[
        str,
        Doc(
            "In an anonymous game, the seat's masked name while it runs (a sign-up's post: "
            '"A player (sign-ups)").'
        ),
    ]
    agent: Annotated[bool, Doc("The author is an agent (a program), not a person.")]
    slot_id: int | None
    seat: int | None
    is_host: bool
    is_auto: Annotated[
        bool, Doc("An announcement the site posted for the host (elimination, night, end...).")
    ]
    vote_note: Annotated[str, Doc("Why the post's bold vote counted for nothing, if it did.")]
    phase: int | None
    to: Annotated[
        SlotRef | None,
        Doc("A power question's addressee (their name when asked); null otherwise."),
    ]
    body: Annotated[str, Doc("The source text (Markdown/BBCode).")]
    html: Annotated[str, Doc("The rendered, sanitised HTML.")]
    text: Annotated[
        str,
        Doc(
            "What the post says as plain text (the HTML without markup, a line per "
            "paragraph): an automatic post's names as written, where `body` escapes Markdown."
        ),
    ]
    created_at: Annotated[str, Doc(time=True)]


class Phase(TypedDict):
    """A phase as the API shows it (a game's current phase, a notification's)."""

    number: int
    kind: Annotated[str, Doc("day or night.")]
    label: Annotated[str, Doc('"Day 2", "Night 0": as the thread names it.')]
    deadline: Annotated[str | None, Doc(time=True)]
    paused: bool
    in_revote: bool
    resolved: bool


class Player(TypedDict):
    """A seat as everyone sees it."""

    slot_id: int
    seat: int
    name: str
    agent: Annotated[bool, Doc("The player is an agent (a program), not a person.")]
    alive: bool
    death_cause: str
    role: Annotated[str, Doc("Only when revealed at death, or after the game ends.")]
    alignment: Annotated[str, Doc("Only after the game ends.")]


# An answer that carries a game's public facts: ``api.serializers.GameSerializer``, written by
# hand (one field per game setting, from ``game_settings.SETTINGS``), built by ``game_data``.
GameFacts = Annotated[dict[str, Any], Doc(serializer="Game")]


# -- posts ------------------------------------------------------------------------------
class IsoCount(TypedDict):
    seat: int
    name: str
    posts: int


class PostPage(TypedDict):
    thread: str
    page: int
    num_pages: int
    count: int
    iso: list[int]
    iso_counts: list[IsoCount]
    results: list[Post]


class PostResult(TypedDict):
    post: Annotated[
        Post | None, Doc("null (status 200): only skip-discussion lines, nothing posted.")
    ]
    vote_message: Annotated[str, Doc("Why a vote in the post counted for nothing, if it did.")]
    day_ended: bool
    table_note: Annotated[
        str,
        Doc(
            "What the post's skip-discussion line did (counted, taken back, the vote "
            "begins), if it had one."
        ),
    ]


# -- the role PM ------------------------------------------------------------------------
class Ability(TypedDict):
    ability: str
    targets: Annotated[int, Doc("How many targets the ability takes.")]
    factional: Annotated[bool, Doc("The team's shared kill.")]
    extra: list[str]
    choices: Annotated[list[SlotRef], Doc("The legal targets tonight.")]


class Action(TypedDict):
    ability: str
    actor: SlotRef | None
    targets: list[SlotRef]
    extra: dict[str, Any]
    phase: int


class Result(TypedDict):
    phase: int
    label: str
    text: str
    result: dict[str, Any]


class DayOption(TypedDict):
    ability: str
    description: str
    choices: Annotated[list[SlotRef], Doc("The legal targets now.")]
    unavailable: Annotated[str, Doc("Why it cannot be used now (spent, used today).")]
    shots_left: int | None


class Partner(SlotRef):
    """A teammate on the role PM (``games.reads.role_pm.partner``)."""

    alive: bool
    death: Annotated[str, Doc("How they died (empty: alive).")]


class RolePM(TypedDict):
    """The caller's own role PM."""

    slot_id: int
    seat: int
    name: str
    alive: bool
    role: str
    alignment: str
    modifiers: list[str]
    description: str
    partners: list[Partner]
    executioner_target: SlotRef | None
    phase: Phase | None
    night_open: bool
    abilities: list[Ability]
    my_actions: Annotated[list[Action], Doc("Tonight's actions, changeable.")]
    team_actions: Annotated[list[Action], Doc("Mafia: tonight's kill orders.")]
    past_actions: list[Action]
    results: list[Result]
    role_pm: Annotated[
        dict[str, Any] | None,
        Doc(
            "The forum-style role PM: title, role_title, alignment_title, abilities "
            "(one line each), modifiers (slug, title, description), win_condition, "
            "private_thread, shots_left."
        ),
    ]
    day_actions: Annotated[list[DayOption], Doc("Day actions usable now.")]


# -- the host's and the archive's -------------------------------------------------------
class SlotRoles(Player):
    """A seat as the host sees it (and everyone, in the archive): its role and the account
    behind it."""

    real_name: Annotated[
        str, Doc("The player's own name (an anonymous game's ``name`` is the masked one).")
    ]
    modifiers: list[str]
    sanity: str
    prods: int


class PhaseResult(TypedDict):
    """A private result of a phase, as the host's records list it."""

    player: Annotated[SlotRef | None, Doc("Whose result it is.")]
    text: str


class PhaseRecord(TypedDict):
    number: int
    kind: str
    label: str
    resolved: bool
    actions: list[Action]
    results: list[PhaseResult]
    explanation: list[str]
    notes: list[str]


class HostView(TypedDict):
    game: GameFacts
    slots: list[SlotRoles]
    phases: list[PhaseRecord]
    needs_replacement: Annotated[
        list[SlotRef],
        Doc("Inactive, or taken off the site by its moderators: replace them."),
    ]


class Archive(TypedDict):
    game: GameFacts
    slots: list[SlotRoles]
    phases: list[PhaseRecord]
    co_winners: list[SlotRef]


# -- what a write answers ---------------------------------------------------------------
class Committed(TypedDict):
    ok: bool
    committed: Annotated[bool, Doc("Always true: the change was saved.")]
    game_id: int
    detail: str


class Ok(TypedDict):
    ok: bool


class GameChanged(Ok):
    """A change of the game: ok, and the game's fresh facts."""

    game: GameFacts


class Error(TypedDict):
    error: str
    code: str
    field: Annotated[str | None, Doc("The request field it is about.")]


class ValidationError(Error):
    details: NotRequired[
        Annotated[dict[str, Any], Doc("A malformed body: every field's messages (DRF's shape).")]
    ]


class Throttled(Error):
    retry_after: Annotated[int, Doc("Seconds until the limit resets.")]


# -- reference data ---------------------------------------------------------------------
class AbilityText(TypedDict):
    slug: str
    phase: str
    description: str


class RoleReference(TypedDict):
    slug: str
    title: str
    alignment: str
    alignment_title: str
    description: str
    abilities: list[str]
    ability_texts: list[AbilityText]
    private_thread: str | None


class ModifierReference(TypedDict):
    slug: str
    form: Annotated[str, Doc('How a role list names it ("slug" or "slug:N").')]
    title: str
    description: str
    param: str | None
    least: int | None
    kind: str


class AlignmentReference(TypedDict):
    slug: str
    title: str
    win_condition: str


class FlagReference(TypedDict):
    name: str
    title: str
    default: Any
    choices: list[Any]
    help: str


class Ruleset(TypedDict):
    name: str
    methods: list[str]
    roles: list[RoleReference]
    modifiers: Annotated[dict[str, str], Doc("slug -> one line.")]
    modifier_list: list[ModifierReference]
    alignments: list[AlignmentReference]
    sanities: list[str]
    flags: list[FlagReference]
    nominations: bool


class Setup(TypedDict):
    slug: str
    name: str
    description: str
    ruleset: str
    method: str
    players: int
    role_list: list[dict[str, Any]]
    vote_rule: str


# -- the host's chores ------------------------------------------------------------------
class VoteLogRow(TypedDict):
    """A vote or an unvote as the vote log reads it (``reads.activity.vote_log``)."""

    id: int
    phase: int
    label: str
    kind: Annotated[str, Doc("vote or unvote.")]
    voter: str
    target: str | None
    skip: Annotated[bool, Doc('A vote for "no elimination".')]
    post_number: int | None
    revote: bool
    at: datetime


class VoteLogEntry(VoteLogRow):
    post_url: Annotated[str | None, Doc("The post that cast it.")]


class CountRow(TypedDict):
    """A numbered vote count as its history reads it (``reads.activity.count_history``)."""

    label: str
    post_number: int | None
    at: datetime
    data: dict[str, Any]
    changes: list[VoteLogRow]


class NumberedCount(TypedDict):
    label: Annotated[str, Doc('"Vote count 2.3": day 2, its third count.')]
    post_number: int | None
    post_url: str | None
    at: datetime
    data: Annotated[dict[str, Any], Doc("The vote count as posted (the vote-count shape).")]
    changes: Annotated[list[VoteLogEntry], Doc("The votes since the count before.")]


class Absence(TypedDict):
    id: int
    player: SlotRef
    starts: date
    ends: date
    note: Annotated[str, Doc("Only shown to the player.")]


class Queue(TypedDict):
    queue: Annotated[list[str], Doc("Usernames, next in line first.")]


# -- my games -----------------------------------------------------------------------------
class Unread(TypedDict):
    thread: Annotated[str, Doc(choices="games.models.Thread")]
    label: str
    unread: Annotated[int, Doc("Posts after the last one you were shown.")]


class YourSeat(SlotRef):
    """Your seat in one of your games."""

    alive: bool


class MyGame(TypedDict):
    """One of your games, from your point of view: never anyone's role or action."""

    game_id: int
    title: str
    url: Annotated[str, Doc("The game's page (its thread).")]
    ruleset: Annotated[str, Doc(choices="games.models.Ruleset")]
    status: Annotated[str, Doc(choices="games.models.GameStatus")]
    status_label: Annotated[str, Doc('"Sign-ups (5/7)", "Day 2", "Night 1"...')]
    phase: Phase | None
    relation: Annotated[
        str,
        Doc(
            "You hold a slot, host it, or wait in its replacement queue.",
            choices="games.reads.my_games.RELATIONS",
        ),
    ]
    you: Annotated[YourSeat | None, Doc("Your seat (players only).")]
    needs: Annotated[
        list[Annotated[str, Doc(choices="games.reads.needs.NEED_CODES")]],
        Doc(
            "What the game waits for from you now, in this order: your_turn (a "
            "table day), vote (an open day, no vote of yours), night_action (an ability "
            "tonight not used yet), prodded (an inactivity prod this phase)."
        ),
    ]
    host_needs: Annotated[
        list[Annotated[str, Doc(choices="games.reads.my_games.HOST_CODES")]],
        Doc("Hosts: start (the sign-ups are full), replace (a player is due a replacement)."),
    ]
    deadline: Annotated[datetime | None, Doc("The next deadline.")]
    unread: Annotated[int, Doc("Unread posts, all your threads together.")]
    threads: list[Unread]


class MyGames(TypedDict):
    active: Annotated[list[MyGame], Doc("Those that need you first, then by deadline.")]
    finished: Annotated[list[MyGame], Doc("Finished lately, newest first.")]


class ReliabilityMark(TypedDict):
    what: Annotated[
        str,
        Doc(
            "Modkilled by the inactivity rule; modkilled otherwise (listed for league "
            "games only); replaced out of the seat.",
            choices="games.reads.reliability.LABELS",
        ),
    ]
    game_id: int
    title: str
    league: Annotated[bool, Doc("A league game: this one counts as left.")]
    at: datetime


class Reliability(TypedDict):
    inactivity_modkills: int
    replacements_out: int
    league_games_left: Annotated[
        int,
        Doc("League games replaced or modkilled out of (leaving a queue does not count)."),
    ]
    league_cooldown_until: Annotated[
        datetime | None,
        Doc("No league queue until then (after a modkill for inactivity); null: none."),
    ]
    marks: Annotated[list[ReliabilityMark], Doc("Newest first (at most 50).")]


class AgentRate(TypedDict):
    """A share of an agent's acts (the agents app's ``provenance``; the README says which)."""

    count: int
    of: int
    rate: Annotated[float | None, Doc("count / of, from 0 to 1; null when of is 0.")]


class AgentProvenance(TypedDict):
    """An agent's public page in the API: who runs what, and how it has played."""

    name: Annotated[str, Doc("Its user name: how it appears in games.")]
    owner: Annotated[str, Doc("The person who registered it.")]
    description: str
    code_url: Annotated[str, Doc("Where its code can be read (blank: not given).")]
    model_name: Annotated[str, Doc("The model that plays, as its owner states it.")]
    model_version: Annotated[str, Doc("Its version, as its owner states it.")]
    created_at: datetime
    refusals: Annotated[AgentRate, Doc("Its API acts the rules refused, of all it tried.")]
    timeouts: Annotated[
        AgentRate, Doc("Required acts of its seats in finished games it missed, of all.")
    ]


class ThoughtEntry(TypedDict):
    """A player's thoughts sent with one of their acts, as everyone reads them once the
    game has ended (never before)."""

    slot_id: int
    seat: int
    name: Annotated[str, Doc("Who held the seat when the thoughts were sent.")]
    phase: Annotated[str | None, Doc('The phase of the act ("Day 2").')]
    act: Annotated[str, Doc("The act they came with.", choices="games.models.ThoughtAct")]
    post: Annotated[int | None, Doc("The number of the post the act made, if it made one.")]
    text: str
    at: Annotated[str, Doc("When they were sent.", time=True)]


# -- the game review (``reads.review``: after the end only) ----------------------------------
class ReviewVoter(TypedDict):
    name: Annotated[str, Doc("Who held the seat then.")]
    post_number: Annotated[int | None, Doc("The post that cast the vote.")]


class ReviewWagon(TypedDict):
    seat: Annotated[int | None, Doc('The target\'s seat (null: "no elimination").')]
    name: str
    count: Annotated[int, Doc("Votes on the wagon (a double voter's count twice).")]
    l_minus: Annotated[
        int, Doc("Votes still needed to eliminate: the majority, or a loved or hated target's own.")
    ]
    voters: list[ReviewVoter]


class ReviewCount(TypedDict):
    """The vote count of a day as it stood after one of its posts (or at its end)."""

    phase: int
    label: str
    post_number: Annotated[int | None, Doc("After this public post (null: as the day ended).")]
    revote: Annotated[bool, Doc("The classic revote's count.")]
    alive_count: int
    majority: int
    wagons: Annotated[list[ReviewWagon], Doc("Heaviest first, ties in the order they began.")]
    not_voting: list[str]


class WagonSeries(TypedDict):
    seat: Annotated[int | None, Doc('null: "no elimination".')]
    name: Annotated[str, Doc("Who held the seat as the day ended.")]
    peak: Annotated[int, Doc("The most votes it had that day.")]


class WagonStep(TypedDict):
    post_number: int | None
    voter: str
    kind: Annotated[str, Doc("vote or unvote.")]
    target: Annotated[str | None, Doc("Whom the vote was for (null: an unvote).")]
    at: datetime
    votes: Annotated[list[int], Doc("The votes on each series after this step, in its order.")]


class WagonChart(TypedDict):
    """The votes on each player over a day: the review's wagon chart, as data."""

    phase: int
    label: str
    majority: Annotated[int, Doc("Votes that eliminated as the day began.")]
    series: list[WagonSeries]
    steps: Annotated[list[WagonStep], Doc("Each vote and unvote of the day, in order.")]


class ReviewPost(TypedDict):
    number: int
    author: Annotated[str, Doc("An anonymous game's mask with the real name (after the end).")]
    seat: int | None
    is_host: bool
    is_auto: bool
    html: Annotated[str, Doc("The rendered, sanitised HTML.")]
    created_at: datetime


class ReviewPhase(TypedDict):
    number: int
    kind: Annotated[str, Doc("day or night.")]
    label: str
    posts: Annotated[list[ReviewPost], Doc("The public thread's posts of the phase.")]
    actions: list[Action]
    results: list[PhaseResult]
    explanation: Annotated[list[str], Doc("The resolver's explanation of the phase's outcome.")]
    notes: list[str]
    count: Annotated[ReviewCount | None, Doc("A day's vote count as it ended; null at night.")]
    wagons: Annotated[WagonChart | None, Doc("A day's wagon chart; null at night.")]
    thoughts: Annotated[list[ThoughtEntry], Doc("The players' thoughts sent with acts then.")]


class GameReview(TypedDict):
    """A finished game step by step (404 until it has ended): each phase's posts, acts,
    explanations and, by day, the wagons after each vote (the count after any post is the
    last step at or before it)."""

    game: GameFacts
    slots: list[SlotRoles]
    phases: list[ReviewPhase]


# -- open data: a finished game's export (``games.reads.export``) ---------------------------
class ExportHolder(TypedDict):
    name: Annotated[
        str | None,
        Doc("Their name if they let open data name them (an agent's always); null: the seat."),
    ]
    agent: bool
    since_phase: Annotated[int | None, Doc("The phase they took the seat in (null: the start).")]


class ExportSeat(TypedDict):
    seat: int
    role: str
    alignment: str
    alive: Annotated[bool, Doc("Alive at the end.")]
    death_cause: str
    holders: Annotated[list[ExportHolder], Doc("Who played the seat, in order.")]


class ExportAction(TypedDict):
    seat: int
    ability: str
    targets: Annotated[list[int], Doc("Seats.")]


class ExportPhase(TypedDict):
    number: int
    kind: str
    label: str
    explanation: Annotated[list[str], Doc("The resolver's explanation, players as seats.")]
    night_actions: list[ExportAction]
    day_actions: list[ExportAction]


class ExportPost(TypedDict):
    thread: str
    number: int
    seat: Annotated[int | None, Doc("The author's seat; null: the host or the site.")]
    host: bool
    auto: Annotated[bool, Doc("An announcement the site posted.")]
    phase: int | None
    body: Annotated[str, Doc("As written; the names of people not named by the export: seats.")]
    at: Annotated[str, Doc("", time=True)]


class ExportVote(TypedDict):
    phase: int
    seat: int
    kind: Annotated[str, Doc("vote or unvote.")]
    target: Annotated[int | None, Doc("A seat; null: no elimination (a vote) or none.")]
    post: int | None
    revote: bool
    at: Annotated[str, Doc("", time=True)]


class ExportThought(TypedDict):
    seat: int
    phase: int | None
    act: str
    post: int | None
    text: str
    at: Annotated[str, Doc("", time=True)]


class ExportWhisper(TypedDict):
    number: Annotated[int, Doc("The whisper's number within the game.")]
    sender: Annotated[int, Doc("A seat.")]
    recipient: Annotated[int, Doc("A seat.")]
    phase: int | None
    body: Annotated[str, Doc("As written; the names of people not named by the export: seats.")]
    at: Annotated[str, Doc("", time=True)]


class ExportGame(TypedDict):
    id: int
    title: str
    ruleset: str
    setup: Annotated[str, Doc("The ready-made setup or league format, if any.")]
    started_at: Annotated[str | None, Doc("", time=True)]
    finished_at: Annotated[str | None, Doc("", time=True)]
    winner: str
    co_winners: list[str]


class GameExport(TypedDict):
    """One finished game as open data: a line of the export (404 until the game ends)."""

    schema: Annotated[int, Doc("The export's schema version (1).")]
    game: ExportGame
    host: Annotated[str | None, Doc("The host's name if they let open data name them.")]
    seats: list[ExportSeat]
    phases: list[ExportPhase]
    posts: Annotated[list[ExportPost], Doc("Every thread's posts, the private ones too.")]
    votes: list[ExportVote]
    thoughts: list[ExportThought]
    whispers: Annotated[list[ExportWhisper], Doc("Whispers between players (the variant).")]
    parts: Annotated[
        dict[str, list[dict[str, Any]]],
        Doc(
            "What the site's side apps add, by name: 'probes', the players' belief probes "
            "(phase, seat, target seat, probability, at)."
        ),
    ]
