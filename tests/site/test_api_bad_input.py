"""Bad input never crashes: malformed values on every write endpoint get a 4xx JSON error,
never a 500, by day and by night."""

import pytest
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
