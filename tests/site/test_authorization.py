"""The authorization table: every page, API endpoint and socket audience x every kind of
person -> allowed or denied, as data a reader can check against the rules.

People (``PERSONS``): ``anon`` (not logged in), ``spect`` (a logged-in outsider), ``town``
(the vigilante), ``mafia`` (the godfather), ``mason``, ``dead`` (the villager, modkilled on
day 1), ``replaced`` (the cop's first player, replaced by a newcomer: now an outsider),
``host``, ``other`` (the host of another game), ``cohost`` (a co-host of the game: unless a
row says otherwise, whatever the host gets) and ``uncohost`` (a co-host the host removed:
unless a row says otherwise, whatever the spectator gets). The game is the power-roles
setup.

States: ``day`` (a free-thread day), ``table`` (a table day: the question round, and it is
the town player's turn), ``night``, ``signups`` (a game in sign-ups: town, mafia, mason and
dead are simply signed-up players; nobody has a role yet) and ``over`` (the game has ended).

Outcomes: ``ok`` (done / shown), ``login`` (sent to log in: a redirect for pages, 401/403
``not_authenticated`` for the API), ``404`` (not there for you: private threads and pages
must not even admit they exist), ``no`` (refused with a message: 403, a 4xx rule error, or
a page's form shown again / a redirect with an error message).

Each cell is requested for real (the Django test client through the whole middleware
stack) inside a savepoint that is rolled back, so every cell starts from the same state.
A URL pattern without a row fails ``test_every_url_pattern_has_a_row``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.messages import constants as message_levels
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from agents import services as agent_services
from games import services
from games.errors import GameRuleError
from games.models import AgentToken, Bookmark, Game, PersonToken, Report, Slot
from games.reads.table import turn_view
from games.services import moderation as moderation_services
from games.services import person_tokens
from games.setups import SETUPS
from league import services as league_services
from notifications import push
from tests.conftest import slot_of
from tests.factories import UserFactory
from webhooks.models import GameWebhook

PERSONS = (
    "anon", "spect", "town", "mafia", "mason", "dead", "replaced", "host", "other", "cohost",
    "uncohost",
)  # fmt: skip
PLAYERS = ("town", "mafia", "mason", "dead")


# -- the notation of the table --------------------------------------------------------------
def cells(default: str, **by_person: str) -> dict[str, str]:
    unknown = set(by_person) - set(PERSONS)
    assert not unknown, unknown
    # A co-host has the host's powers; a removed one is a spectator again.
    if "host" in by_person:
        by_person.setdefault("cohost", by_person["host"])
    if "spect" in by_person:
        by_person.setdefault("uncohost", by_person["spect"])
    return {p: by_person.get(p, default) for p in PERSONS}


def everyone(outcome: str = "ok") -> dict[str, str]:
    return cells(outcome)


def logged_in(outcome: str = "ok", **by_person: str) -> dict[str, str]:
    """Anonymous people are sent to log in; everyone else gets ``outcome``."""
    return cells(outcome, anon="login", **by_person)


def only(
    *persons: str, others: str = "no", anon: str = "login", **exceptions: str
) -> dict[str, str]:
    """``persons`` may; anonymous people are sent to log in; everybody else gets ``others``
    (unless named in ``exceptions``)."""
    return cells(others, anon=anon, **dict.fromkeys(persons, "ok"), **exceptions)


def nobody(others: str = "no") -> dict[str, str]:
    return cells(others, anon="login")


@dataclass
class Row:
    what: str
    method: str
    path: str  # {g}: the game of the state; {slot}: a living town slot of that game
    expect: dict[str, dict[str, str]]  # state -> person -> outcome
    data: Callable[[Ctx, str], dict[str, Any]] | dict[str, Any] | None = None
    prep: Callable[[Ctx, str], None] | None = None  # runs inside the savepoint first
    api: bool = False


@dataclass
class Ctx:
    """One state: its game, the people's users and slots, and a bystander to aim at."""

    state: str
    game: Game
    users: dict[str, Any]
    slots: dict[str, Slot] = field(default_factory=dict)
    target: Slot | None = None
    # person -> their session cookie: signed in once per state, outside the cells'
    # savepoints (a sign-in writes a session row; a quarter of the table's time was that).
    sessions: dict[str, str] = field(default_factory=dict)

    def client(self, person: str) -> Client:
        """A fresh browser for ``person``, signed in (cookies a cell's answer set do not
        carry over to the next cell)."""
        client = Client()
        user = self.users.get(person)
        if user is not None:
            if person not in self.sessions:
                client.force_login(user)
                self.sessions[person] = client.cookies[settings.SESSION_COOKIE_NAME].value
            client.cookies[settings.SESSION_COOKIE_NAME] = self.sessions[person]
        return client

    def my_options(self, person: str) -> list[dict[str, Any]]:
        slot = self.slots.get(person)
        if slot is None or self.state != "night":
            return []
        self.game.refresh_from_db()
        return [o for o in services.night_options(self.game, slot) if o["choices"]]


def _action(ctx: Ctx, person: str) -> dict[str, Any]:
    """A legal action of this person tonight, or the mafia's kill for those without one."""
    options = ctx.my_options(person)
    if not options:
        return {"ability": "kill", "targets": [ctx.target.pk]}
    option = options[0]
    choice = next((c for c in option["choices"] if c == ctx.target.pk), option["choices"][0])
    return {"ability": option["ability"], "targets": [choice] * option["targets"]}


def _act_first(ctx: Ctx, person: str) -> None:
    """Send this person's action, so withdrawing it has something to withdraw."""
    if ctx.my_options(person):
        action = _action(ctx, person)
        services.submit_night_action(
            ctx.users[person], ctx.game.pk, ability=action["ability"], targets=action["targets"]
        )


def _vote_first(ctx: Ctx, person: str) -> None:
    # Someone who cannot vote is refused here, and their unvote is refused as it should be.
    with contextlib.suppress(GameRuleError):
        services.cast_vote(ctx.users[person], ctx.game.pk, ctx.target.pk)


def _form_action(ctx: Ctx, person: str) -> dict[str, Any]:
    action = _action(ctx, person)
    ability = action["ability"]
    data = {"form_ability": ability}
    for i, target in enumerate(action["targets"], start=1):
        data[f"act-{ability}-target_{i}"] = target
    return data


def _queue(ctx: Ctx, person: str) -> None:
    """Wait in the league's forum-vanilla queue, so leaving it has something to leave."""
    league_services.join_queue(ctx.users[person], "forum-vanilla")


def _blind(ctx: Ctx, person: str) -> None:
    """Make the game blind (with the masks it needs), so a guess of its agents' seats may
    be taken once it is over (league app; a ``prep``: anonymous cells see it not blind)."""
    Game.objects.filter(pk=ctx.game.pk).update(blind=True, anonymous_names=True)


# Who may guess a blind game's agents' seats, once it is over: whoever held a seat (the
# replaced player too), people only; not the hosts.
GUESSERS = {
    "day": nobody(),
    "over": only("town", "mafia", "mason", "dead", "replaced"),
}


def _ability(ctx: Ctx, person: str) -> str:
    return _action(ctx, person)["ability"]


def _token(ctx: Ctx, person: str) -> dict[str, Any]:
    user = ctx.users.get(person) or ctx.users["spect"]
    return {"username": user.username, "password": "pw"}


def _speech(ctx: Ctx, person: str) -> dict[str, Any]:
    """A post; in the power table's question round it names whom it asks."""
    return {"body": "hello"} | ({"to": ctx.target.pk} if ctx.state == "table" else {})


def _mafia_chat_post(ctx: Ctx, person: str) -> None:
    """The mafia chat's first post (the rows that bookmark it)."""
    services.submit_post(ctx.users["mafia"], ctx.game.pk, body="us", thread="mafia")


def _others_bookmark(ctx: Ctx, person: str) -> None:
    """The game thread's first post, bookmarked by "otherhost" (the rows that edit or
    remove it)."""
    services.bookmark_post(ctx.users["other"], ctx.game.pk, 1, note="theirs")


