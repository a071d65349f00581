"""Every HTML form of the site, fuzzed: each field of each POST form on the pages that the
people who use them see (a stranger, a player by day, by night and at a table, the host,
a host's setups), the hidden ``next`` every form's answer reads, replaced in turn by
hostile values (out-of-range, negative and non-numeric numbers, NUL bytes, lone
surrogates, huge text, wrong types). The answer is a page or a redirect with a message,
never a 5xx, and what was written is whole: the event log and the threads' post numbers
have no gaps, and nothing stored carries a hostile value it should have refused.

``POST_FORMS`` names every view of the URL confs that takes a POST, and the test that
reaches its form; ``test_every_post_view_of_the_site_is_fuzzed`` fails when a view is added
without either a place here or a place among the read-only pages."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import pytest
from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import timezone

from games import services
from games.errors import GameRuleError
from games.models import (
    Absence,
    AltAccount,
    Appeal,
    Game,
    GameEvent,
    NightAction,
    Post,
    Report,
    Sanction,
    SavedSetup,
    SimulationRun,
    Slot,
    Whisper,
)
from games.reads.moderation import appeal_token
from games.reads.table import turn_view
from games.services import moderation
from games.setups import SETUPS
from notifications import mail
from notifications.models import NotificationPrefs
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HOSTILE = [
    "32768",
    "1440000000000",
    "99999999999999999999999",
    "-1",
    "-99999999999999999999999",
    "0",
    "1.5",
    "1e400",
    "NaN",
    "\u0663",  # ARABIC-INDIC DIGIT THREE: int() reads it as 3
    "",
    "\x00",
    "kill\x00",
    "\x1b[31m\x7f",
    "\ud800",
    "x" * 25_000,
    "<script>alert(1)</script>",
    "[]",
    "skip",
    "2030-02-30",
    "9999-12-31",
]

# ``next``, which every form's answer may redirect to: never another site.
NEXT = ["\x00", "/\x00/", "//evil.example/", "https://evil.example/", "\ud800", "x" * 25_000]

# The create form has ~60 fields: the values that found its 500s, fewer requests.
NUMBERS_AND_TEXT = ["32768", "1440000000000", "-1", "\x00", "\ud800", "x" * 25_000]

# Every view of the site that takes a POST (by URL name; the host's and the queue's by
# operation too), and the test below that fuzzes its form.
POST_FORMS = {
    "signup": "accounts",
    "login": "accounts",
    "logout": "accounts",
    "account_email": "account pages",
    "account_change_password": "account pages",
    "account_set_password": "account pages",
    "account_reset_password": "account pages",
    "account_reset_password_from_key": "account pages",
    "account_confirm_email": "account pages",
    "account_reauthenticate": "account pages",
    "games:create": "create",
    "games:join": "signups",
    "games:leave": "signups",
    "games:start": "signups",
    "games:remove_signup": "signups",
    "games:reply": "day",
    "games:private_reply": "day",
    "games:vote": "day",
    "games:unvote": "day",
    "games:day_action": "day",
    "games:away": "day",
    "games:cancel_away": "day",
    "games:replacement_queue/join": "day",
    "games:replacement_queue/leave": "day",
    "games:role": "night",
    "games:withdraw": "night",
    "games:nominate": "table",
    "games:turn_pass": "table",
    "games:host_action/skip-turn": "table",
    "games:host_action/extend": "host",
    "games:host_action/pause": "host",
    "games:host_action/resume": "host",
    "games:host_action/count": "host",
    "games:host_action/post": "host",
    "games:host_action/cut": "host",
    "games:host_action/modkill": "host",
    "games:host_action/replace": "host",
    "games:host_action/replace_next": "host",
    "games:simulate": "setups",
    "games:simulate_saved": "setups",
    "notifications:unsubscribe": "unsubscribe",
    "notifications:settings": "notifications",
    "notifications:read_all": "notifications",
    "notifications:push_subscribe": "push buttons",  # JSON from static/js/push.js
    "notifications:push_unsubscribe": "push buttons",
    "agents:mine": "agents",
    "agents:edit": "agents",
    "agents:token_new": "agents",
    "agents:token_revoke": "agents",
    "league:join": "league",
    "league:leave": "league",
    "league:series_create": "series",  # the league app's duplicate series (staff)
    "league:series_next": "series",
    "league:agent_guess": "guesses",  # the league app's: a blind game's guess (the review)
    "games:report_post": "moderation",
    "games:report_private_post": "moderation",
    "games:report_player": "moderation",
    "games:handle_report": "moderation",
    "games:answer_appeal": "moderation",
    "games:decide_alt": "moderation",
    "games:lift_sanction": "moderation",
    "games:moderation_person": "moderation",
    "games:appeal": "moderation",
    "games:declare_alt": "moderation",
    "person_token_new": "person tokens",
    "person_token_revoke": "person tokens",
    "games:whisper": "whispers",
    "games:will": "wills",
    "game_probes": "probes",  # analytics: a player's belief probes, posted to its own page
    "games:bookmark_post": "bookmarks",
    "games:bookmark_private_post": "bookmarks",
    "games:bookmark_note": "bookmarks",
    "games:bookmark_remove": "bookmarks",
    "login_unlock": "person tokens",
    "open_data": "open data",
    "account_language": "language",  # the account's language, and the footer's switcher
}
# Pages with no form of their own to fuzz: GET only, or a POST answered with the page.
READ_ONLY = {
    "healthz",
    "help",  # the manual: static files, GET only (mafia_site/help.py)
    "help_page",
    "visitor_language",  # a footer link: GET only, ?next= checked (tests/site/test_i18n.py)
    "games:lobby",
    "games:thread",
    "games:private_thread",
    "games:post_link",
    "games:host",
    "games:archive",
    "games:review",  # GET only: ?phase= and ?post= (tests/site/test_review.py)
    "games:setup",
    "games:saved_setup",
    "games:simulation",
    "games:votes",
    "games:activity",
    "games:multi_iso",
    "games:whispers",  # its form posts to games:whisper
    "games:my_games",
    "agents:agent",
    "ratings:leaderboard",  # its filter is a GET form
    "games:player",
    "league:league",
    "league:series_list",  # its form posts to league:series_create
    "league:series",  # its button posts to league:series_next
    "setup_stats",  # analytics: statistics from finished games, GET only
    "player_stats",
    "behaviour_board",  # its sort links are plain GET links
    # allauth's pages that only say something (mail sent, password set, account inactive),
    # and its log-in by code, which is off (the view sends back to the log-in page).
    "account_email_verification_sent",
    "account_reset_password_done",
    "account_reset_password_from_key_done",
    "account_inactive",
    "account_confirm_login_code",
    "notifications:inbox",
    "notifications:open",  # a GET: marks one's own notification read, then redirects
    "notifications:service_worker",  # /sw.js and the page it keeps: GET only
    "notifications:offline",
    "games:moderation",  # the queue: its forms post to the handle/answer/decide views
    "games:moderation_log",
    "person_tokens",  # its forms post to person_token_new and person_token_revoke
    "games:bookmarks",  # its forms post to bookmark_note and bookmark_remove
}
# allauth's names for paths that answer under another name above (the first one matches).
SAME_PATH = {"account_login": "login", "account_signup": "signup", "account_logout": "logout"}


class Forms(HTMLParser):
    """The POST forms of a page: (action, {name: value})."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self._current: dict[str, str] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "get").lower() == "post":
            self._current = {}
            self.forms.append((a.get("action", ""), self._current))
        elif self._current is None:
            return
        elif tag in ("input", "textarea") and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                self._current.setdefault(a["name"], "")
            else:
                self._current[a["name"]] = a.get("value", "")
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self._current.setdefault(a["name"], "")
        elif tag == "option" and self._select and not self._current[self._select]:
            self._current[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._current = None
        elif tag == "select":
            self._select = None


def forms_of(client: Client, url: str) -> list[tuple[str, dict[str, str]]]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    parser = Forms()
    parser.feed(response.content.decode())
    return [(action or url, fields) for action, fields in parser.forms]


def form_key(action: str) -> str:
    """``games:vote``; ``games:host_action/cut`` for a view with an operation."""
    match = resolve(urlsplit(action).path)
    op = match.kwargs.get("op")
    return f"{match.view_name}/{op}" if op else match.view_name


def _encode(value: str) -> str:
    # A lone surrogate cannot be encoded as UTF-8; send its bytes as a browser might.
    return value.encode("utf-8", "surrogatepass").decode("latin-1")


def post(client: Client, action: str, data: dict[str, str]) -> Any:
    try:
        return client.post(action, data)
    except UnicodeEncodeError:
        body = "&".join(f"{k}={_encode(v)}" for k, v in data.items())
        return client.generic(
            "POST", action, body.encode("latin-1"), content_type="application/x-www-form-urlencoded"
        )


def fuzz_form(
    client: Client, action: str, fields: dict[str, str], values: Iterable[str] = HOSTILE
) -> int:
    """Each field of one form replaced in turn by each value, then ``next``."""
    sent = 0
    # One role entry of the create form's formset stands for all (they are the same form).
    names = [n for n in fields if n != "csrfmiddlewaretoken"]
    names = [n for n in names if not n.startswith("roles-") or n.startswith("roles-0-")]
    tries = [(name, bad) for name in names for bad in values] + [("next", v) for v in NEXT]
    for name, bad in tries:
        response = post(client, action, {**fields, name: bad})
        assert response.status_code < 500, (action, name, bad[:40], response.status_code)
        location = response.get("Location", "")
        assert not location.startswith(("//", "http")), (action, name, location)
        sent += 1
    return sent


def fuzz(
    client: Client,
    url: str,
    *,
    skip: tuple[str, ...] = ("logout",),
    only: tuple[str, ...] = (),
    values: Iterable[str] = HOSTILE,
) -> set[str]:
    """Every POST form on ``url`` (but those whose action names a word of ``skip``, or
    only those naming one of ``only``), fuzzed. Returns the forms' keys (``form_key``)."""
    fuzzed = set()
    for action, fields in forms_of(client, url):
        if any(word in action for word in skip):
            continue
        if only and not any(word in action for word in only):
            continue
        assert fuzz_form(client, action, fields, values)
        fuzzed.add(form_key(action))
    return fuzzed


def expected(test: str) -> set[str]:
    return {key for key, where in POST_FORMS.items() if where == test}


def logged_in(user: Any) -> Client:
    web = Client(raise_request_exception=False)
    web.force_login(user)
    return web


def assert_whole(game: Game) -> None:
    """Every write was whole: the event log numbers 1..event_seq, each thread's posts
    1..n, and nothing stored carries a value the forms refuse."""
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.event_seq + 1))
    threads: dict[str, list[int]] = {}
    for thread, number in Post.objects.filter(game=game).values_list("thread", "number"):
        threads.setdefault(thread, []).append(number)
    for thread, numbers in threads.items():
        assert sorted(numbers) == list(range(1, len(numbers) + 1)), thread
    for body in Post.objects.filter(game=game).values_list("body", flat=True):
        assert len(body) <= 20_000 and "\x00" not in body
    for absence in Absence.objects.filter(slot__game=game):
        assert absence.starts <= absence.ends and len(absence.note) <= 200
    for action in NightAction.objects.filter(phase__game=game):
        assert all(isinstance(t, int) for t in action.targets) and not action.extra


