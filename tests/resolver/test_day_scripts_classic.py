"""The classic day script, one test per rule of the ten-player rule book's day."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest

from resolver.days import DayRuleError, DayState, get_day_script
from resolver.days.base import DEFENSE, DONE, LAST_WORDS, SPEECH, VOTE
from resolver.days.classic import WORD_GUIDE, early_end, first_speaker
from resolver.engine import check_winner, new_game
from resolver.rulesets.classic import DAY_ELIMINATION
from tests.resolver import day_events

SCRIPT = get_day_script("classic")
do = partial(day_events.do, SCRIPT)
votes = partial(day_events.votes, SCRIPT)
SEATS = [f"S{i}" for i in range(10)]


def day(alive=SEATS, number=1, seats=SEATS, **settings) -> DayState:
    return SCRIPT.start_day(seats, alive, number, settings or None, seed=11)


def speeches(state: DayState, nominations: dict[str, str], words: int = 70) -> DayState:
    """Every speaker posts a speech and nominates (``nominations``, else skip/self)."""
    while SCRIPT.now(state).step == SPEECH:
        speaker = SCRIPT.now(state).speaker
        state = do(state, "post", speaker, words=words)
        state = do(state, "nominate", speaker, target=nominations.get(speaker, speaker))
    return state


def timeouts(state: DayState, step: str) -> DayState:
    while SCRIPT.now(state).step == step:
        state = do(state, "timeout")
    return state


# -- night zero and day 1 -----------------------------------------------------------------
def test_night_zero_comes_first_and_allows_no_night_action():
    assert SCRIPT.first_phase == "night"
    assert SCRIPT.night_zero is True
    assert SCRIPT.night_abilities(0) == frozenset()  # the mafia only coordinate
    assert SCRIPT.night_abilities(1) == {"kill", "investigate", "protect"}


def test_day_one_has_no_death_announcement_and_later_days_do():
    assert day().announce_deaths is False
    assert day(number=2).announce_deaths is True


# -- speaking order ---------------------------------------------------------------------
def test_speaking_order_worked_example():
    """Seats 0-9; day 1 starts with seat 0; seat 0 dies night 1: day 2 starts with seat 1;
    had seat 1 died too, seat 2 would speak first."""
    assert first_speaker(SEATS, SEATS, 1) == "S0"
    assert SCRIPT.now(day()).speaker == "S0"
    without_0 = [s for s in SEATS if s != "S0"]
    assert first_speaker(SEATS, without_0, 2) == "S1"
    assert SCRIPT.now(day(without_0, 2)).order == (*SEATS[1:],)
    without_0_1 = [s for s in SEATS if s not in ("S0", "S1")]
    assert SCRIPT.now(day(without_0_1, 2)).speaker == "S2"


def test_the_first_seat_advances_one_each_day_whether_or_not_it_is_alive():
    alive = [s for s in SEATS if s not in ("S1", "S2")]
    # Day 2's seat (1) is dead, so S3 opens; day 3's seat (2) is dead too: S3 again;
    # day 4 is seat 3's own day.
    assert first_speaker(SEATS, alive, 2) == "S3"
    assert first_speaker(SEATS, alive, 3) == "S3"
    assert first_speaker(SEATS, alive, 4) == "S3"
    assert first_speaker(SEATS, alive, 5) == "S4"


def test_each_living_player_speaks_once_and_the_dead_never():
    alive = [s for s in SEATS if s not in ("S4", "S8")]
    state = day(alive, 3)
    speakers = []
    while SCRIPT.now(state).step == SPEECH:
        speakers.append(SCRIPT.now(state).speaker)
        state = do(state, "nominate", speakers[-1], target=speakers[-1])
    assert speakers == ["S2", "S3", "S5", "S6", "S7", "S9", "S0", "S1"]


# -- speeches and nominations ---------------------------------------------------------------
def test_a_speech_is_one_post_and_ends_with_its_nomination():
    state = day()
    turn = SCRIPT.now(state)
    assert turn.actions == {"S0": ("nominate", "post")} and not turn.ends_on_post
    state = do(state, "post", "S0", words=80)
    assert SCRIPT.now(state).speaker == "S0"
    assert SCRIPT.now(state).actions == {"S0": ("nominate",)}
    with pytest.raises(DayRuleError, match="S0 has already spoken this turn"):
        do(state, "post", "S0", words=10)
    state = do(state, "nominate", "S0", target="S5")
    assert SCRIPT.now(state).speaker == "S1"
    assert state.nominations == {"S0": "S5"}


def test_skip_may_be_nominated_on_day_one_only():
    assert "skip" in SCRIPT.now(day()).options
    assert do(day(), "nominate", "S0", target="skip").nominations == {"S0": "skip"}
    day2 = day(number=2)
    assert "skip" not in SCRIPT.now(day2).options
    with pytest.raises(DayRuleError, match="skip is only allowed on day 1"):
        do(day2, "nominate", "S1", target="skip")


def test_self_nomination_is_allowed():
    assert do(day(), "nominate", "S0", target="S0").nominations == {"S0": "S0"}


def test_the_dead_and_strangers_cannot_be_nominated():
    alive = SEATS[:9]
    with pytest.raises(DayRuleError, match="S9 is dead"):
        do(day(alive), "nominate", "S0", target="S9")
    with pytest.raises(DayRuleError, match="not a player"):
        do(day(), "nominate", "S0", target="Bob")


def test_a_speech_over_the_hosts_word_limit_is_refused():
    state = day(word_limit=100)
    assert SCRIPT.now(state).word_limit == 100
    with pytest.raises(DayRuleError, match="S0's speech has 101 words; the limit is 100"):
        do(state, "post", "S0", words=101)
    assert do(state, "post", "S0", words=100).posted
    with pytest.raises(DayRuleError, match="how many words"):
        do(state, "post", "S0")


def test_a_speech_outside_the_50_to_100_word_guide_is_allowed_with_a_notice():
    assert WORD_GUIDE == (50, 100)
    _, notices = SCRIPT.apply(day(), {"kind": "post", "player": "S0", "words": 20})
    assert [n.kind for n in notices] == ["guide"]
    _, notices = SCRIPT.apply(day(), {"kind": "post", "player": "S0", "words": 60})
    assert notices == []


def test_the_default_word_limit_is_the_hosts_to_change():
    assert day().settings == {"word_limit": 150}


# -- the vote -------------------------------------------------------------------------------
def test_only_nominated_players_and_skip_are_on_the_ballot():
    state = speeches(day(), {s: "S3" for s in SEATS[:5]} | {s: "S7" for s in SEATS[5:]})
    turn = SCRIPT.now(state)
    assert turn.step == VOTE and turn.options == ("S3", "S7", "skip")
    assert set(turn.actions) == set(SEATS) and turn.speaker is None
    with pytest.raises(DayRuleError, match="cannot vote for 'S1'"):
        do(state, "vote", "S0", target="S1")


def test_nominees_may_vote_for_themselves():
    state = speeches(day(), {"S0": "S0"})
    assert do(state, "vote", "S0", target="S0").votes == {"S0": "S0"}


def test_plurality_eliminates_and_the_eliminated_gives_last_words():
    state = speeches(day(number=2), {s: "S3" for s in SEATS})
    state = votes(state, {s: "S3" for s in SEATS[:6]} | {s: "skip" for s in SEATS[6:]})
    turn = SCRIPT.now(state)
    assert (turn.step, turn.speaker, turn.ends_on_post) == (LAST_WORDS, "S3", True)
    state = do(state, "post", "S3", words=90)
    assert SCRIPT.now(state).step == DONE
    assert state.eliminated == "S3" and state.last_words is True
    assert "S3 has the most votes (6) and is eliminated." in state.explanation


def test_a_missing_vote_counts_as_skip_when_the_vote_closes():
    state = speeches(day(), {s: "S3" for s in SEATS})
    state = votes(state, {"S0": "S3", "S1": "S3"})  # 8 others do not vote: skip 8
    assert SCRIPT.now(state).step == DONE and state.eliminated is None
    assert state.rounds[0]["S9"] == "skip"
    assert state.explanation[-1] == "Skip has the most votes (8), so nobody is eliminated."


def test_skip_on_top_means_nobody_and_no_last_words():
    state = speeches(day(), {s: "S3" for s in SEATS})
    state = votes(state, {s: "skip" for s in SEATS[:6]} | {s: "S3" for s in SEATS[6:]})
    assert SCRIPT.now(state).step == DONE
    assert state.eliminated is None and state.last_words is False


def test_nobody_nominated_means_no_vote():
    state = speeches(day(), {s: "skip" for s in SEATS})
    assert SCRIPT.now(state).step == DONE and state.eliminated is None
    assert state.rounds == ()


def test_a_players_tie_goes_to_defense_speeches_then_a_revote_among_them_plus_skip():
    nominations = {s: "S6" for s in SEATS[:4]} | {s: "S2" for s in SEATS[4:]}
    state = speeches(day(), nominations)
    state = votes(state, {s: "S6" for s in SEATS[:4]} | {s: "S2" for s in SEATS[4:8]})
    # Skip has 2 (S8 and S9 did not vote); S2 and S6 have 4: the players' tie.
    assert (
        state.explanation[-1] == "S2 and S6 tie with 4 each: a revote between them, skip allowed."
    )
    turn = SCRIPT.now(state)
    assert (turn.step, turn.order) == (DEFENSE, ("S2", "S6"))  # in today's speaking order
    state = do(state, "post", "S2", words=30)  # "defense speeches may be shorter"
    state = do(state, "timeout")  # S6 says nothing in time
    turn = SCRIPT.now(state)
    assert (turn.step, turn.round, turn.options) == (VOTE, 2, ("S2", "S6", "skip"))
    with pytest.raises(DayRuleError, match="ballot is S2, S6, skip"):
        do(state, "vote", "S0", target="S3")
    state = votes(state, {"S0": "S6", "S1": "S6", "S2": "S2"})
    assert state.eliminated is None  # skip: 7 (the silent count as skip)
    assert state.explanation[-1] == "Skip wins the revote (7), so nobody is eliminated."


def test_skip_tied_with_one_player_goes_to_a_revote_between_them():
    state = speeches(day(), {s: "S4" for s in SEATS})
    state = votes(state, {s: "S4" for s in SEATS[:5]} | {s: "skip" for s in SEATS[5:]})
    turn = SCRIPT.now(state)
    assert (turn.step, turn.order) == (DEFENSE, ("S4",))
    state = do(state, "pass", "S4")
    assert SCRIPT.now(state).options == ("S4", "skip")
    state = votes(state, {s: "S4" for s in SEATS[:6]} | {s: "skip" for s in SEATS[6:]})
    assert state.eliminated == "S4"
    assert SCRIPT.now(state).step == LAST_WORDS


def test_a_tied_revote_eliminates_nobody():
    state = speeches(day(), {s: "S4" if s < "S5" else "S5" for s in SEATS})
    state = votes(state, {s: "S4" if s < "S5" else "S5" for s in SEATS})
    state = timeouts(state, DEFENSE)
    state = votes(state, {s: "S4" if s < "S5" else "S5" for s in SEATS})
    assert SCRIPT.now(state).step == DONE and state.eliminated is None
    assert state.explanation[-1] == "The revote is tied again (5 each), so nobody is eliminated."


def test_no_last_words_for_night_kills():
    """Only the day's vote gives last words: a day without elimination has no such step."""
    state = speeches(day(SEATS[1:], 2), {})  # S0 died in the night: they never get a turn
    state = votes(state, {s: "skip" for s in SEATS[1:]})
    assert state.step == DONE and state.last_words is False
    assert "S0" not in {n for r in state.rounds for n in r}


