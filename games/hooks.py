"""What the games core lets side domains add to its pages, without importing them.

A side domain (analytics, league, ratings, notifications, webhooks, agents) registers a
panel for a page in its ``AppConfig.ready``; the core's view (or a side domain's page, the
agent's) asks for the page's panels and its template draws them in order. A panel
is HTML the side domain renders itself from public records: it must show nothing the page's
viewer may not see (the leak scanner reads every page, panels included).

Pages and what their panels are given (keyword arguments):

- ``"setup"``: ``slug`` (the built-in setup's slug, ``""`` for a saved one), ``ruleset``;
- ``"player"``: ``name`` (the username of the person or agent whose page it is);
- ``"agent"``: ``agent`` (a ``games.models.Agent``);
- ``"review"``: ``game`` (a finished ``games.models.Game``);
- ``"leaderboard"``: ``ruleset``;
- ``"league"``: nothing (the league page, ``/league/``);
- ``"host"``: ``game`` (the host's dashboard; drawn for its hosts only);
- ``"role"``: ``game``, ``slot`` (a player's role PM page, drawn for the seat's holder only;
  the page is live and no panel is pushed, so a panel there must be the same in every state
  of the game and the seat: analytics' link to the belief probes is).

A side domain may add to the host's dashboard actions of its own (``register_host_action``):
its panel's forms post to the dashboard's action URL with the action's name, and the core
runs it for a host of the game only.

A side domain may add a field to the game-creation form (``register_create_field``): the
form shows it, and the side domain's ``apply`` runs with the new game in the creating
transaction (a refusal there creates no game).

A side domain may follow the game's announcements (``on_announcement``): its listener runs
inside the announcement's own transaction (``services.announcements.announce``), so what it
writes stands or falls with the announcement; it may keep per-transaction notes in
``tx.extras``.

A side domain may follow every change's events (``on_events``), inside the change's own
transaction (``services.common.game_tx``): the notifications are written with the change,
so they exist exactly when it does. The listener answers the people whose notifications
changed; the core redraws their bells after the commit.

The core tells a person something outside any game (a moderator's sanction) through
``tell``; the side domain that delivers such notes registers itself with ``set_teller``.
What a person's bell shows (the socket frame ``live.inbox`` pushes) is the side domain's
too: ``set_bell``.

Periodic jobs (``register_embedded_job``): the embedded run (``manage.py runsite`` without
Celery) calls them in-process on their interval, where production's beat runs the same
work as Celery tasks (``mafia_site.celery``).

A side domain may add a part to the open data of a finished game (``register_export_part``):
``part(game)`` returns a list of JSON-able objects, exported under the game's ``parts`` by
the part's name (``games.reads.export``; called for finished games only).

A side domain may route websockets of its own (``register_socket_route``: the league
page's ``ws/league/``), beside the core's (``live.routing``); it builds them on the core's
live package (``live.inbox.signal_on_commit``, ``InboxFollower``, ``live.page_render``).

The league's queues (the league app) are the core's only source of league games
(``Game.league_setup``), which have no host: a seat that needs a new player is filled from
the queue (``set_league_replacer``: ``replace_in_league_game``), and the people the core
benches (modkilled for inactivity under a cooldown, taken off the site) leave every queue
in the benching transaction (``on_bench``: ``bench``). A side domain's system account
(the league's host, "League") is reserved at sign-up (``reserve_name``: nobody may take
it, or a look-alike, before it first exists).

A side domain may also follow games' ends (``on_game_finished``): its listener is called
with the game's id after the transaction that ended the game commits, never inside it.
One that must write with the end itself, exactly once (the ratings), listens with
``on_game_ending``: inside the ending transaction, in a savepoint of its own, so its fault
rolls back its own writes and never keeps the game from ending.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django import forms
from django.db import transaction
from django.http import HttpRequest
from django.urls import URLPattern
from django.utils.safestring import SafeString

Panel = Callable[..., SafeString | str]
PAGES = ("setup", "player", "agent", "review", "leaderboard", "league", "host", "role")
_panels: dict[str, list[Panel]] = {page: [] for page in PAGES}
GameFinished = Callable[[int], None]
_finished: list[GameFinished] = []

log = logging.getLogger(__name__)


def register_panel(page: str, panel: Panel) -> None:
    """Add ``panel(request, **context)`` to ``page``; registering the same one again is a
    no-op (``ready`` may run twice in tests)."""
    if page not in _panels:
        raise ValueError(f"No page {page!r} takes panels; the pages are {', '.join(PAGES)}.")
    if panel not in _panels[page]:
        _panels[page].append(panel)


def panels(page: str, request: HttpRequest, **context: Any) -> list[SafeString]:
    """The page's panels drawn for this request, empty ones left out."""
    drawn = (SafeString(panel(request, **context)) for panel in _panels[page])
    return [html for html in drawn if html.strip()]


