"""The league's queues' and series' answers in the JSON API, as typed shapes (``games.shapes``'
way: the serializers, so the OpenAPI components, are derived from them by
``games.api.typed``).
(No ``from __future__ import annotations``: ``TypedDict`` must see its keys' types.)
"""

from datetime import datetime
from typing import Annotated, TypedDict

from games.shapes import Doc


class LeagueQueue(TypedDict):
    """One standing league queue, as the caller sees it (``league.reads.queues``)."""

    setup: Annotated[str, Doc("The setup's slug (the queue's name in URLs).")]
    name: str
    ruleset: Annotated[str, Doc("Blank: the setup is gone.")]
    players: Annotated[int | None, Doc("Seats a game of it needs (null: the setup is gone).")]
    waiting: Annotated[int, Doc("People and agents waiting now.")]
    queued: Annotated[bool, Doc("Whether you wait in it.")]
    queued_since: datetime | None
    problem: Annotated[str, Doc("Why no game was made yet (blank: nothing wrong).")]
    silent_seat: Annotated[
        str, Doc('A seat silent for a whole day: "replace" (from this queue) or "modkill".')
    ]
    blind: Annotated[
        bool, Doc("Its games are blind: which seats are agents is hidden until the end.")
    ]
    exists: Annotated[bool, Doc("False: the setup no longer exists.")]
    latest_game: Annotated[int | None, Doc("Your latest league game from this queue, if any.")]


class SideScore(TypedDict):
    side: Annotated[str, Doc("An alignment (town, mafia, a third party's).")]
    games: Annotated[int, Doc("Finished games of the series the entrant played on this side.")]
    wins: int


class EntrantScore(TypedDict):
    position: Annotated[int, Doc("The entrant's place j (from 0) in the rotation.")]
    name: str
    agent: Annotated[bool, Doc("The entrant is an agent (a program), not a person.")]
    games: Annotated[int, Doc("Finished games of the series counted (the seat the rotation gave).")]
    wins: Annotated[int, Doc("The score: a point per game the entrant's seat won.")]
    sides: list[SideScore]
    rating_change: Annotated[
        float | None,
        Doc(
            "The change of the entrant's overall rating (ordinal) over the series' games; "
            "null: none rated yet."
        ),
    ]


class SeriesSeat(TypedDict):
    seat: int
    name: Annotated[str, Doc("The entrant the rotation seats there.")]
    role: Annotated[str, Doc("Blank until the game ends.")]
    alignment: Annotated[str, Doc("Blank until the game ends.")]
    won: Annotated[bool | None, Doc("Null until the game ends.")]


class SeriesGameRow(TypedDict):
    number: Annotated[int, Doc("The game's place i (from 0) in the series.")]
    game_id: int
    title: str
    status: Annotated[str, Doc(choices="games.models.GameStatus")]
    winner: Annotated[str, Doc("Blank until the game ends.")]
    seats: list[SeriesSeat]


class SeriesSummary(TypedDict):
    id: int
    setup: Annotated[str, Doc("The ready-made setup's slug.")]
    name: str
    status: Annotated[str, Doc(choices="league.models.SeriesStatus")]
    game_count: Annotated[int, Doc("Games the series plays (a multiple of the seats).")]
    finished: Annotated[int, Doc("Its games over so far.")]
    entrants: Annotated[list[str], Doc("In rotation order.")]
    created_at: datetime


class SeriesDetail(SeriesSummary):
    ruleset: str
    seats: int
    problem: Annotated[str, Doc("Why the next game could not start (blank: nothing wrong).")]
    seed: Annotated[int | None, Doc("The deal's seed: null until the series is over.")]
    rotation: Annotated[str, Doc("How the entrants are seated, in words.")]
    scores: Annotated[list[EntrantScore], Doc("Most wins first.")]
    games: Annotated[list[SeriesGameRow], Doc("The games made so far, in order.")]


# -- blind games' guesses (league.guesses, league.blind) -------------------------------------
class AgentSeat(TypedDict):
    seat: int
    name: Annotated[str, Doc("The seat's name as the finished game shows it (mask and account).")]


class AgentGuessRow(TypedDict):
    name: Annotated[str, Doc("Who guessed (a person who held a seat of the game).")]
    seats: Annotated[list[int], Doc("The seats they named as agents', ascending.")]
    right: Annotated[int, Doc("How many of the seats they named were agents'.")]
    created_at: datetime


class AgentGuesses(TypedDict):
    game_id: int
    agent_seats: Annotated[
        list[AgentSeat],
        Doc("The truth: the seats an agent's account held (at any time of the game)."),
    ]
    guesses: list[AgentGuessRow]
    may_guess: Annotated[
        bool, Doc("Whether you may still guess: a person who held a seat and has not guessed.")
    ]


class AgentGuessResult(TypedDict):
    game_id: int
    seats: Annotated[list[int], Doc("The seats you named, ascending.")]
    right: Annotated[int, Doc("How many of them were agents'.")]
    agent_seats: Annotated[list[int], Doc("The seats that were agents'.")]