# -- the tests --------------------------------------------------------------------------
def test_every_post_view_of_the_site_is_fuzzed():
    def names(patterns: list[Any], namespace: str = "") -> set[str]:
        found = set()
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern) in ("admin/", "api/v1/"):
                    continue  # Django's admin; the API (tests/site/test_api_bad_input.py)
                inner = f"{pattern.namespace}:" if pattern.namespace else namespace
                found |= names(pattern.url_patterns, inner)
            elif isinstance(pattern, URLPattern) and pattern.name:
                found.add(namespace + pattern.name)
        return found

    posted = {key.split("/")[0] for key in POST_FORMS}
    assert not posted & READ_ONLY
    listed = posted | READ_ONLY | set(SAME_PATH)
    site = names(get_resolver().url_patterns)
    assert listed <= site, listed - site
    # A view the site does not list must be one of allauth's that takes no argument: a
    # newer allauth may add some (its version is not pinned), and each is fuzzed, signed
    # in and out, by ``test_allauths_other_views_answer_hostile_input``.
    assert all(name in allauth_others() for name in site - listed), site - listed
    assert all(reverse(alias) == reverse(name) for alias, name in SAME_PATH.items())


def allauth_others() -> set[str]:
    """allauth's views the site does not list, whose URL takes no argument."""
    listed = {key.split("/")[0] for key in POST_FORMS} | READ_ONLY | set(SAME_PATH)

    def views(patterns: list[Any], inside: bool) -> set[str]:
        found = set()
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                at = inside or str(pattern.pattern) == "accounts/"
                found |= views(pattern.url_patterns, at)
            elif inside and pattern.name and not pattern.pattern.regex.groups:
                found.add(pattern.name)
        return found

    return views(get_resolver().url_patterns, False) - listed


