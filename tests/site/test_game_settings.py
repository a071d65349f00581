"""One settings spec: ``games.game_settings`` drives the service, the form, the API and
the ready-made setups, so a new setting is one entry there (and its rule)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils.html import escape
from rest_framework.test import APIClient

from games import services
from games.api.serializers import GameCreateSerializer
from games.errors import ErrorCode, InvalidInput
from games.forms import GameForm, field_names, role_formset
from games.game_settings import BY_NAME, MAX_PLAYERS, SETTINGS, defaults, output_name
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
    expected |= {"admits", "last_wills", "must_act"}  # every rule set
    if rules.day_shape == "thread":  # the forum variants
        expected |= {"post_limit", "post_limit_lifted", "secret_votes", "whispers"}
        expected |= {"anonymous_names", "blind"}
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


def test_the_house_rules_say_what_the_settings_change_on_the_page_the_role_pm_and_the_api(
    host, make_users
) -> None:
    usual = services.create_game(
        host, title="Usual", ruleset="forum", role_list=[{"role": "vanilla_townie", "count": 3}]
    )
    variant = services.create_game(
        host,
        title="Variants",
        ruleset="forum",
        role_list=[{"role": "vanilla_townie", "count": 2}, {"role": "goon", "count": 1}],
        post_limit=5,
        post_limit_lifted=timedelta(hours=2),
        secret_votes="totals",
        last_wills=True,
        self_vote_allowed=True,
    )
    expected = [
        "Players may vote for themselves.",
        "Post limit: 5 posts a day in the game thread for each living player, lifted 2 hours "
        "before the deadline.",
        "Secret votes: the vote count shows only each wagon's total until the day ends.",
        "Last wills: each player keeps a will, posted when they die.",
    ]
    web = Client()
    page = web.get(f"/games/{variant.pk}/").content.decode()
    assert "House rules" in page
    for line in expected:
        assert escape(line) in page, line
    assert "House rules" not in web.get(f"/games/{usual.pk}/").content.decode()

    api = APIClient()
    shown = api.get(f"/api/v1/games/{variant.pk}/").json()
    assert shown["house_rules"] == expected
    assert shown["post_limit"] == 5 and shown["post_limit_lifted_seconds"] == 7200
    assert shown["secret_votes"] == "totals" and shown["last_wills"] is True
    assert shown["day_length_seconds"] == 24 * 3600
    assert api.get(f"/api/v1/games/{usual.pk}/").json()["house_rules"] == []

    for user in make_users(3):
        services.join_game(user, variant.pk)
    services.start_game(host, variant.pk)
    slot = variant.slots.first()
    web.force_login(slot.user)
    role_pm = web.get(f"/games/{variant.pk}/role/").content.decode()
    assert "House rules" in role_pm and "Post limit: 5 posts a day" in role_pm


def test_every_setting_is_in_the_game_the_api_shows(host) -> None:
    game = services.create_game(
        host, title="All", ruleset="forum", role_list=[{"role": "goon", "count": 3}]
    )
    shown = APIClient().get(f"/api/v1/games/{game.pk}/").json()
    assert {output_name(s) for s in SETTINGS} <= set(shown)
