"""A player removed mid-day (the site's modkill): the day script learns of the death.

The removed player loses their turns (no default is played for them: a dead player does not
nominate), leaves the ballot, and nothing waits for their vote; a ballot cast for them is
void, and a day whose only candidates are gone ends with nobody eliminated.
"""

from __future__ import annotations

import pytest

from resolver.days import DayRuleError, get_day_script
from resolver.days.base import DEFENSE, DONE, LAST_WORDS, SPEECH, VOTE
from resolver.engine import new_game
from resolver.model import SKIP
from tests.resolver.day_events import send as do

CLASSIC = get_day_script("classic")
CITY = get_day_script("city")
POWER = get_day_script("power")
SEATS = [f"S{i}" for i in range(10)]


def test_a_removed_speaker_loses_the_turn_without_a_default_nomination():
    state = CLASSIC.start_day(SEATS, SEATS, 1, seed=3)
    assert CLASSIC.now(state).speaker == "S0"
    state, notices = do(CLASSIC, state, "removed", "S0")
    turn = CLASSIC.now(state)
    assert turn.step == SPEECH and turn.speaker == "S1"
    assert "S0" not in turn.order and "S0" not in state.alive and state.removed == ("S0",)
    assert "S0" not in state.nominations  # no random nomination by a dead player
    assert [n.kind for n in notices] == ["removed"]
    with pytest.raises(DayRuleError, match="dead"):
        do(CLASSIC, state, "post", "S0", words=60)
    with pytest.raises(DayRuleError, match="dead"):
        do(CLASSIC, state, "removed", "S0")


def test_removing_a_later_or_earlier_player_keeps_the_floor_where_it_is():
    state = CLASSIC.start_day(SEATS, SEATS, 1, seed=3)
    for speaker in ("S0", "S1", "S2"):
        state, _ = do(CLASSIC, state, "post", speaker, words=60)
        state, _ = do(CLASSIC, state, "nominate", speaker, target="S9")
    assert CLASSIC.now(state).speaker == "S3"
    state, _ = do(CLASSIC, state, "removed", "S1")  # already spoke
    assert CLASSIC.now(state).speaker == "S3"
    state, _ = do(CLASSIC, state, "removed", "S7")  # yet to speak
    turn = CLASSIC.now(state)
    assert turn.speaker == "S3" and "S7" not in turn.order and len(turn.order) == 8


def test_a_removed_nominee_is_off_the_ballot_and_an_empty_ballot_ends_the_day():
    state = CLASSIC.start_day(SEATS, SEATS, 2, seed=3)
    while CLASSIC.now(state).step == SPEECH:
        speaker = CLASSIC.now(state).speaker
        state, _ = do(CLASSIC, state, "post", speaker, words=60)
        state, _ = do(CLASSIC, state, "nominate", speaker, target="S5" if speaker != "S5" else "S4")
    assert state.step == VOTE and set(state.ballot) == {"S5", "S4", SKIP}
    state, _ = do(CLASSIC, state, "removed", "S4")
    assert state.ballot == ("S5", SKIP)
    state, _ = do(CLASSIC, state, "removed", "S5")
    assert state.step == DONE and state.eliminated is None
    assert "Nobody is left on the ballot" in " ".join(state.explanation)


def test_the_vote_does_not_wait_for_a_removed_voter_and_void_ballots_are_cast_again():
    state = CITY.start_day(SEATS, SEATS, 1)
    while CITY.now(state).step == SPEECH:
        state, _ = do(CITY, state, "pass", CITY.now(state).speaker)
    assert state.step == VOTE
    for voter in SEATS[1:]:
        target = "S0" if voter in ("S1", "S2") else "S9"
        if voter != "S9":
            state, _ = do(CITY, state, "vote", voter, target=target)
    state, notices = do(CITY, state, "removed", "S0")  # S1 and S2 voted for S0
    assert state.step == VOTE and "S0" not in state.ballot
    assert {n.player for n in notices if n.kind == "vote_void"} == {"S1", "S2"}
    assert "S1" not in state.votes and "S2" not in state.votes
    state, _ = do(CITY, state, "vote", "S1", target="S9")
    state, _ = do(CITY, state, "vote", "S2", target="S9")
    assert state.step == VOTE  # S9 has not voted yet
    state, notices = do(CITY, state, "removed", "S9")  # everyone's choice, and not voted yet
    assert state.step == VOTE and dict(state.votes) == {}  # every ballot was for S9: void
    assert len([n for n in notices if n.kind == "vote_void"]) == 8
    for voter in state.alive:
        state, _ = do(CITY, state, "vote", voter, target="S8" if voter != "S8" else SKIP)
    assert state.step == LAST_WORDS and state.eliminated == "S8"  # nobody waited for S0, S9


