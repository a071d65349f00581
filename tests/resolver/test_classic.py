"""Classic win checks and vote counting, called directly."""

from __future__ import annotations

from resolver.engine import new_game
from resolver.model import GameState
from resolver.rulesets.classic import DAY_ELIMINATION, count_first_round, count_revote, winner


def game(alive: dict[str, str], dead: dict[str, str] | None = None) -> GameState:
    seats = [{"name": n, "role": r} for n, r in alive.items()]
    seats += [{"name": n, "role": r, "alive": False} for n, r in (dead or {}).items()]
    return new_game("classic", seats)


def test_town_wins_only_when_every_mafia_member_is_dead():
    assert winner(game({"D": "doctor", "T": "town"}, {"M": "mafia"})).winner == "town"
    assert winner(game({"D": "doctor", "T": "town", "T2": "town", "M": "mafia"})).winner is None


def test_mafia_win_at_parity_counts_detective_and_doctor_as_town():
    assert winner(game({"M": "mafia", "M2": "mafia", "D": "doctor", "C": "detective"})).winner == (
        "mafia"
    )
    assert winner(game({"M": "mafia", "D": "doctor", "C": "detective"})).winner is None


def test_alignment_override_decides_the_side():
    state = new_game(
        "classic",
        [
            {"name": "M", "role": "mafia"},
            {"name": "X", "role": "town", "alignment": "mafia"},
            {"name": "T", "role": "town"},
            {"name": "D", "role": "doctor"},
        ],
    )
    assert winner(state).winner == "mafia"


def test_early_end_needs_a_day_elimination_and_a_dead_doctor():
    # 1 mafia vs 2 town, doctor dead: the coming kill would make it 1 vs 1.
    state = game({"M": "mafia", "T": "town", "C": "detective"}, {"D": "doctor", "X": "town"})
    assert winner(state).winner is None  # no elimination remembered: e.g. after a night
    after_day = state.with_memory(**{DAY_ELIMINATION: "X"})
    verdict = winner(after_day)
    assert verdict.winner == "mafia"
    assert "doctor is dead" in verdict.reason
    with_doctor = game({"M": "mafia", "T": "town", "D": "doctor"}, {"X": "town"})
    assert winner(with_doctor.with_memory(**{DAY_ELIMINATION: "X"})).winner is None


def test_early_end_not_when_two_short_of_parity():
    state = game({"M": "mafia", "T": "town", "T2": "town", "C": "detective"}, {"D": "doctor"})
    assert winner(state.with_memory(**{DAY_ELIMINATION: "X"})).winner is None


def test_first_round_counts():
    assert count_first_round({"a": "X", "b": "X", "c": "Y"}).eliminated == "X"
    tie = count_first_round({"a": "X", "b": "Y", "c": "skip"})
    assert (tie.eliminated, tie.revote) == (None, ("X", "Y"))
    skip_tie = count_first_round({"a": "X", "b": "skip"})
    assert skip_tie.revote == ("X",)
    skip_wins = count_first_round({"a": "X", "b": "skip", "c": "skip"})
    assert (skip_wins.eliminated, skip_wins.revote) == (None, ())
    assert count_first_round({}).eliminated is None


def test_revote_counts_only_the_tied_players_and_skip():
    assert count_revote({"a": "X", "b": "X", "c": "Y"}, ("X", "Y")).eliminated == "X"
    assert count_revote({"a": "X", "b": "Y"}, ("X", "Y")).eliminated is None
    assert count_revote({"a": "X", "b": "skip", "c": "skip"}, ("X",)).eliminated is None
