"""Who may do what now: the one answer the pages, the API and the services share.

For a person and a game at this moment, this layer says which threads they may post in
(``post_refusal``; reading is ``access``'s), which host controls are open to them
(``host_controls``) and whether they may whisper or write their will. Whom they may vote
for and which night and day actions they may take is ``options``'s (the forms offer
exactly what the services accept); whose turn it is, ``table``'s.

The pages show its answers (the reply box or why there is none, the host's buttons), the
services raise its refusals, and the API documents their codes (``POSTING``,
``WHISPERING``, ``WILLS``, ``host_control_refusals``). Nothing else decides, so a page
never offers what the service refuses (``tests/site/test_policy.py``).

Every refusal is a ``Refusal``: the error class (and so the HTTP status), the code, the
sentence people read. They are declared once here, as constants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext_lazy

from ..errors import ErrorCode, NotAllowed, NotFound, Refusal, WrongPhase
from ..models import TEAM_THREADS, Game, GameStatus, Phase, Slot, Thread, Whispers
from .access import Viewer, is_host
from .moderation import mute_of, standing_sentence


def _(text: str) -> str:
    """A refusal's sentence, said in the reader's language when it is read (the constants
    below are made once, at import)."""
    return gettext_lazy(text)  # type: ignore[return-value]  # a lazy str: read as a str


def require(refusal: Refusal | None) -> None:
    """Raise the refusal, if there is one (the services' side of the policy)."""
    if refusal is not None:
        raise refusal.error()


# -- the refusals, once -------------------------------------------------------------------
LOG_IN = Refusal(_("Log in to post."), ErrorCode.LOGIN, kind=NotAllowed)
MUTED = Refusal(
    _("You are muted."), ErrorCode.MUTED, kind=NotAllowed
)  # says the mute's own sentence
NO_THREAD = Refusal(_("There is no such thread."), ErrorCode.NO_THREAD, "thread", kind=NotFound)
NOT_PLAYER = Refusal(
    _("Only the players and the host post in this game."), ErrorCode.NOT_PLAYER, kind=NotAllowed
)
CANCELLED = Refusal(_("The host cancelled this game."), ErrorCode.CANCELLED, kind=WrongPhase)
SIGNUPS = Refusal(
    _("Only the game thread is open during sign-ups."), ErrorCode.SIGNUPS, kind=WrongPhase
)
THREADS_CLOSED = Refusal(
    _("The game is over: its private threads are closed."), ErrorCode.GAME_OVER, kind=WrongPhase
)
DEAD = Refusal(
    _("Dead players cannot post in the game thread; use the dead thread."),
    ErrorCode.DEAD,
    kind=NotAllowed,
)
NIGHT = Refusal(
    _("Nobody but the host posts in the game thread at night."), ErrorCode.NIGHT, kind=WrongPhase
)
NOT_MAFIA = Refusal(_("You cannot post in the mafia chat."), ErrorCode.NOT_MAFIA, kind=NotAllowed)
NOT_DEAD = Refusal(
    _("Only dead players post in the dead thread."), ErrorCode.NOT_DEAD, kind=NotAllowed
)
# Everyone outside a team thread is told so with the team's code.
OUTSIDERS = {
    Thread.MASONS: Refusal(
        _("You cannot post in the Masons' thread."), ErrorCode.NOT_MASON, kind=NotAllowed
    ),
    Thread.NEIGHBORS: Refusal(
        _("You cannot post in the Neighbors' thread."), ErrorCode.NOT_NEIGHBOR, kind=NotAllowed
    ),
}

NOT_HOST = Refusal(_("Only the host can do that."), ErrorCode.NOT_HOST, kind=NotAllowed)
NOT_THE_HOST = Refusal(
    _("Only the game's host chooses its co-hosts and hands it over."),
    ErrorCode.NOT_THE_HOST,
    kind=NotAllowed,
)
NOT_STARTED = Refusal(_("The game has not started yet."), ErrorCode.NOT_STARTED, kind=WrongPhase)
GAME_OVER = Refusal(_("The game is over."), ErrorCode.GAME_OVER, kind=WrongPhase)
NO_PHASE = Refusal(_("There is no phase in progress."), ErrorCode.NO_PHASE, kind=WrongPhase)
PAUSED_NO_CUT = Refusal(
    _("Resume the game before ending the phase."), ErrorCode.PAUSED, kind=WrongPhase
)
ALREADY_PAUSED = Refusal(_("The game is already paused."), ErrorCode.PAUSED, kind=WrongPhase)
NOT_PAUSED = Refusal(_("The game is not paused."), ErrorCode.NOT_PAUSED, kind=WrongPhase)
NO_TURN = Refusal(
    _("There is no turn to skip: this is not a table day."), ErrorCode.NO_TURN, kind=WrongPhase
)
NOT_DAY = Refusal(_("Vote counts are posted by day."), ErrorCode.NOT_DAY, kind=WrongPhase)
ALREADY_CANCELLED = Refusal(
    _("The game is already cancelled."), ErrorCode.CANCELLED, kind=WrongPhase
)
STARTED = Refusal(
    _("Only a game in sign-ups can be cancelled; this one has started."),
    ErrorCode.SIGNUPS_CLOSED,
    kind=WrongPhase,
)


# -- posting ------------------------------------------------------------------------------
def mute_refusal(user: Any, now: datetime | None = None) -> Refusal | None:
    """A moderator's mute refuses every post (and whisper), in every game, hosts' too."""
    if not getattr(user, "is_authenticated", False):
        return None
    mute = mute_of(user.pk, now)
    return MUTED.saying(standing_sentence(mute)) if mute is not None else None


def post_refusal(
    viewer: Viewer, thread: str, phase: Phase | None, *, now: datetime | None = None
) -> Refusal | None:
    """Why ``viewer`` may not post in ``thread`` now (None: they may). ``phase``: the
    game's current phase (None in sign-ups). The reply box is shown exactly when this is
    None, and ``services.posts`` raises exactly this."""
    game = viewer.game
    if not viewer.is_authenticated:
        return LOG_IN
    muted = mute_refusal(viewer.user, now)
    if muted is not None:
        return muted
    if thread not in Thread.values:
        return NO_THREAD
    if viewer.is_host:
        # The host posts in any thread at any time: one the game has (never into a thread
        # nobody, the host included, can open).
        return None if viewer.thread_exists(thread) else NO_THREAD
    slot = viewer.slot
    if slot is None:
        return NOT_PLAYER
    if game.is_cancelled:
        return CANCELLED
    if game.is_signups:
        return None if thread == Thread.PUBLIC else SIGNUPS
    if game.is_finished:
        return None if thread == Thread.PUBLIC else THREADS_CLOSED
    return _running_post_refusal(game, slot, thread, phase)


def _running_post_refusal(
    game: Game, slot: Slot, thread: str, phase: Phase | None
) -> Refusal | None:
    if thread == Thread.PUBLIC:
        if not slot.alive:
            return DEAD
        if game.no_night_posting and phase is not None and phase.is_night:
            return NIGHT
        return None
    if thread == Thread.MAFIA:
        return None if slot.alive and slot.is_mafia else NOT_MAFIA
    if thread == Thread.DEAD:
        return None if not slot.alive else NOT_DEAD
    if thread in TEAM_THREADS:
        return None if slot.alive and slot.private_thread == thread else OUTSIDERS[Thread(thread)]
    return NO_THREAD


# -- whispers and wills ------------------------------------------------------------------
NO_WHISPERS = Refusal(_("This game has no whispers."), ErrorCode.WHISPERS_OFF, kind=NotAllowed)
WHISPER_LOG_IN = Refusal(_("Log in to whisper."), ErrorCode.LOGIN, kind=NotAllowed)
NOT_IN_GAME = Refusal(_("You are not playing in this game."), ErrorCode.NOT_PLAYER, kind=NotAllowed)
DEAD_PLAYER = Refusal(
    _("You are dead: dead players take no further part."), ErrorCode.DEAD, kind=NotAllowed
)
WHISPER_AT_NIGHT = Refusal(
    _("Whispers are for the day; nobody whispers at night."), ErrorCode.NIGHT, kind=WrongPhase
)
NO_WILLS = Refusal(
    _("This game is played without last wills."), ErrorCode.NO_WILLS, kind=NotAllowed
)


def whisper_refusal(
    viewer: Viewer, phase: Phase | None, *, now: datetime | None = None
) -> Refusal | None:
    """Why ``viewer`` may not whisper now (None: they may, to any other living player):
    the whisper form is shown exactly when this is None."""
    game = viewer.game
    if game.whispers == Whispers.OFF:
        return NO_WHISPERS
    if not viewer.is_authenticated:
        return WHISPER_LOG_IN
    refused = mute_refusal(viewer.user, now) or _running(game, phase)
    if refused is not None:
        return refused
    if viewer.slot is None:
        return NOT_IN_GAME
    if not viewer.slot.alive:
        return DEAD_PLAYER
    if phase is None or phase.resolved:
        return NO_PHASE
    return None if phase.is_day else WHISPER_AT_NIGHT


def will_refusal(game: Game, slot: Slot | None) -> Refusal | None:
    """Why the player in ``slot`` may not write their will now (None: they may): a living
    player's, while the game runs, in a game with last wills."""
    if not game.last_wills:
        return NO_WILLS
    refused = _running(game, None)
    if refused is not None:
        return refused
    if slot is None:
        return NOT_IN_GAME
    return None if slot.alive else DEAD_PLAYER


# -- the host's controls ------------------------------------------------------------------
@dataclass(frozen=True)
class HostControl:
    """One of the host's controls: who may use it (any host, or the game's own host only)
    and when the game allows it."""

    name: str
    when: Callable[[Game, Phase | None], Refusal | None]
    owner_only: bool = False


def _running(game: Game, phase: Phase | None) -> Refusal | None:
    if game.status == GameStatus.SIGNUPS:
        return NOT_STARTED
    if game.status == GameStatus.FINISHED:
        return GAME_OVER
    if game.status == GameStatus.CANCELLED:
        return CANCELLED
    return None


def _in_progress(game: Game, phase: Phase | None) -> Refusal | None:
    """A running game's phase not yet over (the clock's controls)."""
    refused = _running(game, phase)
    if refused is None and (phase is None or phase.resolved):
        return NO_PHASE
    return refused


def _cut(game: Game, phase: Phase | None) -> Refusal | None:
    refused = _in_progress(game, phase)
    if refused is None and phase is not None and phase.is_paused:
        return PAUSED_NO_CUT
    return refused


def _pause(game: Game, phase: Phase | None) -> Refusal | None:
    refused = _in_progress(game, phase)
    if refused is None and phase is not None and phase.is_paused:
        return ALREADY_PAUSED
    return refused


def _resume(game: Game, phase: Phase | None) -> Refusal | None:
    refused = _running(game, phase)
    if refused is None and (phase is None or not phase.is_paused):
        return NOT_PAUSED
    return refused


def _skip_turn(game: Game, phase: Phase | None) -> Refusal | None:
    refused = _running(game, phase)
    if refused is None and not (phase is not None and phase.is_table_day and not phase.resolved):
        return NO_TURN
    return refused


def _count(game: Game, phase: Phase | None) -> Refusal | None:
    refused = _running(game, phase)
    if refused is None and not (phase is not None and phase.is_day and not phase.resolved):
        return NOT_DAY
    return refused


def _cancel(game: Game, phase: Phase | None) -> Refusal | None:
    if game.is_cancelled:
        return ALREADY_CANCELLED
    return None if game.is_signups else STARTED


def _open(game: Game, phase: Phase | None) -> Refusal | None:
    """Not over: the hosts change until the game ends."""
    if game.status == GameStatus.FINISHED:
        return GAME_OVER
    if game.status == GameStatus.CANCELLED:
        return CANCELLED
    return None


def _any_time(game: Game, phase: Phase | None) -> None:
    return None


HOST_CONTROLS = {
    c.name: c
    for c in (
        HostControl("extend", _in_progress),
        HostControl("cut", _cut),
        HostControl("pause", _pause),
        HostControl("resume", _resume),
        HostControl("skip_turn", _skip_turn),
        HostControl("count", _count),
        HostControl("modkill", _running),
        HostControl("replace", _running),
        HostControl("cancel", _cancel),
        HostControl("cohosts", _open, owner_only=True),  # add co-hosts, hand the game over
    )
}


def host_refusal(game: Game, user: Any, control: str, phase: Phase | None) -> Refusal | None:
    """Why ``user`` may not use the host's ``control`` now (None: they may)."""
    spec = HOST_CONTROLS[control]
    if spec.owner_only:
        if not getattr(user, "is_authenticated", False):
            return NOT_HOST
        if user.pk != game.host_id:
            return NOT_THE_HOST
    elif not is_host(game, user):
        return NOT_HOST
    return spec.when(game, phase)


def require_host_control(game: Game, user: Any, control: str, phase: Phase | None) -> None:
    require(host_refusal(game, user, control, phase))


def host_controls(game: Game, user: Any, phase: Phase | None) -> dict[str, bool]:
    """Which of the host's controls are open to ``user`` now: the dashboard shows these."""
    return {name: host_refusal(game, user, name, phase) is None for name in HOST_CONTROLS}


# -- what the API documents ---------------------------------------------------------------
WHISPERING = (
    NO_WHISPERS,
    WHISPER_LOG_IN,
    MUTED,
    NOT_STARTED,
    GAME_OVER,
    CANCELLED,
    NOT_IN_GAME,
    DEAD_PLAYER,
    NO_PHASE,
    WHISPER_AT_NIGHT,
)
WILLS = (NO_WILLS, NOT_STARTED, GAME_OVER, CANCELLED, NOT_IN_GAME, DEAD_PLAYER)
POSTING = (
    LOG_IN,
    MUTED,
    NO_THREAD,
    NOT_PLAYER,
    CANCELLED,
    SIGNUPS,
    THREADS_CLOSED,
    DEAD,
    NIGHT,
    NOT_MAFIA,
    NOT_DEAD,
    *OUTSIDERS.values(),
)


def host_control_refusals(control: str) -> tuple[Refusal, ...]:
    """Every refusal ``control`` can answer with, for its API operation's document."""
    spec = HOST_CONTROLS[control]
    found: list[Refusal] = [NOT_THE_HOST] if spec.owner_only else [NOT_HOST]
    for refusal in _HOST_REFUSALS:
        if (
            any(spec.when(game, phase) == refusal for game, phase in _probes())
            and refusal not in found
        ):
            found.append(refusal)
    return tuple(found)


_HOST_REFUSALS = (
    NOT_STARTED,
    GAME_OVER,
    CANCELLED,
    NO_PHASE,
    PAUSED_NO_CUT,
    ALREADY_PAUSED,
    NOT_PAUSED,
    NO_TURN,
    NOT_DAY,
    ALREADY_CANCELLED,
    STARTED,
)


def _probes() -> Iterable[tuple[Game, Phase | None]]:
    """A game in every state the controls tell apart (unsaved rows, never written)."""
    for status in GameStatus.values:
        game = Game(status=status)
        yield game, None
        for kind in ("day", "night"):
            for resolved in (False, True):
                for paused in (False, True):
                    yield game, _probe_phase(kind, resolved=resolved, paused=paused)


def _probe_phase(kind: str, *, resolved: bool, paused: bool) -> Phase:
    return Phase(
        kind=kind,
        number=1,
        resolved=resolved,
        paused_remaining=timedelta(hours=1) if paused else None,
    )
