"""Table days (city, classic, power) through the services: turns, timers, host controls.

The rules are the day scripts' (``tests/resolver/test_day_*``); these tests check that the
site stores whose turn it is, refuses what the script refuses, keeps the turn's clock
exactly once, hides ballots until the vote closes, and applies the day's outcome.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, GameRuleError, InvalidInput, NotAllowed, WrongPhase
from games.models import GameEvent, Nomination, Phase, Slot, Vote
from games.reads.table import turn_view
from tests.conftest import current_phase

pytestmark = pytest.mark.django_db

WORDS = "I have been watching the table closely and something about the quiet ones " * 5


def view(game: Any, viewer: Slot | None = None) -> dict[str, Any]:
    phase = current_phase(game)
    return turn_view(game, phase, list(game.slots.order_by("seat").select_related("user")), viewer)


def speaker(game: Any) -> Slot:
    ref = view(game)["speaker"]
    assert ref is not None, view(game)["step"]
    return Slot.objects.select_related("user").get(pk=ref["slot_id"])


def later(game: Any, seconds: int = 1) -> Any:
    phase = current_phase(game)
    return (phase.deadline or timezone.now()) + timedelta(seconds=seconds)


def time_out(game: Any) -> bool:
    phase = current_phase(game)
    return services.advance_phase(game.pk, phase.number, now=later(game))


def end_night_zero(game: Any) -> None:
    assert current_phase(game).night_zero
    assert services.advance_phase(game.pk, 1, now=later(game))


def speech(game: Any, slot: Slot, target: Slot | None) -> None:
    services.submit_post(slot.user, game.pk, body=WORDS[:300])
    services.nominate(slot.user, game.pk, target.pk if target else None)


def api_as(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def living(game: Any) -> list[Slot]:
    return list(game.slots.filter(alive=True).order_by("seat").select_related("user"))


# -- classic -------------------------------------------------------------------------------
def test_classic_starts_with_a_night_zero_of_mafia_chat_only(make_game):
    game = make_game("classic-ten", table=True)
    phase = current_phase(game)
    assert phase.is_night and phase.night_zero
    mafia = game.slots.filter(alignment="mafia").select_related("user").first()
    detective = game.slots.get(role="detective")
    services.submit_post(mafia.user, game.pk, body="We go for the quiet one.", thread="mafia")
    assert services.night_options(game, detective) == []
    with pytest.raises(WrongPhase) as refused:
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[mafia.pk]
        )
    assert refused.value.code == "night_zero"
    state_before = game.resolver_state
    end_night_zero(game)
    game.refresh_from_db()
    day = current_phase(game)
    assert day.is_day and day.is_table_day
    assert game.slots.filter(alive=False).count() == 0
    assert game.resolver_state == state_before  # nothing resolved: day 1 is still "day 1"
    v = view(game)
    assert v["step"] == "speech" and v["day"] == 1
    assert [r["seat"] for r in v["order"]] == list(range(1, 11))
    assert v["speaker"]["seat"] == 1 and v["next"]["seat"] == 2
    assert {"skip": True} in v["options"]  # day 1 may nominate skip


def test_a_table_day_sends_its_vote_count_at_dawn_and_with_each_nomination(make_game):
    """Open pages follow the sidebar's count live: it opens with the day (replacing "no day
    has started yet") and lists each nomination as it is made."""

    def counts() -> list[dict[str, Any]]:
        return [e.payload for e in GameEvent.objects.filter(game=game, kind="vote_count")]

    game = make_game("classic-ten", table=True)
    assert counts() == []  # night zero: no count yet
    end_night_zero(game)
    opened = counts()
    assert len(opened) == 1 and opened[0]["phase"] == 2 and opened[0]["nominated"] == []
    first, second = living(game)[:2]
    services.submit_post(first.user, game.pk, body=WORDS[:300])
    assert len(counts()) == 1  # a speech alone changes nothing the count shows
    services.nominate(first.user, game.pk, second.pk)
    latest = counts()[-1]
    assert [n["slot_id"] for n in latest["nominated"]] == [second.pk]