def test_allauths_other_views_answer_hostile_input(make_users):
    (person,) = make_users(1, prefix="other")
    for web in (Client(raise_request_exception=False), logged_in(person)):
        for name in sorted(allauth_others()):
            url = reverse(name)
            assert web.get(url).status_code < 500, url
            fields = {f: "" for f in ("code", "email", "login", "password", "next")}
            for field in fields:
                for bad in NUMBERS_AND_TEXT:
                    answer = post(web, url, {**fields, field: bad})
                    assert answer.status_code < 500, (url, field, bad[:20])
                    location = answer.get("Location", "")
                    assert not location.startswith(("//", "http")), (url, location)


def test_the_account_forms():
    web = Client(raise_request_exception=False)
    fuzzed = fuzz(web, "/accounts/signup/") | fuzz(web, "/accounts/login/")
    # Log out is a button of every page of a signed-in person; its ``next`` is read too.
    fuzz_form(web, "/accounts/logout/", {})
    fuzzed.add(form_key("/accounts/logout/"))
    assert fuzzed >= expected("accounts")
    assert Game.objects.count() == 0


def test_the_account_pages(settings, make_users):
    # allauth's own limits (5 password changes a minute...) would answer most tries 429.
    settings.ACCOUNT_RATE_LIMITS = False
    person, passwordless = make_users(2, prefix="acct")
    old_hash = person.password
    EmailAddress.objects.create(user=person, email="acct@example.com", verified=True, primary=True)
    pending = EmailAddress.objects.create(user=person, email="acct2@example.com")
    passwordless.set_unusable_password()
    passwordless.save()
    web = logged_in(person)
    fuzzed = set()
    for url in ("/accounts/email/", "/accounts/password/change/", "/accounts/reauthenticate/"):
        fuzzed |= fuzz(web, url)
    fuzzed |= fuzz(logged_in(passwordless), "/accounts/password/set/")
    key = EmailConfirmationHMAC(pending).key
    fuzzed |= fuzz(Client(raise_request_exception=False), f"/accounts/confirm-email/{key}/")
    anon = Client(raise_request_exception=False)
    fuzzed |= fuzz(anon, "/accounts/password/reset/")
    link = reverse(
        "account_reset_password_from_key",
        kwargs={
            "uidb36": user_pk_to_url_str(person),
            "key": default_token_generator.make_token(person),
        },
    )
    form_page = anon.get(link)["Location"]  # allauth keeps the key in the session
    fuzzed |= fuzz(anon, form_page)
    assert fuzzed >= expected("account pages")
    person.refresh_from_db()
    assert person.password == old_hash  # no hostile value became a password
    for email in EmailAddress.objects.values_list("email", flat=True):
        assert "\x00" not in email and len(email) <= 254