def test_last_words_may_be_declined():
    state = speeches(day(), {s: "S9" for s in SEATS})
    state = votes(state, {s: "S9" for s in SEATS})
    state = do(state, "pass", "S9")
    assert state.eliminated == "S9" and state.last_words is False
    assert state.explanation[-1] == "S9 gave no last words."


# -- invalid actions and defaults -------------------------------------------------------
def refuse(state: DayState, player: str, times: int) -> DayState:
    for _ in range(times):
        state = do(state, "invalid", player, reason="nominated a dead player")
    return state


def test_three_failed_nominations_give_a_random_valid_nomination():
    state = day(SEATS[:9], 2)
    state = refuse(state, "S1", 2)
    assert state.failures == {"S1": 2} and SCRIPT.now(state).speaker == "S1"
    state, notices = SCRIPT.apply(state, {"kind": "invalid", "player": "S1"})
    assert [n.kind for n in notices] == ["refused", "default", "nomination"]
    assert state.nominations["S1"] in SEATS[:9]  # living, never skip on day 2
    assert SCRIPT.now(state).speaker == "S2" and state.failures == {}


def test_the_random_default_replays_from_the_days_seed():
    picks = {refuse(day(), "S0", 3).nominations["S0"] for _ in range(3)}
    assert len(picks) == 1
    seeds = {refuse(replace(day(), seed=seed), "S0", 3).nominations["S0"] for seed in range(40)}
    assert len(seeds) > 3  # and the seed matters