def test_only_the_speaker_posts_and_the_host_always_may(make_game, host):
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    first, second = living(game)[:2]
    with pytest.raises(WrongPhase) as refused:  # out of turn: "not now", as every act
        services.submit_post(second.user, game.pk, body="Me first!")
    assert f"It is {first.display_name}'s turn" in refused.value.message
    assert refused.value.code == ErrorCode.NOT_YOUR_TURN
    services.submit_post(host, game.pk, body="Host note: keep it civil.")
    speech(game, first, second)
    assert speaker(game).pk == second.pk
    assert Nomination.objects.get(nominator=first).target_id == second.pk
    assert view(game)["nominations"][0]["target"]["slot_id"] == second.pk
    with pytest.raises(WrongPhase) as again:  # the speech is over: out of turn, as a post
        services.nominate(first.user, game.pk, first.pk)
    assert again.value.code == ErrorCode.NOT_YOUR_TURN


def test_classic_word_limit_and_three_failed_attempts_make_a_random_nomination(make_game):
    game = make_game("classic-ten", table=True, day_settings={"word_limit": 20})
    end_night_zero(game)
    first = speaker(game)
    for attempt in range(3):
        with pytest.raises(GameRuleError) as refused:
            services.submit_post(first.user, game.pk, body=WORDS)
        assert "the limit is 20" in refused.value.message
        assert refused.value.code == ErrorCode.SPEECH_TOO_LONG and refused.value.status == 422
        if attempt < 2:
            assert speaker(game).pk == first.pk  # refused attempts are kept, and counted
            # Told as nights tell it: which attempt, and what the third brings.
            assert f"(Attempt {attempt + 1} of 3: after 3 refused attempts" in (
                refused.value.message
            )
        else:  # and the default that came, by name
            assert "failed 3 times: a random nomination is made for them." in (
                refused.value.message
            )
    assert speaker(game).pk != first.pk  # the third failure: the default nominated for them
    assert Nomination.objects.filter(nominator=first).exists()
    assert not game.posts.filter(slot=first).exists()  # a refused speech posts nothing


def _classic_day_one(game: Any) -> list[Slot]:
    end_night_zero(game)
    players = living(game)
    target = players[-1]
    for slot in players:
        speech(game, slot, target)
    return players


def test_classic_vote_is_hidden_until_it_closes_then_last_words_then_night(make_game):
    game = make_game("classic-ten", table=True)
    players = _classic_day_one(game)
    target = players[-1]
    v = view(game, players[0])
    assert v["step"] == "vote" and v["your_turn"] and v["you_may"] == ["vote"]
    assert {o.get("slot_id") for o in v["ballot"] if o} >= {target.pk}
    first_seq = game.events.order_by("-seq").first().seq
    for slot in players[:-1]:
        services.cast_vote(slot.user, game.pk, target.pk)
        assert view(game)["closed_votes"] == []
    assert len(view(game)["voted"]) == 9
    public = GameEvent.objects.filter(game=game, seq__gt=first_seq, audience="public")
    assert not any(str(target.pk) in str(e.payload.get("votes", "")) for e in public)
    assert not Vote.objects.filter(phase=current_phase(game)).exists()
    services.cast_vote(target.user, game.pk, None)  # the last ballot closes the vote
    v = view(game)
    assert v["step"] == "last_words" and v["speaker"]["slot_id"] == target.pk
    assert len(v["closed_votes"][0]["votes"]) == 10
    assert Vote.objects.filter(phase=current_phase(game)).count() == 10
    services.submit_post(target.user, game.pk, body="You got me. Good luck, town.")
    game.refresh_from_db()
    target.refresh_from_db()
    assert not target.alive and target.death_cause == "day"
    assert current_phase(game).is_night and not current_phase(game).night_zero


