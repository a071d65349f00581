"""The parallel run's scheduling (tests/conftest.py): which modules run whole on one worker."""

from __future__ import annotations

from tests.conftest import runs_whole


def test_a_module_sharing_a_module_fixture_runs_whole_and_others_spread() -> None:
    # Servers and workers started once per module; the in-process proof's halves, whose
    # fixture is made by ``play_fixture``.
    assert runs_whole("tests/live/test_connection_limits.py")
    assert runs_whole("tests/live/test_several_processes.py")
    assert runs_whole("tests/site/test_live_in_process_tables.py")
    # Tests that share nothing but the database spread over the workers one by one.
    assert not runs_whole("tests/site/test_views.py")
    assert not runs_whole("tests/no/such/module.py")
