"""The league's queues as the page and the API show them (one read for both)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from ..league import FORMATS, format_of
from ..models import Game, GameStatus, LeagueQueueEntry, LeagueQueueState, Slot
from ..shapes import LeagueQueue


def queues(user: Any, also: tuple[str, ...] = ()) -> list[LeagueQueue]:
    """Each standing queue (and any queue still holding people whose setup is gone):
    its setup, how many it needs and has, whether ``user`` waits in it (since when), its
    problem and ``user``'s latest game from it (``also``: more slugs to list, even empty
    ones). Four queries whatever the number of queues."""
    waiting = dict(LeagueQueueEntry.objects.values_list("setup").annotate(n=Count("id")).order_by())
    problems = dict(LeagueQueueState.objects.values_list("setup", "problem"))
    mine: dict[str, Any] = {}
    latest: dict[str, int] = {}
    if getattr(user, "is_authenticated", False):
        mine = dict(LeagueQueueEntry.objects.filter(user=user).values_list("setup", "joined_at"))
        for setup, game_id in (
            Slot.objects.filter(user=user)
            .exclude(game__league_setup="")
            .order_by("game__created_at", "game_id")
            .values_list("game__league_setup", "game_id")
        ):
            latest[setup] = game_id  # the newest wins
    rows: list[LeagueQueue] = []
    for slug in [*FORMATS, *sorted((set(waiting) | set(also)) - set(FORMATS))]:
        league_format = format_of(slug)
        found = league_format.setup if league_format else None
        rows.append(
            {
                "setup": slug,
                "name": found.name if found else slug,
                "ruleset": found.ruleset if found else "",
                "players": found.player_count if found else None,
                "waiting": waiting.get(slug, 0),
                "queued": slug in mine,
                "queued_since": mine.get(slug),
                "problem": problems.get(slug, "") if waiting.get(slug) else "",
                "silent_seat": league_format.silent_seat if league_format else "",
                "blind": bool(league_format and league_format.blind),
                "exists": found is not None,
                "latest_game": latest.get(slug),
            }
        )
    return rows


def my_league_games(user: Any) -> list[Game]:
    """``user``'s league games still running, newest first."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(
        Game.objects.filter(slots__user=user, status=GameStatus.RUNNING)
        .exclude(league_setup="")
        .order_by("-started_at", "-pk")
        .distinct()
    )


def queue_of(user: Any, setup: str) -> LeagueQueue:
    """The one queue of ``setup`` as ``queues`` shows it."""
    return next(row for row in queues(user, (setup,)) if row["setup"] == setup)