def test_classic_tie_goes_to_defense_speeches_and_a_revote(make_game):
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    players = living(game)
    a, b = players[0], players[1]
    for i, slot in enumerate(players):
        speech(game, slot, a if i % 2 else b)
    for i, slot in enumerate(players):
        services.cast_vote(slot.user, game.pk, (a if i % 2 else b).pk)
    v = view(game)
    assert v["step"] == "defense" and [r["slot_id"] for r in v["order"]] == [a.pk, b.pk]
    services.pass_turn(a.user, game.pk)
    services.submit_post(b.user, game.pk, body="I am town, look at my record.")
    v = view(game)
    assert v["step"] == "vote" and v["round"] == 2
    assert [o.get("slot_id") for o in v["ballot"]] == [a.pk, b.pk, None]
    with pytest.raises(InvalidInput):
        services.cast_vote(players[2].user, game.pk, players[2].pk)  # not on the revote ballot


def auto_posts(game: Any) -> list[str]:
    return list(game.posts.filter(is_auto=True).order_by("number").values_list("body", flat=True))


def test_a_table_tie_is_announced_in_the_thread_players_or_skip_with_one(make_game):
    """The thread says a vote is tied (two players; skip and one player) and what follows."""
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    players = living(game)
    a, b = players[0], players[1]
    for i, slot in enumerate(players):
        speech(game, slot, a if i % 2 else b)
    for i, slot in enumerate(players):  # 4 for a, 4 for b, 2 skip
        services.cast_vote(slot.user, game.pk, None if i > 7 else (a if i % 2 else b).pk)
    tie = auto_posts(game)[-1]
    assert tie == (
        f"**Day 1 is tied: a revote.** {a.display_name} and {b.display_name} have 4 votes "
        f"each. First {a.display_name} and {b.display_name} speak in their defense; then "
        f"everyone votes again between {a.display_name}, {b.display_name} or skip."
    ), tie
    services.pass_turn(a.user, game.pk)
    services.pass_turn(b.user, game.pk)
    for slot in players:  # the revote: skip wins, nobody is eliminated
        services.cast_vote(slot.user, game.pk, None)
    assert sum("is tied" in body for body in auto_posts(game)) == 1
    assert current_phase(game).is_night
    services.advance_phase(game.pk, current_phase(game).number, now=later(game))
    # Day 2: skip ties with one player (skip is always on the ballot).
    players = living(game)
    c, d = players[2], players[3]
    order = [Slot.objects.get(pk=r["slot_id"]) for r in view(game)["order"]]
    for i, slot in enumerate(order):
        speech(game, slot, d if i == 0 else c)
    votes = [c] * 4 + [None] * 4 + [d] * 2
    for slot, target in zip(players, votes, strict=True):
        services.cast_vote(slot.user, game.pk, target.pk if target else None)
    tie = auto_posts(game)[-1]
    assert tie == (
        f"**Day 2 is tied: a revote.** {c.display_name} and skip have 4 votes each. "
        f"First {c.display_name} speaks in their defense; then everyone votes again "
        f"between {c.display_name} or skip."
    ), tie
    assert view(game)["step"] == "defense"


# -- the clock -------------------------------------------------------------------------------
def test_a_turn_timer_fires_once_and_a_stale_turn_timer_does_nothing(make_game):
    game = make_game("classic-ten", table=True, turn_length=timedelta(seconds=30))
    end_night_zero(game)
    phase = current_phase(game)
    first = speaker(game)
    seq = phase.turn_seq
    assert phase.deadline - phase.started_at == timedelta(seconds=30)
    now = later(game)
    assert not services.advance_phase(game.pk, phase.number, now=now - timedelta(seconds=5))
    assert services.advance_phase(game.pk, phase.number, now=now, turn_seq=seq)
    assert not services.advance_phase(game.pk, phase.number, now=now, turn_seq=seq)  # twice
    assert speaker(game).pk != first.pk
    assert Nomination.objects.filter(nominator=first).exists()  # the timed-out default
    # The scan finds an overdue turn like an overdue phase (a killed worker's turn too).
    assert (game.pk, phase.number) in services.due_phases(now=later(game))


