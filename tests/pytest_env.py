"""Loaded first (``-p tests.pytest_env`` in pyproject's addopts), before pytest-django reads
the settings: the settings refuse to start without a SECRET_KEY unless DEBUG is on, so the
test run says it is a development run. The servers and workers the tests start inherit it.
"""

import os

os.environ.setdefault("DEBUG", "1")

# Tasks the tests send without a worker of their own (a deadline's ETA task, a simulation)
# go to a queue of this session's, which the Redis clean-up at the end removes (its name
# matches ``tests.redis_cleanup.PATTERNS``), not to the shared default queue "celery".
# Under pytest-xdist each worker has a queue of its own (it inherits the controller's
# environment, so the controller's queue is replaced): a worker's tasks name rows of its own
# test database, and must never reach a Celery worker another xdist worker started.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["CELERY_QUEUE"] = f"deadlines-test-session-{os.getpid()}"
else:
    os.environ.setdefault("CELERY_QUEUE", f"deadlines-test-session-{os.getpid()}")
