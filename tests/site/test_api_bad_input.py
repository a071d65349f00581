"""Bad input never crashes: malformed values on every write endpoint get a 4xx JSON error,
never a 500, by day and by night."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services
from tests.conftest import slot_of

pytestmark = pytest.mark.django_db

BAD = [None, "", "x", -1, 10**30, [], {}, [None], ["a"], {"a": 1}, True, 1.5, "skip", [10**30]]


def test_malformed_values_by_day_get_json_errors(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    api = APIClient()
    api.force_authenticate(cop.user)
    g = game.pk
    for bad in BAD:
        for url, field in [
            (f"/api/v1/games/{g}/vote/", "target"),
            (f"/api/v1/games/{g}/posts/", "body"),
            (f"/api/v1/games/{g}/actions/", "targets"),
            (f"/api/v1/games/{g}/actions/", "ability"),
            (f"/api/v1/games/{g}/nominate/", "target"),
            ("/api/v1/games/", "role_list"),
            ("/api/v1/games/", "flags"),
        ]:
            r = api.post(url, {field: bad}, format="json")
            assert r.status_code < 500, (url, field, bad, r.status_code, r.content[:300])
            if r.status_code >= 400:
                assert "error" in r.json(), (url, field, bad, r.content[:300])
    r = api.post(f"/api/v1/games/{g}/posts/", data="{not json", content_type="application/json")
    assert r.status_code == 400 and "error" in r.json()
    host_api = APIClient()
    host_api.force_authenticate(host)
    for bad in BAD:
        for action, field in [
            ("extend", "minutes"),
            ("modkill", "slot"),
            ("replace", "username"),
            ("replace", "slot"),
        ]:
            r = host_api.post(f"/api/v1/games/{g}/host/{action}/", {field: bad}, format="json")
            assert r.status_code < 500, (action, field, bad, r.status_code, r.content[:300])


def test_malformed_night_actions_get_json_errors(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    cop = slot_of(game, "cop")
    api = APIClient()
    api.force_authenticate(cop.user)
    g = game.pk
    for ability in (None, "", "investigate", "kill", 5, ["x"]):
        for targets in [*BAD, [cop.pk], [cop.pk, cop.pk], [999999], ["1"]]:
            r = api.post(
                f"/api/v1/games/{g}/actions/",
                {"ability": ability, "targets": targets},
                format="json",
            )
            assert r.status_code < 500, (ability, targets, r.status_code, r.content[:300])
    r = api.post(
        f"/api/v1/games/{g}/actions/",
        {"ability": "investigate", "targets": [slot_of(game, "goon").pk], "role": "x"},
        format="json",
    )
    assert r.status_code in (200, 201), r.content
    r = api.delete(f"/api/v1/games/{g}/actions/nonsense/")
    assert r.status_code < 500


# -- the causes of the 500s found by probing (issue 11) -----------------------------------------
HUGE = 1_440_000_000_000


def _api(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def _json_4xx(response) -> None:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert "error" in response.json(), response.content[:300]


@pytest.mark.parametrize(
    "field",
    [
        {"min_posts_per_day": 32768},
        {"min_posts_per_day": 10**12},
        {"day_length_minutes": HUGE},
        {"night_length_minutes": HUGE},
        {"player_cap": 32768},
    ],
)
def test_create_game_out_of_range_numbers_are_refused(host, field):
    body = {"title": "Bounds", "setup": "forum-vanilla", **field}
    _json_4xx(_api(host).post("/api/v1/games/", body, format="json"))


@pytest.mark.parametrize("minutes", [HUGE, 10**30, 14 * 24 * 60 + 1])
def test_huge_extends_are_refused(make_game, host, minutes):
    game = make_game()
    _json_4xx(
        _api(host).post(
            f"/api/v1/games/{game.pk}/host/extend/", {"minutes": minutes}, format="json"
        )
    )


@pytest.mark.parametrize(
    "extra",
    [
        '{"\\u0000": "x"}',
        '{"role": "a\\u0000b"}',
        '{"\\ud800": "x"}',
        '{"role": "\\udfff"}',
        '{"surprise": "x"}',
        '{"role": "' + "x" * 2_000_000 + '"}',
        '{"role": {"nested": 1}}',
    ],
)
def test_night_action_extra_takes_only_declared_bounded_keys(make_game, host, extra):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    body = f'{{"ability": "investigate", "targets": [{goon.pk}], "extra": {extra}}}'
    r = _api(cop.user).post(
        f"/api/v1/games/{game.pk}/actions/", data=body, content_type="application/json"
    )
    _json_4xx(r)
    assert not game.phases.get(number=2).night_actions.exists()


def test_withdraw_with_a_null_byte_is_a_4xx(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    cop = slot_of(game, "cop")
    api = _api(cop.user)
    for ability in ("%00", "a%00b", "%ED%A0%80", "x" * 5000):
        _json_4xx(api.delete(f"/api/v1/games/{game.pk}/actions/{ability}/"))
    web = Client()
    web.force_login(cop.user)
    for ability in ("\x00", "kill\x00", "x" * 5000):
        r = web.post(f"/games/{game.pk}/role/withdraw/", {"ability": ability})
        assert r.status_code == 302, r.status_code


def test_non_numeric_game_ids_get_the_apis_json_404():
    api = APIClient()
    for url in ("/api/v1/games/abc/", "/api/v1/games/1x/posts/", "/api/v1/nothing-here/"):
        r = api.get(url)
        assert r.status_code == 404 and r["Content-Type"].startswith("application/json"), url
        assert r.json()["code"] == "not_found"


def test_the_api_answers_json_only_and_takes_json_bodies(make_game):
    """What the OpenAPI document says: JSON answers (no browsable HTML API) and JSON bodies
    (a form cannot carry the null of "no elimination" or a list of targets)."""
    game = make_game("forum-vanilla")
    voter = game.slots.order_by("seat").first()
    api = APIClient()
    api.force_authenticate(voter.user)
    page = api.get(f"/api/v1/games/{game.pk}/", HTTP_ACCEPT="text/html")
    assert page.status_code == 406 and page.json()["code"] == "not_acceptable"
    form = api.post(f"/api/v1/games/{game.pk}/vote/", {"target": ""}, format="multipart")
    assert form.status_code == 415 and form.json()["code"] == "unsupported_media_type"
    assert not voter.votes_cast.exists()


def test_too_many_query_parameters_are_a_400_even_with_debug(make_game, settings):
    game = make_game()
    settings.DEBUG = True
    query = "&".join(f"iso={n}" for n in range(1200))
    for url in (f"/games/{game.pk}/?{query}", f"/api/v1/games/{game.pk}/posts/?{query}"):
        r = Client(raise_request_exception=False).get(url)
        assert r.status_code == 400, (url, r.status_code)


# -- every answer under /api/ is JSON --------------------------------------------------------
METHODS = ("get", "post", "put", "patch", "delete", "options")


def _json_404(response) -> dict:
    assert response.status_code == 404, (response.status_code, response.content[:200])
    assert response["Content-Type"] == "application/json", response.content[:200]
    assert response.json()["code"] == "not_found"
    return response.json()


@pytest.mark.parametrize("method", METHODS)
def test_unknown_api_paths_are_a_json_404_whatever_the_method(make_game, method):
    game = make_game()
    player = game.slots.first().user
    for user in (None, player):
        web = Client(enforce_csrf_checks=True)  # as a browser's session would be checked
        if user is not None:
            web.force_login(user)
        for path in (
            "/api/v1/nothing/",
            "/api/v1/nothing",
            "/api/",
            "/api",
            "/api/v2/games/",
            "/api/v1/games/abc/vote/",
            f"/api/v1/games/{game.pk}/votes/",
            f"/api/v1/games/{game.pk}/vote/extra/",
        ):
            _json_404(getattr(web, method)(path))


def test_an_endpoint_without_its_slash_redirects_a_read_and_tells_a_write(make_game):
    game = make_game()
    api = _api(game.slots.first().user)
    r = api.get(f"/api/v1/games/{game.pk}/posts?page=2")
    assert r.status_code == 301 and r["Location"] == f"/api/v1/games/{game.pk}/posts/?page=2"
    for method in ("post", "put", "patch", "delete"):
        body = _json_404(getattr(api, method)(f"/api/v1/games/{game.pk}/vote"))
        assert f"/api/v1/games/{game.pk}/vote/ (with the slash)" in body["error"]


def test_a_session_write_without_its_csrf_token_is_a_json_403(make_game):
    game = make_game()
    web = Client(enforce_csrf_checks=True)
    web.force_login(game.slots.first().user)
    for method in ("post", "delete"):
        r = getattr(web, method)(f"/api/v1/games/{game.pk}/unvote/")
        assert r.status_code == 403 and r["Content-Type"] == "application/json"
        assert "CSRF" in r.json()["error"]


def test_djangos_own_error_answers_are_json_under_api_and_pages_elsewhere(rf):
    import json as json_module

    from django.core.exceptions import PermissionDenied, SuspiciousOperation
    from django.http import Http404, HttpResponse
    from django.middleware.csrf import CsrfViewMiddleware
    from django.urls import get_resolver

    resolver = get_resolver()
    errors = ((400, SuspiciousOperation()), (403, PermissionDenied()), (404, Http404()))
    for status, exception in errors:
        handler = resolver.resolve_error_handler(status)
        for path, json in (("/api/v1/games/1/", True), ("/games/1/", False)):
            r = handler(rf.get(path), exception)
            assert r.status_code == status
            assert r["Content-Type"].startswith("application/json") is json, (status, path)
    handler = resolver.resolve_error_handler(500)
    r = handler(rf.get("/api/v1/games/"))
    assert r.status_code == 500 and json_module.loads(r.content)["code"] == "server_error"
    assert handler(rf.get("/games/"))["Content-Type"].startswith("text/html")

    # A CSRF failure, as the middleware answers it for a view that is not exempt.
    def view(request):
        return HttpResponse("changed")

    for path, json in (("/api/v1/anything/", True), ("/games/1/post/", False)):
        request = rf.post(path)
        r = CsrfViewMiddleware(view).process_view(request, view, (), {})
        assert r is not None and r.status_code == 403
        assert r["Content-Type"].startswith("application/json") is json, path
        if json:
            assert json_module.loads(r.content)["code"] == "csrf_failed"


# -- bodies nested deeper than any the API takes (games.api.parsers) -------------------------
def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(
    "path",
    [
        "auth/token/",
        "games/",
        "games/{g}/posts/",
        "games/{g}/vote/",
        "games/{g}/nominate/",
        "games/{g}/actions/",
        "games/{g}/host/extend/",
        "games/{g}/host/modkill/",
    ],
)
def test_a_body_nested_thousands_deep_is_a_json_400(make_game, host, path):
    """3,000 levels raised RecursionError in the JSON decoder: 500 on eight operations, the
    token exchange among them (no sign-in needed)."""
    game = make_game("forum-cop-doctor-nine")
    api = APIClient()
    if path != "auth/token/":
        api.force_authenticate(host if "/host/" in path else slot_of(game, "cop").user)
    url = "/api/v1/" + path.format(g=game.pk)
    seq_before = type(game).objects.get(pk=game.pk).event_seq
    r = api.post(url, data=_nested(3000), content_type="application/json")
    assert r.status_code == 400, (url, r.status_code, r.content[:300])
    assert r.json()["code"] == "parse_error" and "deeper than 32" in r.json()["error"]
    assert type(game).objects.get(pk=game.pk).event_seq == seq_before  # the game untouched


def test_nesting_is_bounded_at_32_levels():
    from io import BytesIO
    from json import loads

    from rest_framework.exceptions import ParseError

    from games.api.parsers import MAX_DEPTH, JSONParser, depth

    assert MAX_DEPTH == 32
    assert JSONParser().parse(BytesIO(_nested(32).encode())) == loads(_nested(32))
    with pytest.raises(ParseError):
        JSONParser().parse(BytesIO(_nested(33).encode()))
    values = (1, "x", [], {}, {"a": [1, {"b": 2}]}, [[], [[[]]]])
    assert [depth(v) for v in values] == [0, 0, 1, 1, 3, 4]


def test_every_api_view_parses_json_with_the_bounded_parser():
    """A view that names its own parsers (the token exchange: JSON and forms) keeps the bound."""
    from django.urls import URLPattern, URLResolver, get_resolver

    from games.api.parsers import JSONParser

    def views(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from views(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                cls = getattr(pattern.callback, "cls", None)
                if (prefix + str(pattern.pattern)).startswith("api/") and cls is not None:
                    yield prefix + str(pattern.pattern), cls

    found = list(views(get_resolver().url_patterns))
    assert len(found) > 20
    for route, cls in found:
        for parser in cls.parser_classes:
            if parser.media_type == "application/json":
                assert issubclass(parser, JSONParser), (route, parser)


# -- bodies past the upload limit (mafia_site.guards) ----------------------------------------
@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("path", ["auth/token/", "games/{g}/posts/", "games/{g}/vote/"])
def test_a_body_past_the_limit_is_a_json_413_whatever_debug_is(make_game, settings, debug, path):
    """2.7 MB answered Django's HTML debug page (about 120 KB) under DEBUG, a bare 400
    otherwise."""
    settings.DEBUG = debug
    game = make_game("forum-cop-doctor-nine")
    client = Client()
    client.force_login(slot_of(game, "cop").user)
    seq_before = type(game).objects.get(pk=game.pk).event_seq
    body = '{"body": "' + "x" * 2_700_000 + '"}'
    url = "/api/v1/" + path.format(g=game.pk)
    r = client.post(url, data=body, content_type="application/json")
    assert r.status_code == 413 and r["Content-Type"] == "application/json", r.content[:200]
    assert r.json() == {
        "error": "The request body is larger than 2.5 MB.",
        "code": "body_too_large",
        "field": None,
    }
    assert type(game).objects.get(pk=game.pk).event_seq == seq_before


def test_a_page_body_past_the_limit_is_a_plain_413(make_game, settings):
    settings.DEBUG = True
    game = make_game("forum-cop-doctor-nine")
    client = Client()
    client.force_login(slot_of(game, "cop").user)
    r = client.post(f"/games/{game.pk}/post/", {"body": "x" * 2_700_000})
    assert r.status_code == 413 and r["Content-Type"].startswith("text/plain")
    assert r.content == b"The request body is larger than 2.5 MB."


def test_djangos_refusals_raised_in_an_api_view_are_json():
    """A body that does not say its length is read by the view: what Django raises then is
    answered as JSON too (DEBUG would answer its HTML page)."""
    from django.core.exceptions import DisallowedHost, RequestDataTooBig
    from django.test import RequestFactory

    from mafia_site.guards import RequestLimitsMiddleware

    middleware = RequestLimitsMiddleware(lambda request: None)
    api, page = RequestFactory().post("/api/v1/games/"), RequestFactory().post("/games/1/post/")
    too_big = middleware.process_exception(api, RequestDataTooBig("too big"))
    assert too_big.status_code == 413 and b"body_too_large" in too_big.content
    bad = middleware.process_exception(api, DisallowedHost("evil"))
    assert bad.status_code == 400 and b'"code": "bad_request"' in bad.content
    assert middleware.process_exception(page, RequestDataTooBig("too big")) is None
    assert middleware.process_exception(api, ValueError("a bug")) is None  # handler500's
