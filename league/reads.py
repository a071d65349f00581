"""The league's queues, and its series, as the pages and the API show them (one read for
both).

Hidden information: a series shows no more than its games' own pages do. Who sits where is
public once a game starts (the rotation says it from the start; anonymous setups make no
series), roles, alignments and results only once that game has ended. The seed deals every
game of the series, so it is shown only when the whole series is over.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.errors import ErrorCode, NotFound
from games.models import Game, GameStatus, Slot
from games.outcomes import slot_won
from games.reads.agents import current_agent_names
from ratings import compute
from ratings.models import RatingChange, RatingSide

from .formats import FORMATS, format_of
from .models import (
    LeagueQueueEntry,
    LeagueQueueState,
    Series,
    SeriesEntrant,
    SeriesGame,
    SeriesStatus,
)
from .problems import shown
from .series import seat_of
from .shapes import (
    EntrantScore,
    LeagueQueue,
    SeriesDetail,
    SeriesGameRow,
    SeriesSeat,
    SeriesSummary,
)


# -- the standing queues ---------------------------------------------------------------------
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
                "problem": shown(problems.get(slug, "")) if waiting.get(slug) else "",
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


# -- duplicate series --------------------------------------------------------------------------
# Said on the series page in the reader's language (str() in the read: it is JSON too).
ROTATION = gettext_lazy(
    "Game i (from 0) seats entrant j (from 0) in seat (j + i) mod n, counted from 1."
)


def _name(setup: str) -> str:
    league_format = format_of(setup)
    found = league_format.setup if league_format is not None else None
    return found.name if found is not None else setup


def _summary(series: Series, entrants: list[str], finished: int) -> SeriesSummary:
    return {
        "id": series.pk,
        "setup": series.setup,
        "name": _name(series.setup),
        "status": series.status,
        "game_count": series.games,
        "finished": finished,
        "entrants": entrants,
        "created_at": series.created_at,
    }


def series_list(limit: int = 100) -> list[SeriesSummary]:
    """The newest series first, each with its entrants' names and games over."""
    found = list(
        Series.objects.annotate(
            over=Count("series_games", filter=Q(series_games__game__status=GameStatus.FINISHED))
        ).order_by("-created_at", "-pk")[:limit]
    )
    names: dict[int, list[str]] = defaultdict(list)
    for series_id, name in (
        SeriesEntrant.objects.filter(series__in=found)
        .order_by("series_id", "position")
        .values_list("series_id", "user__username")
    ):
        names[series_id].append(name)
    return [_summary(s, names[s.pk], s.over) for s in found]


def series_detail(series_id: Any) -> SeriesDetail:
    """One series: its games so far (seats, and roles and results of those over), and each
    entrant's score over the games over (404 ``no_series`` for none)."""
    try:
        series = Series.objects.get(pk=int(series_id))
    except (Series.DoesNotExist, TypeError, ValueError, OverflowError):
        raise NotFound(_("There is no such series."), ErrorCode.NO_SERIES) from None
    entrants = list(series.entrants.select_related("user").order_by("position"))
    seats = len(entrants)
    agents = current_agent_names()
    made = list(SeriesGame.objects.filter(series=series).select_related("game").order_by("number"))
    slots = {
        (slot.game_id, slot.seat): slot
        for slot in Slot.objects.filter(game_id__in=[m.game_id for m in made])
    }
    over = {m.game_id for m in made if m.game.status == GameStatus.FINISHED}
    changes: dict[int, float] = defaultdict(float)
    rated: set[int] = set()
    for change in RatingChange.objects.filter(
        game_id__in=over, side=RatingSide.OVERALL, user_id__in=[e.user_id for e in entrants]
    ):
        changes[change.user_id] += compute.ordinal(
            change.mu_after, change.sigma_after
        ) - compute.ordinal(change.mu_before, change.sigma_before)
        rated.add(change.user_id)
    rows: list[SeriesGameRow] = []
    scores: dict[int, EntrantScore] = {
        e.position: {
            "position": e.position,
            "name": e.user.get_username(),
            "agent": e.user.get_username() in agents,
            "games": 0,
            "wins": 0,
            "sides": [],
            "rating_change": round(changes[e.user_id], 4) if e.user_id in rated else None,
        }
        for e in entrants
    }
    sides: dict[int, dict[str, list[int]]] = {e.position: {} for e in entrants}
    for m in made:
        game = m.game
        ended = m.game_id in over
        seat_rows: list[SeriesSeat] = []
        for entrant in entrants:
            seat = seat_of(entrant.position, m.number, seats)
            slot = slots.get((m.game_id, seat))
            won = None
            if ended and slot is not None:
                won = slot_won(slot, game.winner, game.co_winners)
                score = scores[entrant.position]
                score["games"] += 1
                score["wins"] += int(won)
                tally = sides[entrant.position].setdefault(slot.alignment, [0, 0])
                tally[0] += 1
                tally[1] += int(won)
            seat_rows.append(
                {
                    "seat": seat,
                    "name": entrant.user.get_username(),
                    "role": slot.role if ended and slot is not None else "",
                    "alignment": slot.alignment if ended and slot is not None else "",
                    "won": won,
                }
            )
        seat_rows.sort(key=lambda row: row["seat"])
        rows.append(
            {
                "number": m.number,
                "game_id": m.game_id,
                "title": game.title,
                "status": game.status,
                "winner": game.winner if ended else "",
                "seats": seat_rows,
            }
        )
    for position, tallies in sides.items():
        scores[position]["sides"] = [
            {"side": side, "games": games, "wins": wins}
            for side, (games, wins) in sorted(tallies.items())
        ]
    league_format = format_of(series.setup)
    found = league_format.setup if league_format is not None else None
    return {
        **_summary(series, [e.user.get_username() for e in entrants], len(over)),
        "ruleset": found.ruleset if found is not None else "",
        "seats": seats,
        "problem": shown(series.problem),
        "seed": series.seed if series.status == SeriesStatus.FINISHED else None,
        "rotation": str(ROTATION),
        "scores": sorted(scores.values(), key=lambda s: (-s["wins"], s["position"])),
        "games": rows,
    }
