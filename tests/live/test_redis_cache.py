"""The cache's Redis connections: one pool per process, kept across requests and restarts.

Django keeps a cache object per thread, and every ASGI request runs in a thread of its own:
with Django's ``RedisCache`` each request opened a new connection (``mafia_site.redis_cache``
says what that cost). These run against real Redis servers.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.cache import caches

from mafia_site.redis_cache import RedisCache
from tests.servers import RedisServer


def _in_threads(work: Any, times: int) -> list[Any]:
    """``work()`` in ``times`` threads one after another, as requests each in their own
    thread (each gets its own cache object from ``caches``)."""
    out: list[Any] = []
    for _ in range(times):
        thread = threading.Thread(target=lambda: out.append(work()))
        thread.start()
        thread.join()
    return out


def _site_cache(settings: Any, url: str) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "mafia_site.redis_cache.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }


def _pool_of_this_thread() -> Any:
    cache = caches["default"]
    assert isinstance(cache, RedisCache)
    cache.set("pool-check", "here", 30)
    assert cache.get("pool-check") == "here"
    return cache._cache._get_connection_pool(False)


def test_requests_in_threads_of_their_own_share_one_pool_and_connection(
    tmp_path: Path, settings: Any
) -> None:
    server = RedisServer(tmp_path)
    try:
        _site_cache(settings, server.url)
        pools = _in_threads(_pool_of_this_thread, 8)
        assert len({id(pool) for pool in pools}) == 1
        # Eight requests one after another: one connection, taken and given back each time
        # (Django's own backend leaves eight).
        clients = redis.Redis.from_url(server.url).client_list()
        assert len(clients) == 2, clients  # that connection and this listing's own
    finally:
        server.stop()


def test_a_restarted_redis_is_used_again_by_the_same_pool(tmp_path: Path, settings: Any) -> None:
    server = RedisServer(tmp_path)
    try:
        _site_cache(settings, server.url)
        pool = _pool_of_this_thread()
        server.stop()
        with pytest.raises(redis.ConnectionError):
            caches["default"].get("pool-check")
        server.start()  # empty, as a restarted cache without a volume
        assert caches["default"].get("pool-check") is None
        caches["default"].set("pool-check", "back", 30)
        assert _in_threads(_pool_of_this_thread, 2) == [pool, pool]
    finally:
        server.stop()
