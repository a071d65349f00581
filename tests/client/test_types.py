"""The client library and its examples pass ``mypy --strict``: agents build on its types.
The configuration is the client's own (``[tool.mypy]`` in client/pyproject.toml), so the
check is ``mypy`` run in client/, here as in CI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "client"


@pytest.mark.timeout(300)
def test_the_client_passes_mypy_strict():
    config = (CLIENT / "pyproject.toml").read_text()
    assert "[tool.mypy]" in config and "strict = true" in config
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=CLIENT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
