"""The league's matchmaking: standing queues per setup (``league.formats``), and the
matchmaker that turns enough waiting seats into a started, rated game.

The queue lives in the database (``LeagueQueueEntry``), so nothing is lost on a restart:
``match`` runs after each join (on commit) and on a periodic sweep (``sweep_queues``: Celery
beat, or the embedded run's loop), and a sweep after a restart finds the entries where
they were. ``match`` is ONE transaction: the waiting entries are locked (oldest first,
skipping those another matcher holds), the game is created from the setup with the
league's timing, the players join and are seated at random, the game starts, and their
entries are deleted, all or nothing. When it cannot (not enough seats, a setup that no
longer exists, any error), everyone stays queued and the queue's state says why.

One person, one queue, one game, under concurrent requests: a join, a leave and the
matchmaker each lock the person's user row first (the matchmaker skipping people locked by
a join or a leave under way), then their entries. So a person's joins and leaves run one
after another (three joins at once left one person in two or three queues), a join sees
the league game a matcher has just seated them in and is refused, and a leave that answers
200 took an entry no matcher holds, so it is never seated (it was, 3 times in 5).

A join is refused for ``LEAGUE_COOLDOWN_AFTER_MODKILL`` hours after an inactivity modkill
(``reads.reliability.league_cooldown``), asked after the lock: the modkill takes the same
lock to take the person out of the queues (``games.services.reliability``, which tells
``leave_every_queue`` here through ``games.hooks.bench``), so a join racing it lands first
and is taken out, or comes after and is refused.

The core's league games fill a seat from their queue (``replace_from_queue``, the core's
``games.hooks.replace_in_league_game``): a league game has no replacement sign-ups.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.errors import ErrorCode, GameRuleError, InvalidInput, NotAllowed, NotFound
from games.models import Game, GameStatus, Slot
from games.reads.moderation import same_person
from games.reads.reliability import league_cooldown
from games.services.common import Tx
from games.services.lobby import create_game, join_game, start_game
from games.services.swap import do_replace, may_take_a_seat

from . import problems
from .formats import LEAGUE_HOST_NAME, format_of
from .live import publish_league_on_commit
from .models import LeagueQueueEntry, LeagueQueueState

log = logging.getLogger(__name__)


def league_host() -> Any:
    """The "League" user, made on first use with an unusable password (nobody signs in).
    The name is reserved at sign-up; an older account that holds it with a password is a
    person's, and is never made the host (it would see every role)."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=LEAGUE_HOST_NAME)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    elif user.has_usable_password():
        raise RuntimeError(f'the account "{LEAGUE_HOST_NAME}" is a person\'s; rename it')
    return user


def join_queue(user: Any, setup: str) -> LeagueQueueEntry:
    """Put ``user`` (a person or an agent) in the queue of ``setup``, out of any other: one
    queue at a time, so that two queues filling at once never seat anyone twice. The
    matchmaker runs after the commit (on the queues left too: their counts changed)."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to join a league queue."), ErrorCode.LOGIN)
    if format_of(setup) is None:
        raise NotFound(_("There is no league queue for that setup."), ErrorCode.UNKNOWN_SETUP)
    try:
        with transaction.atomic():
            _lock_person(user)
            playing = _league_game_of(user)
            if playing is not None:
                raise InvalidInput(
                    _("You are playing league game %(game)s: finish it first.") % {"game": playing},
                    ErrorCode.ALREADY_PLAYING,
                )
            # (After the row lock: a modkill committing meanwhile is seen.) Any account
            # of the person's: an alternate is no way round it.
            cooldown = league_cooldown(same_person(user.pk))
            if cooldown is not None:
                raise NotAllowed(cooldown.message, ErrorCode.LEAGUE_COOLDOWN)
            left = _leave(user, exclude=setup)
            entry = LeagueQueueEntry.objects.create(user=user, setup=setup)
    except IntegrityError:
        raise InvalidInput(
            _("You are already waiting in this queue."), ErrorCode.ALREADY_QUEUED
        ) from None
    for queue in (setup, *left):
        transaction.on_commit(partial(match, queue))
    publish_league_on_commit()  # after the matchmaker: the pages see what it made
    return entry


def leave_queue(user: Any, setup: str) -> None:
    """Take ``user`` out of the queue of ``setup`` (also one whose setup is gone)."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to leave a league queue."), ErrorCode.LOGIN)
    with transaction.atomic():
        _lock_person(user)
        if not _leave(user, only=setup):
            raise InvalidInput(_("You are not waiting in this queue."), ErrorCode.NOT_QUEUED)
    transaction.on_commit(partial(match, setup))  # the queue's "waiting for" is one more
    publish_league_on_commit()


