"""The OpenAPI document against the API, by schemathesis (short: a few examples an
operation): no 5xx, and every answer matches the document (status, content type, body
schema), as an anonymous caller and as a player of a running game."""

from __future__ import annotations

import contextlib

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.conftest import slot_of

pytestmark = pytest.mark.django_db

EXAMPLES = 6  # a few an operation: the whole run stays well under a minute
# A request can match the document and still break the game's rules (a vote at night, a
# wrong password): refusing it with a documented 4xx is right.
RULE_REFUSALS = [positive_data_acceptance]


@pytest.fixture
def keep_connection():
    """As Django's test client does: the WSGI handler would close the test's connection
    (and with it the test transaction) at the end of every request."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def test_api_matches_its_document(make_game, keep_connection):
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    token, _ = Token.objects.get_or_create(user=cop.user)
    headers = {"Authorization": f"Token {token.key}"}
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: schemathesis.Case) -> None:
            if "game_id" in (case.path_parameters or {}):
                case.path_parameters["game_id"] = game.pk
            try:
                case.call_and_validate(headers=headers, excluded_checks=RULE_REFUSALS)
            except Exception as exc:  # collect every operation's first failure
                failures.append(f"{case.method} {case.path}: {str(exc)[:600]}")
                raise

        with contextlib.suppress(Exception):  # recorded in ``failures``; next operation
            run()
    assert operations > 25
    assert not failures, "\n\n".join(failures)


def test_the_document_marks_required_and_non_blank_fields_and_arrays(client):
    doc = client.get("/api/v1/openapi.json").json()
    parts = doc["components"]["schemas"]
    for name, fields in {
        "GameCreateRequest": ["title"],
        "PostCreateRequest": ["body"],
        "NightActionRequest": ["ability", "targets"],
        "TokenRequestRequest": ["username", "password"],
    }.items():
        assert set(fields) <= set(parts[name]["required"]), name
        for field in fields:
            prop = parts[name]["properties"][field]
            if prop.get("type") == "string":
                assert prop.get("minLength") == 1, (name, field)
    for path in ("/api/v1/rulesets/", "/api/v1/setups/"):
        answer = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert answer["schema"]["type"] == "array", path
