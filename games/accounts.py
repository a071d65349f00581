"""Accounts (django-allauth's account app): the site's rules for names, which account a log-in
names (``account_for_login``: the password check and the log-in limits ask it alike), the
one password check every log-in makes (``LoginBackend``), and the one question other parts
ask of an account: where may we send it mail?"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.auth_backends import AuthenticationBackend
from allauth.account.models import EmailAddress
from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext, gettext_lazy

from . import hooks
from .confusables import confusable_with
from .plain_text import is_plain_text

# Letters and digits of any script, and . @ + - _, in words separated by single spaces.
USERNAME = re.compile(r"[\w.@+-]+(?: [\w.@+-]+)*")
USERNAME_HELP = gettext_lazy("Up to 150 characters: letters, digits, single spaces and . @ + - _")


def clean_name(username: str) -> str:
    """A new account's name as stored (NFC), or a ValidationError: it may have spaces and
    any script's letters, but must not look like an existing name (``games.confusables``):
    "\u0440l7" with a Cyrillic "\u0440" is refused beside "pl7", as is "Alice" beside "alice"."""
    name = unicodedata.normalize("NFC", str(username or "").strip())
    if not USERNAME.fullmatch(name):
        raise forms.ValidationError(
            gettext("Use letters, digits, single spaces between words and . @ + - _ only.")
        )
    existing = list(get_user_model().objects.values_list("username", flat=True))
    # A side domain's system account (the league's host) is reserved before it exists.
    other = confusable_with(name, [*existing, *hooks.reserved_names()])
    if other is not None:
        raise forms.ValidationError(
            gettext('"%(name)s" looks too much like the existing name "%(other)s"; choose another.')
            % {"name": name, "other": other}
        )
    return name


class AccountAdapter(DefaultAccountAdapter):
    """allauth, with the site's names (spaces and any script, no look-alikes) in place of
    Django's username validator, which refuses spaces. A new account keeps its browser's
    language (``games.i18n.remember_browser_language``): mails written while the person is
    away are in the language they signed up in."""

    def save_user(self, request: Any, user: Any, form: Any, commit: bool = True) -> Any:
        user = super().save_user(request, user, form, commit)
        if commit and user.pk is not None:
            from .i18n import remember_browser_language

            remember_browser_language(user, request)
        return user

    def clean_username(self, username: str, shallow: bool = False) -> str:
        if shallow:  # allauth making up a name: the shape only, no lookup
            return unicodedata.normalize("NFC", username.strip())
        return clean_name(username)

    def render_mail(
        self,
        template_prefix: str,
        email: str | list[str],
        context: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> Any:
        """An account mail (confirm an address, reset a password, the unlock link) is in
        its person's language when they chose one (``games.i18n.in_language_of``), else in
        the language of the request that asked for it (sign-up keeps that on the account)."""
        from .i18n import account_language, in_language_of

        user = context.get("user")
        if not account_language(user):
            return super().render_mail(template_prefix, email, context, headers)
        with in_language_of(user):
            return super().render_mail(template_prefix, email, context, headers)


MAX_LOGIN = 254  # the longest e-mail address; a name is at most 150 characters


def account_for_login(login: str) -> Any | None:
    """The one account a log-in (a name or an e-mail address, as typed) names, or None.

    An address verified by an account names that account first: a name that looks like
    someone's address cannot take their log-in. Then the name (case aside: sign-up refuses
    names that differ in case only). Then an address no account has verified, if exactly
    one account holds it: since an unverified address never blocks a sign-up, several may
    (each still logs in by name)."""
    login = str(login or "").strip()
    # Asked before the form is cleaned (the log-in limits): a NUL would reach the database.
    if not login or not is_plain_text(login, MAX_LOGIN):
        return None
    users = get_user_model().objects
    if "@" in login:
        owner = (
            EmailAddress.objects.filter(email__iexact=login, verified=True)
            .values_list("user_id", flat=True)
            .first()
        )
        if owner is not None:
            return users.filter(pk=owner).first()
    named = list(users.filter(username__iexact=login)[:2])
    if named:
        exact = [u for u in named if u.username == login]
        return (exact or named)[0] if len(named) == 1 or exact else None
    if "@" in login:
        holders = set(
            EmailAddress.objects.filter(email__iexact=login).values_list("user_id", flat=True)
        )
        holders |= set(users.filter(email__iexact=login).values_list("pk", flat=True)[:2])
        if len(holders) == 1:
            return users.filter(pk=holders.pop()).first()
    return None


class LoginBackend(AuthenticationBackend):
    """Every password log-in (the form, ``auth/token/``, the admin) makes exactly one
    password hash, whether or not the name or address is anyone's: the account's check, or
    the same work on nothing. A wrong password ends the attempt (``PermissionDenied``): the
    backends listed after this one in the settings are there only so that sessions signed
    in through them stay signed in, never to hash the password a second time.

    allauth's backend underneath keeps its one job: a right password of an inactive account
    is stashed, so allauth shows "account inactive" rather than "wrong password"."""

    def authenticate(self, request: Any, **credentials: Any) -> Any | None:
        password = credentials.get("password")
        login = credentials.get("username") or credentials.get("email")
        if not password or not login:  # not a password log-in: not ours to decide
            return None
        self._did_check_password = False
        user = self._check_password(account_for_login(str(login)), password)
        if not self._did_check_password:
            self._mitigate_timing_attack(password)
        if user is None:
            raise PermissionDenied(gettext("Wrong name, address or password."))
        return user


def verified_email(user: Any) -> str | None:
    """The address to send ``user`` mail (notifications, digests): their primary address if
    verified, else another verified one, else None (no address, or none verified yet)."""
    if user is None or not getattr(user, "pk", None):
        return None
    address = (
        EmailAddress.objects.filter(user=user, verified=True)
        .order_by("-primary", "pk")
        .values_list("email", flat=True)
        .first()
    )
    return address or None
