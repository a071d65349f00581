"""The tables as their documents say: seats dealt at random at the start, a power
question's addressee on the post, and a turn's deadline as the rule for every act."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, InvalidInput, WrongPhase
from games.models import GameEvent, Nomination, Phase, Slot
from games.reads.table import turn_view
from tests.conftest import current_phase

pytestmark = pytest.mark.django_db

SPEECH = "I have been watching the quiet ones and I think the mafia sit among them. " * 2


def view(game: Any) -> dict[str, Any]:
    slots = list(game.slots.order_by("seat").select_related("user"))
    return turn_view(game, current_phase(game), slots)


def speaker(game: Any) -> Slot:
    return Slot.objects.select_related("user").get(pk=view(game)["speaker"]["slot_id"])


def seats_by_signup(game: Any) -> list[int]:
    """Each player's seat, in sign-up order (make_game signs up player1, player2...)."""
    slots = game.slots.select_related("user")
    return [s.seat for s in sorted(slots, key=lambda s: int(s.user.username[len("player") :]))]


def api_as(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


# -- seats -----------------------------------------------------------------------------------
@pytest.mark.parametrize("setup", ["classic-ten", "city-ten", "power-nine", "forum-vanilla"])
def test_seats_are_dealt_at_random_from_the_game_s_seed(make_game, setup):
    orders = []
    # A forum host unticks "Seat the players in sign-up order" (ticked by default).
    dealt = {"seats_in_signup_order": False} if setup == "forum-vanilla" else {"table": True}
    for seed in (1, 2, 3):
        game = make_game(setup, seed=seed, **dealt)
        order = seats_by_signup(game)
        assert sorted(order) == list(range(1, game.player_cap + 1))  # a permutation
        orders.append(order)
    identity = list(range(1, len(orders[0]) + 1))
    # These seeds deal orders other than sign-up (the chance of one matching is 1/n!).
    assert all(order != identity for order in orders)
    assert len({tuple(o) for o in orders}) == 3
    again = make_game(setup, seed=2, **dealt)
    assert seats_by_signup(again) == orders[1]  # the same seed deals the same seats


def test_day_one_does_not_always_open_with_the_first_to_sign_up(make_game):
    openers = set()
    for seed in (1, 2, 3):
        game = make_game("city-ten", table=True, seed=seed)
        openers.add(speaker(game).user.username)
    assert openers != {"player1"}


def test_a_forum_game_keeps_the_sign_up_order_by_default_but_a_table_may_not(make_game):
    game = make_game("forum-vanilla")  # a thread has no speaking order
    assert game.seats_in_signup_order
    assert seats_by_signup(game) == list(range(1, game.player_cap + 1))
    with pytest.raises(InvalidInput) as refused:
        make_game("classic-ten", table=True, seats_in_signup_order=True)
    assert refused.value.code == ErrorCode.SEATS


def test_the_table_shows_the_seats_from_the_first_night(make_game):
    game = make_game("classic-ten", table=True)
    assert current_phase(game).is_night  # night zero
    slots = list(game.slots.order_by("seat").select_related("user"))
    seats = view(game)["seats"]
    assert [ref["seat"] for ref in seats] == list(range(1, 11))
    assert [ref["name"] for ref in seats] == [s.display_name for s in slots]
    response = api_as(slots[0].user).get(f"/api/v1/games/{game.pk}/turn/")
    assert response.json()["seats"] == seats


# -- a power question's addressee ---------------------------------------------------------
def test_a_power_question_names_its_addressee_on_the_post_in_the_api_and_to_them(make_game):
    game = make_game("power-nine", table=True)
    asker = speaker(game)
    ben = next(s for s in game.slots.select_related("user") if s.pk != asker.pk)
    result = services.submit_post(asker.user, game.pk, body="Where were you?", to=ben.pk)
    post = result.post
    assert post.to_id == ben.pk and post.to_name == ben.display_name
    answer = api_as(asker.user).get(f"/api/v1/games/{game.pk}/posts/").json()
    [listed] = [p for p in answer["results"] if p["number"] == post.number]
    assert listed["to"] == {"slot_id": ben.pk, "seat": ben.seat, "name": ben.display_name}
    page = api_as(asker.user).get(f"/games/{game.pk}/").content.decode()
    assert f"Question for <strong>{ben.display_name}</strong>" in page
    told = GameEvent.objects.get(game=game, kind="turn_notice", audience=f"slot:{ben.pk}")
    assert told.payload["text"] == (
        f"{asker.display_name} asked you a question (post #{post.number})."
    )
    post_event = GameEvent.objects.filter(game=game, kind="post").latest("seq")
    assert post_event.payload["to"]["slot_id"] == ben.pk
    # An ordinary post names nobody.
    assert answer["results"][0]["to"] is None


# -- the deadline is the rule -------------------------------------------------------------
def overdue(game: Any) -> Phase:
    """The current turn's (or phase's) deadline a moment ago: the timer has not run yet."""
    phase = current_phase(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    return phase


def refused_late(act: Any) -> WrongPhase:
    with pytest.raises(WrongPhase) as refused:
        act()
    assert refused.value.code == ErrorCode.TURN_ENDED, refused.value.message
    return refused.value


def test_a_speech_and_a_nomination_after_the_turn_s_deadline_are_refused(make_game):
    game = make_game("classic-ten", table=True)
    assert services.advance_phase(game.pk, 1, now=current_phase(game).deadline)  # night zero
    first = speaker(game)
    phase = overdue(game)
    error = refused_late(lambda: services.submit_post(first.user, game.pk, body=SPEECH))
    assert error.message == "The turn ended: its deadline has passed."
    refused_late(lambda: services.nominate(first.user, game.pk, None))
    refused_late(lambda: services.pass_turn(first.user, game.pk))
    assert not game.posts.filter(slot=first).exists()
    # The timer then resolves the turn as usual: the default nomination.
    assert services.advance_phase(game.pk, phase.number, turn_seq=phase.turn_seq)
    assert Nomination.objects.filter(nominator=first).exists()
    assert speaker(game).pk != first.pk


def test_a_vote_a_question_and_a_skip_discussion_line_after_the_deadline_are_refused(
    make_game,
):
    game = make_game("power-nine", table=True)
    asker = speaker(game)
    other = next(s for s in game.slots.select_related("user") if s.pk != asker.pk)
    overdue(game)
    refused_late(lambda: services.submit_post(asker.user, game.pk, body="Why?", to=other.pk))
    refused_late(lambda: services.submit_post(asker.user, game.pk, body="VOTE_SKIP_DISCUSSION"))
    assert view(game)["skip_discussion"] == []
    # A city vote 0.7 s late.
    city = make_game("city-ten", table=True)
    while view(city)["step"] != "vote":
        services.pass_turn(speaker(city).user, city.pk)
    voter, target = list(city.slots.select_related("user").order_by("seat"))[:2]
    phase = current_phase(city)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=0.7))
    refused_late(lambda: services.cast_vote(voter.user, city.pk, target.pk))
    assert view(city)["voted"] == []
    response = api_as(voter.user).post(
        f"/api/v1/games/{city.pk}/vote/", {"target": target.pk}, format="json"
    )
    assert response.status_code == 409 and response.json()["code"] == "turn_ended"


