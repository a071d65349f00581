"""The OpenAPI document against the running API, by schemathesis.

uvicorn serves the ASGI app on the test database, as production runs it. Schemathesis's
command line (``st run``: its coverage, fuzzing and stateful phases, positive and negative
data) plays the operations of ``/api/v1/openapi.json`` against a game: every operation as
its cop by day, the night's as the cop by night, the host's as its host, and what a
finished game shows (its archive) to its host. Every answer is checked:

* not_a_server_error: no 5xx;
* status_code_conformance, content_type_conformance, response_headers_conformance: every
  status, content type and documented header the server answers is in the document;
* response_schema_conformance, against the document with every response object closed
  (``additionalProperties: false``): an answer carries no field the document leaves out;
* positive_data_acceptance: a request the document calls valid is never refused as
  malformed (400). The game's rules may refuse it: 409 (not now) or 422 (no such player,
  an illegal target or setup), which no document can foresee;
* and schemathesis's other checks (unsupported methods, missing authentication...), except
  negative_data_rejection: the server reads some inputs leniently on purpose (a number
  where text is expected is that text; a junk page number is page 1, as on the pages);
  and ensure_resource_availability: every request names the test's game, so a game the
  fuzzer creates is never the one asked after (and an unfinished game's archive is a 404).

Request values are drawn half the time from the game's own slot ids, abilities and
usernames, so votes, actions and host actions reach the game's logic. The seed is fixed
and one worker plays, so each run is the same; each test makes its game afresh.

Answers the fuzz runs cannot meet (a rate limit, a database outage) are checked against the
document by the last two tests.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from schemathesis.checks import not_a_server_error
from schemathesis.core import NOT_SET
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from agents import services as agent_services
from games import services
from games.models import Slot, Vote
from resolver.rulesets import get_ruleset
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory, person_key
from tests.live.celery_support import test_database_url as db_url
from tests.servers import AsgiServer, free_port

# Slow: a real server and hundreds of fuzzed requests per operation (-m "not slow" skips).
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

EXAMPLES = 8  # an operation's fuzzed cases; the coverage phase adds its own
# A run's own limit, inside the suite's 600 s per test, so a stuck run fails with its output.
# The player's run by day, the widest, took 152 s alone and 148 s and 292 s in two
# whole-suite runs on one 2-core box (2026-11-29; 300 s was its limit then): fixed work,
# whose time is the load's.
RUN_TIMEOUT = 540
SEED = 20260101
# Statuses a request the document calls valid may get: schemathesis's own list (2xx, 3xx,
# 401, 403, 404, 409, 429 and 5xx, which the other checks judge) and 422, the game's rules
# refusing a well-formed request (``games.errors.InvalidInput``).
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
HOST_ACTIONS = (
    "extend",
    "modkill",
    "replace",
    "remove-signup",
    "post",
    "cut",
    "pause",
    "resume",
    "skip-turn",
)
CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[AsgiServer]:
    with django_db_blocker.unblock():
        url = db_url()
    srv = AsgiServer(
        {
            "DATABASE_URL": url,
            # The fuzzer posts and votes far faster than people: limits would answer most of
            # it with 429 (test_throttled_answers_match_the_document checks those).
            "RATE_LIMITS": "off",
            "DEADLINE_WATCHDOG_SECONDS": "0",  # the game's clock stays where the test put it
        },
        tmp_path_factory.mktemp("asgi") / "asgi.log",
        lifespan="off",
    )
    try:
        yield srv
    finally:
        srv.stop()


def closed_responses(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with every response object schema closed; request bodies stay open
    (``COMPONENT_SPLIT_REQUEST`` names their components ``...Request``)."""

    def close(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                close(item)
        elif isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)

    for name, component in doc["components"]["schemas"].items():
        if not name.endswith("Request"):
            close(component)
    return doc


