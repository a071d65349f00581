"""The suite leaves nothing behind in Redis.

Tests write to Redis through the channel layer (``livetest<id>`` prefixes of
``tests.live.ws_support``), the live layer's publish cursors (``<prefix>:<test database>:
live:…``) and Celery (the session's queue, task results) in the databases ``REDIS_URL`` and
``CELERY_TEST_BROKER_URL`` name. ``pytest_sessionfinish`` (``tests/conftest.py``) deletes
what this session made there, then checks that none of it is left and fails the run if
any is. Keys that were there before the session (someone else's) are never touched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PATTERNS = (
    "livetest*",
    "asgi:{db}*",
    "celery-task-meta-*",
    "*deadlines-test-*",
    "unacked*",
    "_kombu.binding*",
)


def redis_urls() -> list[str]:
    """The Redis databases the suite writes to (not the browser tests': they flush theirs)."""
    base = os.environ.get("REDIS_URL", "")
    if not base:
        return []
    broker = os.environ.get("CELERY_TEST_BROKER_URL") or urlunsplit(
        (*urlsplit(base)[:2], "/3", "", "")
    )
    return list(dict.fromkeys([base, broker]))


def test_db_names() -> list[str]:
    """The test database name(s) pytest-django gives this run ("test_<name>", "_gw0"...)."""
    name = urlsplit(os.environ.get("DATABASE_URL", "")).path.lstrip("/")
    return [f"test_{name}"] if name else []


def _client(url: str) -> Any:  # redis is imported lazily: the resolver tests need none
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=2)


def _scan(client: Any, pattern: str) -> set[bytes]:
    return set(client.scan_iter(match=pattern, count=1000))


def snapshot() -> dict[str, set[bytes]]:
    """Every key of the suite's patterns before the session (they are not ours)."""
    before: dict[str, set[bytes]] = {}
    for url in redis_urls():
        try:
            client = _client(url)
            before[url] = set().union(*(_scan(client, p) for p in patterns()))
        except Exception:  # no Redis: nothing to clean
            continue
    return before


def patterns() -> list[str]:
    out = []
    for pattern in PATTERNS:
        if "{db}" in pattern:
            out.extend(pattern.format(db=f"{name}") for name in test_db_names())
            out.extend(f"livetest*:{name}*" for name in test_db_names())
        else:
            out.append(pattern)
    return out


def ours(client: Any, before: Iterable[bytes]) -> set[bytes]:
    existing = set(before)
    found = set().union(*(_scan(client, p) for p in patterns()))
    return found - existing


def clean(before: dict[str, set[bytes]]) -> dict[str, int]:
    """Delete what the session made; return what is still left per database (0s)."""
    left: dict[str, int] = {}
    for url, keys in before.items():
        client = _client(url)
        made = ours(client, keys)
        if made:
            client.delete(*made)
        left[url] = len(ours(client, keys))
    return left
