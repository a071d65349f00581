"""Live equals reload in process: the forum game's second half.

``tests/site/test_live_in_process.py`` says what the proof is and proves the forum game's
sign-ups and first day; this module plays the same game again, unchecked up to its first
day's chores, then opens every viewer's pages and proves the rest (a modkill, a day shot, a
replacement, the hammer, the night, the dawn, the end), with the same tests, on a worker of
its own: one module holding the whole game came to half its timeout under the parallel
run's load.
"""

from __future__ import annotations

# The same tests, collected here again with this module's ``play`` and ``CASE_KINDS``.
from tests.site.test_live_in_process import (  # noqa: F401 (pytest collects what is imported)
    FORUM_END_GAMES,
    FORUM_END_KINDS,
    play_fixture,
    pytest_generate_tests,
    pytestmark,
    test_every_kind_has_a_case,
    test_live_equals_reload,
    test_the_games_played_through,
    test_you_notices_reach_only_their_player,
)

CASE_KINDS = FORUM_END_KINDS  # this third's
play = play_fixture(FORUM_END_GAMES)