TARGET = lambda ctx, person: {"target": ctx.target.pk}  # noqa: E731
SLOT = lambda ctx, person: {"slot_id": ctx.target.pk}  # noqa: E731
HOST_OPS_STATES = ("day", "night")
# Chores that need a running game (V/LA, the replacement queue) after the end; a vote count
# to post needs a day.
GAME_OVER_WRITE = NO_COUNT = cells("no", anon="login")
G, A = "/games/{g}", "/api/v1/games/{g}"

# States where a row is not listed are not requested for it (e.g. a table-only endpoint at
# sign-ups); reads are listed in every state where they differ.
READ = ("day", "night", "table", "signups", "over")


def same(expect: dict[str, str], *states: str) -> dict[str, dict[str, str]]:
    return dict.fromkeys(states or READ, expect)


def _push_subscription(person: str) -> dict[str, Any]:
    """A browser's push subscription, as ``PushManager.subscribe`` gives it (keys only in
    shape: nothing is pushed here)."""
    return {
        "endpoint": f"https://push.example/send/{person}",
        "keys": {"p256dh": push.b64url(b"\x04" + b"k" * 64), "auth": push.b64url(b"a" * 16)},
    }


# Who may read which private thread (404 for everyone else, anonymous included).
MAFIA_CHAT = {
    **same(only("mafia", "host", others="404", anon="404"), "day", "night", "table"),
    "signups": everyone("404"),
    "over": everyone("ok"),
}
MASONS = {
    **same(only("mason", "host", others="404", anon="404"), "day", "night", "table"),
    "signups": everyone("404"),
    "over": everyone("ok"),
}
DEAD_CHAT = {
    **same(only("dead", "host", others="404", anon="404"), "day", "night", "table"),
    "signups": everyone("404"),
    "over": everyone("ok"),
}
PLAYING = ("town", "mafia", "mason", "dead")
ROLE_PM = {
    **same(only(*PLAYING, others="404", host="to-host"), "day", "night", "table", "over"),
    "signups": only(others="404", host="to-host"),
}
HOST_PAGE = same(only("host", others="404"))
ARCHIVE = {**same(everyone("404"), "day", "night", "table", "signups"), "over": everyone("ok")}
# The whispers (the games have private whispers): each player their own and the host all
# while it runs (404 for everyone else: nothing says whether there are any), all after it.
WHISPERS = {
    **same(only(*PLAYING, "host", others="404", anon="404"), "day", "night", "table"),
    "signups": everyone("404"),
    "over": everyone("ok"),
}
# Whispering: living players by day (a free day or a table's), to a living player.
WHISPER = {
    **same(only("town", "mafia", "mason"), "day", "table"),
    **same(nobody(), "night", "signups", "over"),
}
WHISPER_BODY = lambda ctx, person: {"to": ctx.target.pk, "body": "psst"}  # noqa: E731
# Last wills (the games have them): a living player keeps theirs while the game runs; the
# role PM's form is a player's (404 for anyone without a role there, the host included).
WILL_FORM = {
    **same(only("town", "mafia", "mason", others="404", dead="no"), "day", "night", "table"),
    "signups": only(others="404"),
    "over": only(others="404", **dict.fromkeys(PLAYING, "no")),
}
# Belief probes (analytics): anyone may look at the form page (it says who may send) and
# ask the API (each is answered with the probes they may read: none of others' until the
# end); living players send them by day (a free day or a table's).
PROBE = {
    **same(only("town", "mafia", "mason"), "day", "table"),
    **same(nobody(), "night", "signups", "over"),
}
PROBE_FORM = lambda ctx, person: {f"p{ctx.target.pk}": "50"}  # noqa: E731
PROBE_BODY = lambda ctx, person: {  # noqa: E731
    "probabilities": [{"target": ctx.target.pk, "probability": 0.5}]
}
WILL_READ = {
    **same(only(*PLAYING, others="404"), "day", "night", "table", "over"),
    "signups": only(others="404"),
}
WILL_WRITE = {
    **same(only("town", "mafia", "mason"), "day", "night", "table"),
    **same(nobody(), "signups", "over"),
}