def _lock_person(user: Any) -> None:
    """The person's row, locked to the end of the transaction: their queue changes and any
    matcher seating them run one at a time."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def _league_game_of(user: Any) -> int | None:
    """The running league game ``user`` plays in (a living seat), if any: a seat already
    dead there has nothing more to do in it."""
    return (
        Slot.objects.filter(user=user, alive=True, game__status=GameStatus.RUNNING)
        .exclude(game__league_setup="")
        .values_list("game_id", flat=True)
        .first()
    )


def _leave(user: Any, *, only: str | None = None, exclude: str | None = None) -> list[str]:
    """Delete ``user``'s entries (in ``only``; or all but ``exclude``): the queues left."""
    entries = LeagueQueueEntry.objects.filter(user=user)
    if only is not None:
        entries = entries.filter(setup=only)
    if exclude is not None:
        entries = entries.exclude(setup=exclude)
    left = list(entries.values_list("setup", flat=True))
    entries.delete()
    return left


class _NoMatch(Exception):
    """No game this time; ``problem`` says why (everyone stays queued)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def match(setup: str) -> Game | None:
    """Make, seat and start one game from the queue of ``setup`` if enough seats wait;
    the game, or None (the queue's state then says why and everyone stays queued)."""
    try:
        with transaction.atomic(), problems.in_site_language():
            game = _match(setup)
    except _NoMatch as no:
        _record(setup, no.problem)
        return None
    except GameRuleError as exc:  # the setup's own rules refused: say it in their words
        log.warning("League queue %s could not start a game: %s", setup, exc.message)
        _record(setup, problems.stored(problems.not_made, exc.message))
        return None
    except Exception:
        log.exception("League queue %s: making a game failed", setup)
        _record(setup, problems.stored(problems.not_made_error))
        return None
    _record(setup, "", game)
    publish_league_on_commit()  # (made by a sweep: no join to tell the pages)
    return game


# The advisory locks' first key: the league's matchers (the second is the setup's hash).
_MATCHER_LOCKS = 7_301


def _one_matcher_at_a_time(setup: str) -> None:
    """Wait for any other matcher of ``setup`` to end (to the end of this transaction).
    Matchers skip the people another one holds, so ten joins at once each ran a matcher
    that saw the others' people locked and found "Waiting for 2 more": a full queue, and
    no game until the sweep. One at a time, the matcher of the last join to commit sees
    everyone (tests/client/test_league_agents.py)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [_MATCHER_LOCKS, setup])


def _match(setup: str) -> Game:
    league_format = format_of(setup)
    league_setup = league_format.setup if league_format is not None else None
    if league_format is None or league_setup is None:  # (format_of checked the setup)
        raise _NoMatch(problems.stored(problems.setup_gone))
    needed = league_setup.player_count
    _one_matcher_at_a_time(setup)
    # The people first (as a join and a leave lock them), skipping those a join or a leave
    # holds right now; then their entries, as they stand once those people are ours.
    candidates = list(
        LeagueQueueEntry.objects.filter(setup=setup)
        .order_by("joined_at", "id")
        .values_list("user_id", flat=True)[: needed * 2]
    )
    people = set(
        get_user_model()
        .objects.filter(pk__in=candidates)
        .order_by("pk")
        .select_for_update(skip_locked=True)
        .values_list("pk", flat=True)
    )
    waiting = list(
        LeagueQueueEntry.objects.filter(setup=setup, user_id__in=people)
        .select_related("user")
        .select_for_update(skip_locked=True, of=("self",))
        .order_by("joined_at", "id")[: needed * 2]
    )
    waiting = _one_account_each(waiting)[:needed]
    if len(waiting) < needed:
        more = needed - len(waiting)
        raise _NoMatch(problems.stored(problems.waiting_for, more))
    host = league_host()
    number = Game.objects.filter(league_setup=setup).count() + 1
    game = create_game(
        host,
        title=f"League: {league_setup.name} #{number}",
        **league_format.game_kwargs(),
    )
    Game.objects.filter(pk=game.pk).update(league_setup=setup, rated=True, admits="both")
    players = list(waiting)
    random.SystemRandom().shuffle(players)  # sign-up order, then the seed deals the seats
    for entry in players:
        join_game(entry.user, game.pk)
    start_game(host, game.pk)
    LeagueQueueEntry.objects.filter(pk__in=[e.pk for e in waiting]).delete()
    game.refresh_from_db()
    return game


def _one_account_each(entries: list[LeagueQueueEntry]) -> list[LeagueQueueEntry]:
    """The entries, oldest first, without a second account of a person already taken (a
    main and its approved alternate never share a table; the later one waits)."""
    taken: set[int] = set()
    kept = []
    for entry in entries:
        if entry.user_id in taken:
            continue
        taken |= same_person(entry.user_id)
        kept.append(entry)
    return kept


def _record(setup: str, problem: str, game: Game | None = None) -> None:
    """The queue's last word: its problem (blank: none) and the last game it made."""
    values: dict[str, Any] = {"problem": problem[:300], "checked_at": timezone.now()}
    if game is not None:
        values["last_game"] = game
    try:
        LeagueQueueState.objects.update_or_create(setup=setup, defaults=values)
    except Exception:  # bookkeeping: the next sweep writes it again
        log.warning("Could not record the state of league queue %s", setup, exc_info=True)


def sweep_queues() -> list[int]:
    """Match every queue with anyone waiting (also those of setups that are gone, whose
    problem is then told); the ids of the games made. Each queue is tried until it makes
    no more games, each game its own transaction."""
    made = []
    setups = set(LeagueQueueEntry.objects.values_list("setup", flat=True).distinct())
    for setup in sorted(setups):
        while True:
            game = match(setup)
            if game is None:
                break
            made.append(game.pk)
    return made


def replace_from_queue(tx: Tx, slot: Slot) -> bool:
    """The first person or agent waiting in the game's league queue who is not in the game
    takes ``slot`` and leaves the queue; False if nobody can (``tx``: the league game's
    transaction, ``games.hooks.replace_in_league_game``)."""
    waiting = (
        LeagueQueueEntry.objects.filter(setup=tx.game.league_setup)
        .select_related("user")
        .select_for_update(skip_locked=True, of=("self",))  # one the matchmaker holds is taken
        .order_by("joined_at", "id")
    )
    for entry in waiting:
        if not may_take_a_seat(tx, entry.user):
            continue  # already at this table (or another account of theirs): next game
        entry.delete()
        do_replace(tx, slot, entry.user)
        publish_league_on_commit()  # the queue is one shorter
        return True
    return False


def leave_every_queue(user_ids: Iterable[int]) -> None:
    """Take these accounts out of every league queue, in the caller's transaction (who
    holds their rows: ``games.hooks.bench``): modkilled for inactivity under a cooldown, or
    taken off the site."""
    deleted, _ = LeagueQueueEntry.objects.filter(user_id__in=set(user_ids)).delete()
    if deleted:
        publish_league_on_commit()  # the queues' counts changed