def test_a_night_action_at_a_table_after_the_night_s_deadline_is_refused(make_game):
    game = make_game("city-ten", table=True, starts_with="night")
    phase = current_phase(game)
    assert phase.is_night
    actor, option = next(
        (slot, option)
        for slot in game.slots.select_related("user")
        for option in services.night_options(game, slot)
        if option["choices"]
    )
    overdue(game)
    error = refused_late(
        lambda: services.submit_night_action(
            actor.user, game.pk, ability=option["ability"], targets=[option["choices"][0]]
        )
    )
    assert error.message == "The night ended: its deadline has passed."
    assert services.advance_phase(game.pk, phase.number)
    assert current_phase(game).is_day


def test_before_the_deadline_the_same_acts_are_taken(make_game):
    # The refusal is the deadline's, not something else about these acts.
    game = make_game("classic-ten", table=True)
    assert services.advance_phase(game.pk, 1, now=current_phase(game).deadline)
    first = speaker(game)
    services.submit_post(first.user, game.pk, body=SPEECH)
    services.nominate(first.user, game.pk, None)
    assert Nomination.objects.filter(nominator=first).exists()


# -- the table's vote beside the vote count ---------------------------------------------------
def test_a_table_day_s_vote_count_points_to_the_table_not_an_empty_count(make_game, client):
    """A table's ballots are the table's: the count card must not say "No votes yet" or list
    everyone as not voting while they vote at the table."""
    city = make_game("city-ten", table=True)
    while view(city)["step"] != "vote":
        services.pass_turn(speaker(city).user, city.pk)
    voter, target = list(city.slots.select_related("user").order_by("seat"))[:2]
    services.cast_vote(voter.user, city.pk, target.pk)
    assert view(city)["voted"] == [
        {"slot_id": voter.pk, "seat": voter.seat, "name": voter.display_name}
    ]
    count = services.vote_count(current_phase(city))
    assert count["at_table"] is True
    page = client.get(f"/games/{city.pk}/").content.decode()
    card = page[page.index('id="vote-count"') :]
    card = card[: card.index("</section>")]
    assert 'under <a href="#turn-panel">The table</a>' in card
    assert "No votes yet" not in card and "Not voting" not in card
    api = api_as(voter.user).get(f"/api/v1/games/{city.pk}/vote-count/").json()
    assert api["at_table"] is True


def test_a_finished_table_game_shows_no_running_clock(make_game):
    from games.models import Game, GameStatus

    game = make_game("classic-ten", table=True)
    assert view(game)["deadline"] is not None
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    game.refresh_from_db()
    over = view(game)
    assert over["step"] == "over" and over["deadline"] is None
