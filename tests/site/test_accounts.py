"""Accounts (django-allauth, games.accounts): sign up with or without an e-mail address, the
address verified by a link, log in by name or address, change a password, reset a forgotten
one by mail (the link works once); the site's names rule and rate limits still hold."""

from __future__ import annotations

import re
import uuid

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from games.accounts import verified_email
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-123"
NEW_PASSWORD = "another-long-pass-456"


@pytest.fixture
def address() -> str:
    # A new address each run: allauth's mail limits (one verification mail per address
    # every few minutes) are counted in Redis across runs.
    return f"ann-{uuid.uuid4().hex[:10]}@example.com"


def html(response) -> str:
    return response.content.decode()


def sign_up(client: Client, name: str, email: str = "", next_url: str = ""):
    data = {"username": name, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/" + (f"?next={next_url}" if next_url else ""), data)


def link_in(message) -> str:
    """The site's path in a mail's link (built from the request: http://testserver/...)."""
    match = re.search(r"http://testserver(/accounts/\S+/)", message.body)
    assert match, message.body
    return match.group(1)


def logged_in_as(client: Client) -> str | None:
    user_id = client.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id).username if user_id else None


def test_sign_up_without_an_email_address():
    web = Client()
    r = sign_up(web, "ann")
    assert r.status_code == 302 and r["Location"] == "/"
    assert logged_in_as(web) == "ann"
    user = get_user_model().objects.get(username="ann")
    assert not EmailAddress.objects.filter(user=user).exists()
    assert mail.outbox == [] and verified_email(user) is None


def test_sign_up_with_an_email_address_sends_a_link_that_verifies_it(address):
    web = Client()
    r = sign_up(web, "ann", address, next_url="/games/new/")
    assert r.status_code == 302 and r["Location"] == "/games/new/"  # ?next= is kept
    assert logged_in_as(web) == "ann"
    user = get_user_model().objects.get(username="ann")
    assert verified_email(user) is None  # not before the link is opened
    (message,) = mail.outbox
    assert message.to == [address] and "Forum Mafia" in message.subject
    link = link_in(message)
    assert "/accounts/confirm-email/" in link
    # Opening the link asks to confirm (a mail scanner's GET verifies nothing)...
    page = Client().get(link)
    assert page.status_code == 200 and "Yes, verify it" in html(page)
    assert verified_email(user) is None
    # ...and the button verifies it, logged in or not.
    assert Client().post(link).status_code == 302
    assert verified_email(user) == address
    listed = html(web.get("/accounts/email/"))
    assert address in listed and "Verified" in listed


def test_a_bad_verification_link_says_so():
    r = Client().get("/accounts/confirm-email/not-a-real-key/")
    assert r.status_code == 200 and "expired or is not valid" in html(r)


def test_log_in_by_name_or_by_email_address(address):
    user = UserFactory(username="bob", password=PASSWORD)
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    for login in ("bob", address, address.upper()):
        web = Client()
        r = web.post("/accounts/login/?next=/games/new/", {"username": login, "password": PASSWORD})
        assert r.status_code == 302 and r["Location"] == "/games/new/", login
        assert logged_in_as(web) == "bob"
    wrong = Client().post("/accounts/login/", {"username": address, "password": "nope"})
    assert wrong.status_code == 200 and "form-errors" in html(wrong)


def test_signed_in_people_have_an_account_link(client_for):
    page = html(client_for(UserFactory(username="carol")).get("/"))
    assert 'href="/accounts/email/">Account</a>' in page
    assert 'href="/accounts/email/"' not in html(Client().get("/"))


