"""The power-roles day script: questions, open discussion, statements, the vote."""

from __future__ import annotations

from functools import partial

import pytest

from resolver.days import DayRuleError, DayState, get_day_script
from resolver.days.base import DISCUSSION, DONE, QUESTION, STATEMENT, VOTE
from resolver.days.power import discussion_budget, strip_tokens, token_events
from resolver.engine import new_game
from tests.resolver import day_events

SCRIPT = get_day_script("power")
do = partial(day_events.do, SCRIPT)
until = partial(day_events.until, SCRIPT)
votes = partial(day_events.votes, SCRIPT)
SEATS = ["Ann", "Bob", "Cat", "Dan", "Eve"]
DEFAULTS = {
    "discussion_open_allowance": 2,
    "discussion_open_growth": 1,
    "discussion_open_floor": 6,
    "discussion_open_cap": 40,
}


def day(alive=SEATS, number=1, **settings) -> DayState:
    return SCRIPT.start_day(SEATS, alive, number, settings or None)


def speak(state: DayState) -> DayState:
    return do(state, "post", SCRIPT.now(state).speaker)


# -- question round -------------------------------------------------------------------------
def test_the_question_round_gives_each_living_player_one_turn():
    state = day(["Ann", "Cat", "Dan", "Eve"], 2)
    asked = []
    while SCRIPT.now(state).step == QUESTION:
        turn = SCRIPT.now(state)
        assert turn.ends_on_post and turn.speaker not in turn.options
        asked.append(turn.speaker)
        state = do(state, "post", turn.speaker, target=turn.options[0])
    assert asked == ["Cat", "Dan", "Eve", "Ann"]  # day 2 opens at seat 1 (Bob, dead)
    assert SCRIPT.now(state).step == DISCUSSION


def test_a_question_names_a_living_player_other_than_the_asker_or_skips():
    state = day(SEATS[:4])
    with pytest.raises(DayRuleError, match="must name the living player"):
        do(state, "post", "Ann")
    with pytest.raises(DayRuleError, match="cannot ask themself"):
        do(state, "post", "Ann", target="Ann")
    with pytest.raises(DayRuleError, match="Eve is dead"):
        do(state, "post", "Ann", target="Eve")
    _, notices = SCRIPT.apply(state, {"kind": "post", "player": "Ann", "target": "Dan"})
    assert notices[0].text == "Ann asks Dan a question."
    assert SCRIPT.now(do(state, "pass", "Ann")).speaker == "Bob"  # SKIP


# -- open discussion ------------------------------------------------------------------------
def test_the_budget_is_alive_times_a_growing_allowance_clamped_to_floor_and_cap():
    assert day().settings == DEFAULTS
    assert discussion_budget(5, 1, DEFAULTS) == 10
    assert discussion_budget(5, 3, DEFAULTS) == 20  # allowance 2 + 1 + 1
    assert discussion_budget(2, 1, DEFAULTS) == 6  # the floor
    assert discussion_budget(12, 5, DEFAULTS) == 40  # the cap
    assert day().budget == 10
    assert day(discussion_open_allowance=1, discussion_open_floor=0).budget == 5
    with pytest.raises(DayRuleError, match="floor cannot be above its cap"):
        day(discussion_open_floor=9, discussion_open_cap=8)


def test_discussion_goes_round_robin_and_ends_when_the_budget_is_spent():
    state = until(day(discussion_open_cap=7), DISCUSSION)
    speakers = []
    while SCRIPT.now(state).step == DISCUSSION:
        turn = SCRIPT.now(state)
        assert turn.messages_left == 7 - len(speakers)
        speakers.append((turn.round, turn.speaker))
        state = speak(state)
    assert speakers == [(1, p) for p in SEATS] + [(2, "Ann"), (2, "Bob")]
    assert SCRIPT.now(state).step == STATEMENT
    assert "its 7 messages are spent" in state.explanation[-1]


def test_discussion_ends_when_every_living_player_passes_in_a_row():
    state = speak(speak(until(day(), DISCUSSION)))  # Ann and Bob talk, then silence
    passes = 0
    while SCRIPT.now(state).step == DISCUSSION:
        state = do(state, "timeout")  # a timed-out turn is a pass
        passes += 1
    assert passes == 5  # Cat, Dan, Eve, then Ann and Bob on the second lap
    assert state.explanation[-1] == "The open discussion ends: every living player passed in a row."


def test_a_post_breaks_the_silence():
    state = until(day(), DISCUSSION)
    for _ in range(4):
        state = do(state, "pass", SCRIPT.now(state).speaker)
    state = speak(state)  # Eve speaks: the silence starts again
    assert state.silence == 0 and SCRIPT.now(state).round == 2


def test_no_open_discussion_when_its_budget_is_zero():
    state = until(day(discussion_open_allowance=0, discussion_open_floor=0), STATEMENT)
    assert "no messages" in state.explanation[0]


# -- statements and the vote ----------------------------------------------------------------
def test_pre_vote_statements_give_each_living_player_one_turn_then_the_vote():
    state = until(day(), STATEMENT)
    seen = []
    while SCRIPT.now(state).step == STATEMENT:
        seen.append(SCRIPT.now(state).speaker)
        state = speak(state)
    assert seen == SEATS
    turn = SCRIPT.now(state)
    assert turn.step == VOTE and turn.options == (*SEATS, "skip")


