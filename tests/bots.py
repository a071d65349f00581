"""The reference bot for tests: ``scripts/reference_bot.py`` is a script, not a package."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def reference_bot() -> Any:
    """``scripts/reference_bot.py`` as a module."""
    spec = importlib.util.spec_from_file_location(
        "reference_bot", ROOT / "scripts" / "reference_bot.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
