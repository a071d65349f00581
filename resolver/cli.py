"""``python -m resolver run FILE|-``: the command line of resolver-cli.md.

Exit 0 with a JSON report; exit 2 with ``{"error", "where"}`` for invalid input;
never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from .engine import run_scenario
from .errors import InvalidScenario

USAGE = "usage: python -m resolver run SCENARIO.json   (or '-' to read standard input)"


def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if len(argv) != 2 or argv[0] != "run":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        data = _load(argv[1], stdin)
        report = run_scenario(data)
    except InvalidScenario as err:
        _emit(err.to_dict(), stdout)
        return 2
    except RecursionError:
        _emit({"error": "The scenario is nested too deeply to read.", "where": "$"}, stdout)
        return 2
    _emit(report, stdout)
    return 0


def _load(path: str, stdin: TextIO) -> Any:
    try:
        if path == "-":
            text = stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as err:
        raise InvalidScenario(f"Cannot read {path}: {err.strerror or err}.", "$") from None
    except UnicodeDecodeError:
        raise InvalidScenario(f"{path} is not UTF-8 text.", "$") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidScenario(
            f"The scenario is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}).",
            "$",
        ) from None


def _emit(data: dict[str, Any], stdout: TextIO) -> None:
    stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
