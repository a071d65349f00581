"""Loads the scenario files under tests/resolver/scenarios and checks a report against them.

A file holds ``{"description", "scenario", "expected"}``; the scenario is in the CLI
format. ``expected`` may give ``invalid`` (with optional ``where`` / ``error_contains``),
``phases`` (per phase: any report key; lists of names compare as sets, ``results`` compare
per player, ``explanation_contains`` lists phrases that must appear, ``results_absent``
maps a player to a result kind they must not get), and ``winner``, ``alive``,
``co_winners``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCENARIOS = Path(__file__).parent / "scenarios"
NAME_LISTS = {"dead", "vote_immunity", "revote", "alive", "co_winners"}


def scenario_paths(subdir: str = "") -> list[Path]:
    return sorted((SCENARIOS / subdir).rglob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def mismatches(report: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Every way the report differs from what the file expects (empty: it matches)."""
    problems: list[str] = []
    for i, want in enumerate(expected.get("phases", [])):
        if i >= len(report["phases"]):
            problems.append(f"phase {i}: not played")
            continue
        got = report["phases"][i]
        for key, value in want.items():
            if key == "explanation_contains":
                text = " ".join(got.get("explanation", [])).lower()
                problems += [
                    f"phase {i}: explanation lacks {p!r}: {got.get('explanation')}"
                    for p in value
                    if p.lower() not in text
                ]
            elif key == "results_absent":
                for player, kind in value.items():
                    if any(r.get("kind") == kind for r in got.get("results", {}).get(player, [])):
                        problems.append(f"phase {i}: {player} got a {kind} result")
            elif key == "results":
                for player, results in value.items():
                    if got.get("results", {}).get(player, []) != results:
                        problems.append(
                            f"phase {i}: results of {player}: "
                            f"{got.get('results', {}).get(player)} != {results}"
                        )
            elif not _same(key, got.get(key), value):
                problems.append(f"phase {i}: {key} = {got.get(key)!r}, expected {value!r}")
    for key in ("winner", "alive", "co_winners", "unplayed_phases"):
        if key in expected and not _same(key, report.get(key), expected[key]):
            problems.append(f"{key} = {report.get(key)!r}, expected {expected[key]!r}")
    return problems


def _same(key: str, got: Any, want: Any) -> bool:
    if key in NAME_LISTS and isinstance(want, list) and isinstance(got, list):
        return sorted(got) == sorted(want)
    return got == want