def test_password_reset_by_mail_and_its_link_works_once(address):
    user = UserFactory(username="dora", password=PASSWORD)
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    web = Client()
    r = web.post("/accounts/password/reset/", {"email": address})
    assert r.status_code == 302 and r["Location"] == "/accounts/password/reset/done/"
    assert "we have sent it a link" in html(web.get(r["Location"]))
    (message,) = mail.outbox
    assert message.to == [address]
    link = link_in(message)
    form_page = web.get(link)
    assert form_page.status_code == 302  # allauth moves the key out of the address bar
    assert "Choose a new password" in html(web.get(form_page["Location"]))
    r = web.post(form_page["Location"], {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert r.status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD) and not user.check_password(PASSWORD)
    # The same link again: a clear error page, and the password stays.
    again = Client()
    r = again.get(link, follow=True)
    assert r.status_code == 200
    assert "Reset link not valid" in html(r) and "already been used" in html(r)
    assert "password1" not in html(r)
    bad = Client().get("/accounts/password/reset/key/zz-not-a-key/", follow=True)
    assert "Reset link not valid" in html(bad)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_a_reset_for_an_unknown_address_says_the_same_and_sends_no_link(address):
    r = Client().post("/accounts/password/reset/", {"email": address})
    assert r.status_code == 302 and r["Location"] == "/accounts/password/reset/done/"
    assert all("/accounts/password/reset/key/" not in m.body for m in mail.outbox)


def test_password_change(client_for):
    user = UserFactory(username="erin", password=PASSWORD)
    web = client_for(user)
    page = web.get("/accounts/password/change/")
    assert page.status_code == 200 and "Change your password" in html(page)
    wrong = web.post(
        "/accounts/password/change/",
        {"oldpassword": "nope", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert wrong.status_code == 200 and 'class="error"' in html(wrong)
    r = web.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert r.status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert logged_in_as(web) == "erin"  # still logged in on this browser


def test_add_and_remove_an_address(client_for, address):
    user = UserFactory(username="fay", email="", password=PASSWORD)
    web = client_for(user)
    assert "No e-mail address yet" in html(web.get("/accounts/email/"))
    r = web.post("/accounts/email/", {"action_add": "", "email": address})
    assert r.status_code == 302
    assert EmailAddress.objects.filter(user=user, email=address, verified=False).exists()
    assert [m.to for m in mail.outbox] == [[address]]
    r = web.post("/accounts/email/", {"action_remove": "", "email": address})
    assert r.status_code == 302
    assert not EmailAddress.objects.filter(user=user).exists()


@pytest.mark.parametrize("bad", ["not-an-address", "ann@", "@example.com", "ann@@example.com"])
def test_a_malformed_address_is_a_form_error(client_for, bad):
    r = sign_up(Client(), "gus", bad)
    assert r.status_code == 200 and 'class="error"' in html(r)
    assert not get_user_model().objects.filter(username="gus").exists()
    web = client_for(UserFactory(username="hal"))
    r = web.post("/accounts/email/", {"action_add": "", "email": bad})
    assert r.status_code == 200 and 'class="error"' in html(r)
    r = Client().post("/accounts/password/reset/", {"email": bad})
    assert r.status_code == 200 and 'class="error"' in html(r)
    assert mail.outbox == []


def test_a_look_alike_name_is_still_refused(address):
    UserFactory(username="alice")
    r = sign_up(Client(), "\u0430lice", address)  # Cyrillic a
    assert r.status_code == 200 and "looks too much like" in html(r)
    assert not get_user_model().objects.filter(username="\u0430lice").exists()
    assert mail.outbox == []


def test_rate_limits_still_apply(settings, address):
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex
    settings.RATE_LIMITS = {"signup": (1, 3600)}
    assert sign_up(Client(), "ivy").status_code == 302
    r = sign_up(Client(), "jon")
    assert r.status_code == 429 and "try again in" in html(r)
    # Wrong passwords by e-mail address count against the account's name.
    user = UserFactory(username="kim", password=PASSWORD)
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
    web = Client()
    for _ in range(10):
        assert (
            web.post("/accounts/login/", {"username": address, "password": "x"}).status_code == 200
        )
    r = web.post("/accounts/login/", {"username": "kim", "password": PASSWORD})
    assert r.status_code == 429 and "_auth_user_id" not in web.session