def on_game_finished(listener: GameFinished) -> None:
    """Call ``listener(game_id)`` after each game's end commits; registering the same one
    again is a no-op."""
    if listener not in _finished:
        _finished.append(listener)


GameEnding = Callable[[Any], None]  # (services.common.Tx of the ending game)
_ending: list[GameEnding] = []


def on_game_ending(listener: GameEnding) -> None:
    """Call ``listener(tx)`` inside each game's ending transaction (the game row locked,
    ``tx.game`` finished)."""
    if listener not in _ending:
        _ending.append(listener)


def game_ending(tx: Any) -> None:
    """Tell the listeners that ``tx.game`` is ending (``services.phases.end_with``)."""
    for listener in list(_ending):
        try:
            with transaction.atomic():
                listener(tx)
        except Exception:
            log.exception("game %s: a game-ending listener failed", tx.game.pk)


def game_finished(game_id: int) -> None:
    """Tell the listeners that ``game_id`` ended (``services.phases.end_with``, on commit).
    A listener's fault is logged and never reaches the others, nor the ended game."""
    for listener in list(_finished):
        try:
            listener(game_id)
        except Exception:
            log.exception("game %s: a game-finished listener failed", game_id)


# -- host actions, creation fields, announcements, periodic jobs --------------------------
# ``action(request, game_id)`` returns the message the host reads; it raises a
# ``games.errors.GameRuleError`` (an ``InvalidInput`` for a form's error) to refuse.
HostAction = Callable[[HttpRequest, int], str]
_host_actions: dict[str, HostAction] = {}


def register_host_action(name: str, action: HostAction) -> None:
    """Make ``name`` an action of the host's dashboard (``games:host_action``)."""
    _host_actions[name] = action


def host_action(name: str) -> HostAction | None:
    return _host_actions.get(name)


@dataclass(frozen=True)
class CreateField:
    """A field a side domain adds to the game-creation form: ``make()`` builds the form
    field (checks included); ``apply(user, game_id, value)`` runs when a value was given,
    in the game's creating transaction."""

    name: str
    make: Callable[[], forms.Field]
    apply: Callable[[Any, int, Any], object]


_create_fields: dict[str, CreateField] = {}


def register_create_field(field: CreateField) -> None:
    _create_fields[field.name] = field


def create_fields() -> list[CreateField]:
    return list(_create_fields.values())


Announced = Callable[[Any, Any], object]  # (services.common.Tx, the announcement's Post)
_announced: list[Announced] = []


def on_announcement(listener: Announced) -> None:
    """Call ``listener(tx, post)`` for each announcement, inside its transaction."""
    if listener not in _announced:
        _announced.append(listener)


def announced(tx: Any, post: Any) -> None:
    """Tell the listeners of announcement ``post`` (``services.announcements``). Unlike
    ``game_finished``, a listener's fault is the transaction's: it rolls back, so nothing
    is announced that a listener could not record."""
    for listener in list(_announced):
        listener(tx, post)


@dataclass(frozen=True)
class EmbeddedJob:
    seconds: float
    run: Callable[[], Any]
    label: str


_jobs: dict[str, EmbeddedJob] = {}


def register_embedded_job(job: EmbeddedJob) -> None:
    _jobs[job.label] = job


def embedded_jobs() -> list[EmbeddedJob]:
    return list(_jobs.values())


# -- the open data's parts -------------------------------------------------------------------
ExportPart = Callable[[Any], list[dict[str, Any]]]
_export_parts: dict[str, ExportPart] = {}


def register_export_part(name: str, part: ExportPart) -> None:
    """Export ``part(game)`` as ``parts[name]`` of each finished game's open data."""
    _export_parts[name] = part


def export_parts(game: Any) -> dict[str, list[dict[str, Any]]]:
    """Every registered part of the finished ``game``'s open data, by name."""
    return {name: part(game) for name, part in sorted(_export_parts.items())}


