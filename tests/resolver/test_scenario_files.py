"""Every scenario file under scenarios/ gives the report it expects, through the CLI code."""

from __future__ import annotations

import io
import json

import pytest

from resolver.cli import main

from .scenario_files import SCENARIOS, load, mismatches, scenario_paths

PATHS = scenario_paths()


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(SCENARIOS)) for p in PATHS])
def test_scenario_file(path):
    case = load(path)
    out = io.StringIO()
    code = main(["run", "-"], stdin=io.StringIO(json.dumps(case["scenario"])), stdout=out)
    report = json.loads(out.getvalue())
    expected = case["expected"]
    if expected.get("invalid"):
        assert code == 2, f"expected invalid, got report {report}"
        assert set(report) == {"error", "where"}
        if "where" in expected:
            assert report["where"] == expected["where"]
        if "error_contains" in expected:
            assert expected["error_contains"].lower() in report["error"].lower()
        return
    assert code == 0, report
    assert mismatches(report, expected) == []
