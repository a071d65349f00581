"""What every day script shares: the day's state, the "what now" answer, and the machinery.

A table game's day is a sequence of steps. A *turn step* ("speech", "defense",
"last_words", "question", "discussion", "statement") gives the floor to one player at a
time, in ``order``; the *vote step* ("vote") lets every living player vote at once until
everyone has voted or the vote's timer ends; "done" carries the outcome. A rule set's
script (``classic``, ``city``, ``power``) says which steps follow which and what is legal
in each; everything else lives here.

Everything is plain immutable data. ``DayState`` round-trips through JSON
(``to_dict`` / ``from_dict``) so the web app can store it between requests; ``apply``
never changes the state it is given: it returns a new one, or raises ``DayRuleError``
with a sentence a player understands.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ..errors import ResolverError
from ..model import SKIP, DayOutcome, DayVotes, GameState, _thaw, frozen_map
from ..rulesets import get_ruleset
from ..rulesets.base import names
from ..text import _, gettext_noop, ngettext, pgettext

# -- steps and event kinds ------------------------------------------------------------
SPEECH, DEFENSE, LAST_WORDS = "speech", "defense", "last_words"
QUESTION, DISCUSSION, STATEMENT = "question", "discussion", "statement"
VOTE, DONE = "vote", "done"

POST, PASS, NOMINATE, VOTE_EVENT = "post", "pass", "nominate", "vote"
TIMEOUT, CLOSE_VOTE, INVALID = "timeout", "close_vote", "invalid"
REMOVED = "removed"  # the site: a player died outside the day's rules (a modkill)
VOTE_SKIP_DISCUSSION, UNVOTE_SKIP_DISCUSSION = "vote_skip_discussion", "unvote_skip_discussion"

# Events a player sends (they name a ``player``) and events the site's timers send.
PLAYER_EVENTS = frozenset(
    {POST, PASS, NOMINATE, VOTE_EVENT, VOTE_SKIP_DISCUSSION, UNVOTE_SKIP_DISCUSSION, INVALID}
)
TIMER_EVENTS = frozenset({TIMEOUT, CLOSE_VOTE})
SITE_EVENTS = frozenset({REMOVED})


# What kind of refusal a ``DayRuleError`` is: the site answers each its own way.
REFUSED = "refused"  # the rules refuse the event itself (a dead target, not on the ballot)
OUT_OF_TURN = "out_of_turn"  # another player's turn, or this player's is spent
NOT_IN_STEP = "not_in_step"  # nobody does that in this step (a pass during the speeches)
SPEECH_TOO_LONG = "speech_too_long"
SELF_QUESTION = "self_question"
NO_ADDRESSEE = "no_addressee"  # a question that names nobody
REFUSAL_CODES = frozenset(
    {REFUSED, OUT_OF_TURN, NOT_IN_STEP, SPEECH_TOO_LONG, SELF_QUESTION, NO_ADDRESSEE}
)


class DayRuleError(ResolverError):
    """An event the day's rules do not allow now. ``reason`` is one sentence for the player;
    ``code`` one of ``REFUSAL_CODES``."""

    def __init__(self, reason: str, code: str = REFUSED) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


# -- values ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DayState:
    """One day of a table game, between two events. Stored by the site as JSON.

    ``alive`` is the living players, in seat order. Nobody dies by the day's rules during
    the day (the vote's result is applied by the site when the day is done), but the host
    can remove a player (a modkill): ``removed`` lists them, gone from ``alive``.
    ``order`` is the current turn step's order (empty during a vote) and ``turn`` the index
    of whose turn it is; ``round`` counts laps of the open discussion, and is 2 for a
    revote. ``votes`` are the live ballots of the current vote; ``rounds`` the ballots of
    every closed vote; ``failures`` the refused attempts in the current turn or vote.
    """

    ruleset: str
    day: int
    seats: tuple[str, ...]
    alive: tuple[str, ...]
    settings: Mapping[str, Any] = field(default_factory=frozen_map)
    seed: int = 0
    announce_deaths: bool = True  # does the day open with last night's deaths?
    step: str = DONE
    round: int = 1
    order: tuple[str, ...] = ()
    turn: int = 0
    posted: bool = False  # the current speaker has posted this turn
    failures: Mapping[str, int] = field(default_factory=frozen_map)  # refused attempts now
    nominations: Mapping[str, str] = field(default_factory=frozen_map)  # nominator -> target
    ballot: tuple[str, ...] = ()  # what the current vote may name ("skip" included)
    votes: Mapping[str, str] = field(default_factory=frozen_map)
    rounds: tuple[Mapping[str, str], ...] = ()
    tied: tuple[str, ...] = ()  # players sent to a defense and revote
    budget: int = 0  # open-discussion messages allowed today
    messages: int = 0  # open-discussion messages posted so far
    silence: int = 0  # passes in a row in the open discussion
    skip_discussion: tuple[str, ...] = ()  # players voting to end the discussion
    eliminated: str | None = None
    last_words: bool = False  # the eliminated player gave last words
    explanation: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()  # players who died during the day (modkilled)
    acted: tuple[str, ...] = ()  # players who did anything themselves today (not a timer)

    @property
    def speaker(self) -> str | None:
        if self.step in (VOTE, DONE) or self.turn >= len(self.order):
            return None
        return self.order[self.turn]

    @property
    def done(self) -> bool:
        return self.step == DONE

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "day": self.day,
            "seats": list(self.seats),
            "alive": list(self.alive),
            "settings": _thaw(self.settings),
            "seed": self.seed,
            "announce_deaths": self.announce_deaths,
            "step": self.step,
            "round": self.round,
            "order": list(self.order),
            "turn": self.turn,
            "posted": self.posted,
            "failures": dict(self.failures),
            "nominations": dict(self.nominations),
            "ballot": list(self.ballot),
            "votes": dict(self.votes),
            "rounds": [dict(r) for r in self.rounds],
            "tied": list(self.tied),
            "budget": self.budget,
            "messages": self.messages,
            "silence": self.silence,
            "skip_discussion": list(self.skip_discussion),
            "eliminated": self.eliminated,
            "last_words": self.last_words,
            "explanation": list(self.explanation),
            "removed": list(self.removed),
            "acted": list(self.acted),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DayState:
        return cls(
            ruleset=data["ruleset"],
            day=int(data["day"]),
            seats=tuple(data["seats"]),
            alive=tuple(data["alive"]),
            settings=frozen_map(data.get("settings")),
            seed=int(data.get("seed", 0)),
            announce_deaths=bool(data.get("announce_deaths", True)),
            step=data.get("step", DONE),
            round=int(data.get("round", 1)),
            order=tuple(data.get("order", ())),
            turn=int(data.get("turn", 0)),
            posted=bool(data.get("posted", False)),
            failures=frozen_map(data.get("failures")),
            nominations=frozen_map(data.get("nominations")),
            ballot=tuple(data.get("ballot", ())),
            votes=frozen_map(data.get("votes")),
            rounds=tuple(frozen_map(r) for r in data.get("rounds", ())),
            tied=tuple(data.get("tied", ())),
            budget=int(data.get("budget", 0)),
            messages=int(data.get("messages", 0)),
            silence=int(data.get("silence", 0)),
            skip_discussion=tuple(data.get("skip_discussion", ())),
            eliminated=data.get("eliminated"),
            last_words=bool(data.get("last_words", False)),
            explanation=tuple(data.get("explanation", ())),
            removed=tuple(data.get("removed", ())),
            acted=tuple(data.get("acted", ())),
        )


@dataclass(frozen=True)
class Turn:
    """The answer to "what now?".

    ``actions`` maps each player who may act now to the event kinds they may send;
    ``options`` are the legal targets of this step's targeted action (a nomination, a
    vote, a question); ``timer`` says which site timer applies: "turn" (send ``timeout``
    when it runs out), "vote" (send ``close_vote``) or None when the day is done.
    """

    step: str
    speaker: str | None
    order: tuple[str, ...]
    round: int
    actions: Mapping[str, tuple[str, ...]]
    ends_on_post: bool = False
    options: tuple[str, ...] = ()
    word_limit: int | None = None
    timer: str | None = None
    messages_left: int | None = None

    def may(self, player: str | None, kind: str) -> bool:
        # None: the vote's turn has no speaker (nobody holds a turn of their own)
        return player is not None and kind in self.actions.get(player, ())

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "speaker": self.speaker,
            "order": list(self.order),
            "round": self.round,
            "actions": {p: list(k) for p, k in self.actions.items()},
            "ends_on_post": self.ends_on_post,
            "options": list(self.options),
            "word_limit": self.word_limit,
            "timer": self.timer,
            "messages_left": self.messages_left,
        }


@dataclass(frozen=True)
class Notice:
    """Something the site may show: a step starting, a default applied, the outcome."""

    kind: str  # "step", "nomination", "vote", "default", "refused", "guide", "outcome"...
    text: str
    player: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "player": self.player}


# -- shared helpers -------------------------------------------------------------------
def speaking_order(seats: Sequence[str], alive: Iterable[str], day: int) -> tuple[str, ...]:
    """Seat order starting one seat later each day, dead seats skipped.

    Day 1 starts at seat 0, day 2 at seat 1, and so on around the table, whether or not
    that seat is alive: a dead starting seat hands the first word to the next living
    player in seat order.
    """
    if not seats:
        return ()
    living = set(alive)
    start = (day - 1) % len(seats)
    rotated = [*seats[start:], *seats[:start]]
    return tuple(p for p in rotated if p in living)


def in_order(players: Iterable[str], order: Sequence[str]) -> tuple[str, ...]:
    """``players`` sorted by their place in ``order``."""
    wanted = set(players)
    return tuple(p for p in order if p in wanted)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- the machinery --------------------------------------------------------------------
Out = list[Notice]


class DayScript:
    """Base of every day script. Subclasses give the steps' order and what each allows.

    Hooks a script overrides: ``first_step`` (where the day starts), ``step_over`` (what
    follows a finished turn step), ``count`` (the vote's result), ``turn_actions``,
    ``on_post``, ``on_nominate``, ``turn_default`` and, if it needs them, ``after_turn``
    and ``extra_actions``.
    """

    name: ClassVar[str]
    defaults: ClassVar[Mapping[str, Any]] = {}  # host settings and their defaults
    max_attempts: ClassVar[int | None] = None  # refused attempts before the default applies
    missing_vote: ClassVar[str | None] = None  # a ballot not cast counts as this (None: abstain)
    first_phase: ClassVar[str | None] = None  # "day" / "night" where the rules say
    night_zero: ClassVar[bool] = False  # a night before day 1 with no night actions
    # The player voted out speaks last words before the day ends (classic, city): the
    # site tells the thread the verdict when the vote closes, before those words.
    gives_last_words: ClassVar[bool] = False
    # Settings the game itself decides each day, not the host (city: who is vote-immune).
    game_decided: ClassVar[frozenset[str]] = frozenset()
    # How a host's setting is asked for (a whole number): its label, least and most.
    setting_fields: ClassVar[Mapping[str, tuple[str, int, int | None]]] = {}
    # What the reply box says under it on this table's day (a post is a turn, not a vote).
    reply_hint: ClassVar[str] = gettext_noop(
        "Post in your turn: the table beside the thread says whose turn it is. A post "
        "does not vote: vote with the table's buttons."
    )

    # -- what the site asks the script instead of branching on its name ------------------
    @property
    def host_settings(self) -> tuple[str, ...]:
        """The settings a host chooses when creating the game, in ``defaults`` order."""
        return tuple(k for k in self.defaults if k not in self.game_decided)

    def settings_from_game(self, game: GameState) -> dict[str, Any]:
        """Today's ``game_decided`` settings, read from the game's state; default: none."""
        return {}

    def split_post(self, body: str) -> tuple[str, tuple[str, ...]]:
        """A post's text for the thread and the tokens it carries (power: skip-discussion
        lines); default: the whole text, no tokens."""
        return body, ()

    def token_events(
        self, state: DayState, player: str, tokens: Sequence[str]
    ) -> list[dict[str, str]]:
        """The events a post's tokens send now; default: none."""
        return []

    # -- public API ----------------------------------------------------------------------
    def start_day(
        self,
        seats: Sequence[str],
        alive: Iterable[str],
        day_number: int,
        settings: Mapping[str, Any] | None = None,
        *,
        seed: int = 0,
    ) -> DayState:
        """The state at the start of day ``day_number`` (1-based)."""
        seats = tuple(seats)
        if len(set(seats)) != len(seats) or not all(isinstance(s, str) and s for s in seats):
            raise DayRuleError(_("Seats must be distinct player names."))
        living = set(alive)
        if not living <= set(seats):
            raise DayRuleError(
                _("No seat for %(players)s.") % {"players": names(sorted(living - set(seats)))}
            )
        if not _is_int(day_number) or day_number < 1:
            raise DayRuleError(_("Days are numbered from 1."))
        state = DayState(
            ruleset=self.name,
            day=day_number,
            seats=seats,
            alive=tuple(p for p in seats if p in living),
            settings=frozen_map(self.check_settings(settings or {}, seats, living)),
            seed=seed,
            announce_deaths=self.announces_deaths(day_number),
        )
        return self.first_step(state, [])

    def now(self, state: DayState) -> Turn:
        """Which step the day is in, who may act, and what they may do."""
        if state.step == DONE:
            return Turn(DONE, None, (), state.round, frozen_map())
        if state.step == VOTE:
            votes = {p: (VOTE_EVENT,) for p in state.alive}
            return Turn(
                VOTE,
                None,
                state.order,
                state.round,
                frozen_map(votes),
                options=state.ballot,
                timer=VOTE,
            )
        speaker = state.order[state.turn]
        actions: dict[str, tuple[str, ...]] = dict(self.extra_actions(state))
        own = self.turn_actions(state)
        actions[speaker] = tuple(sorted({*actions.get(speaker, ()), *own}))
        return Turn(
            step=state.step,
            speaker=speaker,
            order=state.order,
            round=state.round,
            actions=frozen_map({p: actions[p] for p in state.alive if actions.get(p)}),
            ends_on_post=self.ends_on_post(state),
            options=self.turn_options(state),
            word_limit=self.word_limit(state),
            timer="turn",
            messages_left=self.messages_left(state),
        )

    def apply(self, state: DayState, event: Mapping[str, Any]) -> tuple[DayState, list[Notice]]:
        """The state after ``event``, and what to tell the table; DayRuleError if illegal."""
        if not isinstance(event, Mapping) or not isinstance(event.get("kind"), str):
            raise DayRuleError(_('An event is an object with a "kind".'))
        kind = event["kind"]
        if kind not in PLAYER_EVENTS | TIMER_EVENTS | SITE_EVENTS:
            raise DayRuleError(_("Unknown event kind %(kind)s.") % {"kind": repr(kind)})
        if state.step == DONE:
            raise DayRuleError(_("The day is over: nothing more can happen today."))
        out: Out = []
        if kind in TIMER_EVENTS:
            return self._timer(state, kind, out), out
        player = self._check_player(state, event.get("player"))
        if kind == REMOVED:
            return self._removed(state, player, out), out
        if player not in state.acted:  # here today, even if what they sent is refused
            state = replace(state, acted=(*state.acted, player))
        if kind == INVALID:
            return self._refused(state, player, str(event.get("reason") or ""), out), out
        turn = self.now(state)
        if not turn.may(player, kind):
            raise DayRuleError(*self._why_not(state, turn, player, kind))
        handler = getattr(self, f"_on_{kind}")
        return handler(state, player, event, out), out

    def day_votes(self, state: DayState) -> DayVotes:
        """The day's ballots in the resolver's own format (for ``play_day``/``resolve_day``)."""
        first = state.rounds[0] if state.rounds else {}
        revote = state.rounds[1] if len(state.rounds) > 1 else None
        return DayVotes(first, state.nominations or None, revote)

    def resolve(self, game: GameState, state: DayState) -> DayOutcome:
        """Apply a finished day to the game through the rule set's own day resolution.

        The rule set gives the new game state, reveals and co-winners; the script's own
        verdict must agree with it (it is computed by the same functions), else this raises.
        """
        if state.step != DONE:
            raise DayRuleError(_("The day is not over yet."))
        if state.removed:
            return self._resolve_after_removal(game, state)
        outcome = get_ruleset(self.name).resolve_day(game, self.day_votes(state))
        if outcome.eliminated != state.eliminated or outcome.revote:
            raise DayRuleError(
                _(
                    "The day script eliminated %(script)s but the rule set resolves the same "
                    "ballots to %(rules)s."
                )
                % {
                    "script": state.eliminated or _("nobody"),
                    "rules": outcome.eliminated or _("nobody"),
                }
            )
        return outcome

    def _resolve_after_removal(self, game: GameState, state: DayState) -> DayOutcome:
        """A day someone left mid-way: the ballots cast before they died cannot be counted
        again by the rule set (its table has them dead), so it applies the script's verdict
        (a unanimous ballot for the player voted out, or none) and the script explains."""
        alive = [p for p in state.alive if p != state.eliminated]
        if state.eliminated is None:
            votes = DayVotes({})
        else:
            voters = alive or [state.eliminated]
            ballot = {p: state.eliminated for p in voters}
            rules = get_ruleset(self.name)
            # Where votes need nominations, the voted-out player was nominated by all.
            votes = DayVotes(ballot, ballot if rules.uses_nominations else None)
        outcome = get_ruleset(self.name).resolve_day(game, votes)
        if outcome.eliminated != state.eliminated or outcome.revote:
            raise DayRuleError(
                _("The rule set cannot apply the verdict on %(player)s.")
                % {"player": state.eliminated}
            )
        return replace(outcome, explanation=state.explanation)

    # -- data a script may override ----------------------------------------------------
    def announces_deaths(self, day_number: int) -> bool:
        return True

    def night_abilities(self, night_number: int) -> frozenset[str] | None:
        """Night abilities allowed on this night (None: whatever the rule set allows)."""
        return None

    def check_settings(
        self, raw: Mapping[str, Any], seats: Sequence[str], alive: set[str]
    ) -> dict[str, Any]:
        settings = dict(self.defaults)
        for key, value in raw.items():
            if key not in self.defaults:
                known = ", ".join(sorted(self.defaults)) or _("none")
                raise DayRuleError(
                    _("Unknown day setting %(setting)s (known: %(known)s).")
                    % {"setting": repr(key), "known": known}
                )
            default = self.defaults[key]
            if _is_int(default) and not (_is_int(value) and value >= 0):
                raise DayRuleError(
                    _("The day setting %(setting)s must be a whole number, 0 or more.")
                    % {"setting": key}
                )
            settings[key] = value
        return settings

    # -- hooks -------------------------------------------------------------------------
    def first_step(self, state: DayState, out: Out) -> DayState:
        raise NotImplementedError

    def step_over(self, state: DayState, out: Out) -> DayState:
        """The state after the last turn of a turn step."""
        raise NotImplementedError

    def count(self, state: DayState, out: Out) -> DayState:
        """The state after a vote closes (``state.rounds[-1]`` holds its ballots)."""
        raise NotImplementedError

    def turn_actions(self, state: DayState) -> tuple[str, ...]:
        """What the speaker may send now (by default: speak once, or pass)."""
        return (PASS, POST)

    def extra_actions(self, state: DayState) -> Mapping[str, tuple[str, ...]]:
        """Actions of other players during a turn (power's skip-discussion votes)."""
        return {}

    def ends_on_post(self, state: DayState) -> bool:
        return True

    def turn_options(self, state: DayState) -> tuple[str, ...]:
        return ()

    def word_limit(self, state: DayState) -> int | None:
        return None

    def messages_left(self, state: DayState) -> int | None:
        return None

    def on_post(self, state: DayState, player: str, event: Mapping[str, Any], out: Out) -> DayState:
        """Checks and bookkeeping of a post beyond the word limit (e.g. a question's target)."""
        return state

    def on_pass(self, state: DayState, player: str, out: Out) -> DayState:
        return state

    def on_nominate(self, state: DayState, player: str, target: Any, out: Out) -> DayState:
        raise DayRuleError(_("There are no nominations in these rules."))

    def after_removal(self, state: DayState, out: Out) -> DayState:
        """Anything else a script must redo when a player leaves (power's skip majority)."""
        return state

    def turn_default(self, state: DayState, out: Out, why: str) -> DayState:
        """The document's default when a turn times out or runs out of attempts: a pass.
        ``why`` says it of the speaker: "%(player)s ran out of time" (a template)."""
        line = _("%(why)s: the turn passes.") % {"why": why % {"player": state.speaker}}
        out.append(Notice("default", line, state.speaker))
        return self.next_turn(self.on_pass(state, state.speaker or "", out), out)

    def after_turn(self, state: DayState, out: Out) -> DayState:
        """Where the floor goes after a turn: the next in order, or the step is over."""
        if state.turn + 1 >= len(state.order):
            return self.step_over(replace(state, turn=len(state.order)), out)
        return replace(state, turn=state.turn + 1)

    # -- building blocks for scripts ---------------------------------------------------
    def begin_turns(
        self, state: DayState, step: str, order: Sequence[str], out: Out, round_: int = 1
    ) -> DayState:
        state = replace(
            state,
            step=step,
            order=tuple(order),
            turn=0,
            round=round_,
            posted=False,
            failures=frozen_map(),
        )
        if not order:
            return self.step_over(state, out)
        out.append(
            Notice(
                "step",
                _("%(step)s: %(players)s.")
                % {"step": _step_name(step), "players": ", ".join(order)},
            )
        )
        return state

    def begin_vote(
        self, state: DayState, ballot: Sequence[str], out: Out, round_: int = 1
    ) -> DayState:
        if all(t == SKIP for t in ballot):  # everyone it was for has left (modkills)
            return self.finish(state, out, _("Nobody is left on the ballot: nobody is eliminated."))
        line = _("Vote again: %(ballot)s.") if round_ > 1 else _("Vote: %(ballot)s.")
        out.append(Notice("step", line % {"ballot": ", ".join(_ballot_names(ballot))}))
        return replace(
            state,
            step=VOTE,
            ballot=tuple(ballot),
            votes=frozen_map(),
            round=round_,
            order=(),  # nobody has a turn: everyone votes at once
            turn=0,
            posted=False,
            failures=frozen_map(),
        )

    def finish(self, state: DayState, out: Out, *lines: str) -> DayState:
        state = replace(
            state,
            step=DONE,
            turn=0,
            posted=False,
            failures=frozen_map(),
            explanation=(*state.explanation, *lines),
        )
        out.append(Notice("outcome", " ".join(state.explanation), state.eliminated))
        return state

    def day_order(self, state: DayState) -> tuple[str, ...]:
        """Today's speaking order of the living (defense speeches follow it too)."""
        return speaking_order(state.seats, state.alive, state.day)

    def explain(self, state: DayState, *lines: str) -> DayState:
        return replace(state, explanation=(*state.explanation, *lines))

    def next_turn(self, state: DayState, out: Out) -> DayState:
        state = replace(state, posted=False, failures=frozen_map())
        return self.after_turn(state, out)

    def rng(self, state: DayState, player: str) -> random.Random:
        """A generator seeded by the day's seed and this very turn: defaults replay the same."""
        key = f"{state.seed}:{state.day}:{state.step}:{state.round}:{state.turn}:{player}"
        return random.Random(key)

    # -- event handlers ----------------------------------------------------------------
    def _on_post(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        words = event.get("words")
        limit = self.word_limit(state)
        if words is not None and not (_is_int(words) and words >= 0):
            raise DayRuleError(_("A post's word count must be a whole number."))
        if limit is not None:
            if words is None:
                raise DayRuleError(
                    _("A speech must say how many words it has (limit: %(limit)s).")
                    % {"limit": limit}
                )
            if words > limit:
                raise DayRuleError(
                    ngettext(
                        "%(player)s's speech has %(words)s words; the limit is %(limit)s. "
                        "Shorten it and post again.",
                        "%(player)s's speech has %(words)s words; the limit is %(limit)s. "
                        "Shorten it and post again.",
                        words,
                    )
                    % {"player": player, "words": words, "limit": limit},
                    SPEECH_TOO_LONG,
                )
        state = replace(self.on_post(state, player, event, out), posted=True)
        if self.ends_on_post(state):
            return self.next_turn(state, out)
        return state

    def _on_pass(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        return self.next_turn(self.on_pass(state, player, out), out)

    def _on_nominate(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        return self.next_turn(self.on_nominate(state, player, event.get("target"), out), out)

    def _on_vote(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        target = event.get("target")
        if target not in state.ballot:
            raise DayRuleError(
                _("%(player)s cannot vote for %(target)s: the ballot is %(ballot)s.")
                % {"player": player, "target": repr(target), "ballot": ", ".join(state.ballot)}
            )
        votes = {**state.votes, player: target}
        line = _("%(player)s votes skip.") if target == SKIP else _("%(player)s votes %(target)s.")
        out.append(Notice(VOTE_EVENT, line % {"player": player, "target": target}, player))
        state = replace(state, votes=frozen_map(votes), failures=_without(state.failures, player))
        if all(p in votes for p in state.alive):  # everyone has voted: nothing left to wait for
            return self._close(state, out)
        return state

    def _on_vote_skip_discussion(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        raise DayRuleError(_("There is no skip-discussion vote in these rules."))

    def _on_unvote_skip_discussion(
        self, state: DayState, player: str, event: Mapping[str, Any], out: Out
    ) -> DayState:
        raise DayRuleError(_("There is no skip-discussion vote in these rules."))

    def _timer(self, state: DayState, kind: str, out: Out) -> DayState:
        if state.step == VOTE:  # a turn timer during the vote also closes it
            return self._close(state, out)
        if kind == CLOSE_VOTE:
            raise DayRuleError(
                _("There is no vote to close: the day is in the %(step)s.")
                % {"step": _step_slug(state.step)}
            )
        return self.turn_default(state, out, _("%(player)s ran out of time"))

    def _close(self, state: DayState, out: Out) -> DayState:
        votes = dict(state.votes)
        missing = [p for p in state.alive if p not in votes]
        if missing and self.missing_vote is not None:
            votes.update({p: self.missing_vote for p in missing})
            line = (
                _("%(players)s did not vote: counted as skip (the default).")
                if self.missing_vote == SKIP
                else _("%(players)s did not vote: counted as %(default)s (the default).")
            )
            state = self.explain(
                state, line % {"players": names(missing), "default": self.missing_vote}
            )
        state = replace(state, votes=frozen_map(votes), rounds=(*state.rounds, frozen_map(votes)))
        return self.count(state, out)

    def _removed(self, state: DayState, player: str, out: Out) -> DayState:
        """A player died during the day (a modkill): they lose their turns and their ballot,
        cannot be voted for, and nothing waits for them any more."""
        out.append(
            Notice("removed", _("%(player)s has left the table.") % {"player": player}, player)
        )
        state = replace(
            state,
            alive=tuple(p for p in state.alive if p != player),
            removed=(*state.removed, player),
            tied=tuple(p for p in state.tied if p != player),
            skip_discussion=tuple(p for p in state.skip_discussion if p != player),
            failures=_without(state.failures, player),
            explanation=(
                *state.explanation,
                _("%(player)s died during the day (removed).") % {"player": player},
            ),
        )
        if state.step == VOTE:
            return self._removed_from_vote(state, player, out)
        if player not in state.order:
            return self.after_removal(state, out)
        where = state.order.index(player)
        order = tuple(p for p in state.order if p != player)
        if where != state.turn:  # someone else has the floor: they keep it
            turn = state.turn - 1 if where < state.turn else state.turn
            return self.after_removal(replace(state, order=order, turn=turn), out)
        # The speaker: the floor goes to whoever was next (after_turn moves it on by one).
        state = replace(state, order=order, turn=where - 1, posted=False)
        state = self.after_turn(state, out)
        return state if state.done else self.after_removal(state, out)

    def _removed_from_vote(self, state: DayState, player: str, out: Out) -> DayState:
        votes = {v: t for v, t in state.votes.items() if v != player}
        for voter in [v for v, t in votes.items() if t == player]:
            del votes[voter]  # a ballot for a player no longer there: vote again
            line = _("%(player)s has left: %(voter)s's vote no longer counts.")
            out.append(Notice("vote_void", line % {"player": player, "voter": voter}, voter))
        ballot = tuple(t for t in state.ballot if t != player)
        state = replace(state, votes=frozen_map(votes), ballot=ballot)
        if all(t == SKIP for t in ballot):
            return self.finish(state, out, _("Nobody is left on the ballot: nobody is eliminated."))
        if state.alive and all(p in votes for p in state.alive):
            return self._close(state, out)
        return state

    def _refused(self, state: DayState, player: str, reason: str, out: Out) -> DayState:
        """A refused attempt: counted against a player who has something to do now."""
        turn = self.now(state)
        text = (
            _("%(player)s's attempt was refused: %(reason)s")
            if reason
            else _("%(player)s's attempt was refused.")
        ) % {"player": player, "reason": reason}
        out.append(Notice("refused", text, player))
        if self.max_attempts is None or not turn.actions.get(player):
            return state
        if state.step == VOTE and player in state.votes:
            return state  # their valid vote stands: a later bad attempt does not undo it
        if state.step != VOTE and player != turn.speaker:
            return state  # a skip-discussion token gone wrong costs the turn nothing
        failed = state.failures.get(player, 0) + 1
        state = replace(state, failures=frozen_map({**state.failures, player: failed}))
        if failed < self.max_attempts:
            return state
        if state.step == VOTE:
            default = self.missing_vote or SKIP
            line = (
                ngettext(
                    "%(player)s failed %(failed)s times: their vote is skip.",
                    "%(player)s failed %(failed)s times: their vote is skip.",
                    failed,
                )
                if default == SKIP
                else ngettext(
                    "%(player)s failed %(failed)s times: their vote is %(default)s.",
                    "%(player)s failed %(failed)s times: their vote is %(default)s.",
                    failed,
                )
            )
            values = {"player": player, "failed": failed, "default": default}
            out.append(Notice("default", line % values, player))
            return self._on_vote(state, player, {"target": default}, out)
        # A template still naming the speaker as %(player)s: turn_default fills it in.
        why = ngettext(
            "%(player)s failed %(failed)s times", "%(player)s failed %(failed)s times", failed
        ) % {"player": "%(player)s", "failed": failed}
        return self.turn_default(state, out, why)

    def _check_player(self, state: DayState, player: object) -> str:
        """``player`` as a seat's name (an event's field is whatever was sent)."""
        if not isinstance(player, str) or player not in state.seats:
            raise DayRuleError(
                _("%(player)s is not a player in this game.") % {"player": repr(player)}
            )
        if player not in state.alive:
            raise DayRuleError(_("%(actor)s is dead and cannot act.") % {"actor": player})
        return player

    def _why_not(self, state: DayState, turn: Turn, player: str, kind: str) -> tuple[str, str]:
        """(why, its code) for an event ``turn`` does not allow ``player`` now."""
        step = _step_in(state.step)
        act = _act(kind)
        values = {"player": player, "speaker": turn.speaker, "step": step, "act": act}
        if kind == POST and state.posted and player == turn.speaker:
            return _("%(player)s has already spoken this turn.") % values, OUT_OF_TURN
        # A post is the speaker's in every step that has one, even once they have posted
        # (a classic speaker still to nominate): whose turn it is is the answer.
        speakers = turn.may(turn.speaker, kind) or kind == POST
        if turn.speaker is not None and speakers and player != turn.speaker:
            line = _("It is %(speaker)s's turn (%(step)s), not %(player)s's.")
            return line % values, OUT_OF_TURN
        if not any(kind in kinds for kinds in turn.actions.values()):
            return _("Nobody can %(act)s during the %(step)s.") % values, NOT_IN_STEP
        return _("%(player)s cannot %(act)s now.") % values, OUT_OF_TURN


def _step_name(step: str) -> str:
    """A step's title at the head of a line ("Speeches: P1, P2."), in the reader's language."""
    titles = {
        SPEECH: lambda: pgettext("day step title", "Speeches"),
        DEFENSE: lambda: pgettext("day step title", "Defense speeches"),
        LAST_WORDS: lambda: pgettext("day step title", "Last words"),
        QUESTION: lambda: pgettext("day step title", "Question round"),
        DISCUSSION: lambda: pgettext("day step title", "Open discussion"),
        STATEMENT: lambda: pgettext("day step title", "Pre-vote statements"),
        VOTE: lambda: pgettext("day step title", "Vote"),
        DONE: lambda: pgettext("day step title", "Day over"),
    }
    title = titles.get(step)
    return title() if title else step


def _step_in(step: str) -> str:
    """A step's name inside a sentence ("during the %(step)s")."""
    names_in = {
        SPEECH: lambda: pgettext("during the day step", "speeches"),
        DEFENSE: lambda: pgettext("during the day step", "defense speeches"),
        LAST_WORDS: lambda: pgettext("during the day step", "last words"),
        QUESTION: lambda: pgettext("during the day step", "question round"),
        DISCUSSION: lambda: pgettext("during the day step", "open discussion"),
        STATEMENT: lambda: pgettext("during the day step", "pre-vote statements"),
        VOTE: lambda: pgettext("during the day step", "vote"),
        DONE: lambda: pgettext("during the day step", "day over"),
    }
    name = names_in.get(step)
    return name() if name else step


def _step_slug(step: str) -> str:
    """A step as "the day is in the %(step)s" names it (in English, its slug)."""
    slugs = {
        SPEECH: lambda: pgettext("the day is in the step", "speech"),
        DEFENSE: lambda: pgettext("the day is in the step", "defense"),
        LAST_WORDS: lambda: pgettext("the day is in the step", "last_words"),
        QUESTION: lambda: pgettext("the day is in the step", "question"),
        DISCUSSION: lambda: pgettext("the day is in the step", "discussion"),
        STATEMENT: lambda: pgettext("the day is in the step", "statement"),
        VOTE: lambda: pgettext("the day is in the step", "vote"),
        DONE: lambda: pgettext("the day is in the step", "done"),
    }
    slug = slugs.get(step)
    return slug() if slug else step


def _act(kind: str) -> str:
    """What an event kind does, inside "Nobody can %(act)s during the %(step)s."."""
    acts = {
        POST: lambda: pgettext("day act", "post"),
        PASS: lambda: pgettext("day act", "pass"),
        NOMINATE: lambda: pgettext("day act", "nominate"),
        VOTE_EVENT: lambda: pgettext("day act", "vote"),
        VOTE_SKIP_DISCUSSION: lambda: pgettext("day act", "vote skip discussion"),
        UNVOTE_SKIP_DISCUSSION: lambda: pgettext("day act", "unvote skip discussion"),
    }
    act = acts.get(kind)
    return act() if act else kind.replace("_", " ")


def _ballot_names(ballot: Sequence[str]) -> list[str]:
    """A ballot's names as people read them ("skip" in their language)."""
    return [_("skip") if t == SKIP else t for t in ballot]


def _without(mapping: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    return frozen_map({k: v for k, v in mapping.items() if k != key})


def attempt(
    script: DayScript, state: DayState, event: Mapping[str, Any]
) -> tuple[DayState, list[Notice], DayRuleError | None]:
    """Apply a player's event; if it is refused, count the refusal instead.

    Returns (state, notices, refusal): None when the event was applied, else the error
    that refused it (the state then has the refusal counted, and after the rules' number
    of failed attempts the default applied). Timer events are applied as they are.
    """
    try:
        new, notices = script.apply(state, event)
        return new, notices, None
    except DayRuleError as error:
        player = event.get("player") if isinstance(event, Mapping) else None
        if not isinstance(player, str) or player not in state.alive or state.step == DONE:
            raise
        new, notices = script.apply(
            state, {"kind": INVALID, "player": player, "reason": error.reason}
        )
        return new, notices, error