ROWS: list[Row] = [
    # -- site pages ---------------------------------------------------------------------------
    Row("favicon", "GET", "/favicon.ico", same(everyone())),
    Row("health", "GET", "/healthz", same(everyone(), "day")),
    # The manual (mafia_site/help.py): the same for everyone, built or not.
    Row("manual", "GET", "/help/", same(everyone(), "day")),
    Row("manual page", "GET", "/help/players/", same(everyone(), "day")),
    Row("admin", "GET", "/admin/", same(everyone("login"), "day")),
    Row("sign up form", "GET", "/accounts/signup/", same(everyone(), "day")),
    Row("log in form", "GET", "/accounts/login/", same(everyone(), "day")),
    Row("log out", "POST", "/accounts/logout/", same(everyone(), "day")),
    # The account pages (allauth): a signed-in person's own, or open to all (reset, links).
    Row("e-mail addresses", "GET", "/accounts/email/", same(logged_in(), "day")),
    Row("change password", "GET", "/accounts/password/change/", same(logged_in(), "day")),
    Row("set password", "GET", "/accounts/password/set/", same(logged_in(), "day")),
    Row("confirm it is you", "GET", "/accounts/reauthenticate/", same(logged_in(), "day")),
    Row("reset password form", "GET", "/accounts/password/reset/", same(everyone(), "day")),
    Row("reset mail sent", "GET", "/accounts/password/reset/done/", same(everyone(), "day")),
    Row("reset link", "GET", "/accounts/password/reset/key/1-bad/", same(everyone(), "day")),
    Row("reset done", "GET", "/accounts/password/reset/key/done/", same(everyone(), "day")),
    Row("verification mail sent", "GET", "/accounts/confirm-email/", same(everyone(), "day")),
    Row("verification link", "GET", "/accounts/confirm-email/bad-key/", same(everyone(), "day")),
    Row("account inactive", "GET", "/accounts/inactive/", same(everyone(), "day")),
    # Log-in by code is off: its page sends a stranger to the log-in form, others home.
    Row("log in by code", "GET", "/accounts/login/code/confirm/", same(logged_in(), "day")),
    # Reauthenticating by a mailed code is off too (allauth 65.22's): back to the password.
    Row(
        "reauthenticate by code", "GET", "/accounts/reauthenticate/code/", same(logged_in(), "day")
    ),
    Row(
        "reauthentication code",
        "GET",
        "/accounts/reauthenticate/code/confirm/",
        same(logged_in(), "day"),
    ),
    Row("lobby", "GET", "/", same(everyone(), "day")),
    # Ratings are public, people's and agents' alike (a player's page: the host's name).
    Row("leaderboard", "GET", "/leaderboard/forum/", same(everyone(), "day")),
    Row("player's page", "GET", "/players/host/", same(everyone(), "day", "over")),
    # Statistics from finished games (analytics): public, like the ratings.
    Row("setup statistics", "GET", "/setups/power-nine/stats/", same(everyone(), "day", "over")),
    Row("player statistics", "GET", "/players/host/stats/", same(everyone(), "day", "over")),
    Row(
        "behaviour leaderboard",
        "GET",
        "/leaderboard/forum/behaviour/?sort=survival&order=asc",
        same(everyone(), "day", "over"),
    ),
    Row("new game form", "GET", "/games/new/", same(logged_in(), "day")),
    Row("my games", "GET", "/my-games/", same(logged_in(), "day")),
    # The league's queues: anyone may look; anyone signed in may join, and leave a queue
    # they wait in (leaving one they are not in is refused).
    Row("league", "GET", "/league/", same(everyone(), "day")),
    Row("league join", "POST", "/league/forum-vanilla/join/", same(logged_in(), "day")),
    Row(
        "league leave",
        "POST",
        "/league/forum-vanilla/leave/",
        same(logged_in(), "day"),
        prep=_queue,
    ),
    Row("league leave, not queued", "POST", "/league/forum-vanilla/leave/", same(nobody(), "day")),
    # Duplicate series (league app): anyone may look; only staff make one or start its next
    # game (nobody here is staff: a signed-in person is refused 403).
    Row("series list", "GET", "/league/series/", same(everyone(), "day")),
    Row("a series", "GET", "/league/series/{series}/", same(everyone(), "day")),
    Row("make a series", "POST", "/league/series/new/", same(nobody(), "day")),
    # Blind games (league app): a player's guess of the agents' seats, after the end.
    Row("guess the agents' seats", "POST", G + "/agent-guess/", GUESSERS, prep=_blind),
    Row("guess, not a blind game", "POST", G + "/agent-guess/", same(nobody(), "day", "over")),
    Row(
        "start a series' next game",
        "POST",
        "/league/series/{series}/next/",
        same(nobody(), "day"),
    ),
    Row("notifications", "GET", "/notifications/", same(logged_in(), "day")),
    Row("notification settings", "GET", "/notifications/settings/", same(logged_in(), "day")),
    # Agents: "authbot" is the other host's (``states``); only its owner manages it, and a
    # stranger finds no such agent to manage (404), as a private thread is not there.
    Row("my agents", "GET", "/agents/", same(logged_in(), "day")),
    Row("register an agent", "POST", "/agents/", same(logged_in(), "day"), data={"name": "nb"}),
    Row("an agent's page", "GET", "/agents/authbot/", same(everyone(), "day")),
    Row(
        "edit an agent",
        "POST",
        "/agents/authbot/edit/",
        same(only("other", others="404"), "day"),
        data={"description": "edited"},
    ),
    Row(
        "new agent token",
        "POST",
        "/agents/authbot/tokens/new/",
        same(only("other", others="404"), "day"),
    ),
    Row(
        "revoke an agent token",
        "POST",
        "/agents/authbot/tokens/{token}/revoke/",
        same(only("other", others="404"), "day"),
    ),
    # A person's own API tokens: "otherhost"'s token is theirs alone (anyone else: 404).
    Row("API tokens page", "GET", "/accounts/tokens/", same(logged_in(), "day")),
    Row("open data page", "GET", "/accounts/open-data/", same(logged_in(), "day")),
    Row("open data choice", "POST", "/accounts/open-data/", same(logged_in(), "day")),
    # The account's language (games.i18n); a visitor's is a cookie a footer link sets.
    Row("language page", "GET", "/accounts/language/", same(logged_in(), "day")),
    Row("language choice", "POST", "/accounts/language/", same(logged_in(), "day")),
    Row("language switcher", "GET", "/language/ru/", same(everyone(), "day")),
    Row("new API token", "POST", "/accounts/tokens/new/", same(logged_in(), "day")),
    Row(
        "revoke an API token",
        "POST",
        "/accounts/tokens/{ptoken}/revoke/",
        same(only("other", others="404"), "day"),
    ),
    # The unlock link past the per-account log-in limit: a signed link, no session.
    Row("unlock link", "GET", "/accounts/unlock/bad-key/", same(everyone(), "day")),
    Row("mark all read", "POST", "/notifications/read-all/", same(logged_in(), "day")),
    # Web Push on and off for one's own browser (tests/site/test_web_push.py: someone
    # else's device is not one's to remove); the JSON of static/js/push.js.
    Row(
        "push on for this browser",
        "POST",
        "/notifications/push/subscribe/",
        same(logged_in(), "day"),
        data=lambda ctx, person: {"subscription": _push_subscription(person)},
        api=True,
    ),
    Row(
        "push off for this browser",
        "POST",
        "/notifications/push/unsubscribe/",
        same(logged_in(), "day"),
        data=lambda ctx, person: {"endpoint": _push_subscription(person)["endpoint"]},
        prep=lambda ctx, person: push.subscribe(ctx.users[person], _push_subscription(person)),
        api=True,
    ),
    # The web app's service worker and offline page: the same for everyone.
    Row("service worker", "GET", "/sw.js", same(everyone(), "day")),
    Row("offline page", "GET", "/offline/", same(everyone(), "day")),
    # -- bookmarks: of a post one may read; "otherhost"'s bookmark is theirs alone ----------
    Row("my bookmarks", "GET", "/bookmarks/", same(logged_in(), "day")),
    Row("bookmark a post", "GET", G + "/posts/1/bookmark/", same(logged_in(), "day")),
    Row(
        "save a bookmark",
        "POST",
        G + "/posts/1/bookmark/",
        same(logged_in(), "day"),
        data={"note": "hi"},
    ),
    Row(
        "bookmark a mafia-chat post",
        "POST",
        G + "/t/mafia/posts/1/bookmark/",
        same(only("mafia", "host", others="404"), "day"),
        data={"note": "hi"},
        prep=_mafia_chat_post,
    ),
    Row(
        "edit a bookmark's note",
        "POST",
        "/bookmarks/{bookmark}/",
        same(only("other", others="404"), "day"),
        data={"note": "mine"},
        prep=_others_bookmark,
    ),
    Row(
        "remove a bookmark",
        "POST",
        "/bookmarks/{bookmark}/remove/",
        same(only("other", others="404"), "day"),
        prep=_others_bookmark,
    ),
    # -- moderation: reports by anyone signed in; the queue for moderators ("other") ------
    Row("report a post", "GET", G + "/posts/1/report/", same(logged_in(), "day")),
    # Post #1 is the host's announcement: reporting oneself is refused.
    Row(
        "send a post report",
        "POST",
        G + "/posts/1/report/",
        same(logged_in(host="no", cohost="ok"), "day"),  # (a co-host did not write it)
        data={"reason": "spam"},
    ),
    Row(
        "report a mafia-chat post",
        "GET",
        G + "/t/mafia/posts/1/report/",
        {"day": only("mafia", "host", others="404"), "over": logged_in()},
    ),
    Row("report a player", "GET", "/players/standby/report/", same(logged_in(), "day")),
    Row(
        "send a player report",
        "POST",
        "/players/standby/report/",
        same(logged_in(), "day"),
        data={"reason": "abuse", "text": "rude"},
    ),
    Row("moderators' queue", "GET", "/moderation/", same(only("other"), "day")),
    Row("moderation log", "GET", "/moderation/log/", same(only("other"), "day")),
    Row("moderation record", "GET", "/moderation/people/standby/", same(only("other"), "day")),
    Row(
        "handle a report",
        "POST",
        "/moderation/reports/{report}/",
        same(only("other"), "day"),
        data={"action": "warn", "reason": "spam"},
    ),
    Row(
        "sanction a person",
        "POST",
        "/moderation/people/standby/",
        same(only("other"), "day"),
        data={"action": "mute", "reason": "spam", "days": "2"},
    ),
    # Ids that are nobody's: a moderator finds nothing there, anyone else is refused first.
    Row(
        "answer an appeal",
        "POST",
        "/moderation/appeals/999999999/",
        same(only(others="no", other="404"), "day"),
        data={"grant": "no"},
    ),
    Row(
        "decide an alternate",
        "POST",
        "/moderation/alts/999999999/",
        same(only(others="no", other="404"), "day"),
        data={"approve": "yes"},
    ),
    Row(
        "lift a sanction",
        "POST",
        "/moderation/sanctions/999999999/lift/",
        same(only(others="no", other="404"), "day"),
    ),
    Row("appeal page, forged link", "GET", "/appeal/forged/", same(everyone("404"), "day")),
    Row("declare an alternate", "GET", "/accounts/alt/", same(logged_in(), "day")),
    Row(
        "send an alternate declaration",
        "POST",
        "/accounts/alt/",
        same(logged_in(), "day"),
        data={"main": "standby"},
    ),
    # Only one's own notification opens (tests/notifications/test_inbox.py); this id is
    # nobody's.
    Row(
        "open a notification",
        "GET",
        "/notifications/999999999/open/",
        same(logged_in("404"), "day"),
    ),
    Row("game thread", "GET", G + "/", same(everyone())),
    Row("post permalink", "GET", G + "/posts/1/", same(everyone(), "day")),
    Row("mafia chat", "GET", G + "/t/mafia/", MAFIA_CHAT),
    Row("masons' thread", "GET", G + "/t/masons/", MASONS),
    Row("dead thread", "GET", G + "/t/dead/", DEAD_CHAT),
    Row("role PM", "GET", G + "/role/", ROLE_PM),
    Row("host dashboard", "GET", G + "/host/", HOST_PAGE),
    Row("archive", "GET", G + "/archive/", ARCHIVE),
    Row("review", "GET", G + "/review/", ARCHIVE),  # 404 for everyone until the end, too
    Row("whispers page", "GET", G + "/whispers/", WHISPERS),
    Row("whisper", "POST", G + "/whispers/send/", WHISPER, data=WHISPER_BODY),
    Row("last will form", "POST", G + "/role/will/", WILL_FORM, data={"text": "My will."}),
    Row("belief probes page", "GET", G + "/probes/", same(everyone())),
    Row("belief probes form", "POST", G + "/probes/", PROBE, data=PROBE_FORM),
    # -- page forms -----------------------------------------------------------------------------
    Row(
        "post in the game thread",
        "POST",
        G + "/post/",
        {
            "day": only("town", "mafia", "mason", "host"),
            "night": only("host"),  # the power setup has no night posting
            "table": only("town", "host"),  # it is the town player's turn
            "signups": only("town", "mafia", "mason", "dead", "host"),
        },
        data=_speech,
    ),
    Row(
        "post in the mafia chat",
        "POST",
        G + "/t/mafia/post/",
        same(only("mafia", "host", others="404"), "day", "night"),
        data={"body": "hello"},
    ),
    Row(
        "post in the masons' thread",
        "POST",
        G + "/t/masons/post/",
        same(only("mason", "host", others="404"), "day", "night"),
        data={"body": "hello"},
    ),
    Row(
        "post in the dead thread",
        "POST",
        G + "/t/dead/post/",
        same(only("dead", "host", others="404"), "day", "night"),
        data={"body": "hello"},
    ),
    Row(
        "join",
        "POST",
        G + "/join/",
        {"day": nobody(), "signups": only("spect", "replaced", "other")},
    ),
    Row(
        "leave",
        "POST",
        G + "/leave/",
        {"day": nobody(), "signups": only("town", "mafia", "mason", "dead")},
    ),
    Row("start", "POST", G + "/start/", {"day": nobody(), "signups": nobody()}),
    Row(
        "remove a sign-up",
        "POST",
        G + "/signups/{slot}/remove/",
        {"day": nobody(), "signups": only("host")},
    ),
    Row(
        "vote button",
        "POST",
        G + "/vote/",
        {"day": only("town", "mafia", "mason"), "night": nobody(), "table": nobody()},
        data=TARGET,
    ),
    Row(
        "unvote button",
        "POST",
        G + "/unvote/",
        {"day": only("town", "mafia", "mason"), "night": nobody()},
        prep=_vote_first,
    ),
    Row("nominate button", "POST", G + "/nominate/", same(nobody(), "day", "table"), data=TARGET),
    Row(
        "pass the turn",
        "POST",
        G + "/turn/pass/",
        {"day": nobody(), "table": only("town")},
    ),
    Row(
        "night action form",
        "POST",
        G + "/role/",
        {
            # Players are told they have no such ability now; the host is sent to the
            # dashboard (the host has no role PM); outsiders find no role PM at all.
            "day": only(others="404", host="to-host", **dict.fromkeys(PLAYING, "no")),
            "night": only("town", "mafia", others="404", host="to-host", mason="no", dead="no"),
        },
        data=_form_action,
    ),
    Row(
        "withdraw a night action",
        "POST",
        G + "/role/withdraw/",
        {"night": only("town", "mafia", others="404", mason="no", dead="no")},
        data=lambda ctx, person: {"ability": _ability(ctx, person)},
        prep=_act_first,
    ),
    Row(
        "host: extend",
        "POST",
        G + "/host/extend/",
        same(only("host", others="404"), *HOST_OPS_STATES),
        data={"amount": 1, "unit": "hours"},
    ),
    Row(
        "host: end the phase",
        "POST",
        G + "/host/cut/",
        same(only("host", others="404"), *HOST_OPS_STATES),
    ),
    Row(
        "host: skip the turn",
        "POST",
        G + "/host/skip-turn/",
        {"day": only(others="404", host="no"), "table": only("host", others="404")},
    ),
    Row("host: pause", "POST", G + "/host/pause/", same(only("host", others="404"), "day")),
    Row("host: resume", "POST", G + "/host/resume/", same(only(others="404", host="no"), "day")),
    Row(
        "host: modkill",
        "POST",
        G + "/host/modkill/",
        same(only("host", others="404"), *HOST_OPS_STATES),
        data=lambda ctx, person: {"slot": ctx.target.pk, "reason": "test"},
    ),
    Row(
        "host: replace",
        "POST",
        G + "/host/replace/",
        same(only("host", others="404"), "day"),
        data=lambda ctx, person: {"slot": ctx.target.pk, "username": "standby"},
    ),
    Row(
        "host: cancel the game",
        "POST",
        G + "/host/cancel/",
        {"day": only(others="404", host="no"), "signups": only("host", others="404")},
    ),
    Row(
        "host: add a co-host",
        "POST",
        G + "/host/cohost-add/",
        same(only("host", others="404", cohost="no"), "day"),
        data={"username": "standby", "kind": "cohost"},
    ),
    Row(
        "host: remove a co-host",
        "POST",
        G + "/host/cohost-remove/",
        same(only("host", "cohost", others="404"), "day"),
        data=lambda ctx, person: {"user_id": ctx.users["cohost"].pk},
    ),
    Row(
        "host: hand the game over",
        "POST",
        G + "/host/hand-over/",
        same(only("host", others="404", cohost="no"), "day"),
        data={"username": "standby"},
    ),
    Row(
        "host: post",
        "POST",
        G + "/host/post/",
        same(only("host", others="404"), *HOST_OPS_STATES),
        data={"thread": "mafia", "body": "hi"},
    ),
    # -- the JSON API --------------------------------------------------------------------------
    Row("OpenAPI document", "GET", "/api/v1/openapi.json", same(everyone(), "day"), api=True),
    Row("Swagger UI", "GET", "/api/v1/docs/", same(everyone(), "day"), api=True),
    Row("token", "POST", "/api/v1/auth/token/", same(everyone(), "day"), data=_token, api=True),
    Row("API my tokens", "GET", "/api/v1/auth/tokens/", same(logged_in(), "day"), api=True),
    Row(
        "API revoke my token",
        "POST",
        "/api/v1/auth/tokens/{ptoken}/revoke/",
        same(only("other", others="404"), "day"),
        api=True,
    ),
    Row("rule sets", "GET", "/api/v1/rulesets/", same(everyone(), "day"), api=True),
    Row(
        "API report",
        "POST",
        "/api/v1/reports/",
        same(logged_in(), "day"),
        data={"player": "standby", "reason": "spam"},
        api=True,
    ),
    Row("API my agents", "GET", "/api/v1/agents/", same(logged_in(), "day"), api=True),
    Row(
        "API register an agent",
        "POST",
        "/api/v1/agents/",
        same(logged_in(), "day"),
        data={"name": "nb"},
        api=True,
    ),
    Row("API an agent's page", "GET", "/api/v1/agents/authbot/", same(everyone(), "day"), api=True),
    Row(
        "API edit an agent",
        "PATCH",
        "/api/v1/agents/authbot/",
        same(only("other", others="404"), "day"),
        data={"model_name": "edited"},
        api=True,
    ),
    Row(
        "API agent tokens",
        "GET",
        "/api/v1/agents/authbot/tokens/",
        same(only("other", others="404"), "day"),
        api=True,
    ),
    Row(
        "API new agent token",
        "POST",
        "/api/v1/agents/authbot/tokens/",
        same(only("other", others="404"), "day"),
        api=True,
    ),
    Row(
        "API revoke an agent token",
        "POST",
        "/api/v1/agents/authbot/tokens/{token}/revoke/",
        same(only("other", others="404"), "day"),
        api=True,
    ),
    Row("API leaderboard", "GET", "/api/v1/leaderboard/forum/", same(everyone(), "day"), api=True),
    Row("API player", "GET", "/api/v1/players/host/", same(everyone(), "day", "over"), api=True),
    Row(
        "API setup statistics",
        "GET",
        "/api/v1/setups/power-nine/stats/",
        same(everyone(), "day", "over"),
        api=True,
    ),
    Row(
        "API player statistics",
        "GET",
        "/api/v1/players/host/stats/",
        same(everyone(), "day", "over"),
        api=True,
    ),
    Row("API my games", "GET", "/api/v1/my-games/", same(logged_in(), "day"), api=True),
    Row("API notifications", "GET", "/api/v1/notifications/", same(logged_in(), "day"), api=True),
    Row("API my bookmarks", "GET", "/api/v1/bookmarks/", same(logged_in(), "day"), api=True),
    Row(
        "API bookmark a mafia-chat post",
        "POST",
        "/api/v1/bookmarks/",
        same(only("mafia", "host", others="404"), "day"),
        data=lambda ctx, person: {"game_id": ctx.game.pk, "thread": "mafia", "number": 1},
        prep=_mafia_chat_post,
        api=True,
    ),
    Row(
        "API edit a bookmark's note",
        "PATCH",
        "/api/v1/bookmarks/{bookmark}/",
        same(only("other", others="404"), "day"),
        data={"note": "mine"},
        prep=_others_bookmark,
        api=True,
    ),
    Row(
        "API remove a bookmark",
        "DELETE",
        "/api/v1/bookmarks/{bookmark}/",
        same(only("other", others="404"), "day"),
        prep=_others_bookmark,
        api=True,
    ),
    Row(
        "API mark read",
        "POST",
        "/api/v1/notifications/read/",
        same(logged_in(), "day"),
        data={"all": True},
        api=True,
    ),
    Row(
        "API notification settings",
        "GET",
        "/api/v1/notifications/settings/",
        same(logged_in(), "day"),
        api=True,
    ),
    Row("setups", "GET", "/api/v1/setups/", same(everyone(), "day"), api=True),
    Row("API league queues", "GET", "/api/v1/queues/", same(everyone(), "day"), api=True),
    Row("API series list", "GET", "/api/v1/series/", same(everyone(), "day"), api=True),
    # Blind games' guesses: read by anyone after the end (anonymous cells: not blind, 422).
    Row(
        "API agent guesses",
        "GET",
        A + "/agent-guesses/",
        {"day": everyone("no"), "over": cells("ok", anon="no")},
        prep=_blind,
        api=True,
    ),
    Row(
        "API agent guesses, not blind",
        "GET",
        A + "/agent-guesses/",
        same(everyone("no"), "day", "over"),
        api=True,
    ),
    Row(
        "API guess the agents' seats",
        "POST",
        A + "/agent-guesses/",
        GUESSERS,
        data={"seats": [1]},
        prep=_blind,
        api=True,
    ),
    Row(
        "API a series",
        "GET",
        "/api/v1/series/{series}/",
        same(everyone(), "day"),
        api=True,
    ),
    Row(
        "API league join",
        "POST",
        "/api/v1/queues/forum-vanilla/join/",
        same(logged_in(), "day"),
        api=True,
    ),
    Row(
        "API league leave",
        "POST",
        "/api/v1/queues/forum-vanilla/leave/",
        same(logged_in(), "day"),
        prep=_queue,
        api=True,
    ),
    Row("games", "GET", "/api/v1/games/", same(everyone(), "day"), api=True),
    Row(
        "create a game",
        "POST",
        "/api/v1/games/",
        same(logged_in(), "day"),
        data={"title": "Another", "setup": "forum-vanilla"},
        api=True,
    ),
    Row("a game", "GET", A + "/", same(everyone()), api=True),
    Row("unknown API path", "GET", "/api/v1/games/abc/", same(everyone("404"), "day"), api=True),
    Row(
        "API join",
        "POST",
        A + "/join/",
        {"day": nobody(), "signups": only("spect", "replaced", "other")},
        api=True,
    ),
    Row(
        "API leave",
        "POST",
        A + "/leave/",
        {"day": nobody(), "signups": only("town", "mafia", "mason", "dead")},
        api=True,
    ),
    Row("API start", "POST", A + "/start/", {"day": nobody(), "signups": nobody()}, api=True),
    Row("API posts", "GET", A + "/posts/", same(everyone()), api=True),
    Row("API mafia chat", "GET", A + "/posts/?thread=mafia", MAFIA_CHAT, api=True),
    Row("API masons' thread", "GET", A + "/posts/?thread=masons", MASONS, api=True),
    Row("API dead thread", "GET", A + "/posts/?thread=dead", DEAD_CHAT, api=True),
    Row(
        "API post in the game thread",
        "POST",
        A + "/posts/",
        {
            "day": only("town", "mafia", "mason", "host"),
            "night": only("host"),
            "table": only("town", "host"),
        },
        data=_speech,
        api=True,
    ),
    Row(
        "API post in the mafia chat",
        "POST",
        A + "/posts/",
        same(only("mafia", "host", others="404"), "day", "night"),
        data={"body": "hello", "thread": "mafia"},
        api=True,
    ),
    Row(
        "API post in the dead thread",
        "POST",
        A + "/posts/",
        same(only("dead", "host", others="404"), "day", "night"),
        data={"body": "hello", "thread": "dead"},
        api=True,
    ),
    Row(
        "API vote count",
        "GET",
        A + "/vote-count/",
        {**same(everyone(), "day", "night", "table", "over"), "signups": everyone("404")},
        api=True,
    ),
    Row(
        "API vote",
        "POST",
        A + "/vote/",
        {"day": only("town", "mafia", "mason"), "night": nobody(), "table": nobody()},
        data=TARGET,
        api=True,
    ),
    Row(
        "API unvote",
        "POST",
        A + "/unvote/",
        {"day": only("town", "mafia", "mason"), "night": nobody()},
        prep=_vote_first,
        api=True,
    ),
    Row(
        "API nominate",
        "POST",
        A + "/nominate/",
        same(nobody(), "day", "table"),
        data=TARGET,
        api=True,
    ),
    Row("API turn", "GET", A + "/turn/", same(everyone()), api=True),
    Row(
        "API pass the turn",
        "POST",
        A + "/turn/pass/",
        {"day": nobody(), "table": only("town")},
        api=True,
    ),
    Row(
        "API role PM",
        "GET",
        A + "/role/",
        {
            **same(only("town", "mafia", "mason", "dead", others="404"), "day", "night"),
            "signups": only(others="404"),
            "over": only("town", "mafia", "mason", "dead", others="404"),
        },
        api=True,
    ),
    Row(
        "API night action",
        "POST",
        A + "/actions/",
        {"day": nobody(), "night": only("town", "mafia")},
        data=_action,
        api=True,
    ),
    Row(
        "API withdraw a night action",
        "DELETE",
        A + "/actions/{ability}/",
        # Nothing to withdraw: "no such action" is a 404 in the API.
        {"night": only("town", "mafia", mason="404")},
        prep=_act_first,
        api=True,
    ),
    Row("API host view", "GET", A + "/host/", same(only("host")), api=True),
    Row(
        "API host: extend",
        "POST",
        A + "/host/extend/",
        same(only("host"), *HOST_OPS_STATES),
        data={"minutes": 10},
        api=True,
    ),
    Row(
        "API host: skip the turn",
        "POST",
        A + "/host/skip-turn/",
        {"day": nobody(), "table": only("host")},
        api=True,
    ),
    Row(
        "API host: end the phase",
        "POST",
        A + "/host/cut/",
        same(only("host"), *HOST_OPS_STATES),
        api=True,
    ),
    Row("API host: pause", "POST", A + "/host/pause/", same(only("host"), "day"), api=True),
    Row("API host: resume", "POST", A + "/host/resume/", same(nobody(), "day"), api=True),
    Row(
        "API host: modkill",
        "POST",
        A + "/host/modkill/",
        same(only("host"), *HOST_OPS_STATES),
        data=SLOT,
        api=True,
    ),
    Row(
        "API host: replace",
        "POST",
        A + "/host/replace/",
        same(only("host"), "day"),
        data=lambda ctx, person: {"slot_id": ctx.target.pk, "username": "standby"},
        api=True,
    ),
    # Co-hosts: only the game's own host adds them or hands the game over; a co-host may
    # remove themself (step down); a finished game takes no new host.
    Row(
        "API co-hosts: add",
        "POST",
        A + "/cohosts/",
        {**same(only("host", cohost="no"), "day", "signups"), "over": nobody()},
        data={"username": "standby", "kind": "backup"},
        api=True,
    ),
    Row(
        "API co-hosts: remove",
        "DELETE",
        A + "/cohosts/{cohost}/",
        # Once the game is over its hosts are the record (the policy's "cohosts" control is
        # closed, as the dashboard's); a co-host may still step down.
        {**same(only("host", "cohost"), "day", "signups"), "over": only("cohost")},
        api=True,
    ),
    Row(
        "API hand the game over",
        "POST",
        A + "/hand-over/",
        {**same(only("host", cohost="no"), "day", "signups"), "over": nobody()},
        data={"username": "standby"},
        api=True,
    ),
    Row(
        "API host: remove a sign-up",
        "POST",
        A + "/host/remove-signup/",
        {"day": nobody(), "signups": only("host")},
        data=SLOT,
        api=True,
    ),
    Row(
        "API host: cancel the game",
        "POST",
        A + "/host/cancel/",
        {"day": nobody(), "signups": only("host")},
        api=True,
    ),
    Row(
        "API host: post",
        "POST",
        A + "/host/post/",
        same(only("host"), *HOST_OPS_STATES),
        data={"body": "hi", "thread": "masons"},
        api=True,
    ),
    Row(
        "API host: set the webhook",
        "POST",
        A + "/host/webhook/",
        same(only("host"), *HOST_OPS_STATES),
        data={"url": ""},
        api=True,
    ),
    Row(
        "API host: retry the webhook",
        "POST",
        A + "/host/webhook/retry/",
        same(only("host"), *HOST_OPS_STATES),
        prep=lambda ctx, person: GameWebhook.objects.get_or_create(
            game=ctx.game, defaults={"url": "https://chat.example/hook"}
        ),
        api=True,
    ),
    Row("API archive", "GET", A + "/archive/", ARCHIVE, api=True),
    Row("API review", "GET", A + "/review/", ARCHIVE, api=True),
    Row("API export", "GET", A + "/export/", ARCHIVE, api=True),  # open data: after the end
    # Everyone may ask; each is answered with the whispers they may read (none: an empty list).
    Row("API whispers", "GET", A + "/whispers/", same(everyone()), api=True),
    Row("API whisper", "POST", A + "/whispers/", WHISPER, data=WHISPER_BODY, api=True),
    Row("API belief probes", "GET", A + "/probes/", same(everyone()), api=True),
    Row("API send belief probes", "POST", A + "/probes/", PROBE, data=PROBE_BODY, api=True),
    Row("API last will", "GET", A + "/will/", WILL_READ, api=True),
    Row("API keep a last will", "PUT", A + "/will/", WILL_WRITE, data={"text": "x"}, api=True),
    # -- issue 13's pages and API (forum chores, day actions, setups, the simulator): by day,
    # by night and after the end, by person; unknown ids (a saved setup, a simulation, an
    # absence) answer 404 (tests/site/test_simulator.py checks a saved setup's owner).
    Row("votes page", "GET", G + "/votes/", same(cells("ok"), "day", "night", "over")),
    Row("activity page", "GET", G + "/activity/", same(cells("ok"), "day", "night", "over")),
    Row("multi-ISO page", "GET", G + "/iso/", same(cells("ok"), "day", "night", "over")),
    Row("V/LA page", "GET", G + "/away/", same(cells("no", anon="login"), "day", "night", "over")),
    Row(
        "V/LA mark",
        "POST",
        G + "/away/",
        {
            **same(cells("no", anon="login", town="ok", mafia="ok", mason="ok"), "day", "night"),
            "over": GAME_OVER_WRITE,
        },
        data={"starts": "2030-01-01", "ends": "2030-01-02", "note": "x"},
    ),
    Row(
        "V/LA cancel",
        "POST",
        G + "/away/1/cancel/",
        same(cells("no", anon="login"), "day", "night", "over"),
    ),
    Row(
        "replacement queue join",
        "POST",
        G + "/replacements/join/",
        {
            **same(
                cells("no", anon="login", spect="ok", replaced="ok", other="ok"), "day", "night"
            ),
            "over": GAME_OVER_WRITE,
        },
    ),
    Row(
        "role PM day action",
        "POST",
        G + "/role/day-action/",
        same(
            cells("404", anon="login", town="no", mafia="no", mason="no", dead="no"),
            "day",
            "night",
            "over",
        ),
        data=lambda ctx, p: {"ability": "kill", "target": ctx.target.pk},
    ),
    Row("setup page", "GET", "/setups/forum-vanilla/", same(cells("ok"), "day", "night", "over")),
    Row(
        "simulate setup",
        "POST",
        "/setups/forum-vanilla/simulate/",
        same(cells("ok", anon="login"), "day", "night", "over"),
        data={"games": 10},
    ),
    Row("saved setup page", "GET", "/setups/saved/1/", same(cells("404"), "day", "night", "over")),
    Row(
        "simulate saved setup",
        "POST",
        "/setups/saved/1/simulate/",
        same(cells("404", anon="login"), "day", "night", "over"),
        data={"games": 10},
    ),
    Row("simulation page", "GET", "/simulations/1/", same(cells("404"), "day", "night", "over")),
    # The signed token is the only authorisation (RFC 8058 one-click, no session): a forged
    # one works for nobody, signed in or not (tests/notifications/test_digests.py: real ones).
    Row("unsubscribe page", "GET", "/notifications/unsubscribe/forged:x:y/", same(everyone("no"))),
    Row("unsubscribe", "POST", "/notifications/unsubscribe/forged:x:y/", same(everyone("no"))),
    Row(
        "API vote counts",
        "GET",
        A + "/vote-counts/",
        same(cells("ok"), "day", "night", "over"),
        api=True,
    ),
    Row(
        "API post a vote count",
        "POST",
        A + "/vote-counts/",
        {"day": cells("no", anon="login", host="ok"), "night": NO_COUNT, "over": NO_COUNT},
        data={},
        api=True,
    ),
    Row(
        "API vote log", "GET", A + "/vote-log/", same(cells("ok"), "day", "night", "over"), api=True
    ),
    Row("API V/LA list", "GET", A + "/away/", same(cells("ok"), "day", "night", "over"), api=True),
    Row(
        "API V/LA mark",
        "POST",
        A + "/away/",
        {
            **same(cells("no", anon="login", town="ok", mafia="ok", mason="ok"), "day", "night"),
            "over": GAME_OVER_WRITE,
        },
        data={"starts": "2030-01-01", "ends": "2030-01-02"},
        api=True,
    ),
    Row(
        "API V/LA cancel",
        "DELETE",
        A + "/away/1/",
        same(
            cells("no", anon="login", town="404", mafia="404", mason="404", dead="404"),
            "day",
            "night",
            "over",
        ),
        api=True,
    ),
    Row("API queue", "GET", A + "/queue/", same(cells("ok"), "day", "night", "over"), api=True),
    Row(
        "API queue join",
        "POST",
        A + "/queue/join/",
        {
            **same(
                cells("no", anon="login", spect="ok", replaced="ok", other="ok"), "day", "night"
            ),
            "over": GAME_OVER_WRITE,
        },
        data={},
        api=True,
    ),
    Row(
        "API queue leave",
        "POST",
        A + "/queue/leave/",
        same(cells("no", anon="login"), "day", "night", "over"),
        data={},
        api=True,
    ),
    Row(
        "API host replace next",
        "POST",
        A + "/host/replace-next/",
        same(cells("no", anon="login"), "day", "night", "over"),
        data=lambda ctx, p: {"slot_id": ctx.target.pk},
        api=True,
    ),
    Row(
        "API day action",
        "POST",
        A + "/day-action/",
        same(cells("no", anon="login"), "day", "night", "over"),
        data=lambda ctx, p: {"ability": "kill", "target": ctx.target.pk},
        api=True,
    ),
]