def test_a_timed_out_speech_gets_the_default_nomination():
    state = do(day(), "timeout")
    assert set(state.nominations) == {"S0"} and SCRIPT.now(state).speaker == "S1"


def test_three_failed_votes_default_to_skip():
    state = speeches(day(), {s: "S3" for s in SEATS})
    state = refuse(state, "S5", 3)
    assert state.votes == {"S5": "skip"}


def test_a_refusal_after_a_valid_vote_does_not_undo_it():
    state = speeches(day(), {s: "S3" for s in SEATS})
    state = refuse(do(state, "vote", "S5", target="S3"), "S5", 3)
    assert state.votes == {"S5": "S3"}


def test_refusals_of_players_without_a_turn_are_not_counted():
    state = refuse(day(), "S4", 5)
    assert state.failures == {} and SCRIPT.now(state).speaker == "S0"


# -- the game around the day ----------------------------------------------------------------
ROLES = ["mafia", "mafia", "mafia", "detective", "doctor", "town", "town", "town", "town", "town"]


def game(dead=()):
    players = [
        {"name": s, "role": r, "alive": s not in dead} for s, r in zip(SEATS, ROLES, strict=True)
    ]
    return new_game("classic", players)


def test_resolve_applies_the_day_through_the_rule_set_and_agrees_with_it():
    state = speeches(day(), {s: "S7" for s in SEATS})
    state = votes(state, {s: "S7" for s in SEATS[:6]})
    state = timeouts(state, LAST_WORDS)
    outcome = SCRIPT.resolve(game(), state)
    assert outcome.eliminated == "S7" and not outcome.state.is_alive("S7")
    assert outcome.state.memory[DAY_ELIMINATION] == "S7"
    assert SCRIPT.day_votes(state).nominations == dict.fromkeys(SEATS, "S7")


def test_the_early_end_after_a_day_elimination():
    """Doctor dead, 3 mafia against 5 town: voting out a townie leaves 3 v 4, and the next
    kill (nothing can stop it) makes parity, so the game ends right after the elimination."""
    table = game(dead=("S4", "S5"))  # the doctor and a townie
    assert early_end(table, "S6").winner == "mafia"
    assert early_end(table, "S0").winner is None  # a mafioso out: 2 v 5
    assert early_end(table, None).winner is None  # the early end needs an elimination
    alive = [s for s in SEATS if s not in ("S4", "S5")]
    state = speeches(day(alive, 3), {s: "S6" for s in alive})
    state = timeouts(votes(state, {s: "S6" for s in alive}), LAST_WORDS)
    assert check_winner(SCRIPT.resolve(table, state).state).winner == "mafia"