def test_host_pauses_extends_and_skips_a_speaker(make_game, host):
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    first = speaker(game)
    services.pause_game(host, game.pk)
    assert view(game)["paused"]
    with pytest.raises(WrongPhase):
        services.submit_post(first.user, game.pk, body=WORDS[:200])
    services.resume_game(host, game.pk)
    before = current_phase(game).deadline
    services.extend_deadline(host, game.pk, by=timedelta(seconds=30))
    assert current_phase(game).deadline == before + timedelta(seconds=30)
    with pytest.raises(NotAllowed):
        services.skip_speaker(first.user, game.pk)
    services.skip_speaker(host, game.pk)
    assert speaker(game).pk != first.pk


# -- city ------------------------------------------------------------------------------------
def test_city_is_day_first_speeches_then_vote_then_last_word(make_game):
    game = make_game("city-ten", table=True)
    phase = current_phase(game)
    assert phase.is_table_day and not phase.night_zero
    players = living(game)
    assert view(game)["step"] == "speech"
    for slot in players:
        services.pass_turn(slot.user, game.pk)
    assert view(game)["step"] == "vote"
    target = players[3]
    for slot in players:  # the target votes skip: the game's setting forbids a self-vote
        services.cast_vote(slot.user, game.pk, None if slot == target else target.pk)
    v = view(game)
    assert v["step"] == "last_words" and v["speaker"]["slot_id"] == target.pk
    time_out(game)  # no last word in time: the day ends all the same
    target.refresh_from_db()
    assert not target.alive and current_phase(game).is_night


def test_city_day_two_starts_one_seat_later(make_game):
    game = make_game("city-ten", table=True)
    for slot in living(game):
        services.pass_turn(slot.user, game.pk)
    for slot in living(game):
        services.cast_vote(slot.user, game.pk, None)
    assert current_phase(game).is_night
    assert services.advance_phase(game.pk, current_phase(game).number, now=later(game))
    if current_phase(game).is_day:
        order = view(game)["order"]
        alive_seats = [s.seat for s in living(game)]
        start = next(seat for seat in alive_seats if seat >= 2)
        assert order[0]["seat"] == start


# -- power -----------------------------------------------------------------------------------
def test_power_question_names_its_addressee(make_game):
    game = make_game("power-nine", table=True)
    first, second = living(game)[:2]
    assert view(game)["step"] == "question"
    with pytest.raises(GameRuleError) as refused:
        services.submit_post(first.user, game.pk, body="Who did you vote yesterday?")
    assert "must name the living player" in refused.value.message
    services.submit_post(first.user, game.pk, body="Where were you last night?", to=second.pk)
    assert speaker(game).pk == second.pk


def test_each_refusal_at_the_table_answers_one_status_with_its_own_code(make_game):
    """What the rules refuse is 422 with a code of its own; out of turn is 409 for every
    act (a post, a nomination): the API's statuses (docs/agents/api.md)."""
    power = make_game("power-nine", table=True)
    asker = speaker(power)
    posts = f"/api/v1/games/{power.pk}/posts/"
    for body, code in (
        ({"body": "Who?"}, ErrorCode.NO_ADDRESSEE),
        ({"body": "Me?", "to": asker.pk}, ErrorCode.SELF_QUESTION),
    ):
        answer = api_as(asker.user).post(posts, body, format="json")
        assert (answer.status_code, answer.json()["code"]) == (422, code), answer.json()
        assert answer.json()["field"] == "to"
    classic = make_game("classic-ten", table=True)
    end_night_zero(classic)
    first, second = (
        speaker(classic),
        next(p for p in living(classic) if p.pk != speaker(classic).pk),
    )
    client = api_as(first.user)
    long = client.post(f"/api/v1/games/{classic.pk}/posts/", {"body": WORDS * 3}, format="json")
    assert (long.status_code, long.json().get("code")) == (422, ErrorCode.SPEECH_TOO_LONG), (
        long.json()
    )
    passing = client.post(f"/api/v1/games/{classic.pk}/turn/pass/")
    assert (passing.status_code, passing.json()["code"]) == (422, ErrorCode.NOT_IN_STEP)
    assert passing.json()["error"].startswith("Nobody can pass during the speeches.")
    out_of_turn = api_as(second.user)
    for path, body in (
        ("posts/", {"body": "Me first!"}),
        ("nominate/", {"target": first.pk}),
        ("posts/", {"body": "VOTE_SKIP_DISCUSSION"}),
    ):
        answer = out_of_turn.post(f"/api/v1/games/{classic.pk}/{path}", body, format="json")
        assert (answer.status_code, answer.json()["code"]) == (409, ErrorCode.NOT_YOUR_TURN), (
            path,
            answer.json(),
        )
    # The speaker has spoken but not nominated: another's post is told whose turn it is.
    client.post(f"/api/v1/games/{classic.pk}/posts/", {"body": WORDS[:300]}, format="json")
    late = out_of_turn.post(f"/api/v1/games/{classic.pk}/posts/", {"body": "Now?"}, format="json")
    assert late.status_code == 409
    assert late.json()["error"].startswith(f"It is {first.display_name}'s turn")