# -- the states -------------------------------------------------------------------------------
def _people(game: Game, host: Any, other: Any, spect: Any) -> tuple[dict, dict]:
    """users and slots by kind of person in a started power-roles game (host's side made)."""
    slots = {
        "town": slot_of(game, "vigilante"),
        "mafia": slot_of(game, "godfather"),
        "mason": slot_of(game, "mason"),
        "dead": slot_of(game, "villager"),
    }
    cop = slot_of(game, "cop")
    users = {p: s.user for p, s in slots.items()}
    users.update(anon=None, spect=spect, replaced=cop.user, host=host, other=other)
    users.update(_cohosts(game, host))
    services.modkill(host, game.pk, slots["dead"].pk)
    newcomer = UserFactory(username=f"newcomer{game.pk}")
    services.replace_player(host, game.pk, cop.pk, newcomer)
    slots = {p: Slot.objects.select_related("user").get(pk=s.pk) for p, s in slots.items()}
    return users, slots


def _cohosts(game: Game, host: Any) -> dict[str, Any]:
    """The game's co-host, and a co-host the host has removed since."""
    users = {}
    for person in ("cohost", "uncohost"):
        user = get_user_model().objects.filter(username=person).first()
        users[person] = user or UserFactory(username=person)
        services.add_cohost(host, game.pk, person)
    services.remove_cohost(host, game.pk, users["uncohost"].pk)
    return users


