"""The site's code passes mypy with django-stubs and djangorestframework-stubs: games/,
mafia_site/ and resolver/ (strict). The configuration is ``[tool.mypy]`` in pyproject.toml,
so the check is ``mypy`` run at the repository's root, here as in CI and by hand. Its cache
(.mypy_cache) makes a second run about 2 s; a fresh clone's first takes 12-20 s on 2 cores.
The client library's own strict check is tests/client/test_types.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(300)
def test_the_site_passes_mypy():
    config = (ROOT / "pyproject.toml").read_text()
    assert "[tool.mypy]" in config and "mypy_django_plugin.main" in config
    # The django-stubs plugin loads the settings, which need DEBUG (or a SECRET_KEY).
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
