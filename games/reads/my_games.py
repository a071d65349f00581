"""A person's own games, as the "my games" page and ``GET /api/v1/my-games/`` both show them.

Every game they play (a slot they hold now), host or wait to replace into (the replacement
queue): in sign-ups or running, and, in a section of their own, the ones finished lately.
For each: the phase, their seat, what the game waits for from them now
(``reads.needs``: only their own slot's), the host's chores, the next deadline and how many
posts they have not read since their last visit (``ThreadVisit``) in the threads they may
read. No role, alignment or action of anyone appears here.

The whole list costs a fixed number of queries, whatever the number of games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..inactivity import NEEDS_REPLACEMENT
from ..models import (
    CoHost,
    Game,
    GameStatus,
    Phase,
    Post,
    ReplacementSignup,
    Slot,
    ThreadVisit,
)
from .access import THREAD_LABELS, private_threads_of
from .needs import NEED_CODES, NEED_LABELS, needs_of_games

# Finished games stay on the list this long after their end.
FINISHED_FOR = timedelta(days=14)
MAX_GAMES = 200  # a bound on the page, far above anyone's real list

PLAYER, HOST, QUEUED = "player", "host", "queued"
RELATIONS = (PLAYER, HOST, QUEUED)  # how the person is in the game
# What a host is asked for: a full sign-up list to start, players to replace.
START, REPLACE = "start", "replace"
HOST_CODES = (START, REPLACE)
HOST_LABELS = {
    START: _("The sign-ups are full: start the game"),
    REPLACE: _("A player needs replacing"),
}


@dataclass(frozen=True)
class ThreadUnread:
    thread: str
    label: str
    unread: int


@dataclass(frozen=True)
class MyGame:
    """One game of the list, from the person's own point of view."""

    game: Game
    relation: str  # PLAYER, HOST or QUEUED
    slot: Slot | None  # their slot (players only)
    phase: Phase | None  # the current phase while the game runs
    needs: list[str]  # reads.needs codes, of their own slot
    host_needs: list[str]  # HOST_CODES
    players: int  # the slots taken
    threads: list[ThreadUnread] = field(default_factory=list)

    @property
    def status_label(self) -> str:
        game, phase = self.game, self.phase
        if game.is_running and phase is not None:
            if phase.is_paused:
                return gettext("%(phase)s (paused)") % {"phase": phase.label}
            return phase.label
        if game.is_signups:
            return gettext("Sign-ups (%(players)s/%(cap)s)") % {
                "players": self.players,
                "cap": game.player_cap,
            }
        return str(game.get_status_display())

    @property
    def deadline(self) -> datetime | None:
        """The next deadline: the open phase's (a table day's: the current turn's)."""
        phase = self.phase
        if not self.game.is_running or phase is None or phase.resolved or phase.is_paused:
            return None
        return phase.deadline

    @property
    def unread(self) -> int:
        return sum(t.unread for t in self.threads)

    @property
    def need_labels(self) -> list[tuple[str, str]]:
        """(code, words) of what the game waits for from them, a host's chores after."""
        return [(c, str(NEED_LABELS[c])) for c in self.needs] + [
            (c, str(HOST_LABELS[c])) for c in self.host_needs
        ]

    @property
    def needs_you(self) -> bool:
        return bool(self.needs or self.host_needs)


@dataclass(frozen=True)
class MyGames:
    active: list[MyGame]  # sign-ups and running: those that need you first, then by deadline
    finished: list[MyGame]  # finished lately, newest first


def _last_number(thread: str) -> Subquery:
    return Subquery(
        Post.objects.filter(game=OuterRef("pk"), thread=thread)
        .order_by("-number")
        .values("number")[:1]
    )


