"""Vote arithmetic with vote modifiers: weights, threshold changes and lynch-proof targets
(issue 13, section 2). Left out, ``tally`` and ``plurality`` count as they always did."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from resolver import new_game, play_day
from resolver.errors import InvalidScenario
from resolver.rulesets import get_ruleset
from resolver.votes import plurality, tally

ALIVE = ["A", "B", "C", "D", "E", "F", "G"]  # majority 4


def test_defaults_are_one_vote_each():
    count = tally({"A": "C", "B": "C", "D": "C", "E": "C"}, ALIVE)
    wagon = count.wagon("C")
    assert (wagon.size, wagon.weight) == (4, 4)
    assert count.majority_target == "C"
    assert count.distance("C") == 0
    assert count.reached_but_proof == ()


def test_weights_count_a_ballot_several_times():
    count = tally({"A": "C", "B": "C"}, ALIVE, weights={"A": 3})
    assert (count.wagon("C").size, count.wagon("C").weight) == (2, 4)
    assert count.majority_target == "C"
    zero = tally({"A": "C", "B": "C", "D": "C", "E": "C"}, ALIVE, weights={"A": 0})
    assert zero.wagon("C").weight == 3 and zero.majority_target is None


def test_heaviest_wagon_comes_first():
    count = tally({"A": "C", "B": "C", "D": "E"}, ALIVE, weights={"D": 3})
    assert [w.target for w in count.wagons] == ["E", "C"]


def test_loved_needs_one_more_and_hated_one_less():
    votes = {"A": "C", "B": "C", "D": "C", "E": "C"}
    loved = tally(votes, ALIVE, thresholds={"C": +1})
    assert loved.needed("C") == 5 and loved.distance("C") == 1
    assert loved.majority_target is None
    hated = tally({"A": "C", "B": "C", "D": "C"}, ALIVE, thresholds={"C": -1})
    assert hated.needed("C") == 3 and hated.majority_target == "C"
    assert tally({}, ["A", "B"], thresholds={"A": -5}).needed("A") == 1  # never below one


def test_lynch_proof_is_reported_not_eliminated():
    votes = {"A": "C", "B": "C", "D": "C", "E": "C"}
    count = tally(votes, ALIVE, proof={"C"})
    assert count.majority_target is None
    assert count.reached_but_proof == ("C",)
    assert count.distance("C") == 0


def test_plurality_weights_and_bonus():
    votes = {"A": "C", "B": "C", "D": "E"}
    assert plurality(votes).single == "C"
    assert plurality(votes, weights={"D": 2}).leaders == ("C", "E")
    assert plurality(votes, bonus={"E": 1}).leaders == ("C", "E")
    assert plurality(votes, bonus={"C": -1}).leaders == ("C", "E")


@given(
    st.dictionaries(st.sampled_from(ALIVE), st.sampled_from([*ALIVE, "skip"])),
)
def test_without_modifiers_weight_equals_size(votes):
    count = tally(votes, ALIVE)
    explicit = tally(votes, ALIVE, weights={}, thresholds={}, proof=())
    assert count == explicit
    assert all(w.weight == w.size for w in count.wagons)
    for w in count.wagons:
        assert count.distance(w.target) == count.majority - w.size


def _table(*mods: tuple[str, list[str]], day_vote: str = "majority"):
    players = [{"name": n, "role": "vanilla_townie", "modifiers": m} for n, m in mods]
    players.append({"name": "G", "role": "goon"})
    return new_game("forum", players, flags={"dayVote": day_vote})


def test_forum_count_votes_reads_the_modifiers():
    state = _table(
        ("A", ["double_voter"]), ("B", ["vote_weight:3"]), ("C", ["loved"]), ("D", ["lynch_proof"])
    )
    rules = get_ruleset("forum")
    count = rules.count_votes(state, {"A": "C", "B": "C"})
    assert count.wagon("C").weight == 5 and count.needed("C") == 4  # 5 alive: 3, +1 loved
    assert count.majority_target == "C"
    assert rules.count_votes(state, {"A": "D", "B": "D"}).reached_but_proof == ("D",)


def test_forum_day_double_voter_hammers():
    state = _table(("A", ["double_voter"]), ("B", []), ("C", []), ("D", []))
    out = play_day(state, {"votes": {"A": "G", "B": "G"}})
    assert out.eliminated == "G"
    assert "A's counts 2" in out.explanation[-1]


def test_forum_day_plurality_honours_modifiers():
    state = _table(
        ("A", ["hated"]), ("B", ["double_voter"]), ("C", []), ("D", []), day_vote="plurality"
    )
    out = play_day(state, {"votes": {"B": "C", "C": "A"}})
    assert out.eliminated is None  # B's two votes on C tie A's one (+1 as hated)
    assert "tied with 2 votes each" in out.explanation[-1]
    state = _table(("A", ["hated"]), ("B", []), ("C", []), ("D", []), day_vote="plurality")
    out = play_day(state, {"votes": {"B": "C", "C": "A"}})
    assert out.eliminated == "A"  # one each, but hated counts one more


def test_conflicting_vote_modifiers_are_refused():
    for mods in (["loved", "hated"], ["double_voter", "vote_weight:2"], ["loved", "loved"]):
        try:
            _table(("A", mods), ("B", []), ("C", []))
        except InvalidScenario as err:
            assert err.where.startswith("$.players[0].modifiers")
        else:
            raise AssertionError(mods)
