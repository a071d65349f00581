"""Nobody learns from the site whether an e-mail address is anyone's (issue 31): sign-up and
adding an address answer alike, every log-in costs one password hash whether or not its
name or address exists, and an address someone holds unverified never blocks another
person's sign-up."""

from __future__ import annotations

import re
import uuid

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-123"


def new_address() -> str:
    # A new address each run: allauth's mail limits are counted in Redis across runs.
    return f"someone-{uuid.uuid4().hex[:10]}@example.com"


def sign_up(name: str, email: str) -> tuple[Client, object]:
    web = Client()
    data = {"username": name, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return web, web.post("/accounts/signup/", data)


def owner_of(email: str, verified: bool = True) -> object:
    user = UserFactory(username=f"own{uuid.uuid4().hex[:6]}", email="", password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


def shown(response) -> str:
    """A page's text without its per-request parts (the CSRF token, the nonce)."""
    text = response.content.decode()
    return re.sub(r'(csrfmiddlewaretoken" value|nonce)="[^"]*"', "", text)


def test_sign_up_answers_alike_whether_the_address_is_taken():
    taken = new_address()
    owner_of(taken)
    fresh_web, fresh = sign_up("newcomer", new_address())
    for email in (taken, taken.upper()):
        web, again = sign_up(f"prober{len(mail.outbox)}", email)
        assert (again.status_code, again["Location"]) == (fresh.status_code, fresh["Location"])
        assert "already registered" not in again.content.decode()
        assert shown(web.get("/")).count("Log out") == shown(fresh_web.get("/")).count("Log out")
    # The taken address stays its owner's alone, verified; the others hold it unverified,
    # and the link mailed for them (to the owner) cannot verify it.
    assert mail.outbox[-1].to == [taken]
    link = re.search(r"http://testserver(/accounts/\S+/)", mail.outbox[-1].body).group(1)
    Client().post(link)
    assert EmailAddress.objects.filter(email__iexact=taken, verified=True).count() == 1


def test_an_unverified_address_never_blocks_anothers_sign_up(settings):
    settings.ACCOUNT_RATE_LIMITS = False  # the squatter's link was the address's last minutes
    address = new_address()
    squatter = UserFactory(username="squatter", email="", password=PASSWORD)
    web = Client()
    web.force_login(squatter)
    assert web.post("/accounts/email/", {"action_add": "", "email": address}).status_code == 302
    mail.outbox.clear()
    _web, r = sign_up("rightful", address)
    assert r.status_code == 302
    rightful = get_user_model().objects.get(username="rightful")
    (message,) = mail.outbox
    link = re.search(r"http://testserver(/accounts/\S+/)", message.body).group(1)
    assert Client().post(link).status_code == 302
    assert EmailAddress.objects.get(user=rightful, email=address).verified
    assert not EmailAddress.objects.get(user=squatter, email=address).verified
    # The rightful owner logs in by the address; the squatter's password does not.
    assert Client().login(username=address, password=PASSWORD)
    assert _logs_in(address, PASSWORD) == "rightful"


def _logs_in(login: str, password: str) -> str | None:
    web = Client()
    web.post("/accounts/login/", {"username": login, "password": password})
    user_id = web.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id).username if user_id else None


def test_adding_an_address_answers_alike_whether_it_is_taken(client_for):
    taken = new_address()
    owner = owner_of(taken)
    web = client_for(UserFactory(username="prober", email=""))
    fresh = web.post("/accounts/email/", {"action_add": "", "email": new_address()})
    again = web.post("/accounts/email/", {"action_add": "", "email": taken.upper()})
    assert (again.status_code, again["Location"]) == (fresh.status_code, fresh["Location"])
    assert len(mail.outbox) == 2  # a verification link both times
    assert EmailAddress.objects.get(email__iexact=taken, verified=True).user == owner


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """Every password hash computed (the tests' hasher is MD5: a check hashes once too)."""
    done: list[str] = []
    encode = MD5PasswordHasher.encode

    def counted(self, password, salt):
        done.append(salt)
        return encode(self, password, salt)

    monkeypatch.setattr(MD5PasswordHasher, "encode", counted)
    return done


def test_every_log_in_costs_one_password_hash(hashes):
    address = new_address()
    user = owner_of(address)
    user.username = "known"
    user.save()
    logins = ["known", "Known", "nobody", address, address.upper(), new_address()]
    refusals = set()
    for login in logins:
        for password in ("wrong-one", PASSWORD):
            hashes.clear()
            page = Client().post("/accounts/login/", {"username": login, "password": password})
            assert len(hashes) == 1, ("form", login, password, len(hashes))
            hashes.clear()
            answer = APIClient().post(
                "/api/v1/auth/token/", {"username": login, "password": password}
            )
            assert len(hashes) == 1, ("token", login, password, len(hashes))
            if answer.status_code != 200:  # a wrong password, or no such account
                errors = re.search(r'class="form-errors".*?</div>', page.content.decode(), re.S)
                # The form words its refusal by what was typed (a name, an address).
                refusals.add(("@" in login, page.status_code, errors.group(0), answer.content))
    assert len(refusals) == 2, refusals  # one answer to every refusal, on both
    assert _logs_in(address, PASSWORD) == "known" and _logs_in("Known", PASSWORD) == "known"
