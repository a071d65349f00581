"""The city day script: the graph model's Layer 5 (speech, vote, last word, tie ladder)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest

from resolver.days import DayRuleError, DayState, get_day_script
from resolver.days.base import DEFENSE, DONE, LAST_WORDS, SPEECH, VOTE
from resolver.days.city import settings_for
from resolver.engine import new_game
from tests.resolver import day_events

SCRIPT = get_day_script("city")
do = partial(day_events.do, SCRIPT)
until = partial(day_events.until, SCRIPT)
votes = partial(day_events.votes, SCRIPT)
SEATS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]


def day(alive=SEATS, number=1, **settings) -> DayState:
    return SCRIPT.start_day(SEATS, alive, number, settings or None)


def test_the_day_comes_first():
    assert SCRIPT.first_phase == "day" and SCRIPT.night_zero is False
    assert SCRIPT.night_abilities(1) is None  # the night is the rule set's business


def test_speeches_in_seat_order_one_seat_later_each_day():
    assert SCRIPT.now(day()).order == tuple(SEATS)
    assert SCRIPT.now(day(number=2)).order == ("Bob", "Cat", "Dan", "Eve", "Fay", "Ann")
    alive = ["Ann", "Bob", "Dan", "Eve", "Fay"]  # Cat died: day 3 (Cat's seat) opens with Dan
    assert SCRIPT.now(day(alive, 3)).order == ("Dan", "Eve", "Fay", "Ann", "Bob")
    assert SCRIPT.now(day(number=7)).speaker == "Ann"  # six seats: round the table


def test_a_speech_is_one_post_and_the_floor_moves_on():
    state = day()
    turn = SCRIPT.now(state)
    assert (turn.step, turn.speaker, turn.ends_on_post) == (SPEECH, "Ann", True)
    assert turn.actions == {"Ann": ("pass", "post")}
    state = do(state, "post", "Ann")
    assert SCRIPT.now(state).speaker == "Bob"
    state = do(state, "pass", "Bob")
    assert SCRIPT.now(state).speaker == "Cat"


def test_the_vote_is_among_the_living_and_skip():
    state = until(day(SEATS[:5]), VOTE)
    turn = SCRIPT.now(state)
    assert turn.options == ("Ann", "Bob", "Cat", "Dan", "Eve", "skip")
    assert set(turn.actions) == set(SEATS[:5])
    with pytest.raises(DayRuleError, match="cannot vote for 'Fay'"):
        do(state, "vote", "Ann", target="Fay")


def test_most_votes_is_out_without_a_majority_and_has_a_last_word():
    state = until(day(), VOTE)
    state = votes(state, {"Ann": "Bob", "Cat": "Bob", "Dan": "Eve"})  # 2 of 6: no majority
    turn = SCRIPT.now(state)
    assert (turn.step, turn.speaker) == (LAST_WORDS, "Bob")
    state = do(state, "post", "Bob")
    assert state.step == DONE and state.eliminated == "Bob" and state.last_words
    assert "Bob is eliminated with 2 votes and has a last word." in state.explanation


def test_skip_on_top_means_nobody():
    state = votes(until(day(), VOTE), {"Ann": "skip", "Bob": "skip", "Cat": "Dan"})
    assert state.step == DONE and state.eliminated is None
    assert state.explanation[-1] == "Skip has the most votes: nobody is eliminated."


def test_nobody_voting_means_nobody_out():
    state = do(until(day(), VOTE), "close_vote")
    assert state.step == DONE and state.eliminated is None


def test_a_tie_sends_the_tied_to_speak_again_and_a_revote_among_them_and_skip():
    state = until(day(number=2), VOTE)
    state = votes(state, {"Ann": "Eve", "Bob": "Eve", "Cat": "Ann", "Dan": "Ann", "Fay": "Cat"})
    turn = SCRIPT.now(state)
    assert (turn.step, turn.order) == (DEFENSE, ("Eve", "Ann"))  # today's order: Bob first
    state = do(do(state, "post", "Eve"), "post", "Ann")
    assert SCRIPT.now(state).options == ("Eve", "Ann", "skip")
    assert SCRIPT.now(state).round == 2
    with pytest.raises(DayRuleError, match="ballot is Eve, Ann, skip"):
        do(state, "vote", "Bob", target="Cat")
    state = votes(state, {"Ann": "Eve", "Bob": "Eve", "Cat": "Ann"})
    assert state.eliminated == "Eve" and SCRIPT.now(state).step == LAST_WORDS
    assert state.explanation[-2:] == (
        "Revote: Eve 2 (Ann, Bob); Ann 1 (Cat); not voting: Dan, Eve, Fay.",
        "Eve is eliminated with 2 votes and has a last word.",
    )


def test_a_skip_and_player_tie_sends_that_player_to_speak_again():
    state = votes(until(day(), VOTE), {"Ann": "Bob", "Cat": "skip"})
    assert (SCRIPT.now(state).step, SCRIPT.now(state).order) == (DEFENSE, ("Bob",))


def test_the_ladder_ends_with_nobody_when_the_revote_ties_again_or_skip_wins():
    tied = votes(until(day(), VOTE), {"Ann": "Bob", "Cat": "Dan"})
    again = votes(until(tied, VOTE), {"Ann": "Bob", "Cat": "Dan"})
    assert again.step == DONE and again.eliminated is None
    assert again.explanation[-1] == "Nobody is eliminated: the revote does not break the tie."
    skip = votes(until(tied, VOTE), {"Ann": "skip"})
    assert skip.explanation[-1] == "Nobody is eliminated: skip wins the revote."


def test_a_vote_immune_player_is_not_voted_out_and_has_no_last_word():
    state = until(day(vote_immune=["Cat"]), VOTE)
    state = votes(state, {"Ann": "Cat", "Bob": "Cat", "Dan": "Ann"})
    assert state.step == DONE and state.eliminated is None and not state.last_words
    assert "immune from today's vote" in state.explanation[-1]


def test_vote_immunity_settings_come_from_the_game():
    players = [{"name": n, "role": "citizen"} for n in SEATS]
    players[2] = {"name": "Cat", "role": "citizen", "immune": True}
    game = replace(new_game("city", players), vote_immunity=("Eve",))
    assert settings_for(game) == {"vote_immune": ["Eve"]}
    blocking = new_game("city", players, flags={"immunityBlocksVote": True})
    assert settings_for(replace(blocking, vote_immunity=("Eve",))) == {
        "vote_immune": ["Cat", "Eve"]
    }
    with pytest.raises(DayRuleError, match="vote_immune must be a list of players"):
        day(vote_immune=["Zed"])


def test_resolve_agrees_with_the_rule_sets_day_and_applies_it():
    players = [{"name": n, "role": "citizen"} for n in SEATS]
    game = new_game("city", players)
    state = votes(until(day(), VOTE), {"Ann": "Bob", "Cat": "Dan"})
    state = until(votes(until(state, VOTE), {"Ann": "Dan", "Bob": "Dan"}), DONE)
    outcome = SCRIPT.resolve(game, state)
    assert outcome.eliminated == "Dan" and not outcome.state.is_alive("Dan")
    # The script tells the same story, plus the "speak again" step between the votes.
    assert [x for x in state.explanation if x in outcome.explanation] == [*outcome.explanation]


def test_refused_attempts_are_noted_but_have_no_default_in_city():
    state = day()
    again, notices = SCRIPT.apply(state, {"kind": "invalid", "player": "Ann", "reason": "x"})
    assert [n.kind for n in notices] == ["refused"]
    # Nothing changes but the note that Ann was there today (see the inactivity check).
    assert again == replace(state, acted=("Ann",))