def test_plurality_eliminates_and_there_are_no_last_words():
    state = votes(until(day(), VOTE), {"Ann": "Cat", "Bob": "Cat", "Cat": "Ann"})
    assert state.step == DONE and state.eliminated == "Cat" and not state.last_words
    assert state.explanation[-1] == "Cat has the most votes (2) and is eliminated."


@pytest.mark.parametrize(
    ("ballots", "why"),
    [
        ({"Ann": "Cat", "Bob": "Ann"}, "Ann and Cat tie with 1 each (no revote in these rules)"),
        ({"Ann": "skip", "Bob": "skip", "Cat": "Ann"}, "skip has the most votes"),
        ({}, "nobody voted"),
    ],
)
def test_a_tie_or_skip_on_top_eliminates_nobody(ballots, why):
    state = votes(until(day(), VOTE), ballots)
    assert state.step == DONE and state.eliminated is None
    assert state.explanation[-1] == f"Nobody is eliminated: {why}."


def test_resolve_agrees_with_the_rule_set_and_brings_its_reveal_and_co_wins():
    roles = ["jester", "villager", "cop", "godfather", "villager"]
    game = new_game("power", [{"name": n, "role": r} for n, r in zip(SEATS, roles, strict=True)])
    state = votes(until(day(), VOTE), {"Bob": "Ann", "Cat": "Ann", "Dan": "Ann"})
    outcome = SCRIPT.resolve(game, state)
    assert outcome.eliminated == "Ann" and outcome.reveals == {"Ann": "jester"}
    assert outcome.state.co_winners == ("Ann",)


# -- skip-discussion votes ------------------------------------------------------------------
def test_a_strict_majority_of_skip_discussion_votes_ends_the_discussion_at_once():
    state = day()
    assert SCRIPT.now(state).actions["Ann"] == ("pass", "post", "vote_skip_discussion")
    assert "Eve" not in SCRIPT.now(state).actions  # the line goes in the speaker's message
    state = do(state, "vote_skip_discussion", "Ann")
    assert SCRIPT.now(state).actions["Ann"] == ("pass", "post", "unvote_skip_discussion")
    for player in ("Ann", "Bob"):
        if player != "Ann":
            state = do(state, "vote_skip_discussion", player)
        state = do(state, "pass", player)
    assert SCRIPT.now(state).step == QUESTION  # 2 of 5: the votes stand across turns
    state = do(state, "vote_skip_discussion", "Cat")  # 3 of 5
    assert SCRIPT.now(state).step == VOTE
    assert "voted to end the discussion" in state.explanation[-1]


def test_a_skip_discussion_vote_from_someone_not_speaking_is_refused():
    state = day()
    with pytest.raises(DayRuleError, match="goes in your own message, on your turn: it is Ann's"):
        do(state, "vote_skip_discussion", "Eve")
    with pytest.raises(DayRuleError, match="UNVOTE_SKIP_DISCUSSION goes in your own message"):
        do(state, "unvote_skip_discussion", "Eve")


def test_half_is_not_a_strict_majority_and_an_unvote_takes_it_back():
    state = day(SEATS[:4])
    state = do(do(state, "vote_skip_discussion", "Ann"), "pass", "Ann")
    state = do(state, "vote_skip_discussion", "Bob")
    assert SCRIPT.now(state).step == QUESTION  # 2 of 4
    state = do(do(state, "unvote_skip_discussion", "Bob"), "pass", "Bob")
    state = do(state, "vote_skip_discussion", "Cat")
    assert state.skip_discussion == ("Ann", "Cat")
    with pytest.raises(DayRuleError, match="Cat already votes to end the discussion"):
        do(state, "vote_skip_discussion", "Cat")
    state = until(state, STATEMENT)  # the votes carry over between the discussion steps
    state = do(state, "pass", SCRIPT.now(state).speaker)  # Ann has voted: on to Bob
    assert SCRIPT.now(do(state, "vote_skip_discussion", "Bob")).step == VOTE


def test_skip_discussion_votes_are_not_part_of_the_vote():
    state = until(day(), VOTE)
    with pytest.raises(DayRuleError, match="counts only during the question round"):
        do(state, "vote_skip_discussion", "Ann")


def test_strip_tokens_removes_the_token_lines_from_a_post():
    body = "I think Bob.\nVOTE_SKIP_DISCUSSION\nAnd Cat.\n  UNVOTE_SKIP_DISCUSSION  \n"
    assert strip_tokens(body) == (
        "I think Bob.\nAnd Cat.\n",
        ("vote_skip_discussion", "unvote_skip_discussion"),
    )
    # Only alone on a line: a token inside a sentence is just words.
    assert strip_tokens("say VOTE_SKIP_DISCUSSION now") == ("say VOTE_SKIP_DISCUSSION now", ())


def test_token_events_send_the_last_token_when_it_changes_something():
    state = day()
    assert token_events(state, "Ann", ("vote_skip_discussion",)) == [
        {"kind": "vote_skip_discussion", "player": "Ann"}
    ]
    assert token_events(state, "Ann", ("vote_skip_discussion", "unvote_skip_discussion")) == []
    voted = do(state, "vote_skip_discussion", "Ann")
    assert token_events(voted, "Ann", ("vote_skip_discussion",)) == []
    # Anyone else's, or one during the vote, is sent for the script to refuse, saying why.
    assert token_events(state, "Bob", ("vote_skip_discussion",)) == [
        {"kind": "vote_skip_discussion", "player": "Bob"}
    ]
    assert token_events(until(state, VOTE), "Ann", ("vote_skip_discussion",)) == [
        {"kind": "vote_skip_discussion", "player": "Ann"}
    ]