def vote_to_end_discussion(game: Any) -> str:
    """The speaker's message of one VOTE_SKIP_DISCUSSION line, then their pass (unless the
    line ended the discussion); what the answer said."""
    slot = speaker(game)
    result = services.submit_post(slot.user, game.pk, body="VOTE_SKIP_DISCUSSION")
    assert result.post is None and result.table_note
    if view(game)["step"] != "vote":
        services.pass_turn(slot.user, game.pk)
    return result.table_note


def test_power_skip_discussion_tokens_end_the_discussion_and_leave_the_thread(make_game):
    game = make_game("power-nine", table=True)
    players = living(game)
    first = speaker(game)
    result = services.submit_post(
        first.user,
        game.pk,
        body="Why so quiet?\nVOTE_SKIP_DISCUSSION\n",
        to=next(p for p in players if p.pk != first.pk).pk,
    )
    assert "VOTE_SKIP_DISCUSSION" not in result.post.body
    assert result.table_note == "Your vote to end the discussion counts (1 of the 5 needed)."
    assert view(game)["skip_discussion"][0]["slot_id"] == first.pk
    needed = len(players) // 2 + 1
    notes = [vote_to_end_discussion(game) for _ in range(needed - 1)]
    assert notes[-1] == "A majority voted to end the discussion: the vote begins."
    assert view(game)["step"] == "vote"
    for slot in players:
        services.cast_vote(slot.user, game.pk, None)
    assert current_phase(game).is_night  # skip on top: nobody is eliminated
    assert not game.slots.filter(alive=False).exists()


