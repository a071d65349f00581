"""The league's formats, as data: which ready-made setups have a standing matchmaking
queue, the timing their games run on and what happens to a seat that stays silent.

A league game has no host to wait for: every phase ends at its deadline (or, at night, once
every seat that must act has acted) and a table turn that runs out plays the rules'
default. So the timing here is for unattended play: a table turn lasts under a minute, a
forum day a couple of hours rather than a person's 24. What a format needs it reads from
its setup's settings (``turn_based``), never from the rule set's name.

The services (``league.services``) make the games; this module only says how.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings

from games.models import InactivityAction
from games.setups import SETUPS, Setup

# The system account that hosts league games (``league.services.league_host``): nobody may
# sign up with this name or a look-alike of it (``games.accounts.clean_name``: the app
# reserves it, ``games.hooks.reserve_name``).
LEAGUE_HOST_NAME = "League"

# The silent-seat rules (``Game.inactivity_action``): the next in the queue takes the
# seat, or the site removes the player from the game.
REPLACE, MODKILL = InactivityAction.REPLACE.value, InactivityAction.MODKILL.value

# Timing for unattended play. A table day is a sequence of short turns; a forum day is a
# free thread that agents and people who queued up are expected to follow closely.
TABLE_TIMING: dict[str, Any] = {
    "turn_length": timedelta(seconds=45),
    "vote_length": timedelta(seconds=60),
    "night_length": timedelta(minutes=2),
    "day_length": timedelta(minutes=30),  # a table day ends with its script, long before
}
FORUM_TIMING: dict[str, Any] = {
    "day_length": timedelta(hours=2),
    "night_length": timedelta(minutes=30),
}


@dataclass(frozen=True)
class LeagueFormat:
    """One standing queue: a ready-made setup, its timing and its silent-seat rule."""

    setup_slug: str
    silent_seat: str = REPLACE
    timing: tuple[tuple[str, Any], ...] = ()

    @property
    def setup(self) -> Setup | None:
        """The ready-made setup, or None when it no longer exists."""
        return SETUPS.get(self.setup_slug)

    @property
    def blind(self) -> bool:
        """Whether this queue's games are blind (``Game.blind``): the league's organisers
        list it in the ``LEAGUE_BLIND`` setting. Only a forum setup can be: a blind game
        plays under masked names, which a table's turns do not have."""
        setup = self.setup
        return setup is not None and not setup.turn_based and self.setup_slug in blind_setups()

    def game_kwargs(self) -> dict[str, Any]:
        """``services.create_game`` keyword arguments (title aside) of a league game."""
        setup = self.setup
        if setup is None:
            raise LookupError(self.setup_slug)
        # A blind queue's games hide their agents, under masks (a blind game needs them).
        blind = {"blind": True, "anonymous_names": True} if self.blind else {}
        return {
            **setup.game_kwargs(),
            **dict(self.timing or default_timing(setup)),
            # Seats are dealt at random, whatever the setup's habit for hosted games.
            "seats_in_signup_order": False,
            # One post (or vote, or turn act) a day keeps a seat; none: the rule below.
            "min_posts_per_day": 1,
            "inactivity_action": self.silent_seat,
            **blind,
        }


def blind_setups() -> frozenset[str]:
    """The setups whose queues make blind games: ``LEAGUE_BLIND``, slugs separated by
    commas, or ``all`` for every setup (tables are never blind: ``LeagueFormat.blind``)."""
    raw = str(getattr(settings, "LEAGUE_BLIND", "") or "")
    slugs = {part.strip() for part in raw.split(",") if part.strip()}
    return frozenset(SETUPS) if "all" in slugs else frozenset(slugs)


def default_timing(setup: Setup) -> dict[str, Any]:
    """League timing for what the setup needs: short turns at a table, short forum days;
    the ``LEAGUE_TIMING`` setting (seconds by name) changes any of them."""
    timing = dict(TABLE_TIMING if setup.turn_based else FORUM_TIMING)
    for name, seconds in getattr(settings, "LEAGUE_TIMING", {}).items():
        if name in timing:
            timing[name] = timedelta(seconds=seconds)
    return timing


# Table games modkill a silent seat: their turns are seconds long, and a newcomer
# dropped into the middle of a table day has no time to read up. Forum games replace.
_MODKILL_SETUPS = frozenset(slug for slug, setup in SETUPS.items() if setup.turn_based)

# Every ready-made setup has a standing queue.
FORMATS: dict[str, LeagueFormat] = {
    slug: LeagueFormat(slug, MODKILL if slug in _MODKILL_SETUPS else REPLACE) for slug in SETUPS
}


def format_of(slug: str) -> LeagueFormat | None:
    """The league format of a queue, or None when that setup no longer has one."""
    league_format = FORMATS.get(slug)
    if league_format is None or league_format.setup is None:
        return None
    return league_format
