"""The site load test's model of traffic: every parameter once, with where it comes from.

BENCHMARKS.md ("Site capacity (issue 22)") states the model in words with its sources;
this module is the same model as numbers, read by ``prepare.py`` (how many games, seats,
accounts), ``run.py`` (how many users of each kind, the phase timing) and the locustfile
(each user's pace). A run writes the parameters it used into its plan and its report.

Two clocks, kept apart on purpose:

* **Pace** is real time. A forum game's posts, votes and page views come at the rate a
  busy forum's game has them in its busiest hour (sources below), not faster: N games
  in this test load the site as N such games would.
* **Phases** follow one of three models (``PHASE_MODELS``; ``run.py --phase-model``):

  - ``busiest-hour`` (the default): days and nights keep their real lengths
    (``day_hours``, ``night_hours``) and every game's day deadline falls within one real
    hour (``busiest_hour_seconds``), spread evenly over it: the busiest hour of a site
    whose games all end their days at the same time of day (on mafiascum "all deadlines
    will take place at midnight EST" in some games). The measured window is the first
    S seconds of that hour, so about ``N * S / 3600`` deadlines fire in it, at
    ``N / 3600`` a second, and each game changes phase at most once (its night lasts
    24 h). Every day game is in its deadline hour during the window (rush pace), which
    makes the window the heaviest part of that hour.
  - ``storm``: as the busiest hour, but ``storm_share`` of the games have their deadline
    in the same minute (``storm_seconds``), ``storm_lead_seconds`` into the window, and
    the run reports that minute on its own (deadline lateness, pages and writes during
    it). This is the worst case "every game at midnight" makes.
  - ``compressed`` (the old model, kept for comparison): a day lasts ``day_seconds`` and
    a night ``night_seconds``, day 1 deadlines spread over ``spread_seconds``; what
    happens once per phase (night actions, the role PM at night, every open page
    refreshing its parts when a phase ends) then comes about 1,000 times more often than
    on a real site: ``2 N / (spread + night)`` transitions a second, a stress, not a site.
* **The deadline hour**: the last hour of a day carries ``rush_post_share`` of its posts
  and ``rush_vote_share`` of its votes. A game whose day deadline is less than an hour
  away (``rush_window``: ``rush_seconds`` in the compressed model) runs at the deadline
  hour's pace.
"""

from __future__ import annotations

