"""The "my games" page and ``GET /api/v1/my-games/``: one read (``games.reads.my_games``)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import GameStatus, ReplacementSignup, ThreadVisit
from games.reads.table import turn_view
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory, person_key

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {person_key(user)}")
    return client


def mine(user: Any) -> dict[str, Any]:
    response = api(user).get("/api/v1/my-games/")
    assert response.status_code == 200, response.content
    return response.json()


def entry(user: Any, game: Any) -> dict[str, Any]:
    body = mine(user)
    found = [g for g in body["active"] + body["finished"] if g["game_id"] == game.pk]
    assert len(found) == 1, body
    return found[0]


def page(client_for: Any, user: Any) -> str:
    response = client_for(user).get("/my-games/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_player_who_has_not_voted_is_asked_to_until_they_vote(make_game, client_for):
    game = make_game("forum-vanilla")
    me, other = list(game.slots.select_related("user").order_by("seat"))[:2]
    item = entry(me.user, game)
    assert item["needs"] == ["vote"] and item["relation"] == "player"
    assert item["you"] == {
        "slot_id": me.pk,
        "seat": me.seat,
        "name": me.display_name,
        "alive": True,
    }
    assert item["status_label"] == "Day 1" and item["deadline"] is not None
    assert "You have not voted today" in page(client_for, me.user)
    services.cast_vote(me.user, game.pk, other.pk)
    assert entry(me.user, game)["needs"] == []
    assert "You have not voted today" not in page(client_for, me.user)
    assert entry(other.user, game)["needs"] == ["vote"]


def test_a_missing_night_action_is_the_players_own(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    townie = slot_of(game, "vanilla_townie")
    assert entry(cop.user, game)["needs"] == ["night_action"]
    assert entry(townie.user, game)["needs"] == []  # no action tonight: nothing missing
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[doctor.pk])
    assert entry(cop.user, game)["needs"] == []
    assert entry(doctor.user, game)["needs"] == ["night_action"]


def test_a_table_game_asks_the_seat_whose_turn_it_is(make_game):
    pytest.importorskip("resolver.rulesets.classic")
    game = make_game("classic-ten", table=True)
    services.advance_phase(game.pk, 1, now=current_phase(game).deadline)
    game.refresh_from_db()
    slots = list(game.slots.select_related("user").order_by("seat"))
    speaker = turn_view(game, current_phase(game), slots)["speaker"]["slot_id"]
    for slot in slots:
        assert entry(slot.user, game)["needs"] == (["your_turn"] if slot.pk == speaker else [])


def test_a_prodded_player_is_told(make_game, host, client_for):
    game = make_game("forum-vanilla", min_posts_per_day=1)
    talker, quiet = list(game.slots.select_related("user").order_by("seat"))[:2]
    services.submit_post(talker.user, game.pk, body="Here, and talking.")
    services.cut_deadline_now(host, game.pk)
    assert entry(quiet.user, game)["needs"] == ["prodded"]
    assert entry(talker.user, game)["needs"] == []
    assert "You were prodded for inactivity" in page(client_for, quiet.user)


def test_unread_posts_go_down_after_opening_the_thread(make_game, client_for):
    game = make_game("forum-vanilla")
    me, other = list(game.slots.select_related("user").order_by("seat"))[:2]
    before = entry(me.user, game)["unread"]
    assert before >= 1  # the site's day-start announcement
    for n in range(3):
        services.submit_post(other.user, game.pk, body=f"Post {n} of mine.")
    assert entry(me.user, game)["unread"] == before + 3
    assert client_for(me.user).get(f"/games/{game.pk}/?page=last").status_code == 200
    assert entry(me.user, game)["unread"] == 0
    visit = ThreadVisit.objects.get(user=me.user, game=game, thread="public")
    # An older page does not lower the mark.
    client_for(me.user).get(f"/games/{game.pk}/?page=1")
    visit.refresh_from_db()
    assert entry(me.user, game)["unread"] == 0 and visit.last_post_number >= before + 3
    services.submit_post(other.user, game.pk, body="One more.")
    assert entry(me.user, game)["unread"] == 1
    assert entry(other.user, game)["unread"] > 0  # each person's own visits


def test_a_mafia_players_private_thread_is_counted_but_nothing_hidden_shows(make_game, client_for):
    game = make_game("forum-vanilla")
    goon, partner = slots_of(game, "goon")
    services.submit_post(partner.user, game.pk, body="Kill the quiet one.", thread="mafia")
    item = entry(goon.user, game)
    assert {t["thread"]: t["unread"] for t in item["threads"]}["mafia"] >= 1
    townie = slot_of(game, "vanilla_townie")
    assert [t["thread"] for t in entry(townie.user, game)["threads"]] == ["public"]
    text = str(mine(goon.user)) + page(client_for, goon.user)
    for secret in ("goon", 'mafia"', "alignment", "role"):
        assert secret not in text.replace("Mafia chat", "").replace("mafia chat", "")
    assert partner.display_name not in text


def test_another_user_sees_only_their_own_games(make_game, client_for):
    game = make_game("forum-vanilla")
    me = game.slots.select_related("user").first()
    stranger = UserFactory(username="stranger")
    assert mine(stranger) == {"active": [], "finished": []}
    assert game.title not in page(client_for, stranger)
    assert game.title in page(client_for, me.user)


def test_hosts_and_the_replacement_queue_see_their_games(make_game, host):
    game = make_game("forum-vanilla", start=False)
    item = entry(host, game)
    assert item["relation"] == "host" and item["host_needs"] == ["start"] and item["you"] is None
    services.start_game(host, game.pk)
    waiting = UserFactory(username="waiting")
    services.join_queue(waiting, game.pk)
    assert ReplacementSignup.objects.filter(user=waiting).exists()
    item = entry(waiting, game)
    assert item["relation"] == "queued" and item["needs"] == []
    assert entry(host, game)["host_needs"] == []


def test_finished_games_are_in_their_own_section(make_game, host):
    game = make_game("forum-vanilla")
    services.modkill(host, game.pk, slots_of(game, "goon")[0].pk)
    services.modkill(host, game.pk, slots_of(game, "goon")[1].pk)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    me = slot_of(game, "vanilla_townie")
    body = mine(me.user)
    assert [g["game_id"] for g in body["finished"]] == [game.pk] and body["active"] == []
    assert body["finished"][0]["needs"] == [] and body["finished"][0]["deadline"] is None


def test_games_that_need_you_come_first(make_game, host):
    quiet = make_game("forum-vanilla", start=False)  # sign-ups: nothing needed
    voting = make_game("forum-vanilla")
    me = voting.slots.get(user__username="player1").user
    body = mine(me)
    assert [g["game_id"] for g in body["active"]] == [voting.pk, quiet.pk]


def test_anonymous_gets_an_api_error_and_the_login_page(client_for):
    response = APIClient().get("/api/v1/my-games/")
    assert response.status_code in (401, 403)
    assert response.json()["code"]
    page = client_for(None).get("/my-games/")
    assert page.status_code == 302 and "/login" in page["Location"]


def test_the_page_and_the_api_agree(make_game, host, client_for):
    game = make_game("forum-vanilla")
    me = game.slots.select_related("user").first()
    item = entry(me.user, game)
    session = client_for(me.user).get("/api/v1/my-games/").json()  # session auth too
    assert session == mine(me.user)
    text = page(client_for, me.user)
    assert item["title"] in text and item["status_label"] in text
    assert f'data-needs="{" ".join(item["needs"])}"' in text
    assert f'datetime="{item["deadline"].replace("Z", "+00:00")}"' in text


def test_the_lobby_and_the_header_link_to_my_games(make_game, client_for, host):
    text = client_for(host).get("/").content.decode()
    assert text.count('href="/my-games/"') == 2
    assert 'href="/my-games/"' not in client_for(None).get("/").content.decode()


def test_the_list_costs_a_bounded_number_of_queries(make_game, host, django_assert_max_num_queries):
    games = [make_game("forum-vanilla") for _ in range(2)]
    night = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, night.pk)
    make_game("forum-vanilla", start=False)
    from games.reads.my_games import my_games

    for user in (games[0].slots.get(user__username="player1").user, host):
        with django_assert_max_num_queries(10):
            listed = my_games(user)
            assert len(listed.active) >= 3
        more = [make_game("forum-vanilla") for _ in range(2)]
        with django_assert_max_num_queries(10):
            assert len(my_games(user).active) == len(listed.active) + len(more)


def test_a_visit_is_recorded_only_where_the_reader_may_read(make_game, client_for):
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    assert client_for(townie.user).get(f"/games/{game.pk}/t/mafia/").status_code == 404
    assert client_for(None).get(f"/games/{game.pk}/").status_code == 200
    assert client_for(townie.user).get(f"/games/{game.pk}/?iso=1").status_code == 200
    assert not ThreadVisit.objects.exists()  # no visit: a 404, anonymous, an ISO view
    goon = slots_of(game, "goon")[0]
    assert client_for(goon.user).get(f"/games/{game.pk}/t/mafia/").status_code == 200
    assert ThreadVisit.objects.filter(user=goon.user, thread="mafia").count() == 1
