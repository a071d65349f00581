"""Error codes are one enum: every code ``games/`` raises or answers with is an ``ErrorCode``.

An AST scan of ``games/`` (as the import-layer test scans imports): a code given to an
error class, ``json_error`` or compared with ``.code`` must be an ``ErrorCode`` member,
never a bare string, so a code is defined once and the JSON values cannot drift.
"""

from __future__ import annotations

import ast
from pathlib import Path

from games.errors import ErrorCode, GameRuleError

GAMES = Path(__file__).resolve().parents[2] / "games"
ERROR_CLASSES = {"GameRuleError", "InvalidInput", "BadCredentials", "NotAllowed", "WrongPhase"}
ERROR_CLASSES |= {"NotFound", "Refusal"}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [
        (path, ast.parse(path.read_text(), str(path)))
        for path in sorted(GAMES.rglob("*.py"))
        if "migrations" not in path.parts
    ]


def _code_arguments(tree: ast.Module) -> list[ast.expr]:
    """Every expression used as an error code in ``tree``."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if name in ERROR_CLASSES:
                found += node.args[1:2] + [k.value for k in node.keywords if k.arg == "code"]
            elif name == "json_error":
                found += node.args[2:3]
        elif isinstance(node, ast.Compare) and getattr(node.left, "attr", None) == "code":
            found += node.comparators
        elif isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "default_code" for t in node.targets
        ):
            found.append(node.value)
    return found


def test_no_error_code_is_a_bare_string() -> None:
    bare = [
        f"{path.relative_to(GAMES.parent)}:{arg.lineno} {ast.unparse(arg)}"
        for path, tree in _modules()
        for arg in _code_arguments(tree)
        # A string built in place (f"not_{kind}") is a code no enum member says.
        if isinstance(arg, ast.JoinedStr | ast.BinOp)
        or (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    ]
    assert not bare, f"use ErrorCode members, not strings: {bare}"


def test_every_team_thread_and_phase_has_its_code() -> None:
    from games.models import TEAM_THREADS, PhaseKind
    from games.reads.policy import OUTSIDERS
    from games.services.common import ONLY_IN

    assert set(OUTSIDERS) == set(TEAM_THREADS)
    assert set(ONLY_IN) == set(PhaseKind)


def test_every_error_code_named_in_games_is_a_member() -> None:
    unknown = [
        f"{path.relative_to(GAMES.parent)}:{node.lineno} ErrorCode.{node.attr}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and getattr(node.value, "id", None) == "ErrorCode"
        and node.attr not in ErrorCode.__members__
    ]
    assert not unknown


def test_codes_in_json_written_by_hand_are_members() -> None:
    # A message built as a dict (the socket's error frame): its "code" is a known one.
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "code"
                        and isinstance(value, ast.Constant)
                    ):
                        assert value.value in set(ErrorCode), f"{path}:{node.lineno}"


def test_the_enum_values_are_the_json_codes() -> None:
    values = [member.value for member in ErrorCode]
    assert len(values) == len(set(values))
    for member in ErrorCode:
        assert member.value == member.name.lower() and member == member.value
    error = GameRuleError("No.", ErrorCode.PAUSED)
    assert error.to_dict()["code"] == "paused"
    assert GameRuleError("No.").to_dict()["code"] == "invalid"
