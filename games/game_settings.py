"""The one list of a game's settings: what each is, its default, its bounds and words.

Each ``Setting`` is one keyword of ``services.create_game`` and one column of ``Game``.
Everything else is derived from this list: the service fills defaults and checks values
with ``check_settings``; the create-game form (``games.forms.GameForm``) and the API's
``GameCreateSerializer`` build their fields from it; a ready-made setup
(``games.setups``) gives only the settings it changes. Whether a setting applies to a
rule set is asked of the rule set (``applies``), never decided by its name.

A new setting is one entry here (and its rule where it acts, e.g. ``services.votes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings as django_settings
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext

from .errors import ErrorCode, InvalidInput, Refusal
from .gateway import RULESET_NAMES, Rules, day_script, rules_named
from .models import (
    MAX_MIN_POSTS_PER_DAY,
    MAX_PHASE_LENGTH,
    MIN_PHASE_LENGTH,
    Admits,
    InactivityAction,
    Openness,
    SecretVotes,
    StartsWith,
    VoteRule,
    Whispers,
)


def _(text: str) -> str:
    """A label, help or refusal, said in the reader's language when it is read (the list
    is made once, at import)."""
    return gettext_lazy(text)  # type: ignore[return-value]  # a lazy str: read as a str


def _format(text: str, **values: Any) -> str:
    return gettext(text) % values


def _lazy_format(text: str, **values: Any) -> str:
    """``text`` (marked with gettext_noop) translated when read, then filled."""
    return lazy(_format, str)(text, **values)


MIN_PLAYERS, MAX_PLAYERS = 3, 50
MIN_TURN_LENGTH, MAX_TURN_LENGTH = timedelta(seconds=10), timedelta(days=1)
MIN_COUNT_EVERY = timedelta(minutes=15)
MAX_POST_LIMIT = 1000

# The units a phase length is given in (the create form, the host's deadline controls).
UNITS = {"minutes": timedelta(minutes=1), "hours": timedelta(hours=1), "days": timedelta(days=1)}


def split_length(length: timedelta) -> tuple[int, str]:
    """The largest unit that expresses ``length`` exactly: (amount, unit)."""
    for unit in ("days", "hours", "minutes"):
        amount, rest = divmod(length, UNITS[unit])
        if not rest and amount:
            return int(amount), unit
    return max(int(length / UNITS["minutes"]), 1), "minutes"


def length_words(length: timedelta | None) -> str:
    """A length in the host's words: "24 hours", "3 days", "90 minutes"."""
    if length is None:
        return ""
    amount, unit = split_length(length)
    if unit == "days":
        return ngettext("%(n)s day", "%(n)s days", amount) % {"n": amount}
    if unit == "hours":
        return ngettext("%(n)s hour", "%(n)s hours", amount) % {"n": amount}
    return ngettext("%(n)s minute", "%(n)s minutes", amount) % {"n": amount}


class Kind(StrEnum):
    """What a setting's value is; the form and the serializer pick their field by it."""

    BOOL = "bool"
    INT = "int"
    CHOICE = "choice"
    DURATION = "duration"  # a timedelta; the form and the API give a number of ``unit``
    DAY_SETTINGS = "day_settings"  # the day script's own settings (a mapping)


def _everywhere(rules: Rules) -> bool:
    return True


def _table_days(rules: Rules) -> bool:
    return rules.day_shape == "table"


def _vote_modifiers(rules: Rules) -> bool:
    return rules.has_vote_modifiers


def _thread_days(rules: Rules) -> bool:
    return rules.day_shape == "thread"


def _seats_rule(rules: Rules, value: Any) -> None:
    """A table's seats are always dealt at random (its speaking order starts from them)."""
    if value and not _thread_days(rules):
        raise InvalidInput(
            gettext(
                "A %(ruleset)s table deals its seats at random; only a forum game may keep "
                "the sign-up order."
            )
            % {"ruleset": rules.name},
            ErrorCode.SEATS,
            "seats_in_signup_order",
        )


