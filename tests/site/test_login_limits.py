"""Log-in limits per account (issue 31): one failure count per account whether it is named
by its name or its e-mail address, on the form or the token exchange; and a limit per
account across addresses that stops a guesser with many addresses without locking the
owner out (the unlock link mailed to the account)."""

from __future__ import annotations

import re
import time

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.site.test_rate_limits import WINDOW, _retry_after, limits_on  # noqa: F401

pytestmark = pytest.mark.django_db
PASSWORD = "right-pw-123"


def _person(name: str = "dave", email: str = "dave@example.com"):
    user = UserFactory(username=name, email="", password=PASSWORD)
    if email:
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def _token(login: str, password: str, address: str = "127.0.0.1"):
    return APIClient(REMOTE_ADDR=address).post(
        "/api/v1/auth/token/", {"username": login, "password": password}
    )


def _form(login: str, password: str, address: str = "127.0.0.1", web: Client | None = None):
    web = web or Client(REMOTE_ADDR=address)
    return web.post("/accounts/login/", {"username": login, "password": password})


def test_a_name_and_its_address_share_one_count_on_the_form_and_the_token_exchange():
    _person()
    for i in range(10):
        login = "dave" if i % 2 else "DAVE@example.com"
        if i < 5:
            assert _token(login, "nope").status_code == 401
        else:
            assert _form(login, "nope").status_code == 200
    for login in ("dave", "dave@example.com"):
        _retry_after(_token(login, PASSWORD))
        _retry_after(_form(login, PASSWORD))


def _mails(at_least: int = 0, wait: float = 5.0) -> list:
    """The mails sent so far: they leave from a thread of their own (``send_link``), so
    wait (up to ``wait`` seconds) for ``at_least`` of them, then a moment for any more."""
    deadline = time.monotonic() + wait
    while len(mail.outbox) < at_least and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    return list(mail.outbox)


def _unlock_link() -> str:
    (message,) = [m for m in _mails(1) if "unlock" in m.body]
    return re.search(r"http://testserver(/accounts/unlock/\S+/)", message.body).group(1)


def test_many_addresses_close_the_account_and_the_mailed_link_lets_its_owner_in(settings):
    settings.RATE_LIMITS = {"login-account": (5, WINDOW)}  # limits_on (autouse) ran first
    _person()
    for i in range(5):  # a guesser with an address per guess
        r = _token("dave", "nope", f"10.0.1.{i}") if i % 2 else _form("dave", "nope", f"10.0.1.{i}")
        assert r.status_code in (200, 401)
    # Now even the right password, from an address never seen, waits: on the page...
    locked = _form("dave@example.com", PASSWORD, "10.0.2.1")
    _retry_after(locked)
    assert "Too many failed log-ins to this account" in locked.content.decode()
    # ...and in the API, which has no browser to unlock.
    r = _token("dave", PASSWORD, "10.0.2.2")
    _retry_after(r)
    assert "token" not in r.json() and "failed log-ins" in r.json()["error"]
    # One mail to the account's address, however many refusals.
    link = _unlock_link()
    assert mail.outbox[0].to == ["dave@example.com"]
    # An unknown account reads the same refusal and mails nobody.
    for i in range(5):
        _form("nobody@example.com", "nope", f"10.0.3.{i}")
    unknown = _form("nobody@example.com", PASSWORD, "10.0.3.9")
    assert _retry_after(unknown) and len(_mails()) == 1
    assert "Too many failed log-ins to this account" in unknown.content.decode()

    owner = Client(REMOTE_ADDR="10.0.4.1")
    page = owner.get(link)
    assert page.status_code == 200 and "Let this browser log in" in page.content.decode()
    _retry_after(_form("dave", PASSWORD, web=owner))  # a GET unlocks nothing
    assert owner.post(link).status_code == 302
    assert _form("dave", PASSWORD, web=owner).status_code == 302
    assert owner.session.get("_auth_user_id")
    # The guesser's browsers are still refused; a forged link unlocks nothing.
    _retry_after(_form("dave", PASSWORD, "10.0.2.1"))
    bad = Client().get("/accounts/unlock/not-a-key/")
    assert bad.status_code == 200 and "not valid" in bad.content.decode()