def test_the_unsubscribe_form(make_users):
    # The one-click unsubscribe is a POST without a session or CSRF cookie: the token is
    # its authority, and hostile fields beside it change nothing else.
    (person,) = make_users(1, prefix="reader")
    url = mail.unsubscribe_url(person.pk, "phase_started").removeprefix(settings.SITE_URL)
    fuzzed = fuzz(Client(raise_request_exception=False), url)
    assert fuzzed >= expected("unsubscribe")
    prefs = NotificationPrefs.objects.get(user=person)
    assert set(prefs.channels) == {"phase_started"}


def test_the_push_buttons_take_hostile_json(make_game):
    """The settings page's push buttons post JSON (``static/js/push.js``): every hostile
    value in every field, and bodies that are no JSON, answer a JSON 4xx and store nothing."""
    from notifications.models import PushDevice
    from notifications.push import b64url

    web = logged_in(make_game("forum-vanilla").slots.order_by("seat").first().user)
    good = {
        "endpoint": "https://push.example/send/1",
        "keys": {"p256dh": b64url(b"\x04" + b"k" * 64), "auth": b64url(b"a" * 16)},
    }
    bodies: list[Any] = ["", "{", "null", "[]", '"x"', b"\xed\xa0\x80", {"subscription": None}]
    for value in [*HOSTILE, 5, None, [], {}]:
        bodies += [
            {"subscription": value},
            {"subscription": {**good, "endpoint": value}},
            {"subscription": {**good, "keys": value}},
            {"subscription": {**good, "keys": {**good["keys"], "p256dh": value}}},
            {"subscription": {**good, "keys": {**good["keys"], "auth": value}}},
            {"endpoint": value},
        ]
    fuzzed = set()
    for name in ("push_subscribe", "push_unsubscribe"):
        for body in bodies:
            raw = body if isinstance(body, str | bytes) else json.dumps(body)
            answer = web.post(
                reverse(f"notifications:{name}"), raw, content_type="application/json"
            )
            assert answer.status_code in (400, 404), (name, raw[:80], answer.status_code)
            assert answer.json()["error"]
        fuzzed.add(f"notifications:{name}")
    assert fuzzed == expected("push buttons")
    assert not PushDevice.objects.exists()