def _outsiders() -> tuple[Any, Any]:
    """The people every state has beside the game's own: a spectator and another game's
    host (with an agent and its token: the rows that revoke a token)."""
    UserFactory(username="standby")
    spect = UserFactory(username="spectator")
    other = UserFactory(username="otherhost")
    services.create_game(other, title="Another game", **SETUPS["forum-vanilla"].game_kwargs())
    agent_services.register_agent(other, "authbot")
    agent_services.create_token(other, "authbot")
    person_tokens.create_token(other)
    # The other game's host is a site moderator, with a report waiting in the queue.
    moderation_services.set_moderator(other)
    moderation_services.file_report(spect, reason="spam", player="standby")
    return spect, other


def _day(make_game: Callable[..., Game], host: Any) -> Ctx:
    spect, other = _outsiders()
    game = make_game("power-nine", whispers="private", last_wills=True)
    users, slots = _people(game, host, other, spect)
    return Ctx("day", game, users, slots, slot_of(game, "doctor"))


def _table(make_game: Callable[..., Game], host: Any) -> Ctx:
    spect, other = _outsiders()
    # Turns of an hour: the town player's turn must still be running when its rows are
    # checked, however busy the machine.
    long = timedelta(hours=1)
    table = make_game(
        "power-nine",
        table=True,
        seed=11,
        turn_length=long,
        vote_length=long,
        whispers="private",
        last_wills=True,
    )
    t_users, t_slots = _people(table, host, other, spect)
    for _ in range(12):  # skip turns until it is the town player's
        table.refresh_from_db()
        phase = table.current_phase()
        view = turn_view(table, phase, list(table.slots.select_related("user")))
        if phase.is_day and view["speaker"] and view["speaker"]["slot_id"] == t_slots["town"].pk:
            break
        if phase.is_night:
            services.cut_deadline_now(host, table.pk)
        else:
            services.skip_speaker(host, table.pk)
    else:
        raise AssertionError("the town player never got a turn")
    return Ctx("table", table, t_users, t_slots, slot_of(table, "doctor"))


