"""Loaded first (``-p tests.pytest_env`` in pyproject's addopts), before pytest-django reads
the settings: the settings refuse to start without a SECRET_KEY unless DEBUG is on, so the
test run says it is a development run. The servers and workers the tests start inherit it.
"""

import os

os.environ.setdefault("DEBUG", "1")
