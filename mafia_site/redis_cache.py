"""Django's Redis cache with one connection pool per process, not one per request.

Django keeps a cache object per thread (``django.core.cache.caches`` is an asgiref
``Local``), and its ``RedisCache`` keeps its connection pool on that object. Under ASGI
every request runs its sync code in a thread of its own, so every request got a new pool
and opened a new connection to Redis: a TCP connect, a ``HELLO`` and a ``CLIENT SETINFO``
(redis-py reads its own version from the package metadata for it) before the first
``GET``. In the 250-game load test (BENCHMARKS.md) that was 7 % of the web processes' CPU,
most of it under the agent badge's version check, the first cache read of a page. Django
ticket #35651 is the same bug; its fix is not released.

Here the client (and so its pools, which redis-py makes thread-safe and fork-safe) is
shared by every cache object of the same servers and options in the process. A restarted
Redis is no different from before: a pooled connection the server closed is found dead
when it is next taken from the pool and opened again (redis-py's ``get_connection``).
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property

_CLIENTS: dict[tuple[Any, ...], RedisCacheClient] = {}
_LOCK = threading.Lock()


class RedisCache(DjangoRedisCache):
    # Set by Django's RedisCache.__init__; django-stubs leaves its private fields out.
    _servers: list[str]
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    @cached_property
    def _cache(self) -> RedisCacheClient:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _LOCK:
            client = _CLIENTS.get(key)
            if client is None:
                client = self._class(self._servers, **self._options)
                # Make the pools now, under the lock: two threads racing to make one
                # would leave a pool (and its connections) behind.
                for write in (True, False):
                    # Django's private method, left out of django-stubs.
                    client._get_connection_pool(write)  # type: ignore[attr-defined]
                _CLIENTS[key] = client
        return client