@dataclass(frozen=True)
class Entry:
    """Where a setting appears outside the service: its field name there (None: not
    there), what the field's number counts (durations), its bounds in that unit when
    they are not the setting's, and the form's preset when it is not the default."""

    name: str | None
    unit: timedelta | None = None
    least: int | None = None
    most: int | None = None
    initial: Any = None
    required: bool = False
    # Placed by name in the create page's template (or with the table's fields); otherwise
    # the page lists it with the game's other settings (``GameForm.more_fields``), so a
    # new setting needs no template.
    laid_out: bool = False


@dataclass(frozen=True)
class Setting:
    name: str
    kind: Kind
    default: Any
    label: str = ""  # the form's label ("": Django's, from the field name)
    help: str = ""  # the form's help text
    api_help: str = ""  # the API's help text
    choices: tuple[tuple[str, Any], ...] = ()  # (value, its label: a lazy text)
    least: Any = None  # smallest legal value (durations: a timedelta)
    most: Any = None
    refusal: Refusal | None = None  # None: checked with other settings (see create_game)
    form: Entry = Entry(None)
    api: Entry = Entry(None)
    applies: Callable[[Rules], bool] = _everywhere
    optional: bool = False  # None is a legal value ("none"/"as many as roles")
    rule: Callable[[Rules, Any], None] | None = None  # what the rule set says of a value
    only_with: str | None = None  # given only when this other (boolean) setting is on
    # On only with this other (boolean) setting on: otherwise ``refusal`` (check_settings).
    requires: str | None = None
    # The game's house rules (the game page, the role PM, the API's ``house_rules``): the
    # sentence this setting says of a game, "" when it says nothing (the usual value).
    describe: Callable[[Any], str] | None = None

    def default_for(self, rules: Rules) -> Any:
        """The default of this setting in a game of ``rules``."""
        return self.default(rules) if callable(self.default) else self.default

    def check(self, value: Any, rules: Rules) -> Any:
        """``value`` if legal in a game of ``rules``, else an InvalidInput."""
        if self.rule is not None:
            self.rule(rules, value)
        if self.kind is Kind.BOOL:
            return bool(value)
        if self.refusal is None or (value is None and self.optional):
            return value
        if self.kind is Kind.CHOICE:
            ok = value in {c for c, _ in self.choices}
        else:
            ok = (self.least is None or self.least <= value) and (
                self.most is None or value <= self.most
            )
        if not ok:
            raise self.refusal.error()
        return value


def _phase_length(name: str, hours: int, api_name: str) -> Setting:
    return Setting(
        name,
        Kind.DURATION,
        timedelta(hours=hours),
        least=MIN_PHASE_LENGTH,
        most=MAX_PHASE_LENGTH,
        refusal=Refusal(
            _("A phase lasts between one minute and fourteen days."), ErrorCode.PHASE_LENGTH, name
        ),
        # The form pairs the number with a unit field of its own (``GameForm``).
        form=Entry(name, initial=hours, least=1, required=True, laid_out=True),
        api=Entry(api_name, unit=timedelta(minutes=1)),
    )


def _table_length(name: str, label: str, form_name: str, api_name: str) -> Setting:
    return Setting(
        name,
        Kind.DURATION,
        timedelta(minutes=2),
        label=label,
        least=MIN_TURN_LENGTH,
        most=MAX_TURN_LENGTH,
        form=Entry(form_name, unit=timedelta(seconds=1), initial=120, laid_out=True),
        api=Entry(api_name, unit=timedelta(seconds=1)),
        applies=_table_days,
        only_with="turn_based",
    )


def _vote_rule(rules: Rules, value: Any) -> None:
    """A known vote rule, and one the rule set allows (a table decides by plurality)."""
    if value not in VoteRule.values:
        raise InvalidInput(
            gettext("Unknown vote rule %(rule)s.") % {"rule": repr(value)},
            ErrorCode.VOTE_RULE,
            "vote_rule",
        )
    if value not in rules.vote_rules_allowed:
        raise InvalidInput(
            gettext("The %(ruleset)s rule set decides the day by plurality at the deadline.")
            % {"ruleset": rules.name},
            ErrorCode.VOTE_RULE,
            "vote_rule",
        )


# -- the house rules: what each setting says of a game when it is not the usual ---------
def _host_language(rules: Rules) -> str:
    """A new game's language when the host gives none: the language they are using."""
    from django.utils import translation

    from .i18n import supported

    return supported(translation.get_language())