def my_games(user: Any, *, now: datetime | None = None) -> MyGames:
    """``user``'s games (nothing for an anonymous visitor)."""
    if not getattr(user, "is_authenticated", False):
        return MyGames([], [])
    now = now or timezone.now()
    plays = Slot.objects.filter(game=OuterRef("pk"), user=user)
    queued = ReplacementSignup.objects.filter(game=OuterRef("pk"), user=user)
    cohosts = CoHost.objects.filter(game=OuterRef("pk"), user=user)
    games = list(
        Game.objects.filter(
            Q(host=user) | Q(Exists(plays)) | Q(Exists(queued)) | Q(Exists(cohosts))
        )
        .filter(
            Q(status__in=[GameStatus.SIGNUPS, GameStatus.RUNNING])
            | Q(status=GameStatus.FINISHED, finished_at__gte=now - FINISHED_FOR)
        )
        .select_related("host")
        .annotate(
            players=Count("slots", distinct=True),
            cohosting=Exists(cohosts),
            **{f"last_{t}": _last_number(t) for t in THREAD_LABELS},
        )
        .order_by("-created_at")[:MAX_GAMES]
    )
    ids = [g.pk for g in games]
    mine = {s.game_id: s for s in Slot.objects.filter(user=user, game_id__in=ids)}
    for own in mine.values():
        own.user = user  # its display name, without a query
    running = [g for g in games if g.is_running]
    phases = (
        {
            p.game_id: p
            for p in Phase.objects.filter(
                Q(*[Q(game_id=g.pk, number=g.phase_number) for g in running], _connector=Q.OR)
            )
        }
        if running
        else {}
    )
    Phase.read_labels(list(phases.values()))
    needs = needs_of_games([(g, phases.get(g.pk), [mine[g.pk]]) for g in running if g.pk in mine])
    # A co-host hosts the game as its host does (``reads.access.is_host``); the annotation
    # says so without a query per game.
    hosting = {g.pk for g in games if g.host_id == user.pk or getattr(g, "cohosting", False)}
    to_replace = _slots_to_replace([g for g in running if g.pk in hosting])
    visits = {
        (v.game_id, v.thread): v.last_post_number
        for v in ThreadVisit.objects.filter(user=user, game_id__in=ids)
    }
    active: list[MyGame] = []
    finished: list[MyGame] = []
    for game in games:
        slot = mine.get(game.pk)
        relation = PLAYER if slot is not None else HOST if game.pk in hosting else QUEUED
        host_needs = []
        if relation == HOST and game.is_signups and game.players >= game.player_cap:
            host_needs.append(START)
        if relation == HOST and to_replace.get(game.pk):
            host_needs.append(REPLACE)
        item = MyGame(
            game=game,
            relation=relation,
            slot=slot,
            phase=phases.get(game.pk),
            needs=needs.get(slot.pk, []) if slot is not None else [],
            host_needs=host_needs,
            players=game.players,
            threads=_unread(game, user, slot, visits, game.pk in hosting),
        )
        (finished if game.is_finished else active).append(item)
    far = now + timedelta(days=3650)
    active.sort(key=lambda g: (not g.needs_you, g.deadline or far, -g.game.created_at.timestamp()))
    finished.sort(key=lambda g: g.game.finished_at or now, reverse=True)
    return MyGames(active, finished)


def _readable(game: Game, user: Any, slot: Slot | None, hosting: bool) -> list[str]:
    """The threads the person may read, by ``reads.access``'s rules: everything for the
    host (``hosting``: the host or a co-host, as read with the list) and after the end (the
    threads that have posts), else the public thread and the player's own private ones."""
    if hosting or game.is_finished:
        return [t for t in THREAD_LABELS if getattr(game, f"last_{t}") or t == "public"]
    return ["public", *sorted(private_threads_of(game, slot))]


def _unread(
    game: Game,
    user: Any,
    slot: Slot | None,
    visits: dict[tuple[int, str], int],
    hosting: bool = False,
) -> list[ThreadUnread]:
    """Posts after the last one shown to them, per readable thread (post numbers have no
    gaps, so the difference is the count)."""
    out = []
    for thread in _readable(game, user, slot, hosting):
        last = getattr(game, f"last_{thread}") or 0
        seen = visits.get((game.pk, thread), 0)
        out.append(ThreadUnread(thread, str(THREAD_LABELS[thread]), max(last - seen, 0)))
    return out


def _slots_to_replace(games: list[Game]) -> dict[int, int]:
    """Game id -> how many of its slots the host should replace (``games.inactivity``)."""
    if not games:
        return {}
    rows = (
        Slot.objects.filter(NEEDS_REPLACEMENT, game_id__in=[g.pk for g in games], alive=True)
        .values("game_id")
        .annotate(n=Count("id", distinct=True))
    )
    return {r["game_id"]: r["n"] for r in rows}


__all__ = ["HOST_CODES", "NEED_CODES", "MyGame", "MyGames", "my_games"]
