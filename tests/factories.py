"""factory-boy factories for the site tests. Games in play are made through the services
(``tests.conftest`` has helpers), so every invariant the services keep holds in tests too."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import factory
from django.contrib.auth import get_user_model

from games.api_tokens import PERSON_KEY_PREFIX, hash_key
from games.models import Game, PersonToken


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("pw")


def person_key(user: Any) -> str:
    """A key of ``user``'s own API token (a ``PersonToken``), the same one each call in a
    test: derived from the account, so a test that asks per request makes one token, and a
    new test database (the same id, another account) gets another key."""
    seed = f"{user.pk}:{user.username}:{user.date_joined.isoformat()}"
    key = PERSON_KEY_PREFIX + hashlib.sha256(seed.encode()).hexdigest()[:40]
    PersonToken.objects.get_or_create(
        key_hash=hash_key(key), defaults={"user_id": user.pk, "prefix": key[:10], "name": "test"}
    )
    return key


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