@pytest.mark.slow
def test_the_notification_forms(make_game):
    from notifications.models import NotificationPrefs

    game = make_game("forum-vanilla")  # the players have unread notifications: a button
    player = game.slots.order_by("seat").first().user
    web = logged_in(player)
    fuzzed = fuzz(web, "/notifications/settings/") | fuzz(web, "/notifications/")
    assert fuzzed >= expected("notifications")
    for prefs in NotificationPrefs.objects.all():  # nothing out of range was stored
        assert 0 <= prefs.reminder_hours <= 48 and 1 <= prefs.digest_minutes <= 1440
        assert all(c in ("inbox", "email", "both", "off") for c in prefs.channels.values())


def test_the_person_token_and_unlock_forms(make_users):
    from games.login_unlock import link_for
    from games.models import PersonToken
    from games.services import person_tokens

    (person,) = make_users(1, prefix="tok")
    person_tokens.create_token(person)
    fuzzed = fuzz(logged_in(person), "/accounts/tokens/", values=NUMBERS_AND_TEXT)
    fuzzed |= fuzz(Client(raise_request_exception=False), link_for(person))
    assert fuzzed >= expected("person tokens")
    for token in PersonToken.objects.all():  # nothing hostile was stored
        assert "\x00" not in token.name and len(token.name) <= 80


def test_the_open_data_form(make_users):
    from games.models import OpenDataConsent

    (person,) = make_users(1, prefix="data")
    fuzzed = fuzz(logged_in(person), "/accounts/open-data/", values=NUMBERS_AND_TEXT)
    assert fuzzed >= expected("open data")
    # Whatever came in, the choice is one row or none: a hostile value is a plain "no".
    assert OpenDataConsent.objects.filter(user=person).count() <= 1


def test_the_language_forms(make_users):
    from games.models import AccountSettings

    (person,) = make_users(1, prefix="lang")
    fuzzed = fuzz(logged_in(person), "/accounts/language/", values=NUMBERS_AND_TEXT)
    visitor = Client(raise_request_exception=False)
    fuzzed |= fuzz(visitor, "/", only=("setlang",), values=NUMBERS_AND_TEXT)
    assert fuzzed >= expected("language")
    # Whatever came in, the choice is one of the site's languages or none.
    assert set(AccountSettings.objects.values_list("language", flat=True)) <= {"", "en", "ru"}


def test_the_agent_forms(host):
    from agents import services as agent_services
    from games.models import Agent, AgentToken

    agent_services.register_agent(host, "fuzzbot")
    agent_services.create_token(host, "fuzzbot")
    web = logged_in(host)
    fuzzed = fuzz(web, "/agents/", values=NUMBERS_AND_TEXT)
    fuzzed |= fuzz(web, "/agents/fuzzbot/", values=NUMBERS_AND_TEXT)
    assert fuzzed >= expected("agents")
    for agent in Agent.objects.select_related("user"):  # nothing hostile was stored
        name = agent.user.username
        assert "\x00" not in name + agent.description + agent.code_url and len(name) <= 150
        assert len(agent.description) <= 2000 and len(agent.code_url) <= 200
        assert agent.code_url == "" or agent.code_url.startswith("http")
    assert all(len(t.name) <= 80 for t in AgentToken.objects.all())


def test_the_league_forms(make_users):
    from league.models import LeagueQueueEntry

    (person,) = make_users(1, prefix="leaguer")
    web = logged_in(person)
    fuzzed = fuzz(web, "/league/", only=("/league/forum-vanilla/",))  # the join button
    assert LeagueQueueEntry.objects.filter(user=person, setup="forum-vanilla").exists()
    fuzzed |= fuzz(web, "/league/", only=("/league/forum-vanilla/",))  # now: leave
    assert fuzzed >= expected("league")
    assert not LeagueQueueEntry.objects.exists()