def _post_limit_rule(game: Any) -> str:
    if game.post_limit is None:
        return ""
    values = {"n": game.post_limit}
    if game.post_limit_lifted:
        values["lifted"] = length_words(game.post_limit_lifted)
        return (
            ngettext(
                "Post limit: %(n)s post a day in the game thread for each living player, "
                "lifted %(lifted)s before the deadline.",
                "Post limit: %(n)s posts a day in the game thread for each living player, "
                "lifted %(lifted)s before the deadline.",
                game.post_limit,
            )
            % values
        )
    return (
        ngettext(
            "Post limit: %(n)s post a day in the game thread for each living player.",
            "Post limit: %(n)s posts a day in the game thread for each living player.",
            game.post_limit,
        )
        % values
    )


_SECRET_VOTE_RULES = {
    SecretVotes.TOTALS: _(
        "Secret votes: the vote count shows only each wagon's total until the day ends."
    ),
    SecretVotes.HIDDEN: _("Hidden votes: there is no vote count until the day ends."),
}
_WHISPER_RULES = {
    Whispers.PRIVATE: _(
        "Whispers: by day, living players may whisper to each other; nobody else "
        "reads a whisper until the game ends."
    ),
    Whispers.ANNOUNCED: _(
        "Whispers: by day, living players may whisper to each other and the "
        "thread says who whispered to whom; nobody else reads a whisper until the game ends."
    ),
}


def _said_if(name: str, line: str, when: Any = True) -> Callable[[Any], str]:
    """A rule that says ``line`` when the game's setting ``name`` is ``when``."""
    return lambda game: str(line) if getattr(game, name) == when else ""


