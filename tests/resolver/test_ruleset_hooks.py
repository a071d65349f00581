"""Rule sets and day scripts describe themselves: the site asks these hooks, never names."""

from __future__ import annotations

from resolver import new_game
from resolver.days import get_day_script
from resolver.rulesets import NAMES, get_ruleset


def test_every_rule_set_says_how_its_day_is_played() -> None:
    for name in NAMES:
        rules = get_ruleset(name)
        assert rules.day_shape in {"thread", "table"}
        assert (get_day_script(name) is None) == (rules.day_shape == "thread")
        assert rules.default_vote_rule in rules.vote_rules_allowed


def test_forum_is_the_thread_day_with_every_vote_rule() -> None:
    forum = get_ruleset("forum")
    assert forum.day_shape == "thread"
    assert set(forum.vote_rules_allowed) == {"majority_hammer", "majority_lock", "plurality"}
    assert forum.default_vote_rule == "majority_hammer"
    assert forum.weighted_votes and forum.has_vote_modifiers
    for name in ("city", "classic", "power"):
        rules = get_ruleset(name)
        assert rules.vote_rules_allowed == ("plurality",)
        assert not rules.weighted_votes


def test_forum_vote_weights_come_from_the_modifiers() -> None:
    players = [
        {"name": "A", "role": "vanilla_townie", "modifiers": ["double_voter"]},
        {"name": "B", "role": "vanilla_townie"},
        {"name": "C", "role": "goon"},
    ]
    state = new_game("forum", players, "rar", {})
    assert dict(get_ruleset("forum").vote_weights(state)) == {"A": 2}
    assert get_ruleset("classic").vote_weights(state) == {}


def test_day_scripts_name_the_settings_the_host_chooses() -> None:
    assert get_day_script("classic").host_settings == ("word_limit",)
    assert get_day_script("city").host_settings == ()
    assert get_day_script("city").game_decided == frozenset({"vote_immune"})
    assert get_day_script("power").host_settings == (
        "discussion_open_allowance",
        "discussion_open_growth",
        "discussion_open_floor",
        "discussion_open_cap",
    )


def test_only_power_posts_carry_tokens() -> None:
    body = "Hello\nVOTE_SKIP_DISCUSSION\n"
    assert get_day_script("classic").split_post(body) == (body, ())
    text, tokens = get_day_script("power").split_post(body)
    assert text == "Hello\n" and len(tokens) == 1


def test_every_host_setting_says_how_it_is_asked_for() -> None:
    for name in NAMES:
        script = get_day_script(name)
        if script is not None:
            assert set(script.setting_fields) == set(script.host_settings), name
