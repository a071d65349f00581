"""The ratings as the leaderboard and the player's page show them, page and API alike.

Only finished games' facts appear: a ``RatingChange`` is written when a rated game ends,
and every query here also asks for a finished game, so a running game's role (hidden
information) can never reach these pages. (The player's reliability record, from
``reads.reliability``, also lists running games: only what their threads announce.)
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.errors import ErrorCode, NotFound
from games.models import Agent, GameStatus, Ruleset
from games.reads.paging import Pages, page_number
from games.reads.reliability import Record, record
from games.reads.rulesets import ruleset_or_404

from . import compute
from .models import Rating, RatingChange, RatingSide
from .shapes import RatingFigure

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

WHO = ("both", "people", "agents")
# Lazy: said in the reader's language where shown.
WHO_LABELS: dict[str, Any] = {
    "both": gettext_lazy("People and agents"),
    "people": gettext_lazy("People"),
    "agents": gettext_lazy("Agents"),
}
SIDES = tuple(RatingSide.values)
PER_PAGE = 50
FORM_GAMES = 5  # "recent form": this many latest results
Form = Literal["W", "L"]  # a result of the recent form: won, lost


@dataclass
class Figure:
    """One rating as shown: the ordinal (mu - 3 sigma) and its parts."""

    mu: float
    sigma: float
    games: int
    wins: int

    @property
    def rating(self) -> float:
        return compute.ordinal(self.mu, self.sigma)

    @classmethod
    def of(cls, row: Rating) -> Figure:
        return cls(row.mu, row.sigma, row.games, row.wins)

    def data(self) -> RatingFigure:
        return {
            "rating": round(self.rating, 4),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "wins": self.wins,
        }


@dataclass
class BoardRow:
    rank: int
    name: str
    agent: bool
    figure: Figure
    wins_town: int
    wins_mafia: int
    wins_other: int
    form: list[Form]  # newest first


@dataclass
class Board:
    ruleset: str
    ruleset_label: StrOrPromise
    who: str
    side: str
    rows: list[BoardRow]
    pages: Pages


def leaderboard(
    ruleset: str, *, who: str = "both", side: str = "overall", page: object = 1
) -> Board:
    """One page of a rule set's ranking on ``side``, of people, agents or both: those who
    have played a rated game there (on that side), best ordinal first."""
    ruleset_or_404(ruleset)
    rows = Rating.objects.filter(ruleset=ruleset, side=side, games__gt=0)
    if who == "people":
        rows = rows.filter(user__agent__isnull=True)
    elif who == "agents":
        rows = rows.filter(user__agent__isnull=False)
    count = rows.count()
    num_pages = max(1, math.ceil(count / PER_PAGE))
    number = page_number(page, num_pages)
    first = (number - 1) * PER_PAGE
    chosen = list(
        rows.select_related("user", "user__agent").order_by("-ordinal", "-games", "user__username")[
            first : first + PER_PAGE
        ]
    )
    users = [r.user_id for r in chosen]
    by_side: dict[tuple[int, str], Rating] = {
        (r.user_id, r.side): r for r in Rating.objects.filter(ruleset=ruleset, user_id__in=users)
    }
    form: dict[int, list[Form]] = defaultdict(list)
    for change in (
        RatingChange.objects.filter(
            ruleset=ruleset, side=side, user_id__in=users, game__status=GameStatus.FINISHED
        )
        .order_by("-at", "-id")
        .only("user_id", "won")
    ):
        if len(form[change.user_id]) < FORM_GAMES:
            form[change.user_id].append("W" if change.won else "L")
    out = []
    for i, row in enumerate(chosen):
        overall = by_side.get((row.user_id, RatingSide.OVERALL))
        town = by_side.get((row.user_id, RatingSide.TOWN))
        mafia = by_side.get((row.user_id, RatingSide.MAFIA))
        wins_town = town.wins if town else 0
        wins_mafia = mafia.wins if mafia else 0
        out.append(
            BoardRow(
                rank=first + i + 1,
                name=row.user.get_username(),
                agent=_is_agent(row.user),
                figure=Figure.of(row),
                wins_town=wins_town,
                wins_mafia=wins_mafia,
                wins_other=max(0, (overall.wins if overall else 0) - wins_town - wins_mafia),
                form=form[row.user_id],
            )
        )
    return Board(
        ruleset=ruleset,
        ruleset_label=Ruleset(ruleset).label,
        who=who,
        side=side,
        rows=out,
        pages=Pages(number, num_pages, count),
    )


def _is_agent(user: Any) -> bool:
    try:
        return user.agent is not None
    except Agent.DoesNotExist:
        return False


# -- a player's page ---------------------------------------------------------------------
@dataclass
class Chart:
    """A rating history as an inline SVG polyline (drawn by the server, no script)."""

    width: int
    height: int
    points: str  # "x,y x,y ..."
    dots: list[tuple[float, float]]
    top: float  # the highest and lowest rating drawn, for the axis labels
    bottom: float


CHART_W, CHART_H, PAD = 600, 160, 12


def chart(values: list[float]) -> Chart | None:
    """The rating after each game, left to right; the first point is the start."""
    if not values:
        return None
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1.0
    step = (CHART_W - 2 * PAD) / max(len(values) - 1, 1)
    dots = [
        (
            round(PAD + i * step, 1),
            round(PAD + (top - v) / span * (CHART_H - 2 * PAD), 1),
        )
        for i, v in enumerate(values)
    ]
    return Chart(
        CHART_W,
        CHART_H,
        " ".join(f"{x},{y}" for x, y in dots),
        dots,
        round(top, 2),
        round(bottom, 2),
    )


@dataclass
class HistoryPoint:
    game_id: int
    title: str
    at: datetime
    rating: float


@dataclass
class RulesetRatings:
    ruleset: str
    label: StrOrPromise
    sides: dict[str, Figure | None]
    history: list[HistoryPoint]
    chart: Chart | None


@dataclass
class PlayedGame:
    game_id: int
    title: str
    ruleset: str
    finished_at: datetime | None
    role: str
    alignment: str
    won: bool
    modkilled: bool
    share: float
    change: float  # of the overall rating's ordinal

    @property
    def ruleset_label(self) -> StrOrPromise:
        return Ruleset(self.ruleset).label


@dataclass
class Player:
    name: str
    agent: bool
    ratings: list[RulesetRatings]
    games: list[PlayedGame] = field(default_factory=list)
    # Their inactivity modkills, replacements out and league games left (any game, rated
    # or not: ``reads.reliability``).
    record: Record | None = None


MAX_PLAYED = 200  # rated games listed on the page (newest first)


def player(name: str, *, with_record: bool = False) -> Player:
    """A person's or agent's ratings, history and rated games (finished games only), and
    ``with_record``, their reliability record (the API's; the player's page has its own,
    the core's, and the panel no second copy)."""
    user = get_user_model().objects.filter(username=name).select_related("agent").first()
    if user is None:
        raise NotFound(
            _("There is no player called %(name)s.") % {"name": repr(name)},
            ErrorCode.NO_USER,
            "name",
        )
    rows = {(r.ruleset, r.side): r for r in Rating.objects.filter(user=user)}
    changes = list(
        RatingChange.objects.filter(
            user=user, side=RatingSide.OVERALL, game__status=GameStatus.FINISHED
        )
        .select_related("game")
        .order_by("at", "id")
    )
    per_ruleset: dict[str, list[RatingChange]] = defaultdict(list)
    for change in changes:
        per_ruleset[change.ruleset].append(change)
    out = []
    for ruleset in Ruleset.values:
        played = per_ruleset.get(ruleset, [])
        if not played:
            continue
        sides = {}
        for side in SIDES:
            row = rows.get((ruleset, side))
            sides[side] = Figure.of(row) if row is not None and row.games else None
        history = [
            HistoryPoint(c.game_id, c.game.title, c.at, compute.ordinal(c.mu_after, c.sigma_after))
            for c in played
        ]
        start = compute.ordinal(played[0].mu_before, played[0].sigma_before)
        out.append(
            RulesetRatings(
                ruleset,
                Ruleset(ruleset).label,
                sides,
                history,
                chart([start, *(p.rating for p in history)]),
            )
        )
    games = [
        PlayedGame(
            game_id=c.game_id,
            title=c.game.title,
            ruleset=c.ruleset,
            finished_at=c.game.finished_at,
            role=c.role,
            alignment=c.alignment,
            won=c.won,
            modkilled=c.modkilled,
            share=c.share,
            change=compute.ordinal(c.mu_after, c.sigma_after)
            - compute.ordinal(c.mu_before, c.sigma_before),
        )
        for c in reversed(changes[-MAX_PLAYED:])
    ]
    return Player(
        user.get_username(), _is_agent(user), out, games, record(user) if with_record else None
    )
