"""The site load test's phase models (benchmarks/site_load/model.py): where the deadlines go.

No Locust and no database: the model is plain arithmetic, loaded from its file (the
benchmarks are not a package).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

MODEL_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "site_load" / "model.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("site_load_model", MODEL_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


model_module = _load()
Model = model_module.Model


def in_window(offsets: list[float], lo: float, hi: float) -> int:
    return sum(1 for x in offsets if lo <= x < hi)


@pytest.mark.parametrize(("games", "seconds"), [(100, 300), (250, 300), (1000, 300), (1000, 60)])
def test_busiest_hour_fires_n_s_over_3600_deadlines_in_the_window(games: int, seconds: int):
    model = Model()
    offsets = model.deadline_offsets("busiest-hour", games, seconds, random.Random(games))
    assert len(offsets) == games
    expected = model.expected_deadlines("busiest-hour", games, seconds)
    assert expected == pytest.approx(games * seconds / 3600)
    # Evenly spread, one deadline in each N-th of the hour: a window holds the slices it
    # covers and at most one from each slice it cuts, so it misses the expectation by less
    # than two, whatever the seed (a random draw: 1,000 games' five minutes hold 83 +- 9).
    assert abs(in_window(offsets, 0, seconds) - expected) < 2
    # ... and so does every other part of the hour (uniform, not bunched at its start).
    for start in range(0, 3600, seconds):
        assert abs(in_window(offsets, start, start + seconds) - expected) < 2
    assert min(offsets) >= 0 and max(offsets) < 3600


def test_busiest_hour_keeps_real_phases_so_a_game_changes_phase_at_most_once():
    model = Model()
    day, night = model.phase_lengths("busiest-hour")
    assert (day, night) == (48 * 3600, 24 * 3600)
    # After its day deadline a game's next one is a night away: past any window of an hour.
    assert night > model.busiest_hour_seconds
    assert model.rush_window("busiest-hour") == 3600  # the deadline hour is an hour


def test_storm_puts_its_share_of_deadlines_within_one_minute():
    model = Model()
    seconds = model.storm_lead_seconds + model.storm_seconds + model.storm_settle_seconds
    start, length = model.storm_span(seconds)
    assert (start, length) == (model.storm_lead_seconds, 60)
    offsets = model.deadline_offsets("storm", 500, seconds, random.Random(5))
    assert in_window(offsets, start, start + length) == 500
    assert max(offsets) - min(offsets) < 60

    half = model.deadline_offsets("storm", 500, seconds, random.Random(5), storm_share=0.5)
    storm = in_window(half, start, start + length)
    # 250 in the minute, and the rest spread over the hour: 250 / 60 of those land in it too.
    assert 250 + 2 <= storm <= 250 + 6
    assert model.expected_deadlines("storm", 500, seconds, 0.5) == pytest.approx(
        250 + 250 * seconds / 3600
    )


def test_a_short_window_shrinks_the_storm_in_proportion():
    model = Model()
    start, length = model.storm_span(30)
    assert 0 < start < start + length < 30
    offsets = model.deadline_offsets("storm", 5, 30, random.Random(1))
    assert all(start <= x < start + length for x in offsets)


def test_compressed_keeps_the_old_model():
    model = Model()
    assert model.phase_lengths("compressed") == (180, 60)
    assert model.rush_window("compressed") == 45
    offsets = model.deadline_offsets("compressed", 50, 240, random.Random(2))
    assert all(0 <= x <= model.spread_seconds for x in offsets)


def test_a_template_made_before_the_phase_models_reads_them_from_the_model():
    old = {k: v for k, v in Model().as_dict().items() if not k.startswith(("storm", "busiest"))}
    old.pop("deadline_path")
    model = Model.from_dict(old)
    assert model.busiest_hour_seconds == 3600 and model.storm_share == 1.0


def test_unknown_phase_model_and_share_are_refused():
    model = Model()
    with pytest.raises(ValueError):
        model.phase_lengths("weekly")
    with pytest.raises(ValueError):
        model.deadline_offsets("storm", 10, 300, random.Random(0), storm_share=1.5)
