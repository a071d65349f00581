"""factory-boy factories for the site tests. Games in play are made through the services
(``tests.conftest`` has helpers), so every invariant the services keep holds in tests too."""

from __future__ import annotations

from datetime import timedelta

import factory
from django.contrib.auth import get_user_model

from games.models import Game


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("pw")


class GameFactory(factory.django.DjangoModelFactory):
    """A forum vanilla game in sign-ups (saved directly: no event, no setup check)."""

    class Meta:
        model = Game

    title = factory.Sequence(lambda n: f"Game {n}")
    host = factory.SubFactory(UserFactory)
    ruleset = "forum"
    method = "rar"
    role_list = factory.LazyFunction(
        lambda: [{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 5}]
    )
    player_cap = 7
    vote_rule = "majority_hammer"
    day_length = timedelta(hours=24)
    night_length = timedelta(hours=12)
