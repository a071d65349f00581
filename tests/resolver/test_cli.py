"""The command line of resolver-cli.md: exit codes, JSON on stdout, no traceback, no Django."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC_EXAMPLE = ROOT / "tests/resolver/scenarios/spec/rar-blocker-of-the-blocker.json"


def oldest_python() -> str:
    """The oldest Python 3.11+ on the machine: the CLI must work there with nothing installed."""
    candidates = [
        shutil.which("python3.11"),
        *glob.glob(os.path.expanduser("~/.pyenv/versions/3.11*/bin/python3")),
    ]
    for path in candidates:
        if (
            path
            and subprocess.run(
                [path, "-c", "import sys; assert sys.version_info >= (3, 11)"], capture_output=True
            ).returncode
            == 0
        ):
            return path
    return sys.executable


def run_cli(*args: str, stdin: str | None = None, python: str | None = None):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    return subprocess.run(
        [python or sys.executable, "-m", "resolver", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )


def scenario() -> dict:
    return json.loads(SPEC_EXAMPLE.read_text())["scenario"]


def test_run_file_prints_a_report_and_exits_0():
    proc = run_cli("run", str(SPEC_EXAMPLE.relative_to(ROOT)))
    # The example file wraps the scenario; the CLI takes the scenario itself.
    assert proc.returncode == 2
    proc = run_cli("run", "-", stdin=json.dumps(scenario()))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["phases"][0]["kind"] == "night"
    assert report["phases"][0]["dead"] == []
    assert set(report) >= {"phases", "alive", "winner", "co_winners"}
    assert proc.stderr == ""


def test_runs_on_the_oldest_python_with_nothing_installed():
    python = oldest_python()
    proc = run_cli("run", "-", stdin=json.dumps(scenario()), python=python)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["phases"][0]["dead"] == []


def test_the_resolver_never_imports_django():
    code = (
        "import json, sys, resolver\n"
        "from resolver.rulesets import NAMES, get_ruleset\n"
        "[get_ruleset(n) for n in NAMES]\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'django')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def night_with(action: dict, cop: dict | None = None) -> str:
    """A four-player forum night with one action, as CLI input."""
    players = [
        {"name": "A", "role": "cop", **(cop or {})},
        {"name": "B", "role": "goon"},
        {"name": "C", "role": "vanilla_townie"},
        {"name": "D", "role": "vanilla_townie"},
    ]
    return json.dumps({"ruleset": "forum", "players": players, "phases": [{"night": [action]}]})


ACTION = "$.phases[0].night[0]"


@pytest.mark.parametrize(
    ("stdin", "where", "phrase"),
    [
        ("{not json", "$", "not valid JSON"),
        ("[]", "$", "JSON object"),
        ('{"ruleset": "chess", "players": []}', "$.ruleset", "Unknown rule set"),
        (
            '{"ruleset": "forum", "players": [{"name": "A", "role": "wizard"}]}',
            "$.players[0].role",
            "Unknown role",
        ),
        (
            '{"ruleset": "forum", "flags": {"nope": true}, "players": []}',
            "$.flags.nope",
            "Unknown flag",
        ),
        (night_with({"actor": "A", "targets": ["Zed"]}), f"{ACTION}.targets[0]", "not a player"),
        (night_with({"actor": "Zed", "targets": ["B"]}), f"{ACTION}.actor", "not a player"),
        (night_with({"actor": "A", "targets": ["B", "C"]}), f"{ACTION}.targets", "takes 1"),
        (
            night_with({"actor": "A", "ability": "kill", "targets": ["B"]}),
            f"{ACTION}.ability",
            "no 'kill'",
        ),
        (
            night_with({"actor": "A", "targets": ["B"]}, cop={"alive": False}),
            f"{ACTION}.actor",
            "dead",
        ),
        (night_with({"actor": "A", "targets": ["A"]}), f"{ACTION}.targets[0]", "themself"),
    ],
)
def test_invalid_input_exits_2_with_one_json_error(stdin, where, phrase):
    proc = run_cli("run", "-", stdin=stdin)
    assert proc.returncode == 2
    error = json.loads(proc.stdout)
    assert set(error) == {"error", "where"}
    assert error["where"] == where
    assert phrase.lower() in error["error"].lower()
    assert "Traceback" not in proc.stdout + proc.stderr


def test_missing_file_is_a_json_error():
    proc = run_cli("run", "no/such/file.json")
    assert proc.returncode == 2
    assert "Cannot read" in json.loads(proc.stdout)["error"]


def test_usage_error_exits_2():
    proc = run_cli()
    assert proc.returncode == 2
    assert "usage" in proc.stderr


def test_same_scenario_gives_the_same_report_twice():
    text = json.dumps(scenario())
    assert run_cli("run", "-", stdin=text).stdout == run_cli("run", "-", stdin=text).stdout