import math
import random
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
    # -- phases: the busiest hour and the storm (real time) ------------------------------------
    # The hour every game's day deadline falls in. A forum sets one deadline time of day
    # for a game (mafiascum: "all deadlines will take place at midnight EST"; players pick
    # an evening hour in their own time zone), and a site's games crowd a few such hours;
    # putting every game's deadline in one hour is the upper bound of that crowding.
    busiest_hour_seconds: int = 3600
    # The storm: this share of the games' deadlines in the same minute (the upper bound:
    # every game "at midnight EST"); ``run.py --storm-share`` chooses another share.
    storm_share: float = 1.0
    storm_seconds: int = 60
    # The storm begins this long into the measured window (a minute of the busiest hour
    # before it, to compare with) and the window goes on this long after it (the pages'
    # own parts and the transitions' fan-out settle): a storm run measures at least
    # lead + storm + settle seconds.
    storm_lead_seconds: int = 60
    storm_settle_seconds: int = 60
    # How a real (day-long) deadline is ended: "scan", as the site does for a deadline set
    # more than ``games.scheduling.SHORT_RANGE`` (10 min) ahead, which every 24-48 h
    # phase's is when it opens: only the beat scan (every ``DEADLINE_SCAN_SECONDS``, 15 s)
    # and the web processes' watchdog end it, so a deadline is up to one scan late with no
    # load at all. "eta" (``run.py --deadlines eta``) queues each armed deadline's ETA task
    # as if the site queued it when the deadline came near: what the 2 s target needs, and
    # the site does not do yet. The compressed model always queues ETA tasks (its phases
    # are short, so the site does too).
    deadline_path: str = "scan"
    # -- the compressed phases (the old model, ``--phase-model compressed``) --------------------
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

    # -- phases --------------------------------------------------------------------------------
    def phase_lengths(self, phase_model: str) -> tuple[float, float]:
        """A forum game's day and night lengths in seconds under ``phase_model``."""
        check_phase_model(phase_model)
        if phase_model == "compressed":
            return float(self.day_seconds), float(self.night_seconds)
        return self.day_hours * 3600, self.night_hours * 3600

    def rush_window(self, phase_model: str) -> float:
        """Seconds before a day deadline during which a game posts at the deadline hour's pace."""
        check_phase_model(phase_model)
        return float(self.rush_seconds) if phase_model == "compressed" else 3600.0

    def storm_span(self, seconds: float) -> tuple[float, float]:
        """(start, length) of the storm minute in a measured window of ``seconds``: the
        model's lead, minute and settle when the window holds them, else the same three
        parts shrunk in proportion (a smoke run's short window)."""
        lead, minute = self.storm_lead_seconds, self.storm_seconds
        settle = self.storm_settle_seconds
        whole = lead + minute + settle
        if seconds >= whole:
            return float(lead), float(minute)
        return seconds * lead / whole, seconds * minute / whole

    def expected_deadlines(
        self, phase_model: str, games: int, seconds: float, storm_share: float | None = None
    ) -> float | None:
        """How many day deadlines the model puts in a measured window of ``seconds`` (None
        for the compressed model: a deadline every phase, as many as the window holds)."""
        check_phase_model(phase_model)
        hour = self.busiest_hour_seconds
        if phase_model == "busiest-hour":
            return games * min(seconds, hour) / hour
        if phase_model == "storm":
            storm = storm_games(games, self.storm_share if storm_share is None else storm_share)
            return storm + (games - storm) * min(seconds, hour) / hour
        return None

    def deadline_offsets(
        self,
        phase_model: str,
        games: int,
        seconds: float,
        rng: random.Random,
        storm_share: float | None = None,
    ) -> list[float]:
        """Each game's day 1 deadline, in seconds after the measured window starts.

        Spread evenly (each game its own slice of the span, at a random moment in it, the
        slices shuffled among the games), so a window of S seconds holds N*S/span of them
        give or take one rather than a random count: the figure depends on the model, not
        on the draw."""
        check_phase_model(phase_model)
        if phase_model == "compressed":
            return [rng.uniform(0, self.spread_seconds) for _ in range(games)]
        hour = float(self.busiest_hour_seconds)
        if phase_model == "busiest-hour":
            return _spread(games, 0.0, hour, rng)
        share = self.storm_share if storm_share is None else storm_share
        start, length = self.storm_span(seconds)
        storm = storm_games(games, share)
        in_storm = set(rng.sample(range(games), storm))
        storm_at = iter(_spread(storm, start, length, rng))
        others = iter(_spread(games - storm, 0.0, hour, rng))
        return [next(storm_at) if g in in_storm else next(others) for g in range(games)]

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


PHASE_MODELS = ("busiest-hour", "storm", "compressed")


def check_phase_model(phase_model: str) -> None:
    if phase_model not in PHASE_MODELS:
        raise ValueError(f"phase model {phase_model!r}: one of {', '.join(PHASE_MODELS)}")


def storm_games(games: int, share: float) -> int:
    """How many games have their deadline in the storm minute."""
    if not 0 <= share <= 1:
        raise ValueError(f"storm share {share}: between 0 and 1")
    return round(games * share)


def _spread(n: int, start: float, length: float, rng: random.Random) -> list[float]:
    """``n`` moments in [start, start + length), one in each of n equal slices, shuffled."""
    slots = list(range(n))
    rng.shuffle(slots)
    return [start + (k + rng.random()) * length / n for k in slots]


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