def _posting_minimum_rule(game: Any) -> str:
    if not game.min_posts_per_day:
        return ""
    n = game.min_posts_per_day
    if game.inactivity_action == InactivityAction.REPLACE:
        return ngettext(
            "Posting minimum: %(n)s post a day; a player who falls short is prodded, "
            "then replaced.",
            "Posting minimum: %(n)s posts a day; a player who falls short is prodded, "
            "then replaced.",
            n,
        ) % {"n": n}
    return ngettext(
        "Posting minimum: %(n)s post a day; a player who falls short is prodded, then modkilled.",
        "Posting minimum: %(n)s posts a day; a player who falls short is prodded, then modkilled.",
        n,
    ) % {"n": n}


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "vote_rule",
        Kind.CHOICE,
        lambda rules: rules.default_vote_rule,
        choices=tuple(VoteRule.choices),
        rule=_vote_rule,
        form=Entry("vote_rule", required=True, laid_out=True),
        api=Entry("vote_rule"),
    ),
    Setting(
        "starts_with",
        Kind.CHOICE,
        StartsWith.DAY,
        label=_("The game starts with"),
        choices=tuple(StartsWith.choices),
        refusal=Refusal(
            _("A game starts with day or night."), ErrorCode.STARTS_WITH, "starts_with"
        ),
        form=Entry("starts_with", required=True, laid_out=True),
        api=Entry("starts_with"),
    ),
    Setting(
        "no_night_posting",
        Kind.BOOL,
        True,
        label=_("No posting in the game thread at night"),
        describe=_said_if(
            "no_night_posting", _("Players may post in the game thread at night."), False
        ),
        form=Entry("no_night_posting", laid_out=True),
        api=Entry("no_night_posting"),
    ),
    Setting(
        "self_vote_allowed",
        Kind.BOOL,
        False,
        label=_("Players may vote for themselves"),
        describe=_said_if("self_vote_allowed", _("Players may vote for themselves.")),
        form=Entry("self_vote_allowed", laid_out=True),
        api=Entry("self_vote_allowed"),
    ),
    Setting(
        "skip_vote_allowed",
        Kind.BOOL,
        True,
        label=_('Players may vote "no elimination"'),
        describe=_said_if("skip_vote_allowed", _('There is no "no elimination" vote.'), False),
        form=Entry("skip_vote_allowed", laid_out=True),
        api=Entry("skip_vote_allowed"),
    ),
    _phase_length("day_length", 24, "day_length_minutes"),
    _phase_length("night_length", 12, "night_length_minutes"),
    Setting(
        "player_cap",
        Kind.INT,
        None,
        help=_("Blank: as many players as there are roles."),
        least=MIN_PLAYERS,
        most=MAX_PLAYERS,
        optional=True,  # checked against the role list by create_game
        form=Entry("player_cap", laid_out=True),
        api=Entry("player_cap"),
    ),
    Setting(
        "min_posts_per_day",
        Kind.INT,
        0,
        label=_("Minimum posts per day"),
        help=_("0 turns the check off."),
        least=0,
        most=MAX_MIN_POSTS_PER_DAY,
        refusal=Refusal(
            _lazy_format(
                gettext_noop("The posting minimum is between 0 and %(most)s."),
                most=MAX_MIN_POSTS_PER_DAY,
            ),
            ErrorCode.MIN_POSTS,
            "min_posts",
        ),
        describe=_posting_minimum_rule,
        form=Entry("min_posts_per_day", initial=0, required=True, laid_out=True),
        api=Entry("min_posts_per_day"),
    ),
    Setting(
        "inactivity_action",
        Kind.CHOICE,
        InactivityAction.REPLACE,
        label=_("When a player is inactive"),
        choices=tuple(InactivityAction.choices),
        refusal=Refusal(_("Inactivity means replace or modkill."), ErrorCode.INACTIVITY_ACTION),
        form=Entry("inactivity_action", required=True, laid_out=True),
        api=Entry("inactivity_action"),
    ),
    # The table's settings are checked together (services.lobby's table check).
    Setting(
        "turn_based",
        Kind.BOOL,
        False,
        label=_("Play the day turn by turn (the rule set's day script)"),
        help=_("Off: the day is a free forum thread."),
        api_help="City, classic, power: the day runs turn by turn.",
        form=Entry("turn_based", initial=True, laid_out=True),
        api=Entry("turn_based"),
        applies=_table_days,
    ),
    _table_length("turn_length", _("Seconds per turn"), "turn_seconds", "turn_length_seconds"),
    _table_length(
        "vote_length", _("Seconds for a table vote"), "vote_seconds", "vote_length_seconds"
    ),
    Setting(
        "day_settings",
        Kind.DAY_SETTINGS,
        None,
        api_help="The day script's settings: classic word_limit; power discussion_open_*.",
        optional=True,
        # The form has one field per setting the rule set's day script takes (day_fields).
        form=Entry("day_settings", laid_out=True),
        api=Entry("day_settings"),
        applies=_table_days,
        only_with="turn_based",
    ),
    Setting(
        "seats_in_signup_order",
        Kind.BOOL,
        # A forum thread has no speaking order: its player list stays in sign-up order
        # unless the host deals seats; a table always deals them (``_seats_rule``).
        _thread_days,
        label=_("Seat the players in sign-up order"),
        help=_("Unticked: seats are dealt at random when the game starts."),
        api_help="Forum games (default true): seats follow the sign-up order; false deals "
        "them at random. Tables always deal them at random.",
        rule=_seats_rule,
        form=Entry("seats_in_signup_order", initial=True),  # shown for forum games only
        api=Entry("seats_in_signup_order"),
        applies=_thread_days,
    ),
    Setting(
        "openness",
        Kind.CHOICE,
        Openness.CLOSED,
        label=_("Setup"),
        help=_(
            "Closed: the role list stays hidden until the end. Semi-open: the roles "
            "that may be in the game are public. Open: the whole role list is public."
        ),
        choices=tuple(Openness.choices),
        refusal=Refusal(_("A setup is closed, semi-open or open."), ErrorCode.OPENNESS, "openness"),
        form=Entry("openness", initial="closed", laid_out=True),
    ),
    Setting(
        "vote_count_every",
        Kind.DURATION,
        None,
        label=_("Post a vote count every (hours)"),
        help=_(
            "The site posts a numbered vote count (Vote count 2.3) this often by day. "
            "Blank: only when you ask."
        ),
        least=MIN_COUNT_EVERY,
        most=MAX_PHASE_LENGTH,
        optional=True,
        refusal=Refusal(
            _("Scheduled vote counts come at most every 15 minutes."),
            ErrorCode.VOTE_COUNT_EVERY,
            "vote_count_every",
        ),
        form=Entry("vote_count_every", unit=timedelta(hours=1), least=1, most=336, laid_out=True),
    ),
    Setting(
        "vote_modifiers_public",
        Kind.BOOL,
        False,
        label=_("Vote modifiers are public"),
        help=_(
            "The vote count names loved, hated and double voters and counts L-n with "
            "them; otherwise it shows each wagon's weight only and the plain L-n."
        ),
        api_help="The public vote count names loved, hated, double voters.",
        form=Entry("vote_modifiers_public"),
        api=Entry("vote_modifiers_public"),
        applies=_vote_modifiers,
    ),
    Setting(
        "lynch_proof_ends_day",
        Kind.BOOL,
        False,
        label=_("A lynch-proof wagon at the threshold ends the day"),
        help=_("With a hammer: the day ends without an elimination. Unticked: the day goes on."),
        api_help="A lynch-proof wagon at the hammer threshold ends the day without an "
        "elimination (default: the day goes on).",
        form=Entry("lynch_proof_ends_day"),
        api=Entry("lynch_proof_ends_day"),
        applies=_vote_modifiers,
    ),
    Setting(
        "admits",
        Kind.CHOICE,
        Admits.BOTH,
        label=_("Who may play"),
        help=_(
            "People, agents (programs registered by their owners) or both. Sign-ups, "
            "the replacement queue and your replacements admit only these."
        ),
        api_help="Who may take a seat: both (people and agents), people or agents.",
        choices=tuple(Admits.choices),
        refusal=Refusal(
            _("A game admits people and agents (both), people only or agents only."),
            ErrorCode.ADMITS,
            "admits",
        ),
        form=Entry("admits"),
        api=Entry("admits"),
    ),
    # The variants (issue 33). Each acts where its rule is: ``services.posts`` (post_limit),
    # ``reads.vote_count`` (secret_votes), ``services.wills`` (last_wills),
    # ``services.whispers`` (whispers), ``naming`` (anonymous_names), ``services.nights``
    # (must_act).
    Setting(
        "post_limit",
        Kind.INT,
        None,
        label=_("Posts per player per day"),
        help=_("Blank: no limit. Counts each living player's posts in the game thread by day."),
        api_help="Posts per living player per day in the game thread; null: no limit.",
        least=1,
        most=MAX_POST_LIMIT,
        optional=True,
        refusal=Refusal(
            _lazy_format(
                gettext_noop("A post limit is between 1 and %(most)s posts a day."),
                most=MAX_POST_LIMIT,
            ),
            ErrorCode.POST_LIMIT,
            "post_limit",
        ),
        describe=_post_limit_rule,
        form=Entry("post_limit"),
        api=Entry("post_limit"),
        applies=_thread_days,
    ),
    Setting(
        "post_limit_lifted",
        Kind.DURATION,
        None,
        label=_("Lift the post limit this many hours before the deadline"),
        help=_("Blank: the limit holds all day."),
        api_help="Minutes before the day's deadline when the post limit is lifted; null: never.",
        least=timedelta(minutes=1),
        most=MAX_PHASE_LENGTH,
        optional=True,
        refusal=Refusal(
            _("The post limit is lifted between one minute and fourteen days before the deadline."),
            ErrorCode.POST_LIMIT_LIFTED,
            "post_limit_lifted",
        ),
        form=Entry("post_limit_lifted", unit=timedelta(hours=1), least=1, most=336),
        api=Entry("post_limit_lifted_minutes", unit=timedelta(minutes=1)),
        applies=_thread_days,
    ),
    Setting(
        "secret_votes",
        Kind.CHOICE,
        SecretVotes.OFF,
        label=_("Vote count by day"),
        help=_(
            "Secret: totals only until the day ends. Hidden: no count until then. The host "
            "always sees the whole count."
        ),
        api_help="off (the count names every voter), totals (totals only until the day ends) "
        "or hidden (no count until the day ends).",
        choices=tuple(SecretVotes.choices),
        refusal=Refusal(
            _("Secret votes are off, totals or hidden."), ErrorCode.SECRET_VOTES, "secret_votes"
        ),
        describe=lambda game: str(_SECRET_VOTE_RULES.get(game.secret_votes, "")),
        form=Entry("secret_votes"),
        api=Entry("secret_votes"),
        applies=_thread_days,
    ),
    Setting(
        "last_wills",
        Kind.BOOL,
        False,
        label=_("Last wills"),
        help=_("Each player keeps a will while alive; it is posted when they die."),
        api_help="Each player keeps a will while alive, posted when they die.",
        describe=_said_if(
            "last_wills", _("Last wills: each player keeps a will, posted when they die.")
        ),
        form=Entry("last_wills"),
        api=Entry("last_wills"),
    ),
    Setting(
        "whispers",
        Kind.CHOICE,
        Whispers.OFF,
        label=_("Whispers"),
        help=_(
            "Living players send each other private messages; the host reads them, "
            "everyone does once the game ends."
        ),
        api_help="off, private (unseen by the others) or announced (the thread says "
        '"A whispered to B").',
        choices=tuple(Whispers.choices),
        refusal=Refusal(
            _("Whispers are off, private or announced."), ErrorCode.WHISPERS, "whispers"
        ),
        describe=lambda game: str(_WHISPER_RULES.get(game.whispers, "")),
        form=Entry("whispers"),
        api=Entry("whispers"),
        applies=_thread_days,
    ),
    Setting(
        "anonymous_names",
        Kind.BOOL,
        False,
        label=_("Anonymous names"),
        help=_("Players play under names from a deck; the real names are revealed at the end."),
        api_help="Players play under names from a deck, revealed when the game ends.",
        describe=_said_if(
            "anonymous_names",
            _("Anonymous game: players play under masked names, revealed when the game ends."),
        ),
        form=Entry("anonymous_names"),
        api=Entry("anonymous_names"),
        applies=_thread_days,
    ),
    Setting(
        "must_act",
        Kind.BOOL,
        False,
        label=_("Must-act nights"),
        help=_("A night action not sent by the deadline is taken at a random legal target."),
        api_help="A night action not sent by the deadline is taken at a random legal target.",
        describe=_said_if(
            "must_act",
            _(
                "Must-act nights: a night action not sent by the deadline is taken at a "
                "random target."
            ),
        ),
        form=Entry("must_act"),
        api=Entry("must_act"),
    ),
    # Blind games (issue 34): which seats are agents is hidden from everyone, the host
    # included, until the end (``reads.agents.agents_hidden``); then the players guess
    # (the league app's ``AgentGuess``). The masks are required, not implied: a real name
    # beside a seat would say it is an agent's to anyone who looks the account up.
    Setting(
        "blind",
        Kind.BOOL,
        False,
        label=_("Blind: agent badges hidden until the game ends"),
        help=_(
            "Needs anonymous names. Nobody sees which seats are agents until the end; "
            "then each player may guess."
        ),
        api_help="Agent badges (and every agent field of a seat) are hidden until the game "
        "ends; needs anonymous_names.",
        refusal=Refusal(
            _("A blind game needs anonymous names: a real name would show who is an agent."),
            ErrorCode.BLIND,
            "blind",
        ),
        requires="anonymous_names",
        describe=_said_if(
            "blind",
            _(
                "Blind game: nobody sees which seats are agents until the game ends; then "
                "each player may guess."
            ),
        ),
        form=Entry("blind"),
        api=Entry("blind"),
        applies=_thread_days,
    ),
    # The language of the thread's automatic posts (games.i18n.in_game_language): by
    # default the host's own as they create the game (the page's language, or the API's
    # request's). Each language is named in itself ("Русский").
    Setting(
        "language",
        Kind.CHOICE,
        _host_language,
        label=_("Language of the game"),
        help=_(
            "The site's announcements, vote counts and role messages in the thread are "
            "written in this language."
        ),
        api_help="The language of the site's posts in the game's threads: en or ru. "
        "Default: the request's language.",
        choices=tuple(django_settings.LANGUAGES),
        refusal=Refusal(_("The site has no such language."), ErrorCode.LANGUAGE, "language"),
        form=Entry("language", laid_out=True),
        api=Entry("language"),
    ),
)
BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}