def _signups(make_game: Callable[..., Game], host: Any) -> Ctx:
    # The day game's players sign up for another game: in sign-ups they are simply
    # signed-up players, with nothing dealt yet.
    users = _day(make_game, host).users
    # (the setup's kwargs name every setting: these replace its values)
    kwargs = {**SETUPS["power-nine"].game_kwargs(), "whispers": "private", "last_wills": True}
    signups = services.create_game(host, title="Sign-ups", **kwargs)
    joined = [users[p] for p in PLAYERS]
    for n in range(4):
        joined.append(UserFactory(username=f"signup{n}"))
    for user in joined:
        services.join_game(user, signups.pk)
    _cohosts(signups, host)
    first = signups.slots.order_by("seat").first()
    return Ctx("signups", signups, users, {}, first)


def _night(ctx: Ctx, host: Any) -> Ctx:
    services.cut_deadline_now(host, ctx.game.pk)
    ctx.game.refresh_from_db()
    assert ctx.game.current_phase().is_night
    return Ctx("night", ctx.game, ctx.users, ctx.slots, ctx.target)


def _over(ctx: Ctx, host: Any) -> Ctx:
    for role in ("godfather", "mafia_roleblocker"):
        services.modkill(host, ctx.game.pk, slot_of(ctx.game, role).pk)
    ctx.game.refresh_from_db()
    assert ctx.game.is_finished
    return Ctx("over", ctx.game, ctx.users, ctx.slots, ctx.target)


