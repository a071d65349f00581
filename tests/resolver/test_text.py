"""The resolver's words go through the translator its caller installs (resolver.text):
none installed, they are English as written (the CLI's contract)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from resolver import GameState, new_game, play_day, play_night, role_pm, text
from resolver.rulesets import get_ruleset

RUSSIAN = {
    "%(target)s dies: %(kills)s hit %(target)s.": "%(target)s погибает: в %(target)s попадает "
    "%(kills)s.",
    "the mafia kill": "выстрел мафии",
    "The mafia (%(actor)s) shoots %(target)s.": "Мафия (%(actor)s) стреляет в %(target)s.",
    "Sheriff": "Шериф",
    "Red": "Красный",
    "Red. Checks one player: red or black.": "Красный. Проверяет одного игрока.",
    "%(alignment)s %(role)s": "%(role)s (%(alignment)s)",
    "Vote count: %(count)s.": "Подсчёт голосов: %(count)s.",
    "skip": "пропуск",
}
RUSSIAN_PLURALS = {
    "%(target)s is eliminated with %(votes)s votes and has a last word.": (
        "%(target)s выбывает с %(votes)s голосом.",
        "%(target)s выбывает с %(votes)s голосами.",
    ),
}


def _ngettext(singular: str, plural: str, n: int) -> str:
    forms = RUSSIAN_PLURALS.get(singular)
    if forms is None:
        return singular if n == 1 else plural
    return forms[0] if n == 1 else forms[1]


@pytest.fixture
def russian() -> Iterator[None]:
    text.set_translator(lambda s: RUSSIAN.get(s, s), _ngettext)
    try:
        yield
    finally:
        text.set_translator(None)


def _city() -> GameState:
    players = [
        {"name": "A", "role": "don"},
        {"name": "B", "role": "mafia"},
        {"name": "C", "role": "sheriff"},
        {"name": "D", "role": "doctor"},
        {"name": "E", "role": "citizen"},
        {"name": "F", "role": "citizen"},
    ]
    return new_game("city", players)


def test_without_a_translator_the_words_are_english() -> None:
    outcome = play_night(_city(), [{"actor": "A", "ability": "kill", "targets": ["E"]}])
    assert "E dies: the mafia kill hit E." in outcome.explanation
    assert role_pm("city", "sheriff")["title"] == "Red Sheriff"


def test_an_installed_translator_translates_the_lines(russian: None) -> None:
    outcome = play_night(_city(), [{"actor": "A", "ability": "kill", "targets": ["E"]}])
    assert "Мафия (A) стреляет в E." in outcome.explanation
    assert "E погибает: в E попадает выстрел мафии." in outcome.explanation
    assert outcome.state.is_alive("E") is False  # the outcome itself does not change
    day = play_day(outcome.state, {"votes": {"A": "B", "B": "F", "C": "B", "D": "B"}})
    assert day.explanation[0].startswith("Подсчёт голосов: ")
    assert "B выбывает с 3 голосами." in day.explanation
    card = role_pm("city", "sheriff")
    assert card["title"] == "Шериф (Красный)"
    assert card["description"] == "Красный. Проверяет одного игрока."


def test_removing_the_translator_brings_english_back(russian: None) -> None:
    text.set_translator(None)
    outcome = play_night(_city(), [{"actor": "A", "ability": "kill", "targets": ["E"]}])
    assert "The mafia (A) shoots E." in outcome.explanation


def test_role_data_stays_english_for_the_site_to_translate(russian: None) -> None:
    # Module-level data is marked (gettext_noop), never translated where it is defined.
    rules = get_ruleset("city")
    assert rules.roles["sheriff"].title == "Sheriff"
    assert rules.flags["loverDeathDrag"].title == "Mistress drags her partner"


def test_names_in_a_sentence() -> None:
    assert text.names([]) == "nobody"
    assert text.names(["A"]) == "A"
    assert text.names(["A", "B", "C"]) == "A, B and C"


def test_every_ability_has_a_title_in_the_catalogue():
    """A page names an ability by its title (the role PM, the phase records, the review):
    one missing from ``ABILITY_TITLES`` would be its English slug in every language."""
    from resolver.rulesets import NAMES, get_ruleset
    from resolver.rulesets.base import ABILITY_TITLES, ability_title

    slugs = {
        ability.slug
        for name in NAMES
        for role in get_ruleset(name).roles.values()
        for ability in role.abilities
    }
    assert slugs - set(ABILITY_TITLES) == set()
    assert ability_title("day_kill") == "Day kill"
