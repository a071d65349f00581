"""A person's API tokens (issue 31): hashed, one new token per log-in, listed and revoked on
the tokens page and through the API, all revoked by a password change, set or reset; keys
made before hashing keep working."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.apps import apps as django_apps
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agents import services as agent_services
from games.models import AgentToken, PersonToken
from games.services import person_tokens
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-123"
NEW_PASSWORD = "another-long-pass-456"


def log_in(name: str = "ann", password: str = PASSWORD) -> str:
    answer = APIClient().post("/api/v1/auth/token/", {"username": name, "password": password})
    assert answer.status_code == 200, answer.content
    return answer.json()["token"]


def signs_in(key: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/my-games/").status_code == 200


def test_each_log_in_makes_a_new_token_kept_only_as_its_hash():
    user = UserFactory(username="ann", password=PASSWORD)
    answer = APIClient().post("/api/v1/auth/token/", {"username": "ann", "password": PASSWORD})
    data = answer.json()
    first = data["token"]
    assert first.startswith("pat_") and data["prefix"] == first[:10] and not data["revoked"]
    second = log_in()
    assert second != first and signs_in(first) and signs_in(second)
    stored = [str(v) for row in PersonToken.objects.values_list() for v in row]
    assert not any(first in v or second in v for v in stored)
    assert PersonToken.objects.filter(user=user, revoked_at__isnull=True).count() == 2
    assert not Token.objects.exists()  # DRF's plain-text tokens are gone for good


def test_the_api_lists_and_revokes_ones_tokens():
    UserFactory(username="ann", password=PASSWORD)
    UserFactory(username="bob", password=PASSWORD)
    key, other = log_in(), log_in()
    bobs = log_in("bob")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {other}")
    listed = client.get("/api/v1/auth/tokens/").json()["results"]
    assert len(listed) == 2 and all("token" not in t and "key_hash" not in t for t in listed)
    token_id = PersonToken.objects.get(prefix=key[:10]).pk
    answer = client.post(f"/api/v1/auth/tokens/{token_id}/revoke/")
    assert answer.status_code == 200 and answer.json()["revoked"]
    assert not signs_in(key) and signs_in(other)
    # Another person's token is not found (never revoked).
    bobs_id = PersonToken.objects.get(prefix=bobs[:10]).pk
    answer = client.post(f"/api/v1/auth/tokens/{bobs_id}/revoke/")
    assert answer.status_code == 404 and answer.json()["code"] == "no_token"
    assert signs_in(bobs)
    assert APIClient().get("/api/v1/auth/tokens/").status_code in (401, 403)


def test_an_agents_token_manages_no_person_tokens():
    owner = UserFactory(username="ann", password=PASSWORD)
    agent_services.register_agent(owner, "robo")
    key = agent_services.create_token(owner, "robo").key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    answer = client.get("/api/v1/auth/tokens/")
    assert answer.status_code == 403 and answer.json()["code"] == "agent_account"


def test_the_tokens_page_makes_lists_and_revokes(client_for):
    user = UserFactory(username="ann", password=PASSWORD)
    web = client_for(user)
    page = web.get("/accounts/tokens/").content.decode()
    assert 'id="no-tokens"' in page and 'href="/accounts/tokens/"' in page
    assert "API tokens" in web.get("/accounts/email/").content.decode()  # the account tab
    r = web.post("/accounts/tokens/new/", {"name": "my bot"})
    assert r.status_code == 302
    page = web.get("/accounts/tokens/").content.decode()
    key = re.search(r'id="new-key-value" type="text" readonly value="(pat_[^"]+)"', page)
    assert key and signs_in(key.group(1)) and "my bot" in page
    assert 'id="new-key-value"' not in web.get("/accounts/tokens/").content.decode()  # once
    token = PersonToken.objects.get(user=user)
    assert f'action="/accounts/tokens/{token.pk}/revoke/"' in page  # its Revoke button
    assert web.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 302
    assert not signs_in(key.group(1))
    assert "revoked" in web.get("/accounts/tokens/").content.decode()
    other = client_for(UserFactory(username="bob"))
    assert other.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    r = web.post("/accounts/tokens/new/", {"name": "x" * 81})
    assert r.status_code == 302 and PersonToken.objects.filter(user=user).count() == 1


def test_past_the_cap_the_token_used_longest_ago_is_revoked(settings):
    user = UserFactory(username="ann", password=PASSWORD)
    keys = [person_tokens.create_token(user).key for _ in range(person_tokens.MAX_LIVE_TOKENS)]
    newest = person_tokens.create_token(user).key
    assert not signs_in(keys[0]) and signs_in(keys[1]) and signs_in(newest)
    live = PersonToken.objects.filter(user=user, revoked_at__isnull=True).count()
    assert live == person_tokens.MAX_LIVE_TOKENS


def test_a_password_change_on_the_page_revokes_every_token(client_for):
    user = UserFactory(username="ann", password=PASSWORD)
    keys = [log_in(), log_in()]
    web = client_for(user)
    r = web.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert r.status_code == 302
    assert not any(signs_in(k) for k in keys)
    assert signs_in(log_in(password=NEW_PASSWORD))


def test_a_password_reset_revokes_every_token():
    user = UserFactory(username="ann", password=PASSWORD)
    EmailAddress.objects.create(user=user, email="ann@example.com", verified=True, primary=True)
    key = log_in()
    web = Client()
    assert web.post("/accounts/password/reset/", {"email": "ann@example.com"}).status_code == 302
    link = re.search(r"http://testserver(/accounts/\S+/)", mail.outbox[-1].body).group(1)
    form = web.get(link)["Location"]
    r = web.post(form, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert r.status_code == 302
    assert not signs_in(key)


class NewerHasher(MD5PasswordHasher):
    """A stand-in for a stronger hasher: a log-in rehashes an MD5 password with it."""

    algorithm = "md5-newer"


def test_set_password_anywhere_revokes_but_a_rehash_at_log_in_does_not(settings):
    user = UserFactory(username="ann", password=PASSWORD)
    key = log_in()
    # Django upgrades a hash at a log-in when the hasher changes: the same secret.
    settings.PASSWORD_HASHERS = [
        f"{__name__}.NewerHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    before = type(user).objects.get(pk=user.pk).password
    newer = log_in()
    assert type(user).objects.get(pk=user.pk).password != before  # rehashed
    assert signs_in(key) and signs_in(newer)
    # The admin, ``changepassword`` and a shell all come down to this.
    user.refresh_from_db()
    user.set_password(NEW_PASSWORD)
    user.save()
    assert not signs_in(key) and not signs_in(newer)


def test_keys_made_before_hashing_keep_working():
    user = UserFactory(username="ann", password=PASSWORD)
    old = Token.objects.create(user=user)
    migration = __import__("games.migrations.0021_person_tokens", fromlist=["hash_old_tokens"])
    migration.hash_old_tokens(django_apps, None)
    assert not Token.objects.exists()
    token = PersonToken.objects.get(user=user)
    assert token.prefix == old.key[:8] and token.created_at == old.created
    assert old.key not in token.key_hash and signs_in(old.key)


def test_the_admin_lists_both_kinds_of_token_without_a_key():
    ann = UserFactory(username="ann", password=PASSWORD)
    key = log_in()
    agent_services.register_agent(ann, "robo")
    agent_key = agent_services.create_token(ann, "robo").key
    web = Client()
    web.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    people = web.get("/admin/games/persontoken/").content.decode()
    agents = web.get("/admin/games/agenttoken/").content.decode()
    assert key[:10] in people and "ann" in people
    robo = AgentToken.objects.get(agent__user__username="robo")
    owner = Client()
    owner.force_login(ann)
    page = owner.get("/agents/robo/").content.decode()
    assert f'action="/agents/robo/tokens/{robo.pk}/revoke/"' in page  # its Revoke button
    assert agent_key[:10] in agents and "agent robo" in agents
    assert key not in people and agent_key not in agents
