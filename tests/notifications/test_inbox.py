"""The inbox page, the bell, the settings page and the notifications API: each person's own
notifications only, newest first, marked read when opened."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from notifications.kinds import NOTIFICATION_KINDS, SETTABLE_KINDS
from notifications.models import Notification, NotificationPrefs
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def note(user, text, minutes_ago=0, *, kind="phase_started", game=None, read=False, **extra):
    at = timezone.now() - timedelta(minutes=minutes_ago)
    return Notification.objects.create(
        user=user,
        game=game,
        kind=kind,
        text=text,
        link=extra.pop("link", "/games/1/"),
        created_at=at,
        updated_at=at,
        read_at=at if read else None,
        **extra,
    )


def bell_count(html: str) -> int:
    found = re.search(r"data-bell-count>(\d+)<", html)
    assert found, "no bell on the page"
    return int(found.group(1))


# -- the page ------------------------------------------------------------------------------
def test_the_inbox_lists_newest_first_marks_unread_and_shows_nobody_elses():
    me, other = UserFactory(), UserFactory()
    note(me, "Oldest thing", 30, read=True)
    note(me, "Newest thing", 1)
    note(me, "Middle thing", 10)
    note(me, "Mailed only", 0, in_inbox=False)
    note(other, "Somebody else's secret", 0)
    html = client_of(me).get("/notifications/").content.decode()
    assert html.index("Newest thing") < html.index("Middle thing") < html.index("Oldest thing")
    assert "Somebody else" not in html and "Mailed only" not in html
    assert html.count('class="unread-mark"') == 2
    assert "2 unread" in html and "Mark all read" in html
    assert bell_count(html) == 2
    assert "Notifications, </span>" in html  # the bell's words for screen readers


def test_the_inbox_needs_a_login_and_pages_are_25_long():
    assert client_of().get("/notifications/").status_code == 302
    me = UserFactory()
    for i in range(30):
        note(me, f"Thing number {i:02d}", 100 - i)
    client = client_of(me)
    first = client.get("/notifications/").content.decode()
    assert "Thing number 29" in first and "Thing number 04" not in first
    second = client.get("/notifications/?page=2").content.decode()
    assert "Thing number 04" in second and "Thing number 29" not in second
    assert client.get("/notifications/?page=junk").status_code == 200


def test_opening_one_marks_it_read_and_goes_where_it_points():
    me, other = UserFactory(), UserFactory()
    mine = note(me, "Day 2 started", link="/games/7/")
    theirs = note(other, "Their turn")
    client = client_of(me)
    answer = client.get(f"/notifications/{mine.pk}/open/")
    assert answer.status_code == 302 and answer["Location"] == "/games/7/"
    mine.refresh_from_db()
    assert mine.read_at is not None
    # Someone else's: not found, and still unread.
    assert client.get(f"/notifications/{theirs.pk}/open/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.read_at is None
    # A link that is not a path on this site never becomes an open redirect.
    odd = note(me, "Odd", link="//evil.example/")
    assert client.get(f"/notifications/{odd.pk}/open/")["Location"] == "/notifications/"


def test_mark_all_read_is_a_post_and_only_touches_mine():
    me, other = UserFactory(), UserFactory()
    note(me, "One")
    note(me, "Two")
    theirs = note(other, "Theirs")
    client = client_of(me)
    assert client.get("/notifications/read-all/").status_code == 405
    assert client.post("/notifications/read-all/").status_code == 302
    assert not Notification.objects.filter(user=me, read_at__isnull=True).exists()
    theirs.refresh_from_db()
    assert theirs.read_at is None
    assert bell_count(client.get("/").content.decode()) == 0


def test_the_bell_is_on_every_page_for_signed_in_people_only(make_game):
    game = make_game("forum-vanilla")
    player = game.slots.order_by("seat").first().user
    unread = Notification.objects.filter(user=player, in_inbox=True, read_at__isnull=True).count()
    assert unread >= 2  # the game started, day 1 started
    client = client_of(player)
    for path in ("/", f"/games/{game.pk}/", f"/games/{game.pk}/role/", "/notifications/settings/"):
        assert bell_count(client.get(path).content.decode()) == unread, path
    assert "data-bell-count" not in client_of().get("/").content.decode()


# -- settings ------------------------------------------------------------------------------
def _settings_form(**changes):
    data = {f"channel_{k}": v.default for k, v in NOTIFICATION_KINDS.items()}
    data.update(reminder_hours="2", digest_minutes="15")
    data.update(changes)
    return data


def test_settings_are_saved_and_grouped():
    me = UserFactory()
    client = client_of(me)
    html = client.get("/notifications/settings/").content.decode()
    assert "Games you play" in html and "Games you host" in html
    assert html.index("It is your turn at a table") < html.index("Games you host")
    assert html.index("Games you host") < html.index("Sign-ups are full")
    answer = client.post(
        "/notifications/settings/",
        _settings_form(
            channel_your_turn="off", reminder_hours="5", digest_minutes="60", desktop="on"
        ),
    )
    assert answer.status_code == 302
    prefs = NotificationPrefs.objects.get(user=me)
    assert prefs.channel("your_turn") == "off" and prefs.channel("prodded") == "both"
    assert (prefs.reminder_hours, prefs.digest_minutes, prefs.desktop) == (5, 60, True)


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"reminder_hours": "49"}, "less than or equal to 48"),
        ({"digest_minutes": "0"}, "greater than or equal to 1"),
        ({"digest_minutes": "lots"}, "Enter a whole number"),
        ({"channel_your_turn": "pigeon"}, "Select a valid choice"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_error(changes, says):
    me = UserFactory()
    answer = client_of(me).post("/notifications/settings/", _settings_form(**changes))
    assert answer.status_code == 200
    assert says in answer.content.decode()
    assert not NotificationPrefs.objects.filter(user=me).exists()


def test_the_settings_service_refuses_bad_values():
    from games.errors import InvalidInput
    from notifications.services import save_prefs

    me = UserFactory()
    for kwargs in (
        {"reminder_hours": -1},
        {"reminder_hours": 2.5},
        {"digest_minutes": 1441},
        {"channels": {"nope": "inbox"}},
        {"channels": {"prodded": "carrier pigeon"}},
    ):
        with pytest.raises(InvalidInput):
            save_prefs(me, **kwargs)
    assert save_prefs(me, reminder_hours=0).reminder_hours == 0


# -- API -----------------------------------------------------------------------------------
def test_the_api_lists_my_notifications_newest_first_with_absolute_links(make_game, settings):
    settings.SITE_URL = "https://mafia.example"
    game = make_game("forum-vanilla")
    me = game.slots.order_by("seat").first().user
    Notification.objects.filter(user=me).update(updated_at=timezone.now() - timedelta(days=1))
    newest = note(me, "Fresh one", link="/games/3/posts/4/")
    note(UserFactory(), "Not mine")
    body = client_of(me).get("/api/v1/notifications/").json()
    assert body["page"] == 1 and body["num_pages"] == 1
    assert body["count"] == Notification.objects.filter(user=me, in_inbox=True).count()
    first = body["results"][0]
    assert first == {
        "id": newest.pk,
        "game": None,
        "kind": "phase_started",
        "text": "Fresh one",
        "link": "https://mafia.example/games/3/posts/4/",
        "read": False,
        "created_at": first["created_at"],
        "updated_at": first["updated_at"],
        "count": 1,
    }
    assert {r["game"] for r in body["results"][1:]} == {game.pk}
    assert "Not mine" not in json.dumps(body)
    assert client_of().get("/api/v1/notifications/").status_code == 401


def test_the_api_marks_read_by_ids_or_all_and_ignores_other_peoples_ids():
    me, other = UserFactory(), UserFactory()
    a, b, c = note(me, "A"), note(me, "B"), note(me, "C")
    theirs = note(other, "Theirs")
    client = client_of(me)
    answer = client.post(
        "/api/v1/notifications/read/", {"ids": [a.pk, theirs.pk]}, content_type="application/json"
    )
    assert answer.status_code == 200 and answer.json() == {"unread": 2}
    theirs.refresh_from_db()
    assert theirs.read_at is None
    nothing = client.post("/api/v1/notifications/read/", {"all": False}, "application/json")
    assert nothing.json() == {"unread": 2}
    answer = client.post("/api/v1/notifications/read/", {"all": True}, "application/json")
    assert answer.json() == {"unread": 0}
    assert all(n.read_at for n in Notification.objects.filter(pk__in=[b.pk, c.pk]))
    assert Notification.objects.get(pk=theirs.pk).read_at is None


@pytest.mark.parametrize(
    "body",
    [{}, {"ids": [1], "all": True}, {"ids": "1"}, {"ids": [0]}, {"all": "maybe"}, {"ids": ["x"]}],
)
def test_bad_mark_read_bodies_get_a_clear_json_error(body):
    answer = client_of(UserFactory()).post("/api/v1/notifications/read/", body, "application/json")
    assert answer.status_code == 400
    error = answer.json()
    assert error["error"] and error["code"]


def test_the_api_settings_round_trip_and_refuse_bad_values():
    me = UserFactory()
    client = client_of(me)
    got = client.get("/api/v1/notifications/settings/").json()
    assert set(got["channels"]) == set(SETTABLE_KINDS)
    changed = client.put(
        "/api/v1/notifications/settings/",
        {"channels": {"your_turn": "inbox"}, "desktop": True},
        "application/json",
    ).json()
    assert changed["channels"]["your_turn"] == "inbox" and changed["desktop"] is True
    bad = client.put(
        "/api/v1/notifications/settings/", {"channels": {"prodded": "pigeon"}}, "application/json"
    )
    assert bad.status_code == 400 and bad.json()["field"] == "channels.prodded"
    bad = client.put("/api/v1/notifications/settings/", {"reminder_hours": 99}, "application/json")
    assert bad.status_code == 400 and bad.json()["field"] == "reminder_hours"


def test_redis_away_never_fails_the_change_and_the_push_is_retried(settings):
    """The channel layer's Redis refuses connections: marking read still commits, the
    push is logged and handed to the inbox thread for a retry (never raised)."""
    from games.live import inbox as live_inbox
    from notifications.services import mark_read
    from tests.live.ws_support import redis_layers

    layers = redis_layers()
    layers["default"]["CONFIG"]["hosts"] = [{"address": "redis://127.0.0.1:1/0"}]
    settings.CHANNEL_LAYERS = layers
    settings.LIVE_PUBLISH_IN_BACKGROUND = False
    me = UserFactory()
    mine = note(me, "Something")
    assert mark_read(me, [mine.pk]) == 0
    live_inbox.publish_inbox({me.pk})  # what the commit hook runs: it returns, quietly
    mine.refresh_from_db()
    assert mine.read_at is not None
    assert me.pk in live_inbox.SENDER.waiting()
    live_inbox.SENDER.forget_retries()  # no retry after this test (its rows are rolled back)
