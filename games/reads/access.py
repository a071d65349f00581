"""Who may see what: the one place the web pages, the API and the live layer ask.

Hidden information is decided here and nowhere else: which threads a person may read (and
so which live audiences their socket follows: ``audiences``), whether they may see roles,
night actions and private results. Services decide who may *change* what; this module only
decides who may *look*.

- Anyone (even anonymous) reads the game thread, the vote count and public deaths.
- A player reads their own role PM, results and the private threads of their team while
  alive (mafia chat: living mafia; masons' and neighbors' threads: their living members),
  the dead thread once dead.
- The host reads everything. After the game ends everyone reads everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.http import Http404

from ..models import ROLE_THREADS, TEAM_THREADS, Game, Slot, Thread

THREAD_LABELS = dict(Thread.choices)
PRIVATE_THREADS = (Thread.MAFIA, *TEAM_THREADS, Thread.DEAD)
# The live audiences besides "public" and each slot's own: the host's and the private
# threads' (an audience of a private thread is named as the thread).
PRIVATE_AUDIENCES = ("host", *PRIVATE_THREADS)


# -- the policy ---------------------------------------------------------------------------
def sees_everything(game: Game, user: Any) -> bool:
    """The host during the game; everybody once the game is over."""
    if game.is_finished:
        return True
    return bool(getattr(user, "is_authenticated", False)) and user.pk == game.host_id


def private_threads_of(game: Game, slot: Slot | None) -> frozenset[str]:
    """The private threads the player in ``slot`` follows while the game runs: the mafia
    chat and their team's thread while alive in it, the dead thread once dead."""
    if slot is None or not game.is_running:
        return frozenset()
    if not slot.alive:
        return frozenset({Thread.DEAD.value})
    threads = set()
    if slot.is_mafia:
        threads.add(Thread.MAFIA.value)
    if slot.private_thread:
        threads.add(slot.private_thread)
    return frozenset(threads)


def every_audience(slot_ids: Iterable[int]) -> frozenset[str]:
    """Every live audience of a game with these slots (the host's view, the archive's)."""
    return frozenset({"public", *PRIVATE_AUDIENCES, *(f"slot:{i}" for i in slot_ids)})


def audiences(game: Game, user: Any, slots: Iterable[Slot]) -> frozenset[str]:
    """The live audiences ``user`` follows of ``game``, from rows already read (the game and
    all its slots): public, their own slot's and the private threads they may read, by the
    same rules as ``Viewer.can_read``; everything for the host and after the game."""
    slots = list(slots)
    if sees_everything(game, user):
        return every_audience(s.pk for s in slots)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    slot = next((s for s in slots if user_id is not None and s.user_id == user_id), None)
    own = {f"slot:{slot.pk}"} if slot is not None else set()
    return frozenset({"public", *own, *private_threads_of(game, slot)})


def user_audiences(game: Game, user: Any) -> frozenset[str]:
    """``audiences`` read from the database in one query: the user's own slot, or for
    someone who sees everything the ids of all the game's slots."""
    if sees_everything(game, user):
        return every_audience(Slot.objects.filter(game=game).values_list("pk", flat=True))
    if not getattr(user, "is_authenticated", False):
        return audiences(game, user, ())
    return audiences(game, user, Slot.objects.filter(game=game, user_id=user.pk))


@dataclass
class Viewer:
    """A person looking at one game: their slot (if any) and what that lets them see."""

    game: Game
    user: Any
    slot: Slot | None
    # The game's slots when the caller has read them all (answers from memory, not queries).
    slots: list[Slot] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, game: Game, user: Any, slots: list[Slot] | None = None) -> Viewer:
        slot = None
        if getattr(user, "is_authenticated", False):
            if slots is not None:
                slot = next((s for s in slots if s.user_id == user.pk), None)
            else:
                slot = game.slots.select_related("user").filter(user=user).first()
        return cls(game, user, slot, slots)

    # -- who ----------------------------------------------------------------------------
    @property
    def is_authenticated(self) -> bool:
        return bool(getattr(self.user, "is_authenticated", False))

    @property
    def is_host(self) -> bool:
        return self.is_authenticated and self.user.pk == self.game.host_id

    @property
    def is_player(self) -> bool:
        return self.slot is not None

    @property
    def sees_everything(self) -> bool:
        """The host during the game; everybody once the game is over."""
        return sees_everything(self.game, self.user)

    @property
    def has_role(self) -> bool:
        return self.slot is not None and bool(self.slot.role) and not self.game.is_signups

    # -- threads -------------------------------------------------------------------------
    def thread_exists(self, thread: str) -> bool:
        """Private threads exist only where the game has the team (or, for the dead, once
        anyone can be dead)."""
        if thread == Thread.PUBLIC:
            return True
        if self.game.is_signups or self.game.is_cancelled:
            return False
        if thread == Thread.DEAD:
            return True
        if thread == Thread.MAFIA:
            if self.slots is not None:
                return any(s.alignment == "mafia" for s in self.slots)
            return self.game.slots.filter(alignment="mafia").exists()
        if thread in TEAM_THREADS:
            roles = [r for r, t in ROLE_THREADS.items() if t == thread]
            if self.slots is not None:
                return any(s.role in roles for s in self.slots)
            return self.game.slots.filter(role__in=roles).exists()
        return False

    def can_read(self, thread: str) -> bool:
        if thread not in THREAD_LABELS or not self.thread_exists(thread):
            return False
        if thread == Thread.PUBLIC or self.sees_everything:
            return True
        return thread in private_threads_of(self.game, self.slot)

    def readable_threads(self) -> list[tuple[str, str]]:
        return [(t, THREAD_LABELS[t]) for t in THREAD_LABELS if self.can_read(t)]

    def require_read(self, thread: str) -> None:
        """404, not 403: a non-member must not even learn that the thread has posts."""
        if not self.can_read(thread):
            raise Http404("No such thread.")

    def posting_block(self, thread: str, current: Any = None) -> str:
        """Why this viewer cannot post here now ("" if they can). Services are the
        authority; this only decides whether to show the reply box. ``current``: the
        game's current phase when the caller has read it."""
        game = self.game
        if not self.is_authenticated:
            return "Log in to post."
        if self.is_host:
            return ""
        slot = self.slot
        if slot is None:
            return "Only the players and the host post in this game."
        if game.is_finished and thread != Thread.PUBLIC:
            return "The game is over: its private threads are closed."
        if game.is_cancelled:
            return "The host cancelled this game."
        if thread == Thread.PUBLIC and game.is_running:
            if not slot.alive:
                return "Dead players cannot post in the game thread; use the dead thread."
            phase = current if current is not None else game.current_phase()
            if game.no_night_posting and phase is not None and phase.is_night:
                return "Nobody but the host posts in the game thread at night."
        if thread == Thread.DEAD and slot.alive:
            return "Only dead players post in the dead thread."
        if thread in (Thread.MAFIA, *TEAM_THREADS) and not self.can_read(thread):
            return "You cannot post in this thread."
        return ""

    # -- roles ---------------------------------------------------------------------------
    def public_role(self, slot: Slot) -> str:
        """The role this viewer may see for ``slot`` in public lists ("" = hidden)."""
        if self.sees_everything:
            return slot.role
        if not slot.alive and slot.revealed_role:
            return slot.revealed_role
        return ""


def get_game(game_id: int) -> Game:
    try:
        return Game.objects.select_related("host").get(pk=game_id)
    except Game.DoesNotExist:
        raise Http404("No such game.") from None
