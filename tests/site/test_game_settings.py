"""One settings spec: ``games.game_settings`` drives the service, the form, the API and
the ready-made setups, so a new setting is one entry there (and its rule)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services
from games.api.serializers import GameCreateSerializer
from games.errors import ErrorCode, InvalidInput
from games.forms import GameForm, field_names, role_formset
from games.game_settings import BY_NAME, MAX_PLAYERS, SETTINGS, defaults
from games.models import Game
from games.setups import SETUPS
from resolver.rulesets import NAMES, get_ruleset


def test_every_setting_is_a_column_of_the_game() -> None:
    columns = {f.name for f in Game._meta.get_fields()}
    assert set(BY_NAME) <= columns


def test_the_api_fields_are_the_spec_entries() -> None:
    fields = GameCreateSerializer().fields
    for setting in SETTINGS:
        if setting.api.name is not None:
            assert setting.api.name in fields
    assert fields["player_cap"].max_value == MAX_PLAYERS
    assert fields["day_length_minutes"].max_value == 14 * 24 * 60
    assert fields["turn_length_seconds"].min_value == 10


@pytest.mark.parametrize("name", NAMES)
def test_the_form_offers_the_settings_the_rule_set_has(name: str) -> None:
    rules = get_ruleset(name)
    form = GameForm(ruleset=name)
    for setting in SETTINGS:
        shown = [n for n in field_names(setting) if n in form.fields]
        if not setting.applies(rules):
            assert not shown, (name, setting.name)
    assert form.fields["player_cap"].max_value == MAX_PLAYERS
    assert role_formset(name)().forms[0].fields["count"].max_value == MAX_PLAYERS
    # Settings the template does not place by name are listed by the form.
    listed = {f.name for f in form.more_fields()}
    expected = {"seats_in_signup_order"} if rules.day_shape == "thread" else set()
    expected |= {"admits"}  # who may play: every rule set
    if rules.has_vote_modifiers:
        expected |= {"vote_modifiers_public", "lynch_proof_ends_day"}
    assert listed == expected


def test_a_game_gets_the_spec_defaults(host) -> None:
    game = services.create_game(
        host, title="Defaults", ruleset="forum", role_list=[{"role": "goon", "count": 3}]
    )
    for name, value in defaults(get_ruleset("forum")).items():
        if name == "player_cap":
            assert game.player_cap == 3
        elif name == "day_settings":
            assert game.day_settings == {}
        else:
            assert getattr(game, name) == value, name
    assert game.vote_rule == "majority_hammer"


def test_a_setting_out_of_bounds_gets_its_spec_refusal(host) -> None:
    kwargs = SETUPS["forum-vanilla"].game_kwargs()
    with pytest.raises(InvalidInput) as caught:
        services.create_game(host, title="x", **{**kwargs, "min_posts_per_day": 5000})
    assert caught.value.code == ErrorCode.MIN_POSTS and caught.value.field == "min_posts"
    with pytest.raises(InvalidInput) as caught:
        services.create_game(
            host, title="x", **{**kwargs, "vote_count_every": timedelta(minutes=5)}
        )
    assert caught.value.code == ErrorCode.VOTE_COUNT_EVERY
    with pytest.raises(TypeError):
        services.create_game(host, title="x", **{**kwargs, "no_such_setting": 1})


def test_setups_name_only_known_settings() -> None:
    for setup in SETUPS.values():
        assert set(setup.settings) <= set(BY_NAME)
        kwargs = setup.game_kwargs()
        assert kwargs["vote_rule"] == setup.vote_rule
    assert SETUPS["forum-mountainous"].openness == "open"
    assert SETUPS["forum-vanilla"].openness == "closed"  # the default
