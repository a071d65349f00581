"""The behaviour leaderboard of a rule set (``/leaderboard/<ruleset>/behaviour/``): one row
per person or agent with at least ``MIN_GAMES`` finished games of the rule set on a side,
a column per behaviour metric (``analytics.metrics``, defined there once), sorted by the
server on any column (``?sort=<metric>&order=asc|desc``; a sort or order it does not know
is the default, never an error). The figures are ``analytics.stats.ruleset_behaviour``'s,
credited as a person's own page credits them, so the two always agree; only finished
games count (a running game's votes would tell its sides).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model

from games.models import Agent, Ruleset
from games.reads.paging import Pages, page_number
from games.reads.rulesets import ruleset_or_404

from .metrics import METRICS, Metric
from .stats import PERSON_SIDES, SIDE_LABELS, MetricFigure, PersonBehaviour, ruleset_behaviour

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# Fewer finished games on the side say too little to rank; the setting
# BEHAVIOUR_BOARD_MIN_GAMES overrides it (the leak scanner ranks from one game on).
MIN_GAMES = 5
PER_PAGE = 50
DEFAULT_SORT, DEFAULT_ORDER = "games", "desc"
ORDERS = ("desc", "asc")


def columns(side: str) -> list[Metric]:
    """The metrics that count anything on ``side`` (town's L-1 metric is town's alone)."""
    return [m for m in METRICS if m.sides is None or side in m.sides]


def sorts(side: str) -> tuple[str, ...]:
    """The columns a board on ``side`` sorts by."""
    return ("name", "games", *(m.key for m in columns(side)))


@dataclass(frozen=True)
class BoardRow:
    rank: int
    name: str
    agent: bool
    games: int
    figures: list[MetricFigure]


@dataclass
class BehaviourBoard:
    ruleset: str
    ruleset_label: StrOrPromise
    side: str
    side_label: StrOrPromise
    sort: str
    order: str
    min_games: int
    columns: list[Metric]
    rows: list[BoardRow]
    pages: Pages


def _key(sort: str, names: dict[int, str]) -> Callable[[PersonBehaviour], Any]:
    """The sort key (ascending) of a column: a metric by its rate; by games, then name."""
    if sort == "name":
        return lambda p: names[p.user_id].lower()
    if sort == "games":
        return lambda p: p.games
    return lambda p: p.totals[sort][0] / p.totals[sort][1]


def behaviour_board(
    ruleset: str,
    *,
    side: object = "town",
    sort: object = None,
    order: object = None,
    page: object = 1,
) -> BehaviourBoard:
    """One page of a rule set's behaviour leaderboard on ``side`` (town, mafia, "other"),
    sorted by ``sort`` in ``order`` (anything else: the side town, the default sort and
    order). Whoever has nothing to count in the sorted metric comes last either way; ties
    go to more games, then to the name."""
    ruleset_or_404(ruleset)
    side = side if side in PERSON_SIDES else "town"
    assert isinstance(side, str)
    sort = sort if sort in sorts(side) else DEFAULT_SORT
    order = order if order in ORDERS else DEFAULT_ORDER
    assert isinstance(sort, str) and isinstance(order, str)
    least = int(getattr(settings, "BEHAVIOUR_BOARD_MIN_GAMES", MIN_GAMES))
    ranked = [p for p in ruleset_behaviour(ruleset)[side] if p.games >= least]
    names = dict(
        get_user_model()
        .objects.filter(pk__in=[p.user_id for p in ranked])
        .values_list("pk", "username")
    )
    ranked = [p for p in ranked if p.user_id in names]
    # Stable sorts, the last one first: name, then more games, then the column itself.
    ranked.sort(key=lambda p: names[p.user_id].lower())
    ranked.sort(key=lambda p: p.games, reverse=True)
    if sort in ("name", "games"):
        ranked.sort(key=_key(sort, names), reverse=order == "desc")
    else:
        counted = [p for p in ranked if p.totals[sort][1]]
        counted.sort(key=_key(sort, names), reverse=order == "desc")
        ranked = counted + [p for p in ranked if not p.totals[sort][1]]
    count = len(ranked)
    num_pages = max(1, math.ceil(count / PER_PAGE))
    number = page_number(page, num_pages)
    first = (number - 1) * PER_PAGE
    shown = ranked[first : first + PER_PAGE]
    agents = set(
        Agent.objects.filter(user_id__in=[p.user_id for p in shown]).values_list(
            "user_id", flat=True
        )
    )
    cols = columns(side)
    rows = [
        BoardRow(
            rank=first + i + 1,
            name=names[p.user_id],
            agent=p.user_id in agents,
            games=p.games,
            figures=[MetricFigure.added(m, p.totals[m.key]) for m in cols],
        )
        for i, p in enumerate(shown)
    ]
    return BehaviourBoard(
        ruleset=ruleset,
        ruleset_label=Ruleset(ruleset).label,
        side=side,
        side_label=SIDE_LABELS[side],
        sort=sort,
        order=order,
        min_games=least,
        # Their label and definition in the reader's language (the page says both).
        columns=[replace(m, label=m.title, definition=m.meaning) for m in cols],
        rows=rows,
        pages=Pages(number, num_pages, count),
    )
