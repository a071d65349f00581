"""Errors the service layer raises when an action breaks a rule of the game.

Each carries a user-facing ``message`` (one sentence, never revealing hidden information),
a machine ``code`` (an ``ErrorCode``, the one list of codes) and optionally the ``field``
it is about. ``status`` is the HTTP status views and the API should answer with.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .shapes import Error


class ErrorCode(StrEnum):
    """Every machine ``code`` an error of the site carries (the API's ``"code"``), once.

    A ``StrEnum``: each member equals its JSON string, so answers are unchanged.
    ``tests/site/test_error_codes.py`` checks that every code used in ``games/`` is one.
    """

    # The error classes' defaults
    INVALID = "invalid"
    BAD_CREDENTIALS = "bad_credentials"
    NOT_ALLOWED = "not_allowed"
    WRONG_PHASE = "wrong_phase"
    NOT_FOUND = "not_found"

    # Creating a game and saving a setup
    TITLE = "title"
    RULESET = "ruleset"
    NO_RULESET = "no_ruleset"
    VOTE_RULE = "vote_rule"
    STARTS_WITH = "starts_with"
    INACTIVITY_ACTION = "inactivity_action"
    PHASE_LENGTH = "phase_length"
    TURN_BASED = "turn_based"
    TURN_LENGTH = "turn_length"
    DAY_SETTINGS = "day_settings"
    MIN_POSTS = "min_posts"
    OPENNESS = "openness"
    SEATS = "seats"
    VOTE_COUNT_EVERY = "vote_count_every"
    POST_LIMIT = "post_limit"
    POST_LIMIT_LIFTED = "post_limit_lifted"
    SECRET_VOTES = "secret_votes"
    WHISPERS = "whispers"
    BLIND = "blind"  # a blind game without anonymous names
    LANGUAGE = "language"  # a game's language the site does not have
    THOUGHTS = "thoughts"  # a player's private thoughts sent with an act
    # Belief probes (analytics.probes): a probability not a number in [0, 1] (or none given),
    # and a target that is not another living player (yourself, the dead)
    PROBE = "probe"
    PROBE_TARGET = "probe_target"
    ROLE_COUNT = "role_count"
    PLAYER_CAP = "player_cap"
    ROLE_LIST = "role_list"
    COUNT = "count"
    MODIFIERS = "modifiers"
    ALIGNMENT = "alignment"
    SANITY = "sanity"
    SETUP = "setup"
    NAME = "name"

    # Sign-ups and the start
    LOGIN = "login"
    SIGNUPS_CLOSED = "signups_closed"
    HOST = "host"
    ALREADY_JOINED = "already_joined"
    FULL = "full"
    STARTED = "started"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    CANCELLED = "cancelled"

    # Who may act
    NO_GAME = "no_game"
    NOT_HOST = "not_host"
    NOT_STARTED = "not_started"
    GAME_OVER = "game_over"
    NOT_PLAYER = "not_player"
    DEAD = "dead"
    NO_PHASE = "no_phase"
    NO_PLAYER = "no_player"
    PAUSED = "paused"
    NOT_PAUSED = "not_paused"
    IN_GAME = "in_game"
    NO_USER = "no_user"
    ALREADY_QUEUED = "already_queued"
    NOT_QUEUED = "not_queued"
    ALREADY_PLAYING = "already_playing"  # seated in a running league game
    QUEUE_EMPTY = "queue_empty"
    BY = "by"
    BAD_WEBHOOK = "bad_webhook"
    NO_WEBHOOK = "no_webhook"
    # Co-hosts, backup hosts and handing a game over
    ALREADY_COHOST = "already_cohost"
    NOT_COHOST = "not_cohost"
    COHOST_KIND = "cohost_kind"
    AGENT_HOST = "agent_host"  # an agent account may not host (it would see every role)
    NOT_THE_HOST = "not_the_host"  # only the game's named host (not a co-host) may do it

    # Posts and threads
    EMPTY = "empty"
    TOO_LONG = "too_long"
    NO_THREAD = "no_thread"
    SIGNUPS = "signups"
    NIGHT = "night"
    NOT_MAFIA = "not_mafia"
    NOT_DEAD = "not_dead"
    NOT_MASON = "not_mason"  # the masons' thread
    NOT_NEIGHBOR = "not_neighbor"  # the neighbors' thread
    POST_LIMIT_REACHED = "post_limit_reached"  # the day's posts are used (409)
    # Whispers (the ``whispers`` variant; a dead recipient is ``DEAD_TARGET``, night ``NIGHT``)
    WHISPERS_OFF = "whispers_off"
    SELF_WHISPER = "self_whisper"

    # Last wills (the ``last_wills`` variant; a too long will is ``TOO_LONG``)
    NO_WILLS = "no_wills"

    # Bookmarks (a post nobody may read is ``NO_THREAD`` / ``NOT_FOUND``, a long note ``TOO_LONG``)
    NO_BOOKMARK = "no_bookmark"

    # Votes and nominations
    TABLE_VOTE = "table_vote"
    LOCKED = "locked"
    NO_SKIP = "no_skip"
    DEAD_TARGET = "dead_target"
    SELF_VOTE = "self_vote"
    NOT_TIED = "not_tied"
    NOT_NOMINATED = "not_nominated"
    NO_VOTE = "no_vote"
    NO_NOMINATIONS = "no_nominations"
    REVOTE = "revote"
    ALREADY_NOMINATED = "already_nominated"
    SKIP_NOMINATION = "skip_nomination"
    NOT_DAY = "not_day"
    NOT_NIGHT = "not_night"

    # Turns at the table
    TURN_REFUSED = "turn_refused"  # what else a table day's rules refuse (a dead target...)
    NOT_YOUR_TURN = "not_your_turn"  # every act out of turn (409)
    NOT_IN_STEP = "not_in_step"  # nobody does that in this step (a pass during the speeches)
    SPEECH_TOO_LONG = "speech_too_long"
    SELF_QUESTION = "self_question"
    NO_ADDRESSEE = "no_addressee"  # a power question that names nobody
    NO_TURN = "no_turn"
    TURN_ENDED = "turn_ended"  # the turn's (or the phase's) deadline has passed

    # Night and day actions
    NIGHT_ZERO = "night_zero"
    NO_TARGET = "no_target"
    NO_ACTION = "no_action"
    NO_ABILITY = "no_ability"
    EXTRA = "extra"
    ILLEGAL_ACTION = "illegal_action"

    # The league's matchmaking queues (joining and leaving share the replacement queue's)
    UNKNOWN_SETUP = "unknown_setup"
    LEAGUE_COOLDOWN = "league_cooldown"  # modkilled for inactivity lately: no queue until then

    # The league app's duplicate series (``league.series``)
    ENTRANTS = "entrants"  # a series' entrants: one per seat, each a distinct person or agent
    SERIES_GAMES = "series_games"  # a series' games: a whole number of rotations
    NO_SERIES = "no_series"
    # Blind games' guesses (``league.guesses``): the game is not blind; not over yet;
    # a seat that is not the game's; a second guess
    NOT_BLIND = "not_blind"
    NOT_OVER = "not_over"
    GUESS_SEATS = "guess_seats"
    ALREADY_GUESSED = "already_guessed"

    # Away (V/LA)
    DATES = "dates"
    NO_ABSENCE = "no_absence"

    # Notifications: the inbox and each person's settings
    NO_NOTIFICATION = "no_notification"
    NOTIFICATION_IDS = "notification_ids"
    CHANNEL = "channel"
    REMINDER_HOURS = "reminder_hours"
    DIGEST_MINUTES = "digest_minutes"

    # Agent accounts and who a game admits
    NO_AGENT = "no_agent"
    NOT_OWNER = "not_owner"
    AGENT_ACCOUNT = "agent_account"  # an agent's token may not manage agents
    TOO_MANY_AGENTS = "too_many_agents"
    TOO_MANY_TOKENS = "too_many_tokens"
    NO_TOKEN = "no_token"
    CODE_URL = "code_url"
    DESCRIPTION = "description"
    MODEL = "model"  # an agent's model name or version: one short line
    ADMITS = "admits"  # the game admits people only, or agents only

    # Site moderation: reports, sanctions, appeals, alternate accounts
    REASON = "reason"
    REPORT_TARGET = "report_target"  # a report names one post or one player
    NO_REPORT = "no_report"
    NOT_MODERATOR = "not_moderator"
    MODERATION_ACTION = "moderation_action"
    DAYS = "days"
    ALREADY_HANDLED = "already_handled"
    MUTED = "muted"  # no posting until the mute ends
    SUSPENDED = "suspended"  # the account (and its agents) may not sign in until then
    BANNED = "banned"
    NO_SANCTION = "no_sanction"
    ALREADY_APPEALED = "already_appealed"
    OWN_SANCTION = "own_sanction"  # an appeal goes to another moderator than the one who acted
    NO_APPEAL = "no_appeal"
    SAME_PERSON = "same_person"  # two accounts of one person in one game
    ALT_DECLARED = "alt_declared"
    NO_ALT = "no_alt"
    # Answers outside the services (Django's errors in the API's shape, the socket)
    BAD_REQUEST = "bad_request"
    PERMISSION_DENIED = "permission_denied"
    CSRF_FAILED = "csrf_failed"
    SERVICE_UNAVAILABLE = "service_unavailable"
    SERVER_ERROR = "server_error"
    BAD_POSITIONS = "bad_positions"
    TOO_MANY_FIELDS = "too_many_fields"
    BODY_TOO_LARGE = "body_too_large"


class GameRuleError(Exception):
    """Base: the request was understood but the game's rules do not allow it."""

    status = 422
    default_code = ErrorCode.INVALID

    def __init__(
        self, message: str, code: ErrorCode | None = None, field: str | None = None
    ) -> None:
        message = str(message)  # a lazy text (a Refusal's) in the language of the moment
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field

    def to_dict(self) -> Error:
        return {"error": self.message, "code": self.code, "field": self.field}


class InvalidInput(GameRuleError):
    """Input the rules refuse: an unknown player, an illegal target, a bad setup. In the
    API a request that does not even match its document (a missing field, a wrong type)
    is a 400 from its serializer; this one is well-formed, hence 422."""

    status = 422
    default_code = ErrorCode.INVALID


class BadCredentials(GameRuleError):
    """A wrong username or password (the API's token exchange)."""

    status = 401
    default_code = ErrorCode.BAD_CREDENTIALS


class NotAllowed(GameRuleError):
    """The acting person may not do this (not the host, dead, not in the game...)."""

    status = 403
    default_code = ErrorCode.NOT_ALLOWED


class WrongPhase(GameRuleError):
    """Not now: a vote at night, a night action by day, joining after the start."""

    status = 409
    default_code = ErrorCode.WRONG_PHASE


class NotFound(GameRuleError):
    """The game, slot or action does not exist (or is not visible to the actor)."""

    status = 404
    default_code = ErrorCode.NOT_FOUND


@dataclass(frozen=True)
class Refusal:
    """A refusal said once: its message, code, field and error class (so its status). The
    services raise it (``error()``); the pages show its ``message`` where the thing is not
    offered (``games.reads.policy``; a setting's bounds: ``games.game_settings``)."""

    message: str
    code: ErrorCode
    field: str | None = None
    kind: type[GameRuleError] = InvalidInput

    @property
    def status(self) -> int:
        return self.kind.status

    def error(self) -> GameRuleError:
        return self.kind(self.message, self.code, self.field)

    def saying(self, message: str) -> Refusal:
        """The same refusal in other words (a mute's sentence names its end)."""
        return Refusal(message, self.code, self.field, self.kind)
