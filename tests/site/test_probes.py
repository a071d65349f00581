"""Belief probes (issue 34, part 5): a living player's daily probabilities that each other
living player is mafia, read by nobody else until the end, then scored (Brier) in the
review, the API, the players' pages and the open data.

(The leak scanner has every player send probes with a value of their own each day and
searches every page, answer, frame and mail of everyone for the others'.)"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from analytics.models import Probe
from analytics.probes import brier, person_probes
from games import services
from games.models import GameEvent
from tests.conftest import api, current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def url(game: Any) -> str:
    return f"/api/v1/games/{game.pk}/probes/"


def send(user: Any, game: Any, probabilities: dict[int, float]) -> Any:
    body = {"probabilities": [{"target": t, "probability": p} for t, p in probabilities.items()]}
    return api(user).post(url(game), body, format="json")


def kept(game: Any) -> list[tuple[int, int, float]]:
    return sorted(
        Probe.objects.filter(game=game).values_list("slot_id", "target_id", "probability")
    )


def test_a_player_sends_probes_by_api_and_again_replaces_the_day_s(make_game):
    game = make_game("forum-cop-doctor-nine")
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    town = slots_of(game, "vanilla_townie")
    events = GameEvent.objects.filter(game=game).count()
    answer = send(cop.user, game, {goon.pk: 0.8137, town[0].pk: 0.1})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["game_over"] is False and body["scores"] == []
    # The caller's own, by target seat, as sent (0.8137 stays 0.8137).
    expected = sorted([(town[0], 0.1), (goon, 0.8137)], key=lambda i: i[0].seat)
    assert [(p["target"]["slot_id"], p["probability"], p["day"]) for p in body["probes"]] == [
        (slot.pk, p, "Day 1") for slot, p in expected
    ]
    assert {p["by"]["slot_id"] for p in body["probes"]} == {cop.pk}
    assert kept(game) == sorted([(cop.pk, goon.pk, 0.8137), (cop.pk, town[0].pk, 0.1)])
    # Again the same day: the day's probes are replaced (a partial set is fine).
    assert send(cop.user, game, {town[1].pk: 0.5}).status_code == 200
    assert kept(game) == [(cop.pk, town[1].pk, 0.5)]
    # Nothing of it is an event: nobody can even learn that probes were sent.
    assert GameEvent.objects.filter(game=game).count() == events
    # The next day's are kept beside the first day's.
    services.cut_deadline_now(game.host, game.pk)
    services.cut_deadline_now(game.host, game.pk)
    assert current_phase(game).is_day
    alive = game.slots.filter(alive=True).exclude(pk=cop.pk).first()
    assert send(cop.user, game, {alive.pk: 0.25}).status_code == 200
    assert len(kept(game)) == 2
    assert [p["day"] for p in api(cop.user).get(url(game)).json()["probes"]] == ["Day 1", "Day 2"]


def test_the_form_page_sends_and_prefills_today_s_probes(make_game):
    game = make_game("forum-cop-doctor-nine")
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    client = Client()
    client.force_login(cop.user)
    page = client.get(f"/games/{game.pk}/probes/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f'name="p{goon.pk}"' in text and f'name="p{cop.pk}"' not in text
    answer = client.post(f"/games/{game.pk}/probes/", {f"p{goon.pk}": "81.37"})
    assert answer.status_code == 302
    assert kept(game) == [(cop.pk, goon.pk, 0.8137)]
    text = client.get(f"/games/{game.pk}/probes/").content.decode()
    assert 'value="81.37"' in text  # prefilled with today's
    # Nothing given, or a number out of range: the form says so, nothing changes.
    for data in ({}, {f"p{goon.pk}": "140"}, {f"p{goon.pk}": "abc"}):
        refused = client.post(f"/games/{game.pk}/probes/", data)
        assert refused.status_code == 400, data
        assert 'class="error"' in refused.content.decode() or "form-errors" in (
            refused.content.decode()
        )
    assert kept(game) == [(cop.pk, goon.pk, 0.8137)]
    # The role PM page links the form.
    assert f"/games/{game.pk}/probes/" in client.get(f"/games/{game.pk}/role/").content.decode()


def test_the_form_page_says_why_to_whoever_may_not_send(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    dead = slots_of(game, "vanilla_townie")[0]
    services.modkill(host, game.pk, dead.pk)
    for user, words in (
        (None, "Only the game's players"),
        (UserFactory(username="onlooker"), "Only the game's players"),
        (host, "Only the game's players"),
        (dead.user, "You are dead"),
    ):
        client = Client()
        if user is not None:
            client.force_login(user)
        page = client.get(f"/games/{game.pk}/probes/")
        assert page.status_code == 200 and words in html.unescape(page.content.decode()), user
        assert 'name="p' not in page.content.decode()
    services.cut_deadline_now(host, game.pk)  # night
    client = Client()
    client.force_login(slot_of(game, "cop").user)
    assert "during the day" in client.get(f"/games/{game.pk}/probes/").content.decode()


@pytest.mark.parametrize(
    "case",
    ["night", "dead", "outsider", "host", "bad_number", "unknown_seat", "self", "dead_target"],
)
def test_refusals_have_clear_codes_and_leave_the_game_untouched(make_game, host, case):
    game = make_game("forum-cop-doctor-nine")
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    town = slots_of(game, "vanilla_townie")
    services.modkill(host, game.pk, town[0].pk)
    user, given, status, code = cop.user, {goon.pk: 0.5}, 0, ""
    if case == "night":
        services.cut_deadline_now(host, game.pk)
        status, code = 409, "not_day"
    elif case == "dead":
        user, status, code = town[0].user, 403, "dead"
    elif case == "outsider":
        user, status, code = UserFactory(username="outsider"), 403, "not_player"
    elif case == "host":
        user, status, code = host, 403, "not_player"
    elif case == "bad_number":
        for bad in (1.5, -0.1, "high", True, None):
            body = {"probabilities": [{"target": goon.pk, "probability": bad}]}
            answer = api(cop.user).post(url(game), body, format="json")
            assert answer.status_code == 400, (bad, answer.content)
        given, status, code = {goon.pk: 0.5, town[1].pk: 0.5}, 422, "probe"
        body = {"probabilities": [{"target": goon.pk, "probability": 0.5}] * 2}
        answer = api(cop.user).post(url(game), body, format="json")
        assert (answer.status_code, answer.json()["code"]) == (422, "probe")
        for empty in ({"probabilities": []}, {}, {"probabilities": "x"}):
            answer = api(cop.user).post(url(game), empty, format="json")
            assert answer.status_code == 400, empty
        assert kept(game) == []
        return
    elif case == "unknown_seat":
        given, status, code = {goon.pk: 0.5, 987654: 0.5}, 422, "no_player"
    elif case == "self":
        given, status, code = {cop.pk: 0.5}, 422, "probe_target"
    elif case == "dead_target":
        given, status, code = {town[0].pk: 0.5}, 422, "probe_target"
    answer = send(user, game, given)
    assert (answer.status_code, answer.json()["code"]) == (status, code), answer.content
    assert kept(game) == []
    assert api().post(url(game), {"probabilities": []}, format="json").status_code in (401, 403)


def test_while_it_runs_each_reads_their_own_and_nobody_else_s(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    goons = slots_of(game, "goon")
    cop = slot_of(game, "cop")
    assert send(goons[0].user, game, {cop.pk: 0.9137}).status_code == 200
    assert send(cop.user, game, {goons[0].pk: 0.8137}).status_code == 200
    mine = api(goons[0].user).get(url(game)).json()["probes"]
    assert [p["probability"] for p in mine] == [0.9137]
    # The team mate, the host, a spectator, anonymous: nothing of anyone's.
    for user in (goons[1].user, host, UserFactory(username="watcher"), None):
        answer = api(user).get(url(game))
        assert answer.status_code == 200 and answer.json()["probes"] == [], user
        assert "0.8137" not in answer.content.decode()
    # A replacement takes the seat, not the old holder's probes; the old holder reads none.
    services.replace_player(host, game.pk, goons[0].pk, UserFactory(username="newgoon"))
    newgoon = game.slots.get(pk=goons[0].pk).user
    assert api(newgoon).get(url(game)).json()["probes"] == []
    assert api(goons[0].user).get(url(game)).json()["probes"] == []
    # The export is nobody's before the end.
    assert api(host).get(f"/api/v1/games/{game.pk}/export/").status_code == 404


def finished_with_probes(make_game: Any, host: Any) -> tuple[Any, dict[str, Any]]:
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    goons = slots_of(game, "goon")
    town = slots_of(game, "vanilla_townie")
    # The cop: 0.8 on a goon, 0.3 on a townie -> (0.2² + 0.3²) / 2 = 0.065.
    assert send(cop.user, game, {goons[0].pk: 0.8, town[0].pk: 0.3}).status_code == 200
    # A goon: 0.1 on the cop -> 0.01.
    assert send(goons[0].user, game, {cop.pk: 0.1}).status_code == 200
    for goon in goons:
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    return game, {"cop": cop, "goons": goons, "town": town}


def test_brier_scores_after_the_end(make_game, host):
    game, seats = finished_with_probes(make_game, host)
    cop, goon = seats["cop"], seats["goons"][0]
    assert brier([(0.8, True), (0.3, False)]) == pytest.approx(0.065)
    assert brier([]) is None
    body = api().get(url(game)).json()
    assert body["game_over"] is True and len(body["probes"]) == 3
    scores = {s["seat"]["slot_id"]: (s["probes"], s["brier"]) for s in body["scores"]}
    assert scores[cop.pk] == (2, 0.065)
    assert scores[goon.pk] == (1, 0.01)
    assert scores[seats["town"][1].pk] == (0, None)
    # The person's figures: every probe they sent in finished games, as one set.
    figures = person_probes(cop.user.pk)
    assert (figures.probes, figures.games) == (2, 1)
    assert figures.brier == pytest.approx(0.065)
    # The review's panel shows the seats' scores and the day's table, to everyone.
    review = Client().get(f"/games/{game.pk}/review/").content.decode()
    assert 'id="probes"' in review and "0.0650" in review and "80" in review
    # The player's page shows theirs.
    page = Client().get(f"/players/{cop.user.get_username()}/").content.decode()
    assert 'id="player-probes"' in page and "0.0650" in page


def stats_probes(user: Any) -> Any:
    answer = api().get(f"/api/v1/players/{user.get_username()}/stats/")
    assert answer.status_code == 200
    return answer.json()["probes"]


def test_the_player_statistics_api_gives_the_person_s_brier_score(make_game, host):
    """The person's probes over their finished games, as the player's page gives them; a
    running game's count for nothing (not even that some were sent)."""
    _, seats = finished_with_probes(make_game, host)
    cop, goon, townie = seats["cop"], seats["goons"][0], seats["town"][1]
    assert stats_probes(cop.user) == {"probes": 2, "games": 1, "brier": 0.065}
    assert stats_probes(goon.user) == {"probes": 1, "games": 1, "brier": 0.01}
    assert stats_probes(townie.user) == {"probes": 0, "games": 0, "brier": None}
    # The cop plays again and sends a probe in the running game: their figures stay.
    again = make_game("forum-cop-doctor-nine", seed=21)  # (the same people)
    target = again.slots.exclude(user=cop.user).first()
    assert send(cop.user, again, {target.pk: 0.9}).status_code == 200
    assert stats_probes(cop.user) == {"probes": 2, "games": 1, "brier": 0.065}


def test_the_export_holds_the_probes_after_the_end(make_game, host):
    game, seats = finished_with_probes(make_game, host)
    exported = api().get(f"/api/v1/games/{game.pk}/export/").json()
    probes = exported["parts"]["probes"]
    cop = seats["cop"]
    assert sorted((p["seat"], p["target"], p["probability"]) for p in probes) == sorted(
        [
            (cop.seat, seats["goons"][0].seat, 0.8),
            (cop.seat, seats["town"][0].seat, 0.3),
            (seats["goons"][0].seat, cop.seat, 0.1),
        ]
    )
    assert {p["phase"] for p in probes} == {1}
