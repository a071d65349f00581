"""Display names, one-line explanations and role PMs: every rule set's roles, abilities,
modifiers, flags and alignments carry them as data (issue 9, point 5)."""

from __future__ import annotations

import pytest

from resolver import new_game, play_night, player_role_pm, role_pm
from resolver.rulesets import NAMES, get_ruleset

RULESETS = [get_ruleset(n) for n in NAMES]


@pytest.mark.parametrize("rules", RULESETS, ids=NAMES)
def test_every_role_ability_and_alignment_has_a_name_and_a_line(rules):
    for slug, spec in rules.roles.items():
        assert spec.title.strip(), slug
        assert spec.description.strip(), slug
        assert spec.alignment in rules.alignments, slug
        for ability in spec.abilities:
            assert ability.description.strip(), (slug, ability.slug)
    if rules.factional_kill is not None:
        assert rules.factional_kill.description.strip()
    for alignment in rules.alignments:
        assert rules.alignment_titles.get(alignment, "").strip(), alignment
        assert rules.win_conditions.get(alignment, "").strip(), alignment


@pytest.mark.parametrize("rules", RULESETS, ids=NAMES)
def test_every_flag_and_modifier_has_a_name_and_a_line(rules):
    for name, flag in rules.flags.items():
        assert flag.title.strip() and flag.title != name, name
        assert flag.description.strip(), name
    for slug, mod in rules.modifier_specs.items():
        assert mod.title.strip() and mod.description.strip(), slug
        assert rules.modifiers[slug] == mod.description  # the web app's plain mapping


def test_names_read_as_people_write_them():
    forum = get_ruleset("forum")
    assert forum.roles["vanilla_townie"].title == "Vanilla Townie"
    assert forum.modifier_specs["one_shot_bulletproof"].title == "One-Shot Bulletproof"
    assert forum.flags["protectionStopsAllKills"].title == "Protection stops all kills"


def test_role_pm_of_a_plain_role():
    pm = role_pm("forum", "vanilla_townie")
    assert pm["title"] == "Town Vanilla Townie"
    assert pm["alignment_title"] == "Town"
    assert pm["abilities"] == []
    assert pm["win_condition"]
    assert pm["shots_left"] is None and pm["private_thread"] is None


def test_role_pm_lists_own_abilities_then_the_faction_kill():
    pm = role_pm("forum", "mafia_roleblocker", ["strong_willed"])
    assert pm["title"] == "Strong-Willed Mafia Roleblocker"
    assert len(pm["abilities"]) == 2
    assert "roleblock" in pm["abilities"][0]
    assert "mafia may kill" in pm["abilities"][1]
    assert pm["modifiers"] == [
        {
            "slug": "strong_willed",
            "title": "Strong-Willed",
            "description": "Cannot be roleblocked or jailed out of acting.",
        }
    ]
    assert "mafia" in pm["win_condition"]


def test_role_pm_in_another_rule_set_and_alignment():
    pm = role_pm("city", "sheriff")
    assert pm["title"] == "Red Sheriff"
    assert pm["abilities"] == ["Each night, check one player: red or black."]
    assert role_pm("forum", "cop", alignment="mafia")["abilities"][-1].startswith(
        "Each night, the mafia"
    )


def test_a_numbered_modifier_reads_as_english_without_a_number():
    # Issue 33: the create form's "X-Shot" help read "N time{s}" raw.
    forum = get_ruleset("forum")
    shots = forum.modifier_specs["shots"]
    assert "{s}" not in shots.description and "N times" in shots.description
    assert "{s}" not in forum.modifiers["vote_weight"]
    assert shots.text(1).count("1 time ") == 1 and "2 times" in shots.text(2)
    for rules in RULESETS:
        for spec in rules.modifier_specs.values():
            assert "{" not in spec.description, spec.slug


def test_a_role_named_for_its_faction_does_not_repeat_it():
    # Issue 33: "You are a Mafia Mafia Roleblocker."
    assert role_pm("forum", "mafia_roleblocker")["title"] == "Mafia Roleblocker"
    assert role_pm("power", "mafia_roleblocker")["title"] == "Mafia Roleblocker"
    assert role_pm("forum", "mafia_roleblocker", alignment="town")["title"] == (
        "Town Mafia Roleblocker"
    )


def test_unknown_modifier_is_shown_as_written():
    assert get_ruleset("forum").describe_modifier("nonsense") == ("nonsense", "")


def test_player_role_pm_reads_the_seat():
    state = new_game(
        "forum",
        [
            {"name": "Ann", "role": "doctor", "modifiers": ["bulletproof"]},
            {"name": "Bob", "role": "goon"},
            {"name": "Cat", "role": "vanilla_townie"},
        ],
    )
    state = play_night(state, []).state
    pm = player_role_pm(state, "Ann")
    assert pm["title"] == "Town Bulletproof Doctor"
    assert pm["modifiers"][0]["title"] == "Bulletproof"
