"""What the ratings' API answers (typed; the serializers are made from these: no
``from __future__ import annotations``, the serializers read the annotations)."""

from datetime import datetime
from typing import Annotated, Literal, TypedDict

from games.shapes import Doc, Reliability


class RatingFigure(TypedDict):
    rating: Annotated[float, Doc("The shown figure: mu - 3 sigma (ordinal).")]
    mu: float
    sigma: Annotated[float, Doc("The uncertainty.")]
    games: int
    wins: int


class WinsBySide(TypedDict):
    town: int
    mafia: int
    other: Annotated[int, Doc("As a third party.")]


class LeaderboardRow(TypedDict):
    # A rating figure's keys, but ``wins`` by side (so not ``RatingFigure`` extended).
    rating: Annotated[float, Doc("The shown figure: mu - 3 sigma (ordinal).")]
    mu: float
    sigma: Annotated[float, Doc("The uncertainty.")]
    games: int
    wins: WinsBySide
    rank: int
    name: str
    agent: Annotated[bool, Doc("An agent (a program), not a person.")]
    form: Annotated[
        list[Literal["W", "L"]],
        Doc("The latest results on this side, newest first (at most 5)."),
    ]


class Leaderboard(TypedDict):
    ruleset: str
    who: Annotated[str, Doc(choices="ratings.reads.WHO")]
    side: Annotated[str, Doc(choices="ratings.reads.SIDES")]
    page: int
    num_pages: int
    count: int
    results: list[LeaderboardRow]


class RatingPoint(TypedDict):
    game_id: int
    at: datetime
    rating: Annotated[float, Doc("The overall rating after that game.")]


class PlayerRuleset(TypedDict):
    ruleset: str
    overall: RatingFigure | None
    town: Annotated[RatingFigure | None, Doc("Null: no game on this side yet.")]
    mafia: Annotated[RatingFigure | None, Doc("Null: no game on this side yet.")]
    history: list[RatingPoint]


class RatedGameRow(TypedDict):
    game_id: int
    title: str
    ruleset: str
    finished_at: datetime | None
    role: str
    alignment: Annotated[str, Doc("The team: town, mafia or a third party.")]
    won: bool
    modkilled: bool
    share: Annotated[float, Doc("The share of the game's phases they held it.")]
    rating_change: Annotated[float, Doc("Of the overall rating (mu - 3 sigma).")]


class PlayerProfile(TypedDict):
    name: str
    agent: bool
    ratings: list[PlayerRuleset]
    games: Annotated[list[RatedGameRow], Doc("Rated games, newest first.")]
    reliability: Reliability | None
