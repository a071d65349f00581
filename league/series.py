"""Duplicate series: making one, and starting its games one after another.

One deal, the entrants rotated through its seats. Every game of a series is made with the
series' seed, and the seed alone deals a game (``games.services.lobby``): the k-th sign-up
gets the k-th role card and the seat ``deal_seats`` gives the k-th sign-up, the same in
every game of the seed. So the entrants sign up in the order that puts them where the
rotation says: game ``i`` (from 0) seats entrant ``j`` (from 0) in seat ``(j + i) mod n``
(from 0; the game's seat number is one more), so over ``n`` games each entrant holds each
seat, and so each role, once.

Who may make a series: the site's staff only. A series seats its entrants, without a
sign-up of their own, in game after game of rated play hosted by the "League" account;
that is the league organisers' call (as a queue's game is the matchmaker's), not any
host's, and a host could not run it anyway: a host sees every role of the deal, which is
the same in every game.

The next game starts when the previous one's end commits (``games.hooks.on_game_finished``,
connected in ``LeagueConfig.ready``); a start that fails records the series' ``problem``
and staff may try again (``start_next``). Every step is one transaction with the series'
row locked, so two ends heard at once never start the same game twice.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from games.errors import ErrorCode, GameRuleError, InvalidInput, NotAllowed, NotFound
from games.models import Game, GameStatus, Slot
from games.reads.moderation import same_person
from games.services.lobby import create_game, deal_seats, join_game, start_game

from . import problems
from .formats import LEAGUE_HOST_NAME, format_of
from .models import LeagueQueueEntry, Series, SeriesEntrant, SeriesGame, SeriesStatus
from .services import league_host, leave_queue

log = logging.getLogger(__name__)

# Rotations a series may have: each is n games of the setup's n seats.
MAX_ROTATIONS = 4


def seat_of(position: int, number: int, seats: int) -> int:
    """The seat (from 1) of entrant ``position`` (j, from 0) in game ``number`` (i, from
    0) of a series of ``seats`` seats: ``(j + i) mod n``, counted from 1."""
    return (position + number) % seats + 1


def entrant_at(seat: int, number: int, seats: int) -> int:
    """The entrant (position, from 0) ``seat_of`` puts in ``seat`` in game ``number``."""
    return (seat - 1 - number) % seats


def may_make_series(user: Any) -> bool:
    """Only staff make series (see the module's docstring for why)."""
    return bool(getattr(user, "is_authenticated", False) and user.is_staff)


def create_series(
    user: Any,
    *,
    setup: str,
    entrants: list[str],
    games: int | None = None,
    seed: int | None = None,
) -> Series:
    """A series of the ready-made ``setup`` for ``entrants`` (names, in position order:
    one per seat), ``games`` games (a multiple of the seats; one rotation by default),
    and its first game started, all in one transaction: a refused start makes no series."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to make a series."), ErrorCode.LOGIN)
    if not may_make_series(user):
        raise NotAllowed(
            _("Only the site's staff may make a series: it seats its entrants in rated games."),
            ErrorCode.NOT_ALLOWED,
        )
    league_format = format_of(setup)
    found = league_format.setup if league_format is not None else None
    if league_format is None or found is None:
        raise NotFound(_("There is no league setup of that name."), ErrorCode.UNKNOWN_SETUP)
    if league_format.game_kwargs().get("anonymous_names"):
        # The rotation says who sits where, which an anonymous game hides.
        raise InvalidInput(
            _("A series cannot be played with anonymous names: its rotation says who sits where."),
            ErrorCode.SETUP,
            "setup",
        )
    seats = found.player_count
    users = _entrants(entrants, seats)
    count = seats if games is None else games
    if (
        not isinstance(count, int)
        or isinstance(count, bool)
        or count < seats
        or count > seats * MAX_ROTATIONS
        or count % seats
    ):
        raise InvalidInput(
            _(
                "A series of this setup plays %(seats)s games per rotation: "
                "%(seats)s, %(twice)s, ... up to %(most)s."
            )
            % {"seats": seats, "twice": seats * 2, "most": seats * MAX_ROTATIONS},
            ErrorCode.SERIES_GAMES,
            "games",
        )
    with transaction.atomic():
        series = Series(setup=setup, games=count, created_by=user)
        if seed is not None:
            series.seed = seed
        series.save()
        SeriesEntrant.objects.bulk_create(
            SeriesEntrant(series=series, user=entrant, position=j)
            for j, entrant in enumerate(users)
        )
        _start(series)
    return series


def _entrants(names: list[str], seats: int) -> list[Any]:
    """The entrants' accounts, in the order named: one per seat, each a different person
    (a main and its alternate never share a table), none the League's own account."""
    cleaned = [name.strip() for name in names if name and name.strip()]
    if len(cleaned) != seats:
        raise InvalidInput(
            _("Name %(seats)s entrants, one per seat (%(named)s named).")
            % {"seats": seats, "named": len(cleaned)},
            ErrorCode.ENTRANTS,
            "entrants",
        )
    found = {
        user.folded: user
        for user in get_user_model()
        .objects.annotate(folded=Lower("username"))
        .filter(folded__in=[name.lower() for name in cleaned])
    }
    users = []
    taken: set[int] = set()
    for name in cleaned:
        user = found.get(name.lower())
        if user is None:
            raise InvalidInput(
                _("There is no player named %(name)s.") % {"name": name},
                ErrorCode.NO_USER,
                "entrants",
            )
        if user.get_username() == LEAGUE_HOST_NAME:
            raise InvalidInput(
                _("The League account hosts the games: it cannot play in them."),
                ErrorCode.ENTRANTS,
                "entrants",
            )
        if user.pk in taken:
            raise InvalidInput(
                _("%(name)s is named twice (or with another account of theirs).")
                % {"name": user.get_username()},
                ErrorCode.ENTRANTS,
                "entrants",
            )
        taken |= same_person(user.pk)
        playing = (
            Slot.objects.filter(user=user, alive=True, game__status=GameStatus.RUNNING)
            .exclude(game__league_setup="")
            .values_list("game_id", flat=True)
            .first()
        )
        if playing is not None:
            raise InvalidInput(
                _("%(name)s is playing league game %(game)s: one league game at a time.")
                % {"name": user.get_username(), "game": playing},
                ErrorCode.ALREADY_PLAYING,
                "entrants",
            )
        users.append(user)
    return users


def start_next(series_id: int) -> Game | None:
    """Start the series' next game if its last one is over (the game started, or None:
    none due, or the series is over). A start the rules refuse leaves the series as it was
    with its ``problem`` saying why, to be tried again."""
    try:
        with transaction.atomic():
            series = Series.objects.select_for_update().filter(pk=series_id).first()
            if series is None:
                raise NotFound(_("There is no such series."), ErrorCode.NO_SERIES)
            with problems.in_site_language():
                game = _start(series)
    except GameRuleError as exc:
        if exc.code == ErrorCode.NO_SERIES:
            raise
        _record(series_id, problems.stored(problems.next_not_started, exc.message))
        return None
    except Exception:
        log.exception("series %s: starting its next game failed", series_id)
        _record(series_id, problems.stored(problems.next_not_started_error))
        return None
    return game


def _start(series: Series) -> Game | None:
    """Make, seat and start game ``i`` of ``series`` (its row locked, or new) when the one
    before is over; mark the series over after its last game."""
    if series.status != SeriesStatus.RUNNING:
        return None
    last = series.series_games.select_related("game").order_by("-number").first()
    if last is not None and last.game.status in (GameStatus.SIGNUPS, GameStatus.RUNNING):
        return None  # its end starts the next
    number = 0 if last is None else last.number + 1
    if number >= series.games:
        series.status = SeriesStatus.FINISHED
        series.problem = ""
        series.save(update_fields=["status", "problem"])
        return None
    league_format = format_of(series.setup)
    found = league_format.setup if league_format is not None else None
    if league_format is None or found is None:
        raise NotFound(_("The series' setup no longer exists."), ErrorCode.UNKNOWN_SETUP)
    entrants = list(series.entrants.select_related("user").order_by("position"))
    seats = len(entrants)
    host = league_host()
    game = create_game(
        host,
        title=f"Series {series.pk}: {found.name}, game {number + 1} of {series.games}",
        seed=series.seed,
        **league_format.game_kwargs(),
    )
    Game.objects.filter(pk=game.pk).update(league_setup=series.setup, rated=True, admits="both")
    # The k-th sign-up gets the seat the seed deals it (and the k-th role card): sign up
    # whoever the rotation puts in that seat.
    for seat in deal_seats(game, seats):
        join_game(entrants[entrant_at(seat, number, seats)].user, game.pk)
    start_game(host, game.pk)
    SeriesGame.objects.create(series=series, number=number, game=game)
    # One league game at a time: the entrants leave any queue they wait in (a baseline
    # agent, or a person who queued between two games of the series).
    for entry in LeagueQueueEntry.objects.filter(user__in=[e.user for e in entrants]):
        leave_queue(entry.user, entry.setup)
    if series.problem:
        series.problem = ""
        series.save(update_fields=["problem"])
    game.refresh_from_db()
    return game


def _record(series_id: int, problem: str) -> None:
    Series.objects.filter(pk=series_id).update(problem=problem[:300])


def game_finished(game_id: int) -> None:
    """``games.hooks.on_game_finished``'s listener: a series game's end starts the next."""
    series_id = (
        SeriesGame.objects.filter(game_id=game_id).values_list("series_id", flat=True).first()
    )
    if series_id is not None:
        start_next(series_id)
