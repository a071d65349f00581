"""Fixtures of the web and API tests: logged-in clients and games at interesting points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client


@pytest.fixture
def client_for(db: Any) -> Callable[[Any], Client]:
    """A test client logged in as ``user`` (anonymous for None)."""

    def make(user: Any = None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make