def test_a_vote_closes_when_the_only_missing_voter_is_removed():
    state = POWER.start_day(SEATS[:5], SEATS[:5], 1)
    for voter in ("S0", "S1", "S2"):  # each on their turn, in their message
        state, _ = do(POWER, state, "vote_skip_discussion", voter)
        if state.step != VOTE:
            state, _ = do(POWER, state, "pass", voter)
    assert state.step == VOTE
    for voter in ("S0", "S1", "S2", "S3"):
        state, _ = do(POWER, state, "vote", voter, target="S3")
    state, _ = do(POWER, state, "removed", "S4")
    assert state.step == DONE and state.eliminated == "S3"


def test_power_skip_votes_become_a_majority_when_a_player_leaves():
    state = POWER.start_day(SEATS[:6], SEATS[:6], 1)
    for voter in ("S0", "S1", "S2"):  # 3 of 6: not a strict majority
        state, _ = do(POWER, state, "vote_skip_discussion", voter)
        state, _ = do(POWER, state, "pass", voter)
    assert state.step != VOTE
    state, _ = do(POWER, state, "removed", "S5")  # 3 of 5 is
    assert state.step == VOTE and "S5" not in state.ballot


def test_the_tied_player_removed_before_the_defense_leaves_one_defense():
    state = CITY.start_day(SEATS[:5], SEATS[:5], 1)
    while CITY.now(state).step == SPEECH:
        state, _ = do(CITY, state, "pass", CITY.now(state).speaker)
    for voter, target in {"S0": "S1", "S1": "S2", "S2": "S1", "S3": "S2", "S4": SKIP}.items():
        state, _ = do(CITY, state, "vote", voter, target=target)
    assert state.step == DEFENSE and state.tied == ("S1", "S2")
    state, _ = do(CITY, state, "removed", "S1")
    turn = CITY.now(state)
    assert turn.step == DEFENSE and turn.speaker == "S2" and state.tied == ("S2",)
    state, _ = do(CITY, state, "pass", "S2")
    assert state.step == VOTE and state.ballot == ("S2", SKIP)


@pytest.mark.parametrize("script", [CLASSIC, CITY, POWER], ids=lambda s: s.name)
def test_a_day_with_a_removal_resolves_through_the_rule_set(script):
    """The rule set applies the script's verdict to a table where the removed is dead."""
    roles = {
        "classic": ["mafia", "mafia", "mafia", "detective", "doctor", *["town"] * 5],
        "city": ["don", "mafia", "maniac", "sheriff", "doctor", "mistress", *["citizen"] * 4],
        "power": [
            "godfather",
            "mafia_roleblocker",
            "cop",
            "doctor",
            "vigilante",
            "mason",
            "mason",
            "villager",
            "jester",
        ],
    }[script.name]
    seats = SEATS[: len(roles)]
    game = new_game(
        script.name, [{"name": s, "role": r} for s, r in zip(seats, roles, strict=True)]
    )
    state = script.start_day(seats, seats, 2, seed=1)
    victim = "S9" if script.name != "power" else "S8"
    state, _ = do(script, state, "removed", victim)
    game = game.with_dead([victim])
    while script.now(state).step not in (VOTE, DONE):
        turn = script.now(state)
        if "nominate" in turn.actions.get(turn.speaker, ()):
            state, _ = do(script, state, "nominate", turn.speaker, target="S3")
        else:
            state, _ = do(script, state, "pass", turn.speaker)
    for voter in state.alive:
        state, _ = do(script, state, "vote", voter, target="S3")
    if script.now(state).step == LAST_WORDS:
        state, _ = do(script, state, "removed", "S3")  # modkilled during their last words
    assert state.step == DONE and state.eliminated == "S3"
    outcome = script.resolve(game, state)
    assert outcome.eliminated == "S3" and not outcome.state.is_alive("S3")
    assert not outcome.state.is_alive(victim)
    assert outcome.explanation == state.explanation