def test_the_series_forms(make_users):
    from league.models import Series
    from league.series import create_series

    players = make_users(7, prefix="entrant")
    staff = UserFactory(username="organiser", is_staff=True)
    made = create_series(staff, setup="forum-vanilla", entrants=[u.username for u in players])
    web = logged_in(staff)
    fuzzed = fuzz(web, "/league/series/", values=NUMBERS_AND_TEXT)  # the staff's form
    fuzzed |= fuzz(web, f"/league/series/{made.pk}/")  # "start the next game"
    assert fuzzed >= expected("series")
    assert Series.objects.count() == 1  # no hostile value made one
    assert_whole(made.series_games.get().game)


def test_the_moderation_forms(make_game, host):
    game = make_game("forum-vanilla")
    slots = list(game.slots.select_related("user").order_by("seat"))
    mafia = next(s for s in slots if s.is_mafia).user
    town = next(s for s in slots if not s.is_mafia).user
    services.submit_post(mafia, game.pk, body="in the chat", thread="mafia")
    moderator, other = UserFactory(username="fuzzmod"), UserFactory(username="fuzzmod2")
    moderation.set_moderator(moderator)
    moderation.set_moderator(other)
    # The reporters' forms: a public post, a mafia-chat post (the host reads it), a player.
    fuzzed = fuzz(logged_in(town), f"/games/{game.pk}/posts/1/report/", values=NUMBERS_AND_TEXT)
    fuzzed |= fuzz(logged_in(host), f"/games/{game.pk}/t/mafia/posts/1/report/")
    fuzzed |= fuzz(logged_in(town), f"/players/{mafia.username}/report/", values=NUMBERS_AND_TEXT)
    # The moderators' forms, with something in each part of the queue.
    warned = moderation.sanction(other, mafia, "warn", reason="spam")
    moderation.appeal(None, warned.pk, text="Not me.")
    moderation.sanction(other, mafia, "mute", reason="spam", days=1)
    moderation.declare_alt(UserFactory(username="fuzzalt"), town.username)
    mod_web = logged_in(moderator)
    fuzzed |= fuzz(mod_web, "/moderation/", values=NUMBERS_AND_TEXT)
    fuzzed |= fuzz(mod_web, f"/moderation/people/{mafia.username}/", values=NUMBERS_AND_TEXT)
    # The sanctioned person's appeal page (its signed link) and declaring an alternate.
    banned = moderation.sanction(other, town, "suspend", reason="abuse", days=2)
    appeal = f"/appeal/{appeal_token(banned.pk)}/"
    fuzzed |= fuzz(Client(raise_request_exception=False), appeal)
    fuzzed |= fuzz(logged_in(UserFactory(username="fuzzdecl")), "/accounts/alt/")
    assert fuzzed >= expected("moderation")
    for text in [
        *Report.objects.values_list("text", flat=True),
        *Sanction.objects.values_list("note", flat=True),
        *Appeal.objects.values_list("text", flat=True),
        *AltAccount.objects.values_list("note", flat=True),
    ]:  # nothing hostile was stored
        assert "\x00" not in text and len(text) <= 4000
    assert all(
        1 <= (s.ends_at - s.created_at).days <= 3650 for s in Sanction.objects.exclude(ends_at=None)
    )
    assert_whole(game)


# The create form has many fields: each value a test of its own (as one test it took 212 s
# of its 600 under the parallel suite).
@pytest.mark.slow
@pytest.mark.parametrize(
    "value", NUMBERS_AND_TEXT, ids=["32768", "huge", "-1", "nul", "surrogate", "long"]
)
def test_the_create_form(host, value):
    web = logged_in(host)
    fuzzed = fuzz(web, "/games/new/?setup=forum-cop-doctor-nine", values=[value])
    assert fuzzed >= expected("create")
    for game in Game.objects.all():  # every one created is whole
        assert_whole(game)


def test_the_sign_up_forms(make_game, host, make_users):
    game = make_game("forum-vanilla", start=False)
    (stranger,) = make_users(1, prefix="stranger")
    player = game.slots.order_by("seat").first().user
    fuzzed = fuzz(logged_in(stranger), f"/games/{game.pk}/")
    fuzzed |= fuzz(logged_in(player), f"/games/{game.pk}/")
    fuzzed |= fuzz(logged_in(host), f"/games/{game.pk}/")
    assert fuzzed >= expected("signups")
    assert_whole(game)


