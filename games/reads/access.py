"""Who may see what: the one place the web pages, the API and the live layer ask.

Hidden information is decided here and nowhere else: which threads a person may read (and
so which live audiences their socket follows: ``audiences``), whether they may see roles,
night actions and private results. Services decide who may *change* what; this module only
decides who may *look*.

- Anyone (even anonymous) reads the game thread, the vote count and public deaths.
- A player reads their own role PM, results and the private threads of their team while
  alive (mafia chat: living mafia; masons' and neighbors' threads: their living members),
  the dead thread once dead.
- The host reads everything, and so do the game's co-hosts and backup hosts (``is_host``:
  the one answer to "may this person act as the host here"). After the game ends everyone
  reads everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from ..lru import ProcessLRU
from ..models import ROLE_THREADS, TEAM_THREADS, CoHost, Game, Slot, Thread

THREAD_LABELS = dict(Thread.choices)
PRIVATE_THREADS = (Thread.MAFIA, *TEAM_THREADS, Thread.DEAD)
# The live audiences besides "public" and each slot's own: the host's and the private
# threads' (an audience of a private thread is named as the thread).
PRIVATE_AUDIENCES = ("host", *PRIVATE_THREADS)


# -- who hosts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CoHostRef:
    user_id: int
    name: str
    kind: str  # CoHostKind: "cohost" or "backup"

    @property
    def kind_label(self) -> str:
        return _("backup host") if self.kind == "backup" else _("co-host")


# (game, its creation, state_seq) -> its co-hosts. Adding or removing one is a change of
# state (a ``hosts_changed`` event moves ``state_seq``), so an entry is never stale: a page
# that has read the game at S gets co-hosts read after it saw S, as ``reads.snapshot`` does.
_COHOSTS: ProcessLRU[tuple[CoHostRef, ...]] = ProcessLRU(1024)
# The game instance's own copy (one read per request), with the state it was read at: a
# ``refresh_from_db`` that sees a newer state reads them again.
_CACHED = "_cohosts_as_read"


def cohosts(game: Game) -> tuple[CoHostRef, ...]:
    """The game's co-hosts and backup hosts, in the order they were added."""
    mine = game.__dict__.get(_CACHED)
    if mine is not None and mine[0] == game.state_seq:
        return mine[1]
    key = (game.pk, game.created_at, "cohosts", game.state_seq)
    held = _COHOSTS.get(key)
    if held is None:
        held = tuple(
            CoHostRef(c.user_id, c.user.get_username(), c.kind)
            for c in CoHost.objects.filter(game_id=game.pk)
            .select_related("user")
            .order_by("added_at", "pk")
        )
        _COHOSTS.put(key, held)
    game.__dict__[_CACHED] = (game.state_seq, held)
    return held


def set_cohosts(game: Game, refs: Iterable[CoHostRef]) -> None:
    """What a service that changed the co-hosts has just written (its own instance only: the
    process's copy is keyed by the state the commit moves to)."""
    game.__dict__[_CACHED] = (game.state_seq, tuple(refs))


def read_cohosts(games: Iterable[Game]) -> None:
    """Read the co-hosts of many games in one query (a list of games asks ``is_host`` of
    each)."""
    games = [g for g in games if _CACHED not in g.__dict__]
    found: dict[int, list[CoHostRef]] = {g.pk: [] for g in games}
    if games:
        rows = CoHost.objects.filter(game__in=games).select_related("user")
        for c in rows.order_by("added_at", "pk"):
            found[c.game_id].append(CoHostRef(c.user_id, c.user.get_username(), c.kind))
    for game in games:
        set_cohosts(game, found[game.pk])


def host_ids(game: Game) -> frozenset[int]:
    """Everyone who may act as the host of ``game``: the host and its co-hosts."""
    return frozenset({game.host_id, *(c.user_id for c in cohosts(game))})


def is_host(game: Game, user: Any) -> bool:
    """May ``user`` act as the host of ``game`` (see everything, use the host's controls)?
    The host and the game's co-hosts and backup hosts: the one place that decides it."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.pk == game.host_id or user.pk in host_ids(game))


# -- the policy ---------------------------------------------------------------------------
def sees_everything(game: Game, user: Any) -> bool:
    """The host (and co-hosts) during the game; everybody once the game is over."""
    if game.is_finished:
        return True
    return is_host(game, user)


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
        """May act as the host (the host or a co-host): ``is_host``."""
        return is_host(self.game, self.user)

    @property
    def is_the_host(self) -> bool:
        """The game's named owner (``game.host``), not a co-host."""
        return self.is_authenticated and self.user.pk == self.game.host_id

    @property
    def is_player(self) -> bool:
        return self.slot is not None

    @property
    def sees_everything(self) -> bool:
        """The host (and co-hosts) during the game; everybody once the game is over."""
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
        return [(t, str(THREAD_LABELS[t])) for t in THREAD_LABELS if self.can_read(t)]

    def lost_thread(self, thread: str) -> bool:
        """A private thread this player followed while alive (the mafia chat, their team's)
        and no longer reads, being dead: they know it exists, so they are told why it is
        closed to them rather than that there is no such thread."""
        slot = self.slot
        if slot is None or slot.alive or not self.game.is_running:
            return False
        return (thread == Thread.MAFIA and slot.is_mafia) or thread == slot.private_thread

    def require_read(self, thread: str) -> None:
        """404, not 403: a non-member must not even learn that the thread has posts. A dead
        former member gets a 403 that says why."""
        if self.can_read(thread):
            return
        if self.lost_thread(thread):
            raise PermissionDenied(
                _("You lost access to this thread when you died: the dead read the dead thread.")
            )
        raise Http404(_("There is no such thread."))

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
        raise Http404(_("No such game.")) from None