def house_rules(game: Any) -> list[str]:
    """What this game's settings change from the usual game, a sentence each, in the
    settings' order (the game page, the role PM, the API's ``house_rules``)."""
    rules = rules_named(game.ruleset)
    return [
        line
        for s in SETTINGS
        if s.describe is not None and s.applies(rules) and (line := s.describe(game))
    ]


def defaults(rules: Rules) -> dict[str, Any]:
    """Every setting's default in a game of ``rules``."""
    return {s.name: s.default_for(rules) for s in SETTINGS}


def check_settings(rules: Rules, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every setting of a new game: ``given`` checked one by one (bounds, choices and
    what the rule set says: ``Setting.rule``), defaults for the rest. None means "not
    given" except for an ``optional`` setting.

    A setting that ``requires`` another is refused without it. Other checks that need
    several settings (the table's clock and day settings, the player cap against the role
    list) are create_game's.
    """
    unknown = set(given) - set(BY_NAME)
    if unknown:
        raise TypeError(f"create_game() got an unexpected keyword argument {min(unknown)!r}")
    values = defaults(rules)
    for setting in SETTINGS:
        value = given.get(setting.name)
        if value is not None or (setting.optional and setting.name in given):
            values[setting.name] = setting.check(value, rules)
    for setting in SETTINGS:
        needed = setting.requires
        if needed is not None and values[setting.name] and not values[needed]:
            assert setting.refusal is not None  # a setting that requires says why
            raise setting.refusal.error()
    return values


@dataclass(frozen=True)
class DayField:
    """A day-script setting a host chooses on the create form: a whole number field of
    its own, as the script describes it (``DayScript.setting_fields``, ``defaults``)."""

    label: str
    least: int
    most: int | None
    default: int


def _day_fields() -> dict[str, DayField]:
    fields: dict[str, DayField] = {}
    for ruleset in RULESET_NAMES:
        script = day_script(ruleset)
        if script is not None:
            for name, (label, least, most) in script.setting_fields.items():
                # The day script's words (the resolver marks them), read in the reader's.
                shown = _(label)  # i18n: marked at its source
                fields[name] = DayField(shown, least, most, script.defaults[name])
    return fields


# Every rule set's day-script settings, in rule-set order (the script checks them again).
DAY_SETTING_FIELDS: Mapping[str, DayField] = _day_fields()


def bounds(setting: Setting, entry: Entry) -> tuple[int | None, int | None]:
    """A field's least and most, as numbers of its unit (durations) or as they are."""
    least, most = entry.least, entry.most
    if setting.kind is Kind.DURATION:
        if least is None and entry.unit is not None and setting.least is not None:
            least = int(setting.least / entry.unit)
        if most is None and entry.unit is not None and setting.most is not None:
            most = int(setting.most / entry.unit)
    elif setting.kind is Kind.INT:
        least = setting.least if least is None else least
        most = setting.most if most is None else most
    return least, most


def given_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (settings by name) without those whose switch (``only_with``) is off."""
    return {
        name: value
        for name, value in values.items()
        if (switch := BY_NAME[name].only_with) is None or values.get(switch)
    }


def output_name(setting: Setting) -> str:
    """The setting's field in a game the API shows: its name; a length in seconds."""
    return f"{setting.name}_seconds" if setting.kind is Kind.DURATION else setting.name


def output_value(setting: Setting, value: Any) -> Any:
    """The setting's value as the API shows it (a length as whole seconds)."""
    if setting.kind is Kind.DURATION and value is not None:
        return int(value.total_seconds())
    return value


def output(game: Any) -> dict[str, Any]:
    """Every setting of ``game`` as the API shows it, by ``output_name``."""
    return {output_name(s): output_value(s, getattr(game, s.name)) for s in SETTINGS}


def from_api(data: Mapping[str, Any]) -> dict[str, Any]:
    """A create request's settings (API field names and units) by setting name."""
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        name, unit = setting.api.name, setting.api.unit
        if name is not None and name in data:
            value = data[name]
            values[setting.name] = value * unit if unit is not None else value
    return values
