"""The client library's tests: a real site (``python -m mafia_site.serve`` over the test
database, the real Redis layer under a prefix of its own) and accounts with API tokens."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mafia_client import Client

from tests.factories import person_key
from tests.live.celery_support import test_database_url
from tests.servers import AsgiServer


@pytest.fixture(scope="module")
def site(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any
) -> Iterator[AsgiServer]:
    with django_db_blocker.unblock():
        url = test_database_url()
    server = AsgiServer(
        {
            "DATABASE_URL": url,
            "RATE_LIMITS": "off",
            "DB_POOL_SIZE": "6",  # the machine's PostgreSQL is shared: a few connections
            # Pub/sub ignores Redis's database number: our own prefix, nobody else's games.
            "CHANNEL_LAYER_PREFIX": f"clienttest{uuid.uuid4().hex[:8]}",
            "DEADLINE_WATCHDOG_SECONDS": "1",
            "DEADLINE_WATCHDOG_GRACE": "1",
        },
        tmp_path_factory.mktemp("asgi") / "asgi.log",
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def client_for(site: AsgiServer) -> Callable[[Any], Client]:
    """``client_for(user)``: a ``mafia_client.Client`` signed in with the user's token."""

    def make(user: Any) -> Client:
        key = person_key(user)
        return Client(site.url, key, username=user.username)

    return make
