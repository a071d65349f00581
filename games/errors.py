"""Errors the service layer raises when an action breaks a rule of the game.

Each carries a user-facing ``message`` (one sentence, never revealing hidden information),
a machine ``code`` (an ``ErrorCode``, the one list of codes) and optionally the ``field``
it is about. ``status`` is the HTTP status views and the API should answer with.
"""

from __future__ import annotations

from enum import StrEnum


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
    TURN_REFUSED = "turn_refused"
    NOT_YOUR_TURN = "not_your_turn"
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
    ADMITS = "admits"  # the game admits people only, or agents only
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
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field

    def to_dict(self) -> dict[str, str | None]:
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