def test_power_skip_discussion_from_someone_not_speaking_is_refused_and_not_counted(make_game):
    # The document puts the line in a discussion message: only the speaker sends one.
    game = make_game("power-nine", table=True)
    other = next(p for p in living(game) if p.pk != speaker(game).pk)
    with pytest.raises(GameRuleError) as refused:
        services.submit_post(other.user, game.pk, body="VOTE_SKIP_DISCUSSION")
    assert refused.value.code == ErrorCode.NOT_YOUR_TURN
    assert "goes in your own message, on your turn" in refused.value.message
    assert view(game)["skip_discussion"] == []
    # The API says so too, never a 201 with nothing in it.
    response = api_as(other.user).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "VOTE_SKIP_DISCUSSION"}, format="json"
    )
    assert response.status_code == 409 and "on your turn" in response.json()["error"]
    # The speaker's line alone posts nothing, and the answer says what it counted.
    response = api_as(speaker(game).user).post(
        f"/api/v1/games/{game.pk}/posts/", {"body": "VOTE_SKIP_DISCUSSION"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["post"] is None
    assert response.json()["table_note"].startswith("Your vote to end the discussion counts")
    assert len(view(game)["skip_discussion"]) == 1


def test_forum_games_keep_their_free_thread(make_game):
    game = make_game("forum-vanilla")
    assert not current_phase(game).is_table_day
    assert view(game)["step"] == "thread"
    with pytest.raises(WrongPhase):
        services.pass_turn(living(game)[0].user, game.pk)


def test_forum_games_cannot_be_turn_based(host):
    from games.setups import SETUPS

    kwargs = {**SETUPS["forum-vanilla"].game_kwargs(), "turn_based": True}
    with pytest.raises(InvalidInput):
        services.create_game(host, title="No", **kwargs)


def test_phase_model_stores_the_day_script_state(make_game):
    game = make_game("city-ten", table=True)
    phase = Phase.objects.get(game=game, number=1)
    assert phase.day_state["ruleset"] == "city" and phase.turn_seq == 1


# -- pages -----------------------------------------------------------------------------------
def test_the_thread_page_shows_the_table_and_the_speaker_gets_the_buttons(make_game, client_for):
    game = make_game("city-ten", table=True)
    first, second = living(game)[:2]
    page = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert 'id="turn-panel"' in page and "Speaking now" in page and first.display_name in page
    assert "Pass</button>" not in page  # a spectator has no buttons
    mine = client_for(first.user).get(f"/games/{game.pk}/").content.decode()
    assert 'id="your-turn"' in mine and "Pass</button>" in mine
    theirs = client_for(second.user).get(f"/games/{game.pk}/").content.decode()
    assert 'id="your-turn"' not in theirs
    response = client_for(first.user).post(f"/games/{game.pk}/turn/pass/")
    assert response.status_code == 302
    assert speaker(game).pk == second.pk
    for slot in living(game)[1:]:
        services.pass_turn(slot.user, game.pk)
    services.cast_vote(first.user, game.pk, second.pk)
    page = client_for(second.user).get(f"/games/{game.pk}/").content.decode()
    assert "Voted (1)" in page and f"{first.display_name} → " not in page  # ballot hidden


# -- a modkill during a table day ---------------------------------------------------------------
def test_a_modkilled_speaker_loses_their_turns_and_the_vote_does_not_wait_for_them(make_game, host):
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    players = living(game)
    first, second, gone = players[0], players[1], players[4]
    services.modkill(host, game.pk, first.pk, reason="rules")
    v = view(game)
    assert v["speaker"]["slot_id"] == second.pk  # the floor moves on at once
    assert first.pk not in [r["slot_id"] for r in v["order"]]
    assert not Nomination.objects.filter(nominator=first).exists()  # no default for the dead
    target = players[-1]
    speech(game, second, gone)
    services.modkill(host, game.pk, gone.pk)  # a nominee (and a later speaker) leaves too
    while view(game)["step"] == "speech":
        speech(game, speaker(game), target)
    v = view(game)
    assert v["step"] == "vote"
    assert [o.get("slot_id") for o in v["ballot"]] == [target.pk, None]  # gone is off it
    for slot in living(game):
        assert slot.pk not in (first.pk, gone.pk)
        services.cast_vote(slot.user, game.pk, target.pk)
    # Eight living ballots close the vote: nothing waited for the two modkilled players.
    v = view(game)
    assert v["step"] == "last_words" and v["speaker"]["slot_id"] == target.pk
    assert len(v["closed_votes"][0]["votes"]) == 8


def test_a_player_voted_out_and_modkilled_in_their_last_words_ends_the_day_once(make_game, host):
    game = make_game("city-ten", table=True)
    players = living(game)
    while view(game)["step"] == "speech":
        services.pass_turn(speaker(game).user, game.pk)
    target = next(s for s in players if s.alignment != "mafia" and s.role != "maniac")
    for slot in players:  # the target votes skip: the game's setting forbids a self-vote
        services.cast_vote(slot.user, game.pk, None if slot == target else target.pk)
    assert view(game)["step"] == "last_words"
    day = current_phase(game)
    services.modkill(host, game.pk, target.pk, reason="abuse")
    day.refresh_from_db()
    target.refresh_from_db()
    assert day.resolved  # the day ended then and there, without an error
    assert not target.alive and target.death_cause == "modkill"
    assert game.slots.filter(alive=False).count() == 1
    assert current_phase(game).is_night
    bodies = [p.body for p in game.posts.filter(is_auto=True)]
    assert len([b for b in bodies if "has been eliminated" in b]) == 1


def test_a_modkilled_player_s_vote_for_no_one_left_is_void_and_told_only_to_them(make_game, host):
    game = make_game("city-ten", table=True)
    players = living(game)
    while view(game)["step"] == "speech":
        services.pass_turn(speaker(game).user, game.pk)
    voter, target = players[0], players[5]
    services.cast_vote(voter.user, game.pk, target.pk)
    seq = game.events.order_by("-seq").first().seq
    services.modkill(host, game.pk, target.pk)
    assert view(game, voter)["your_turn"]  # their ballot is void: they vote again
    notices = GameEvent.objects.filter(game=game, seq__gt=seq, kind="turn_notice")
    void = [e for e in notices if "no longer counts" in e.payload["text"]]
    assert [e.audience for e in void] == [f"slot:{voter.pk}"]
    assert target.pk not in [o.get("slot_id") for o in view(game)["ballot"]]


# -- inactivity at a table -------------------------------------------------------------------
def test_a_player_who_lets_every_turn_run_out_is_prodded_at_the_day_s_end(make_game):
    game = make_game("city-ten", table=True, min_posts_per_day=3)
    players = living(game)
    absent, tried = players[3], players[6]
    with pytest.raises(WrongPhase):  # out of turn, so refused: but here, and trying
        services.submit_post(tried.user, game.pk, body="Can I go first?")
    while view(game)["step"] == "speech":
        current = speaker(game)
        if current.pk in (absent.pk, tried.pk):
            assert time_out(game)  # nothing from them now: the timer passes the turn
        else:
            services.submit_post(current.user, game.pk, body="One post is all a turn allows.")
    for slot in players:
        if slot.pk not in (absent.pk, tried.pk):
            services.cast_vote(slot.user, game.pk, None)
    assert time_out(game)  # the vote closes without the absent player's ballot
    for slot in players:
        slot.refresh_from_db()
    # One post each is far below the minimum of 3, but at a table only doing nothing counts.
    assert {s.pk: s.prods for s in players if s.prods} == {absent.pk: 1}
    prods = GameEvent.objects.filter(game=game, kind="prod")
    assert {e.audience for e in prods} == {f"slot:{absent.pk}", "host"}


def test_a_vote_that_ends_the_day_leaves_its_ballots_in_the_thread(make_game):
    game = make_game("power-nine", table=True)
    players = living(game)
    for _ in range(5):  # a strict majority of nine ends the discussion at once
        vote_to_end_discussion(game)
    assert view(game)["step"] == "vote"
    target = players[-1]
    for slot in players:
        services.cast_vote(slot.user, game.pk, None if slot.pk == target.pk else target.pk)
    game.refresh_from_db()
    assert current_phase(game).is_night or game.is_finished  # no last words in power
    post = game.posts.filter(is_auto=True, body__contains="ends:").get()
    assert "The vote:" in post.body
    for slot in players:
        choice = "skip" if slot.pk == target.pk else target.display_name
        assert f"- {slot.display_name} → {choice}" in post.body


def test_classic_night_zero_is_night_0_and_says_nobody_acts(make_game, client_for):
    """The classic rules' first night is night zero: the banner and the thread say so, and
    the first night with actions is Night 1. A table day's banner clock is the turn's."""
    game = make_game("classic-ten", table=True)
    night_zero = current_phase(game)
    assert night_zero.label == "Night 0"
    [begins] = [p for p in game.posts.filter(is_auto=True) if "begins" in p.body]
    assert "Night 0 begins" in begins.body and "nobody acts tonight" in begins.body
    assert "night actions" not in begins.body
    end_night_zero(game)
    day = current_phase(game)
    assert day.label == "Day 1" and day.is_table_day
    banner = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert "played turn by turn · this turn ends" in banner


def test_the_turn_panels_choices_have_ids_so_a_live_refresh_keeps_the_pick(make_game, client_for):
    """live.js swaps the turn panel when the table moves (another player's ballot, a
    speech) and keeps what was picked in fields with an id: without one, a person's
    nominee or vote fell back to the first option under their cursor."""
    game = make_game("classic-ten", table=True)
    end_night_zero(game)
    first = living(game)[0]
    page = client_for(first.user).get(f"/games/{game.pk}/").content.decode()
    assert '<select name="target" id="turn-nominate" aria-label="Nominate">' in page
