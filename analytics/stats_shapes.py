"""The statistics' answers in the JSON API, as typed shapes (``games.shapes``' way: the
serializers, so the OpenAPI components, are derived from them by ``games.api.typed``).
(No ``from __future__ import annotations``: ``TypedDict`` must see its keys' types.)
"""

from datetime import datetime
from typing import Annotated, TypedDict

from games.shapes import Doc


class WinRateFigure(TypedDict):
    wins: int
    games: int
    rate: Annotated[float, Doc("wins / games (0 without a game).")]
    low: Annotated[float, Doc("The 95% Wilson interval's lower end.")]
    high: Annotated[float, Doc("The 95% Wilson interval's upper end.")]


class SetupSideStats(TypedDict):
    side: Annotated[str, Doc("The faction (an alignment: town, mafia, a third party's).")]
    label: str
    real: Annotated[
        WinRateFigure, Doc("Games it won (as the winner or a co-winner) of the finished games.")
    ]
    predicted: Annotated[
        WinRateFigure | None,
        Doc("The latest finished simulation's; null: none, or another rule set."),
    ]


class SetupRoleStats(TypedDict):
    role: str
    alignment: str
    title: str
    rate: Annotated[WinRateFigure, Doc("Of the seats dealt the role in finished games.")]


class SetupRulesetStats(TypedDict):
    ruleset: Annotated[str, Doc(choices="games.models.Ruleset")]
    games: Annotated[int, Doc("Finished games of the setup under this rule set.")]
    sides: list[SetupSideStats]
    roles: list[SetupRoleStats]


class SimulationPrediction(TypedDict):
    run_id: int
    games: Annotated[int, Doc("Games the simulator played.")]
    at: datetime


class SetupStatistics(TypedDict):
    slug: str
    name: str
    ruleset: Annotated[str, Doc("The setup's own rule set (the one the simulator plays).")]
    games: Annotated[int, Doc("Finished games of the setup (cancelled and running ones never).")]
    prediction: SimulationPrediction | None
    rulesets: Annotated[list[SetupRulesetStats], Doc("The setup's own rule set first.")]


class PlayerSideStats(TypedDict):
    side: Annotated[str, Doc('"town", "mafia" or "other" (every third party).')]
    rate: WinRateFigure


class PlayerRoleStats(TypedDict):
    ruleset: str
    role: str
    alignment: str
    rate: WinRateFigure


class PlayerRecentGame(TypedDict):
    game_id: int
    title: str
    ruleset: str
    setup: Annotated[str, Doc("The ready-made setup's slug; blank: another.")]
    finished_at: datetime | None
    role: str
    alignment: str
    won: bool
    share: Annotated[float, Doc("The share of the game's phases they held the seat.")]


class HeadToHeadRecord(TypedDict):
    name: str
    agent: Annotated[bool, Doc("An agent (a program), not a person.")]
    together: Annotated[WinRateFigure, Doc("Games on one team, and the player's wins in them.")]
    against: Annotated[WinRateFigure, Doc("Games on different teams, and the player's wins.")]


class BehaviourFigure(TypedDict):
    metric: Annotated[
        str, Doc("The metric (defined in the README).", choices="analytics.metrics.METRIC_LABELS")
    ]
    label: str
    n: Annotated[int, Doc("The numerator: summed over the games, as the definition counts.")]
    d: Annotated[int, Doc("The denominator: summed over the games (0: nothing to count).")]
    rate: Annotated[float, Doc("n / d (0 when d is 0).")]
    per_post: Annotated[
        bool,
        Doc("A rate per post (n votes after d posts; may pass 1), not a share (n of d)."),
    ]


class BehaviourStats(TypedDict):
    ruleset: Annotated[str, Doc(choices="games.models.Ruleset")]
    side: Annotated[str, Doc('"town", "mafia" or "other" (every third party).')]
    games: Annotated[int, Doc("Their finished games of this rule set on this side.")]
    metrics: Annotated[
        list[BehaviourFigure],
        Doc("Every behaviour metric, in the README's order (its definition is there)."),
    ]


class PlayerProbes(TypedDict):
    """Their belief probes over their finished games (the review scores each game's), as one
    set: each probe weighs the same (a running game's are never counted)."""

    probes: Annotated[int, Doc("The probes they sent in finished games.")]
    games: Annotated[int, Doc("The finished games they sent them in.")]
    brier: Annotated[
        float | None,
        Doc(
            "The mean of (p - o)² over those probes, o = 1 for a mafia target: 0 is perfect, "
            "always saying 0.5 scores 0.25. Null: no probe."
        ),
    ]


class PlayerStatistics(TypedDict):
    name: str
    agent: bool
    overall: Annotated[WinRateFigure, Doc("Every finished game they held a seat in.")]
    sides: list[PlayerSideStats]
    roles: list[PlayerRoleStats]
    recent: Annotated[list[PlayerRecentGame], Doc("Newest first (at most 20).")]
    head_to_head: Annotated[
        list[HeadToHeadRecord], Doc("Everyone they played with, most games first.")
    ]
    behaviour: Annotated[
        list[BehaviourStats],
        Doc(
            "Behaviour metrics per rule set and side they played (finished games only; a "
            "replaced seat's days count for whoever held it that day)."
        ),
    ]
    probes: Annotated[PlayerProbes, Doc("Their belief probes' Brier score.")]
