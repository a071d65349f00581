"""kombu's Redis transport with one fix: a worker survives losing Redis while it holds
unacknowledged messages (an ETA deadline, an ``acks_late`` task running).

What kills the worker (kombu 5.7.0 with Celery 5.7.0, redis-py 8.1.0; seen as
``Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")``):

1. Redis goes away. Celery's consumer cleans up the broken connection with
   ``Connection.collect()``; closing the consumer's channel first reads the pending ``BRPOP``
   reply, which raises a connection error, so ``Channel.close`` stops before the channel is
   marked closed: it still holds its unacknowledged messages. ``collect()`` then detaches
   the transport from the connection (``transport.client = None``).
2. Celery 5.7 then closes the same connection again (celery#10242). The half-closed channel
   gets to restoring its unacknowledged messages, rebuilds its Redis pool from
   ``transport.client``, now ``None``: an ``AttributeError``, which the consumer does not
   treat as a connection error, so the worker exits (the same dereference as kombu#582).

Here a channel whose connection was released says so with the connection error every caller
already handles: the close ends, the worker reconnects and consumes again. The messages it
could not restore are those Redis could not take back anyway (it is down); a Redis that kept
its data hands them out again after the visibility timeout, and the deadline scan ends any
phase whose ETA task was lost. Used through ``CELERY_BROKER_TRANSPORT`` (settings) when the
broker is Redis; ``tests/live/test_worker_survives_redis.py`` proves it.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise RedisConnectionError("the broker connection of this channel was released")
        # celery-types' kombu stub leaves out this private method, which kombu has.
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]


class Transport(kombu_redis.Transport):
    Channel = Channel