# -- asking -----------------------------------------------------------------------------------
def _open_report() -> int:
    """The id of the report waiting in the queue (the rows that handle it)."""
    report = Report.objects.filter(status="open").order_by("pk").first()
    return report.pk if report else 0


def _agent_token() -> int:
    """The id of "authbot"'s token (the rows that revoke it)."""
    token = AgentToken.objects.filter(agent__user__username="authbot").first()
    return token.pk if token else 0


def _bookmark() -> int:
    """The id of "otherhost"'s bookmark (the rows that edit or remove it), made by the
    row's ``prep``."""
    bookmark = Bookmark.objects.filter(user__username="otherhost").first()
    return bookmark.pk if bookmark else 0


def _series(ctx: Ctx) -> int:
    """A duplicate series (league app) of the game's players, for the rows that read it or
    press its button, made inside the cell's savepoint (anonymous cells too: a ``prep``
    runs only for a signed-in person). It has no game of its own: the rows ask who may,
    not what it does."""
    from league.models import Series, SeriesEntrant

    series = Series.objects.create(setup="forum-vanilla", games=7, created_by=ctx.users["host"])
    for position, name in enumerate(PLAYERS):
        SeriesEntrant.objects.create(series=series, user=ctx.users[name], position=position)
    return series.pk


def _person_token() -> int:
    """The id of "otherhost"'s own API token (the rows that revoke it)."""
    token = PersonToken.objects.filter(user__username="otherhost").first()
    return token.pk if token else 0


def classify(response: Any, *, api: bool, method: str) -> str:
    status = response.status_code
    if status == 503 and response.request["PATH_INFO"] == "/healthz":
        return "ok" if "status" in response.json() else "no"  # public, says deadlines are late
    assert status < 500, (status, response.content[:300])
    if status == 404:
        return "404"
    if status in (401, 403) and api:
        code = (
            response.json().get("code")
            if response.get("Content-Type", "").startswith("application/json")
            else None
        )
        return "login" if code == "not_authenticated" else "no"
    if status in (301, 302):
        location = response["Location"]
        if "/login/" in location:
            return "login"
        if location.endswith("/host/") and response.request["PATH_INFO"].endswith("/role/"):
            return "to-host"
        queued = getattr(response.wsgi_request, "_messages", None)
        errors = [
            m for m in getattr(queued, "_queued_messages", []) if m.level == message_levels.ERROR
        ]
        return "no" if errors else "ok"
    if 200 <= status < 300:
        # A page form answered with the page again (not a redirect) was refused.
        return (
            "no"
            if method == "POST" and not api and "/accounts/" not in response.request["PATH_INFO"]
            else "ok"
        )
    return "no"