def _toml_list(values: list[Any]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def schemathesis_run(
    server: AsgiServer,
    tmp_path: Path,
    game: Any,
    token: str,
    values: dict[str, list[Any]],
    *args: str,
    probability: float = 0.5,
) -> dict[str, Any]:
    """``st run`` against ``server`` as the owner of ``token``, on ``game``; ``values``:
    parameter -> values of the game drawn for it with ``probability`` (else generated).
    Its JSON report; the run's own account of what it found is the assertion message."""
    with urllib.request.urlopen(f"{server.url}/api/v1/openapi.json", timeout=30) as answer:
        doc = closed_responses(json.load(answer))
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(doc))
    dictionaries = "".join(
        f"[dictionaries.d{i}]\nvalues = {_toml_list(v)}\n" for i, v in enumerate(values.values())
    )
    bindings = "".join(
        f'"{key}" = {{ dictionary = "d{i}", probability = {probability} }}\n'
        for i, key in enumerate(values)
    )
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        f"seed = {SEED}\n"
        "workers = 1\n"
        "[generation]\n"
        f"max-examples = {EXAMPLES}\n"
        'database = "none"\n'
        "[cache]\n"  # no state carried from one run to the next (crashes kept to replay)
        "enabled = false\n"
        "[checks.positive_data_acceptance]\n"
        f"expected-statuses = {_toml_list(ACCEPTED)}\n"
        f"{dictionaries}"
        "[parameters]\n"
        f'"path.game_id" = {game.pk}\n'
        f"{bindings}"
    )
    report = tmp_path / "report.json"
    command = [
        *[sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run"],
        str(schema),
        *["--url", server.url, "--header", f"Authorization: Token {token}"],
        *[
            "--checks",
            "all",
            "--exclude-checks",
            "negative_data_rejection,ensure_resource_availability",
        ],
        *["--report", "json", "--report-json-path", str(report), "--no-color"],
        *args,
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=tmp_path
    )
    result = json.loads(report.read_text())
    output = done.stdout[-15000:] + done.stderr[-3000:]
    # Shown with a failure: what ran, and which operations carried out valid requests.
    done_by = {operation: accepted(result, operation) for operation in result["valid_rates"]}
    print(json.dumps(result["operations"]), json.dumps(result["test_cases"]), done_by)
    assert not result["failures"] and not result["errors"], output
    assert done.returncode == 0, output
    assert "Traceback" not in server.log(), server.log()[-5000:]
    return result


def accepted(result: dict[str, Any], operation: str) -> int:
    """How many requests of ``operation`` made of valid data the server carried out (2xx)."""
    phases = result["valid_rates"].get(operation, {}).values()
    return sum(phase["accepted"] for phase in phases)


def token_of(user: Any) -> str:
    return person_key(user)


def slot_ids(game: Any) -> list[int]:
    return list(Slot.objects.filter(game=game).values_list("pk", flat=True))


def test_every_operation_as_a_player_by_day(make_game, server, tmp_path):
    # Whispers and last wills: their operations reach their services.
    game = make_game("forum-cop-doctor-nine", whispers="private", last_wills=True)
    cop = slot_of(game, "cop")
    slots = slot_ids(game)
    abilities = sorted(
        {a.slug for r in get_ruleset(game.ruleset).roles.values() for a in r.abilities}
    )
    # The cop runs an agent: its token operations reach a real agent and its tokens.
    agent_services.register_agent(cop.user, "copbot")
    tokens = [agent_services.create_token(cop.user, "copbot").token.pk for _ in range(3)]
    values = {
        **{f"body.{name}": slots for name in ("target", "slot_id", "to", "targets[*]")},
        "body.probabilities[*].target": slots,  # belief probes (analytics)
        **{f"{where}.ability": abilities for where in ("body", "path")},
        "path.name": ["copbot"],
        "path.token_id": tokens,
        # Bookmarks: the game's own first posts (a thread the cop may not read is a 404).
        "body.game_id": [game.pk],
        "body.number": [1, 2],
        # A blind game's guess (league app): the game's seat numbers.
        "body.seats[*]": list(range(1, 10)),
    }
    # The host's operations as a player are the same 403 every time: the host's test.
    # Revoking one's own person token could revoke the very token the run signs in with
    # (its id is a small number, as generated ones are): tested in test_person_tokens.
    result = schemathesis_run(
        server,
        tmp_path,
        game,
        token_of(cop.user),
        values,
        *["--exclude-path-regex", r"/host/|/auth/tokens/\{token_id\}/revoke/"],
    )
    assert result["operations"]["tested"] == result["operations"]["selected"] >= 30
    # The cop was let in, not only refused: posts and votes of theirs, games of their own.
    for operation in (
        "POST /api/v1/games/",
        "POST /api/v1/games/{game_id}/posts/",
        "POST /api/v1/games/{game_id}/whispers/",
        "PUT /api/v1/games/{game_id}/will/",
        "POST /api/v1/games/{game_id}/probes/",
    ):
        assert accepted(result, operation), operation
    assert Vote.objects.filter(phase__game=game, voter=cop).exists()


def test_the_night_operations_as_a_player_by_night(make_game, server, tmp_path):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(game.host, game.pk)  # Day 1 ends: Night 1
    assert current_phase(game).is_night
    cop = slot_of(game, "cop")
    slots = slot_ids(game)
    values = {
        "body.targets[*]": slots,
        "body.target": slots,
        **{f"{where}.ability": ["investigate"] for where in ("body", "path")},  # the cop's
    }
    result = schemathesis_run(
        server,
        tmp_path,
        game,
        token_of(cop.user),
        values,
        *["--include-path-regex", "/(actions|role|day-action)/"],
        probability=0.9,
    )
    assert result["operations"]["tested"] == 4
    assert accepted(result, "POST /api/v1/games/{game_id}/actions/")


def test_a_finished_game_as_its_host(make_game, server, tmp_path):
    """The archive and the review open, and the host's view and the game show everything,
    at the end."""
    game = make_game("forum-cop-doctor-nine")
    for goon in slots_of(game, "goon"):
        services.modkill(game.host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    result = schemathesis_run(
        server,
        tmp_path,
        game,
        token_of(game.host),
        {},
        "--include-path-regex",
        r"/(archive|review|host|vote-count|vote-log)/$|/games/\{game_id\}/$",
    )
    for operation in ("archive/", "review/", "host/", ""):
        assert accepted(result, f"GET /api/v1/games/{{game_id}}/{operation}"), operation


def test_the_host_operations_as_the_host(make_game, server, tmp_path):
    game = make_game("forum-cop-doctor-nine")
    outsider = UserFactory(username="outsider")  # may replace a player
    values = {"body.slot_id": slot_ids(game), "body.username": [outsider.username]}
    result = schemathesis_run(
        server,
        tmp_path,
        game,
        token_of(game.host),
        values,
        *["--include-path-regex", "/(host|start|vote-counts)/"],
    )
    assert result["operations"]["tested"] >= 14
    for action in ("cut", "extend", "modkill", "post"):
        assert accepted(result, f"POST /api/v1/games/{{game_id}}/host/{action}/"), action


def test_throttled_answers_match_the_document(make_game, settings):
    """The rate-limited operations, over their limits (set low here), in this process."""
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex  # this test's counts only
    settings.RATE_LIMITS = {"post": (1, 60), "vote": (1, 60), "login": (1, 300)}
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    target = slot_of(game, "vanilla_townie")
    player = {"Authorization": f"Token {token_of(cop.user)}"}
    host = {"Authorization": f"Token {token_of(game.host)}"}
    post = {"body": "Hello", "thread": "public"}
    wsgi = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
    for path, headers, body in [
        ("/api/v1/auth/token/", {}, {"username": cop.user.username, "password": "wrong"}),
        ("/api/v1/games/{game_id}/posts/", player, post),
        ("/api/v1/games/{game_id}/host/post/", host, post),
        ("/api/v1/games/{game_id}/vote/", player, {"target": target.pk}),
        ("/api/v1/games/{game_id}/unvote/", player, None),
        ("/api/v1/games/{game_id}/nominate/", player, {"target": target.pk}),
    ]:
        case = wsgi[path]["POST"].Case(
            path_parameters={"game_id": game.pk} if "{game_id}" in path else None,
            body=body if body is not None else NOT_SET,
            media_type="application/json" if body is not None else None,
        )
        statuses = [case.call(headers=headers).status_code for _ in range(2)]
        answer = case.call(headers=headers)
        assert answer.status_code == 429, (path, statuses, answer.status_code)
        case.validate_response(answer, checks=CONFORMANCE, headers=headers)
        assert int(answer.headers["retry-after"][0]) > 0


def test_outage_answers_match_the_document(make_game, tmp_path, client):
    """Every operation, with the database unreachable: a 503 the document describes."""
    game = make_game("forum-cop-doctor-nine")
    schema = schemathesis.openapi.from_dict(client.get("/api/v1/openapi.json").json())
    dead = f"postgres://postgres@127.0.0.1:{free_port()}/nothing"
    down = AsgiServer({"DATABASE_URL": dead}, tmp_path / "asgi.log", lifespan="off")
    headers = {"Authorization": f"Token {token_of(game.host)}"}  # auth reads the database
    values = {
        "game_id": game.pk,
        "ability": "investigate",
        "absence_id": 1,
        "name": "nobot",
        "token_id": 1,
        "bookmark_id": 1,
        "user_id": 1,  # a co-host's
        "setup": "x",
        "slug": "forum-cop-nine",
        "series_id": 1,
        "ruleset": "forum",
    }
    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            names = [p.name for p in operation.path_parameters]
            case = operation.Case(path_parameters={n: values[n] for n in names} or None)
            if operation.path == "/api/v1/auth/token/":  # checked before the database
                body = {"username": "ann", "password": "pw"}
                case = operation.Case(body=body, media_type="application/json")
            answer = case.call(base_url=down.url, headers=headers)
            assert answer.status_code == 503, (operation.label, answer.status_code)
            assert answer.json()["code"] == "service_unavailable"
            # Every check but not_a_server_error: this 5xx is the one the document promises.
            case.validate_response(answer, checks=CONFORMANCE[1:], headers=headers)
    finally:
        down.stop()


def test_the_document_marks_required_and_non_blank_fields_and_arrays(client):
    doc = client.get("/api/v1/openapi.json").json()
    parts = doc["components"]["schemas"]
    for name, fields in {
        # A new game: one of two bodies (tests/site/test_generated_clients.py).
        "GameFromSetupRequest": ["title", "setup"],
        "GameFromRoleListRequest": ["title", "ruleset", "role_list"],
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


def test_each_host_action_documents_its_own_body(client):
    """One shared ``post`` once gave every host action the last decorated body."""
    paths = client.get("/api/v1/openapi.json").json()["paths"]

    def body(action: str) -> str | None:
        request = paths[f"/api/v1/games/{{game_id}}/host/{action}/"]["post"].get("requestBody")
        return request["content"]["application/json"]["schema"]["$ref"] if request else None

    assert {action: body(action) for action in HOST_ACTIONS} == {
        "extend": "#/components/schemas/ExtendRequest",
        "modkill": "#/components/schemas/ModkillRequest",
        "replace": "#/components/schemas/ReplaceRequest",
        "remove-signup": "#/components/schemas/SlotIdRequest",
        "post": "#/components/schemas/HostPostRequest",
        "cut": None,
        "pause": None,
        "resume": None,
        "skip-turn": None,
    }
    descriptions = {
        paths[f"/api/v1/games/{{game_id}}/host/{a}/"]["post"]["description"] for a in HOST_ACTIONS
    }
    assert len(descriptions) == len(HOST_ACTIONS)
    # Only the host's post counts against a rate limit.
    limited = {
        a
        for a in HOST_ACTIONS
        if "429" in paths[f"/api/v1/games/{{game_id}}/host/{a}/"]["post"]["responses"]
    }
    assert limited == {"post"}


def test_every_operation_documents_its_errors_as_json(client):
    doc = client.get("/api/v1/openapi.json").json()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            answers = operation["responses"]
            assert {"400", "401", "403", "404", "406", "503"} <= set(answers), (method, path)
            if method != "get" and path != "/api/v1/auth/token/":
                assert {"409", "422"} <= set(answers), (method, path)
            if "requestBody" in operation:
                # The token exchange's form is accepted but not declared: one body each.
                assert {"413", "415"} <= set(answers) and list(
                    operation["requestBody"]["content"]
                ) == ["application/json"], (method, path)
            for status, answer in answers.items():
                assert list(answer["content"]) == ["application/json"], (method, path, status)
            for status in ("429", "503"):
                if status in answers:
                    assert "Retry-After" in answers[status]["headers"], (method, path, status)