@pytest.mark.slow
def test_the_players_forms_by_day(make_game, host, make_users):
    game = make_game("forum-third-party-ten")
    town, goon = slot_of(game, "vanilla_townie"), slot_of(game, "goon")
    vig = slot_of(game, "day_vigilante")
    today = timezone.now().date()
    services.mark_away(town.user, game.pk, starts=today, ends=today)
    (stranger,) = make_users(1, prefix="stranger")
    web = logged_in(town.user)
    services.cast_vote(town.user, game.pk, goon.pk)  # so the page offers an unvote
    fuzzed = fuzz(web, f"/games/{game.pk}/")
    fuzzed |= fuzz(logged_in(goon.user), f"/games/{game.pk}/t/mafia/")
    fuzzed |= fuzz(logged_in(vig.user), f"/games/{game.pk}/role/")
    fuzzed |= fuzz(web, f"/games/{game.pk}/activity/")
    fuzzed |= fuzz(logged_in(stranger), f"/games/{game.pk}/activity/")  # joins the queue
    fuzzed |= fuzz(logged_in(stranger), f"/games/{game.pk}/activity/")  # leaves it
    assert fuzzed >= expected("day")
    assert_whole(game)


def test_the_agent_guess_form(make_game, host):
    from league.models import AgentGuess

    game = make_game("forum-vanilla", anonymous_names=True, blind=True)
    for goon in game.slots.filter(role="goon"):
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    town = slot_of(game, "vanilla_townie")
    fuzzed = fuzz(logged_in(town.user), f"/games/{game.pk}/review/", only=("/agent-guess/",))
    assert fuzzed >= expected("guesses")
    seats = set(game.slots.values_list("seat", flat=True))
    for guess in AgentGuess.objects.all():  # nothing hostile stored
        assert set(guess.seats) <= seats
    assert AgentGuess.objects.filter(person=town.user).count() <= 1


def test_the_whisper_form(make_game):
    game = make_game("forum-vanilla", whispers="private")
    town = slot_of(game, "vanilla_townie")
    fuzzed = fuzz(logged_in(town.user), f"/games/{game.pk}/whispers/")
    assert fuzzed >= expected("whispers")
    assert_whole(game)
    for body in Whisper.objects.filter(game=game).values_list("body", flat=True):
        assert len(body) <= 2_000 and "\x00" not in body


def test_the_belief_probes_form(make_game):
    from analytics.models import Probe

    game = make_game("forum-vanilla")
    town = slot_of(game, "vanilla_townie")
    fuzzed = fuzz(logged_in(town.user), f"/games/{game.pk}/probes/")
    assert fuzzed >= expected("probes")
    assert_whole(game)
    for p in Probe.objects.filter(game=game).values_list("probability", flat=True):
        assert 0 <= p <= 1  # nothing hostile stored


def test_the_bookmark_forms(make_game):
    from games.models import Bookmark

    game = make_game("forum-vanilla")
    services.submit_post(slot_of(game, "goon").user, game.pk, body="Us.", thread="mafia")
    goon = logged_in(slot_of(game, "goon").user)
    # A chat post bookmarked (its page has one form), then My bookmarks' note and remove
    # forms, then a game-thread post's page (the chat's bookmark is removed by then).
    fuzzed = fuzz(goon, f"/games/{game.pk}/t/mafia/posts/1/bookmark/")
    assert Bookmark.objects.exists()
    fuzzed |= fuzz(goon, "/bookmarks/")
    fuzzed |= fuzz(goon, f"/games/{game.pk}/posts/1/bookmark/")
    assert fuzzed >= expected("bookmarks")
    for note in Bookmark.objects.values_list("note", flat=True):  # nothing hostile stored
        assert len(note) <= 1_000 and "\x00" not in note


def test_the_will_form(make_game):
    game = make_game("forum-vanilla", last_wills=True)
    town = slot_of(game, "vanilla_townie")
    fuzzed = fuzz(logged_in(town.user), f"/games/{game.pk}/role/")
    assert fuzzed >= expected("wills")
    assert_whole(game)
    for will in Slot.objects.filter(game=game).values_list("will", flat=True):
        assert len(will) <= 2_000 and "\x00" not in will


@pytest.mark.slow
def test_the_players_forms_by_night(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    services.cut_deadline_now(host, game.pk)
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon.pk])
    web = logged_in(cop.user)
    fuzzed = fuzz(web, f"/games/{game.pk}/") | fuzz(web, f"/games/{game.pk}/role/")
    fuzzed |= fuzz(logged_in(goon.user), f"/games/{game.pk}/role/")
    assert fuzzed >= expected("night")
    assert_whole(game)