def ask(row: Row, ctx: Ctx, person: str) -> str:
    user = ctx.users.get(person)
    client = ctx.client(person)
    target = ctx.target.pk if ctx.target else 0
    with transaction.atomic():
        if row.prep is not None and user is not None:
            row.prep(ctx, person)
        path = row.path.format(
            g=ctx.game.pk,
            slot=target,
            ability=_ability(ctx, person),
            token=_agent_token(),
            report=_open_report(),
            ptoken=_person_token(),
            cohost=ctx.users["cohost"].pk,
            bookmark=_bookmark(),
            series=_series(ctx) if "{series}" in row.path else 0,
        )
        data = row.data(ctx, person) if callable(row.data) else (row.data or {})
        if row.method == "GET":
            response = client.get(path)
        elif row.api:
            response = client.generic(
                row.method, path, json.dumps(data), content_type="application/json"
            )
        else:
            response = client.post(path, data)
        transaction.set_rollback(True)
    return classify(response, api=row.api, method=row.method)


def check_state(ctx: Ctx, persons: tuple[str, ...] = PERSONS) -> list[str]:
    wrong = []
    for row in ROWS:
        expected = row.expect.get(ctx.state)
        if expected is None:
            continue
        for person in persons:
            got = ask(row, ctx, person)
            if got != expected[person]:
                wrong.append(
                    f"{ctx.state:8} {row.what:32} {person:8} expected {expected[person]}, got {got}"
                )
    return wrong


# Each state is a test of its own (about a thousand requests each): under the parallel
# run they spread over the workers, and none comes near the timeout on a busy machine.
STATES: dict[str, Callable[[Callable[..., Game], Any], Ctx]] = {
    "day": _day,
    "table": _table,
    "signups": _signups,
    "night": lambda make_game, host: _night(_day(make_game, host), host),
    "over": lambda make_game, host: _over(_night(_day(make_game, host), host), host),
}


# The day has every row (about 1,300 requests): its people are checked in three tests.
CASES = [
    *[("day", PERSONS[i : i + 3]) for i in range(0, len(PERSONS), 3)],
    *[(state, PERSONS) for state in STATES if state != "day"],
]


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("state", "persons"), CASES, ids=[s if p == PERSONS else f"{s}-{'-'.join(p)}" for s, p in CASES]
)
def test_the_authorization_table(state, persons, make_game, host):
    ctx = STATES[state](make_game, host)
    assert ctx.state == state
    wrong = check_state(ctx, persons)
    assert not wrong, "\n".join(wrong)


def test_every_person_of_every_state_is_checked():
    for state in STATES:
        checked = [p for s, persons in CASES if s == state for p in persons]
        assert sorted(checked) == sorted(PERSONS), state


def test_every_state_of_the_table_is_checked():
    stated = {s for row in ROWS for s in row.expect}
    assert stated == set(STATES), stated ^ set(STATES)


# -- coverage ---------------------------------------------------------------------------------
def _routes(patterns: list[Any], prefix: str = "") -> set[str]:
    out = set()
    for pattern in patterns:
        route = prefix + str(pattern.pattern).lstrip("^")
        if isinstance(pattern, URLResolver):
            if route == "admin/":
                out.add(route)  # Django's own admin (staff only) is one row
            else:
                out |= _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            out.add(route)
    return out


def _covered() -> set[str]:
    """The routes the table's rows ask."""
    covered = set()
    for row in ROWS:
        route = resolve(_row_path(row)).route.lstrip("^")  # a top-level regex keeps its anchor
        covered.add("admin/" if route.startswith("admin/") else route)
    return covered


def test_every_url_pattern_has_a_row():
    covered = _covered()
    missing = _routes(get_resolver().url_patterns) - covered - set(_allauth_unlisted(covered))
    assert not missing, f"URL patterns without a row in the authorization table: {missing}"


def _allauth_unlisted(covered: set[str]) -> dict[str, str]:
    """allauth's argument-free views without a row (a newer allauth within the allowed
    range may add some): route -> path. ``test_allauths_unlisted_views_never_fail`` asks
    each, so they are not left unasked until a row is written for them."""
    out = {}
    for route in _routes(get_resolver().url_patterns) - covered:
        if route.startswith("accounts/") and "<" not in route and "(" not in route:
            out[route] = "/" + route
    return out


@pytest.mark.django_db
def test_allauths_unlisted_views_never_fail(make_users):
    covered = _covered()
    (person,) = make_users(1, prefix="unlisted")
    signed_in = Client()
    signed_in.force_login(person)
    for path in _allauth_unlisted(covered).values():
        for client in (Client(), signed_in):
            assert client.get(path).status_code < 500, path


def _row_path(row: Row) -> str:
    return row.path.format(
        g=1, slot=1, ability="kill", token=1, report=1, ptoken=1, cohost=1, bookmark=1, series=1
    ).split("?")[0]


# -- the game socket's audiences ----------------------------------------------------------------
# Which audiences of the game's events a socket joins (``hello.audiences``), by person:
# "me" is the person's own slot, "other slots" any other player's private feed.
# The neighbors are a private team like the masons (issue 13): the host and, after the end,
# everyone get their feed too.
EVERYTHING = frozenset({"public", "host", "mafia", "masons", "neighbors", "dead", "other slots"})
SOCKET_AUDIENCES: dict[str, dict[str, frozenset[str]]] = {
    "during the game": {
        "anon": frozenset({"public"}),
        "spect": frozenset({"public"}),
        "town": frozenset({"public", "me"}),
        "mafia": frozenset({"public", "me", "mafia"}),
        "mason": frozenset({"public", "me", "masons"}),
        "dead": frozenset({"public", "me", "dead"}),
        "replaced": frozenset({"public"}),  # the slot's feed went with the slot
        "host": EVERYTHING,
        "other": frozenset({"public"}),
        "cohost": EVERYTHING,  # what the host follows
        "uncohost": frozenset({"public"}),  # removed: a spectator's
    },
    "over": {
        **dict.fromkeys(
            ("anon", "spect", "replaced", "host", "other", "cohost", "uncohost"), EVERYTHING
        ),
        **dict.fromkeys(PLAYING, EVERYTHING | {"me"}),
    },
}


def _abstract(audiences: list[str], my_slot: int | None) -> frozenset[str]:
    out = set()
    for audience in audiences:
        if audience.startswith("slot:"):
            out.add("me" if audience == f"slot:{my_slot}" else "other slots")
        else:
            out.add(audience)
    return frozenset(out)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(120)
async def test_the_socket_audiences_table(make_game, host, settings):
    import asyncio

    from channels.db import database_sync_to_async as db
    from django.db import connections

    from games import socket_db
    from games.live import publisher
    from tests.live.ws_support import open_socket, redis_layers

    settings.CHANNEL_LAYERS = redis_layers()
    settings.LIVE_PUBLISH_IN_BACKGROUND = False
    spect = await db(UserFactory)(username="spectator")
    other = await db(UserFactory)(username="otherhost")
    await db(services.create_game)(
        other, title="Another game", **SETUPS["forum-vanilla"].game_kwargs()
    )
    game = await db(make_game)("power-nine")
    users, slots = await db(_people)(game, host, other, spect)
    wrong = []

    async def check(state: str) -> None:
        for day_or_night in (1, 2) if state != "over" else (1,):
            for person in PERSONS:
                socket, ok, _ = await open_socket(game.pk, users[person])
                assert ok, person
                hello = socket.controls("hello")[0]
                await socket.close()
                my_slot = slots[person].pk if person in slots else None
                got = _abstract(hello["audiences"], my_slot)
                if got != SOCKET_AUDIENCES[state][person]:
                    wrong.append(
                        f"{state} {person}: expected "
                        f"{sorted(SOCKET_AUDIENCES[state][person])}, got {sorted(got)}"
                    )
            if state != "over" and day_or_night == 1:
                await db(services.cut_deadline_now)(host, game.pk)  # and again by night

    await check("during the game")
    await db(_over)(Ctx("night", game, users, slots, None), host)
    await check("over")
    assert await asyncio.to_thread(publisher.wait_until_published, 10)
    await db(connections.close_all)()
    await asyncio.to_thread(socket_db.close_connections)  # the sockets' threads' too
    assert not wrong, "\n".join(wrong)
