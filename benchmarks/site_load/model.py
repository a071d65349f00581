"""The site load test's model of traffic: every parameter once, with where it comes from.

BENCHMARKS.md ("Site capacity (issue 22)") states the model in words with its sources;
this module is the same model as numbers, read by ``prepare.py`` (how many games, seats,
accounts), ``run.py`` (how many users of each kind, the phase timing) and the locustfile
(each user's pace). A run writes the parameters it used into its plan and its report.

Two clocks, kept apart on purpose:

* **Pace** is real time. A forum game's posts, votes and page views come at the rate a
  busy forum's game has them in its busiest hour (sources below), not faster: N games
  in this test load the site as N such games would.
* **Phases** are compressed: a day lasts ``day_seconds`` (minutes, not 48 hours) and a
  night ``night_seconds``, so that deadlines fire during a five-minute run and the
  worker's deadline path is measured under the web load. What happens *once per phase*
  (the night's actions, the role PM visit at night, every open page refreshing its parts
  when the day ends) therefore comes far more often than on a real site: a run's phase
  changes are a stress, the same as every game's deadline falling in the same few
  minutes (on mafiascum "all deadlines will take place at midnight EST" in some games).
  Each game has one day deadline and one night deadline in the measured window
  (``spread_seconds``), which is ``2 N / (spread + night)`` transitions a second.
* **The deadline hour**: the last hour of a day carries ``rush_post_share`` of its posts
  and ``rush_vote_share`` of its votes. In the test, a game's last ``rush_seconds``
  before its day deadline run at the deadline hour's pace; with deadlines spread over
  ``spread_seconds``, about ``rush_seconds / spread_seconds`` of the day games are in
  their deadline hour at any moment: the site's busiest hour, when deadlines cluster.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Model:
    # -- forum pace (real time) -------------------------------------------------------------
    # A fast forum's day: Mafia Universe and EpicMafia run 48-72 h days, MafiaManiac 24 h
    # days; nights 18-24 h (mafiascum: 24 h nights, days of 6-14 real days).
    day_hours: float = 48.0
    night_hours: float = 24.0
    # Posts per living player per day phase. Caps seen on forums: EpicMafia 300 a day phase
    # (lifted 2 h before the end of day), the Mafia Universe championship 150 (lifted at the
    # end of day), "only a handful of us consistently make 100+ posts a day" (ResetEra's
    # forum mafia); mafiascum's "low post count" experiment allowed 100 on day 1 and 50 on
    # later (10-day) days. 40 a 48 h day is an active game, not the record.
    posts_per_player_day: float = 40.0
    # Vote changes per living player per day (votes and unvotes): an assumption (players
    # move their vote a few times a day; votes and unvotes are bold lines in posts or the
    # vote buttons; half and half here), a quarter of them unvotes.
    votes_per_player_day: float = 6.0
    bold_vote_share: float = 0.5
    unvote_share: float = 0.25
    # The deadline hour's share of a day's posts and votes: an assumption. Forums show the
    # rush (EpicMafia lifts its post cap 2 h before the end of day; mafiascum grants "5
    # additional posts within 24 hours of deadline" and unlimited votes then); votes crowd
    # the deadline more than talk does.
    rush_post_share: float = 0.20
    rush_vote_share: float = 0.35
    # Night: the mafia's chat, posts per mafia member per (24 h) night (assumption).
    mafia_posts_per_night: float = 12.0
    # -- who is on the site at its busiest hour ------------------------------------------------
    # Share of a game's living players with its page open (a live socket each): assumption.
    online_share: float = 0.4
    # Page views per online player an hour besides the live page: the newest page, older
    # pages, ISO (the forum scum hunter's tool), the role PM, the vote log, my games.
    player_views_per_hour: float = 40.0
    # Readers who are not playing: lurkers, dead players, replacements in waiting, hosts
    # (assumption), each with a live page and a page view every two minutes.
    spectators_per_game: float = 2.0
    spectator_views_per_hour: float = 30.0
    signed_in_spectator_share: float = 0.3
    # An online person's visit (one page, one socket) lasts this long on average; then the
    # socket closes and another visit (page + socket) begins.
    visit_minutes: float = 20.0
    # People on the lobby, the league page, leaderboards, setups (per forum game).
    lobby_per_game: float = 0.1
    lobby_views_per_hour: float = 60.0
    # Log-ins through the form, per forum game an hour (sessions are remembered: a player
    # logs in rarely; PBKDF2 makes each costly).
    logins_per_game_hour: float = 0.5
    # -- per phase (compressed time: these come once per phase) --------------------------------
    night_actions_per_role: float = 1.2  # a power role's sends and changes per night
    role_pm_visits_per_night: float = 1.5  # per online player
    # -- table games (city, classic, power: turns of people and bots) --------------------------
    tables_per_game: float = 0.02
    table_people_share: float = 0.4  # the rest are bots (agents through the API)
    turn_seconds: int = 20
    vote_seconds: int = 20
    # -- the test's compressed phases ----------------------------------------------------------
    day_seconds: int = 180
    night_seconds: int = 60  # the shortest phase the site allows
    rush_seconds: int = 45
    spread_seconds: int = 150
    # The forum setups (games.setups) and the seats they are padded to (12-15 players).
    forum_setups: tuple[tuple[str, int], ...] = field(
        default=(
            ("forum-mountainous", 13),
            ("forum-cop-doctor-nine", 12),
            ("forum-vig-ten", 14),
            ("forum-third-party-ten", 15),
        )
    )
    table_setups: tuple[str, ...] = ("classic-ten", "city-ten", "power-nine")

    # -- derived -------------------------------------------------------------------------------
    def post_rate(self, players: int, rush: bool) -> float:
        """A game's public posts an hour (real time), in or outside its deadline hour."""
        per_day = self.posts_per_player_day * players
        if rush:
            return self.rush_post_share * per_day
        return (1 - self.rush_post_share) * per_day / (self.day_hours - 1)

    def vote_rate(self, players: int, rush: bool) -> float:
        """A game's vote changes an hour (bold or buttons, votes and unvotes)."""
        per_day = self.votes_per_player_day * players
        if rush:
            return self.rush_vote_share * per_day
        return (1 - self.rush_vote_share) * per_day / (self.day_hours - 1)

    def rush_multiplier(self) -> float:
        """How much faster a game posts in its deadline hour than in the rest of its day."""
        return self.post_rate(1, True) / self.post_rate(1, False)

    def online(self, players: int) -> int:
        return max(1, round(self.online_share * players))

    def tables(self, games: int) -> int:
        return max(1, round(self.tables_per_game * games))

    def users(self, games: int, online_players: int, table_people: int, table_bots: int) -> dict:
        """How many Locust users of each class a run of ``games`` forum games has."""
        spectators = max(1, round(self.spectators_per_game * games))
        return {
            "ForumPlayer": online_players,
            "Spectator": spectators,
            "LobbyBrowser": max(1, round(self.lobby_per_game * games)),
            # One user logs in every ``login_pacing`` seconds: enough users for the rate.
            "Login": max(1, math.ceil(self.logins_per_game_hour * games / 3600 * 60)),
            "TablePlayer": table_people,
            "TableBot": table_bots,
        }

    def login_pacing(self, games: int, login_users: int) -> float:
        """Seconds between two log-ins of one Login user (the model's rate in all)."""
        per_second = self.logins_per_game_hour * games / 3600
        return max(login_users / per_second, 5.0) if per_second else 3600.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rush_multiplier"] = round(self.rush_multiplier(), 2)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Model:
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        for key in ("forum_setups", "table_setups"):
            if key in values:
                values[key] = tuple(tuple(x) if isinstance(x, list) else x for x in values[key])
        return cls(**values)


def padded_role_list(slug: str, seats: int) -> list[dict[str, Any]]:
    """A library setup's role list padded to ``seats``: vanilla townies, and a goon for
    every four seats added (so the town-to-mafia balance stays near the setup's)."""
    from games.setups import SETUPS

    roles = [dict(entry) for entry in SETUPS[slug].role_list]
    have = sum(entry.get("count", 1) for entry in roles)
    extra = seats - have
    if extra < 0:
        raise ValueError(f"{slug} has {have} seats, more than {seats}")
    goons = extra // 4
    for entry in roles:
        if entry["role"] == "goon" and not entry.get("modifiers") and goons:
            entry["count"] = entry.get("count", 1) + goons
            goons = 0
        if entry["role"] == "vanilla_townie" and not entry.get("modifiers"):
            entry["count"] = entry.get("count", 1) + extra - extra // 4
            extra = 0
    if extra:
        roles.append({"role": "vanilla_townie", "count": extra - extra // 4})
    if goons:
        roles.append({"role": "goon", "count": goons})
    assert sum(entry.get("count", 1) for entry in roles) == seats, (slug, roles)
    return roles