def _speaker(game: Game) -> Slot | None:
    """Who speaks now, in a speech or a question round (None: another step)."""
    game.refresh_from_db()
    slots = list(game.slots.order_by("seat").select_related("user"))
    view = turn_view(game, game.current_phase(), slots, None)
    if view["step"] not in ("speech", "question"):
        return None
    return next(s for s in slots if s.pk == view["speaker"]["slot_id"])


@pytest.mark.slow
def test_the_forms_of_a_table_day(make_game, host):
    # Power's question round: the reply form names the question's addressee; Pass.
    power = make_game("power-nine", table=True)
    fuzzed = fuzz(logged_in(_speaker(power).user), f"/games/{power.pk}/")
    assert_whole(power)
    # Classic: a speech's nomination, the vote, and the host's skip.
    game = make_game("classic-ten", table=True)
    services.advance_phase(game.pk, 1, now=timezone.now() + timedelta(days=2))  # night zero
    first = _speaker(game)
    fuzzed |= fuzz(logged_in(first.user), f"/games/{game.pk}/", only=("nominate",))
    target = game.slots.order_by("-seat").first()
    while (speaker := _speaker(game)) is not None:  # the others' speeches, to the vote
        try:
            services.nominate(speaker.user, game.pk, target.pk)
        except GameRuleError:
            services.pass_turn(speaker.user, game.pk)
    fuzzed |= fuzz(logged_in(first.user), f"/games/{game.pk}/", only=("vote",))
    fuzzed |= fuzz(logged_in(host), f"/games/{game.pk}/host/", only=("skip-turn",))
    assert fuzzed >= expected("table")
    assert_whole(game)


@pytest.mark.slow
def test_the_host_forms(make_game, host, make_users):
    game = make_game("forum-cop-doctor-nine")
    (queued,) = make_users(1, prefix="queued")
    services.join_queue(queued, game.pk)
    web = logged_in(host)
    url = f"/games/{game.pk}/host/"
    state_changes = ("cut", "modkill", "replace", "pause", "logout")
    fuzzed = fuzz(web, url, skip=state_changes)
    fuzzed |= fuzz(web, url, only=("pause",))
    fuzzed |= fuzz(web, url, only=("resume",))
    # Last, the forms that end phases and take players out: the game changes under them.
    fuzzed |= fuzz(web, url, only=("replace", "modkill", "cut"))
    assert fuzzed >= expected("host")
    assert_whole(game)


def test_the_setup_forms(host):
    saved = services.save_setup(host, "Mine", SETUPS["forum-vanilla"].game_kwargs())
    assert isinstance(saved, SavedSetup)
    web = logged_in(host)
    fuzzed = fuzz(web, "/setups/forum-vanilla/") | fuzz(web, f"/setups/saved/{saved.pk}/")
    assert fuzzed >= expected("setups")
    # The page's own 500 games (a hostile ``next`` beside them) and the digits Python reads
    # as numbers (Arabic-Indic 3) started runs; nothing else.
    assert set(SimulationRun.objects.values_list("games", flat=True)) == {3, 500}


def test_the_v_la_note_with_a_nul_byte_is_refused_with_a_message(make_game):
    """The 500 this issue found: the note went to PostgreSQL, which refuses NUL."""
    game = make_game("forum-vanilla")
    town = slots_of(game, "vanilla_townie")[0]
    today = timezone.now().date().isoformat()
    web = logged_in(town.user)
    response = web.post(
        f"/games/{game.pk}/away/", {"starts": today, "ends": today, "note": "back\x00soon"}
    )
    assert response.status_code == 302
    messages = [str(m) for m in response.wsgi_request._messages]
    assert messages == ["Note: Text may not contain NUL characters."]
    assert not Absence.objects.exists()


def test_pages_and_the_api_refuse_nul_alike(make_game):
    """One rule, one message: the form's and the serializer's answers agree."""
    game = make_game("forum-vanilla")
    town = slots_of(game, "vanilla_townie")[0]
    today = timezone.now().date().isoformat()
    api = Client()
    api.force_login(town.user)
    answer = api.post(
        f"/api/v1/games/{game.pk}/away/",
        {"starts": today, "ends": today, "note": "a\x00b"},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == "Note: Text may not contain NUL characters."
    assert answer.json()["code"] == "null_characters_not_allowed"