# -- the events of a change, notes to a person, the bell ----------------------------------
EventsWritten = Callable[[Any], Iterable[int]]  # (services.common.Tx) -> people told
_events: list[EventsWritten] = []


def on_events(listener: EventsWritten) -> None:
    """Call ``listener(tx)`` with each game transaction that wrote events (``tx.events``),
    before it commits."""
    if listener not in _events:
        _events.append(listener)


def events_written(tx: Any) -> set[int]:
    """Tell the listeners of ``tx.events``; the people whose bells to redraw. A listener's
    fault is the transaction's (it rolls back): nothing is written that could not be told."""
    told: set[int] = set()
    for listener in list(_events):
        told |= set(listener(tx))
    return told


# (user id, notification kind, text, link, now) -> the people told
Teller = Callable[[int, str, str, str, datetime], Iterable[int]]
_teller: list[Teller] = []


def set_teller(teller: Teller) -> None:
    _teller[:] = [teller]


def tell(user_id: int, kind: str, text: str, link: str, now: datetime) -> set[int]:
    """Tell a person ``text`` (a notification of ``kind``, opening ``link``), in the
    caller's transaction; the people told (none without a teller)."""
    return set(_teller[0](user_id, kind, text, link, now)) if _teller else set()


# What a person's bell shows: ``frame(user_id, fresh)``, the socket frame (``"type":
# "inbox"``) that ``live.inbox`` pushes.
BellFrame = Callable[[int, bool], dict[str, Any]]


def _quiet_frame(user_id: int, fresh: bool) -> dict[str, Any]:
    return {"type": "inbox", "unread": 0, "fresh": fresh, "desktop_on": False, "newest": None}


_bell: list[BellFrame] = [_quiet_frame]  # no side domain: a silent bell


def set_bell(frame: BellFrame) -> None:
    _bell[:] = [frame]


def bell_frame(user_id: int, fresh: bool) -> dict[str, Any]:
    return _bell[0](user_id, fresh)


# -- websocket routes, the league's queues, reserved names ---------------------------------
_socket_routes: dict[str, URLPattern] = {}  # by path: registering again replaces


def register_socket_route(route: URLPattern) -> None:
    """Route a side domain's websocket (a ``django.urls.path`` to an ASGI consumer), from
    its ``AppConfig.ready``: ``live.routing`` reads them when the ASGI app is built."""
    _socket_routes[str(route.pattern)] = route


def socket_routes() -> list[URLPattern]:
    return list(_socket_routes.values())


# (services.common.Tx of a league game, the seat) -> whether someone took it
LeagueReplacer = Callable[[Any, Any], bool]
_league_replacer: list[LeagueReplacer] = []


def set_league_replacer(replace: LeagueReplacer) -> None:
    _league_replacer[:] = [replace]


def replace_in_league_game(tx: Any, slot: Any) -> bool:
    """Fill ``slot`` of the league game ``tx.game`` from its queue, in the game's
    transaction (``services.swap.replace_from_queue``); False when nobody could (or no
    side domain runs the league: nobody waits)."""
    return bool(_league_replacer[0](tx, slot)) if _league_replacer else False


Benched = Callable[[list[int]], object]  # (the accounts) -> anything
_benched: list[Benched] = []


def on_bench(listener: Benched) -> None:
    """Call ``listener(user_ids)`` when the core benches these accounts, inside its
    transaction (their rows locked or deactivated); registering the same one again is a
    no-op."""
    if listener not in _benched:
        _benched.append(listener)


def bench(user_ids: Iterable[int]) -> None:
    """The accounts may not be seated by a queue now (an inactivity modkill under the
    league's cooldown, ``services.reliability``; a removal from the site,
    ``services.moderation``): the listeners take them out of theirs. A listener's fault is
    the transaction's, as with ``events_written``."""
    people = sorted(set(user_ids))
    for listener in list(_benched):
        listener(people)


_reserved_names: list[str] = []


def reserve_name(name: str) -> None:
    """Keep ``name`` (a side domain's system account) from sign-up, and its look-alikes,
    even before the account first exists (``accounts.clean_name``)."""
    if name not in _reserved_names:
        _reserved_names.append(name)


def reserved_names() -> list[str]:
    return list(_reserved_names)
