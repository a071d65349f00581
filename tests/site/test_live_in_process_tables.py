"""Live equals reload in process: the second half of the proof.

``tests/site/test_live_in_process.py`` says what the proof is and plays the forum games;
this module plays the rest (a locking wagon, the classic thread's nominations and revote,
a table game's turns and vote) with the same tests, on a worker of its own, so neither half
comes near its timeout under the parallel run's load.
"""

from __future__ import annotations

from games.event_kinds import KINDS

# The same tests, collected here again with this module's ``play`` and ``CASE_KINDS``.
from tests.site.test_live_in_process import (  # noqa: F401 (pytest collects what is imported)
    ONLY_IN_THE_FORUM_GAME,
    TABLE_GAMES,
    play_fixture,
    pytest_generate_tests,
    pytestmark,
    test_every_kind_has_a_case,
    test_live_equals_reload,
    test_the_games_played_through,
    test_you_notices_reach_only_their_player,
)

CASE_KINDS = frozenset(KINDS) - ONLY_IN_THE_FORUM_GAME  # this half's
play = play_fixture(TABLE_GAMES)
