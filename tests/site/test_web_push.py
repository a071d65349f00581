"""Web Push (``notifications.push``): each desktop kind, caused by the real service call,
reaches a push service on this machine encrypted (RFC 8291, aes128gcm) to a browser's keys
made here, and decrypts to what the person's inbox shows; a gone device is forgotten; the
settings page's buttons store and delete only the signed-in person's own devices; the web
app's worker, offline page and manifest are served.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings as django_settings
from django.test import Client

from games import services
from games.services.whispers import send_whisper
from mafia_site.celery import app as celery_app
from notifications import push
from notifications.models import Notification, PushDevice
from notifications.services import open_notification
from tests.conftest import current_phase
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.django_db,
    # Eager Celery (``pushing``) warns that the deadlines' ``send_task`` still goes out.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]


# -- a push service and a browser, both here ---------------------------------------------
@dataclass
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes


@dataclass
class PushService:
    """An HTTP server in a thread taking pushes as a browser vendor's would: it records
    each POST and answers 201, or the status set for its path in ``answers``."""

    server: ThreadingHTTPServer
    received: list[Received] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def at(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service: PushService

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            service.received.append(Received(self.path, headers, body))
            self.send_response(service.answers.get(self.path, 201))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    service = PushService(ThreadingHTTPServer(("127.0.0.1", 0), Handler))
    thread = threading.Thread(target=service.server.serve_forever, daemon=True)
    thread.start()
    yield service
    service.server.shutdown()
    service.server.server_close()
    thread.join(5)


@dataclass
class Browser:
    """A browser's push subscription: its own P-256 key pair and auth secret."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def path(self) -> str:
        return urlsplit(self.endpoint).path

    def subscription(self) -> dict[str, Any]:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": push.b64url(public), "auth": push.b64url(self.auth)},
        }

    def read(self, received: Received) -> dict[str, Any]:
        assert received.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            received.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        message: dict[str, Any] = json.loads(plain)
        return message


@pytest.fixture
def pushing(settings: Any) -> Iterator[push.VapidKeys]:
    """The site's own keys, and Celery running the push task in the calling thread (the
    test's stand-in for the worker: the same task, after the same commit)."""
    public, private = push.new_key_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:ops@example.org"
    # The worker's path, in either lane: the embedded run's push thread reads with its own
    # connection, which cannot see a test's transaction (it has its own test below).
    settings.EMBEDDED_SERVICES = False
    keys = push.vapid_keys()
    assert keys is not None
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield keys
    finally:
        celery_app.conf.task_always_eager = eager


def device(user: Any, service: PushService, name: str) -> Browser:
    browser = Browser(f"{service.base}/push/{name}")
    push.subscribe(user, browser.subscription(), "Test browser")
    return browser


def pushed(service: PushService, browser: Browser) -> list[dict[str, Any]]:
    return [browser.read(r) for r in service.at(browser.path)]


def shows(message: dict[str, Any], user: Any) -> Notification:
    """The notification ``message`` is of: one of ``user``'s, word for word."""
    assert set(message) == {"title", "body", "url", "tag"}
    assert message["title"] == "Forum Mafia"
    note_id = int(message["url"].removeprefix("/notifications/").removesuffix("/open/"))
    note = Notification.objects.get(pk=note_id, user=user)
    assert message == {
        "title": "Forum Mafia",
        "body": note.text,
        "url": f"/notifications/{note.pk}/open/",
        "tag": f"mafia-notification-{note.pk}",
    }
    return note


# -- each desktop kind arrives -----------------------------------------------------------
def test_every_desktop_kind_arrives_encrypted_with_only_what_the_inbox_shows(
    make_game: Any, host: Any, push_service: PushService, pushing: push.VapidKeys,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    arrived: dict[str, int] = {}

    def take(browser: Browser, user: Any) -> list[Notification]:
        notes = [shows(m, user) for m in pushed(push_service, browser)]
        push_service.received[:] = [r for r in push_service.received if r.path != browser.path]
        for note in notes:
            arrived[note.kind] = arrived.get(note.kind, 0) + 1
        return notes

    # The start: "the game has started" and "Day 1 has started".
    game = make_game("forum-vanilla", start=False, whispers="private")
    seats = list(game.slots.select_related("user").order_by("seat"))
    target, a, b, c, listener = seats[:5]
    phone = device(target.user, push_service, "target-phone")
    laptop = device(target.user, push_service, "target-laptop")
    ears = device(listener.user, push_service, "listener")
    with django_capture_on_commit_callbacks(execute=True):
        services.start_game(host, game.pk)
    on_phone = take(phone, target.user)
    assert [n.kind for n in on_phone] == ["game_started", "phase_started"]
    assert [n.pk for n in take(laptop, target.user)] == [n.pk for n in on_phone]  # each device
    assert {n.kind for n in take(ears, listener.user)} == {"game_started", "phase_started"}

    # L-1: the target only, with the public count's words.
    with django_capture_on_commit_callbacks(execute=True):
        for voter in (a, b, c):
            services.cast_vote(voter.user, game.pk, target.pk)
    (l1,) = take(phone, target.user)
    assert l1.kind == "near_elimination" and "L-1" in l1.text
    assert not take(ears, listener.user)

    # A whisper: who whispered, never what.
    with django_capture_on_commit_callbacks(execute=True):
        send_whisper(a.user, game.pk, to=listener.pk, body="the goon is SECRETWORD")
    (whisper,) = take(ears, listener.user)
    assert whisper.kind == "whispered" and "SECRETWORD" not in whisper.text
    take(phone, target.user)

    # A table day: the speaker's turn, then the vote opening.
    city = make_game("city-ten", table=True)
    players = list(city.slots.filter(alive=True).order_by("seat").select_related("user"))
    second = players[1]
    table_phone = device(second.user, push_service, "second")
    with django_capture_on_commit_callbacks(execute=True):
        services.pass_turn(players[0].user, city.pk)
    assert [n.kind for n in take(table_phone, second.user)] == ["your_turn"]
    with django_capture_on_commit_callbacks(execute=True):
        for slot in players[1:]:
            services.pass_turn(slot.user, city.pk)
    assert "vote_opened" in {n.kind for n in take(table_phone, second.user)}
    assert current_phase(city).is_table_day

    assert set(arrived) == push.pushed_kinds()  # every kind marked desktop, and only those
    assert push.pushed_kinds() == {
        "game_started", "phase_started", "your_turn", "vote_opened", "near_elimination",
        "whispered",
    }  # fmt: skip


def test_a_push_is_signed_with_the_site_s_vapid_key_and_waits_for_an_offline_device(
    make_game: Any, host: Any, push_service: PushService, pushing: push.VapidKeys,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    game = make_game("forum-vanilla", start=False)
    player = game.slots.select_related("user").first()
    assert player is not None
    browser = device(player.user, push_service, "one")
    with django_capture_on_commit_callbacks(execute=True):
        services.start_game(host, game.pk)
    first = push_service.at(browser.path)[0]
    scheme, _, params = first.headers["authorization"].partition(" ")
    claims = dict(part.strip().split("=", 1) for part in params.split(","))
    assert scheme == "vapid" and claims["k"] == pushing.public
    assert int(first.headers["ttl"]) == push.TTL
    # Nobody without a device is pushed anything: only this browser's path was posted to.
    assert {r.path for r in push_service.received} == {browser.path}


def test_a_device_its_push_service_calls_gone_is_deleted_and_others_stay(
    make_game: Any, host: Any, push_service: PushService, pushing: push.VapidKeys,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    game = make_game("forum-vanilla", start=False)
    player = game.slots.select_related("user").first()
    assert player is not None
    gone, missing, busy, fine = (
        device(player.user, push_service, name) for name in ("gone", "missing", "busy", "fine")
    )
    push_service.answers.update({gone.path: 410, missing.path: 404, busy.path: 503})
    with django_capture_on_commit_callbacks(execute=True):
        services.start_game(host, game.pk)  # the start is not held back by any of it
    assert current_phase(game) is not None
    assert len(push_service.at(gone.path)) == 1  # tried once: then it was forgotten
    assert len(push_service.at(busy.path)) == 2 and len(push_service.at(fine.path)) == 2
    assert set(PushDevice.objects.values_list("endpoint", flat=True)) == {
        busy.endpoint,
        fine.endpoint,
    }


def test_a_notification_read_before_its_push_goes_out_is_not_pushed(
    make_game: Any, host: Any, push_service: PushService, pushing: push.VapidKeys
) -> None:
    game = make_game("forum-vanilla", start=False)
    player = game.slots.select_related("user").order_by("seat").first()
    assert player is not None
    browser = device(player.user, push_service, "one")
    services.start_game(host, game.pk)  # its commit's pushes not run: handed over below
    started, day = Notification.objects.filter(
        user=player.user, kind__in=push.pushed_kinds()
    ).order_by("pk")
    open_notification(player.user, started.pk)  # seen on the site first
    assert push.deliver([started.pk, day.pk]) == 1
    assert [m["body"] for m in pushed(push_service, browser)] == [day.text]


def test_a_game_action_never_fails_for_push(
    make_game: Any, host: Any, push_service: PushService, pushing: push.VapidKeys,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    game = make_game("forum-vanilla", start=False)
    player = game.slots.select_related("user").first()
    assert player is not None
    device(player.user, push_service, "one")
    push_service.server.shutdown()  # the push service away: the connection is refused
    push_service.server.server_close()

    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("the broker is away")

    with django_capture_on_commit_callbacks(execute=True):
        services.start_game(host, game.pk)
    monkeypatch.setattr(celery_app.tasks[push.SEND_TASK], "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    assert Notification.objects.filter(user=player.user, kind="phase_started").count() == 2
    assert PushDevice.objects.filter(user=player.user).exists()  # unreachable is not gone


# -- the settings page's buttons -------------------------------------------------------
def _post(client: Client, name: str, body: Any) -> Any:
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(f"/notifications/push/{name}/", raw, content_type="application/json")


def test_subscribe_and_unsubscribe_store_only_the_signed_in_person_s_devices(
    client: Client, push_service: PushService, pushing: push.VapidKeys
) -> None:
    me, other = UserFactory(username="me"), UserFactory(username="other")
    mine, theirs = (
        Browser(f"{push_service.base}/push/mine"),
        Browser(f"{push_service.base}/push/theirs"),
    )
    push.subscribe(other, theirs.subscription())
    client.force_login(me)
    answer = _post(client, "subscribe", {"subscription": mine.subscription()})
    assert answer.status_code == 200 and answer.json() == {"devices": 1}
    stored = PushDevice.objects.get(endpoint=mine.endpoint)
    assert stored.user == me and stored.auth == push.b64url(mine.auth)
    # Again from the same browser: the same device, not a second.
    assert _post(client, "subscribe", {"subscription": mine.subscription()}).json() == {
        "devices": 1
    }
    # Someone else's device is not one's to remove: not found, and it stays.
    refused = _post(client, "unsubscribe", {"endpoint": theirs.endpoint})
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert PushDevice.objects.filter(endpoint=theirs.endpoint, user=other).exists()
    gone = _post(client, "unsubscribe", {"endpoint": mine.endpoint})
    assert gone.status_code == 200 and gone.json() == {"devices": 0}
    assert not PushDevice.objects.filter(user=me).exists()
    # The settings page says it.
    page = client.get("/notifications/settings/").content.decode()
    assert f'data-push-key="{pushing.public}"' in page
    assert "Devices of yours with push on: 0." in page


URL = "https://push.example/x"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("{not json", "The body is not JSON."),
        (b"\xff\xfe", "The body is not JSON."),
        ("[1, 2]", "Send a JSON object."),
        ({}, "Send the browser's push subscription"),
        ({"subscription": {"endpoint": "x", "keys": []}}, "Send the browser's push subscription"),
        ({"subscription": {"endpoint": "ftp://h/x", "keys": {}}}, "endpoint is not"),
        ({"subscription": {"endpoint": "https://[::1/x", "keys": {}}}, "endpoint is not"),
        ({"subscription": {"endpoint": URL, "keys": {"p256dh": "AA", "auth": ""}}}, "keys.p256dh"),
        ({"subscription": {"endpoint": URL, "keys": {"p256dh": 5, "auth": None}}}, "keys.p256dh"),
    ],
)  # fmt: skip
def test_a_bad_subscription_is_a_clear_400_and_stores_nothing(
    client: Client, pushing: push.VapidKeys, body: Any, says: str
) -> None:
    client.force_login(UserFactory(username="me"))
    answer = _post(client, "subscribe", body)
    assert answer.status_code == 400
    assert answer["Content-Type"] == "application/json"
    assert says in answer.json()["error"] and answer.json()["code"] == "invalid"
    assert not PushDevice.objects.exists()


def test_a_bad_auth_secret_is_refused_too(client: Client, pushing: push.VapidKeys) -> None:
    client.force_login(UserFactory(username="me"))
    subscription = Browser("https://push.example/x").subscription()
    subscription["keys"]["auth"] = push.b64url(b"short")
    answer = _post(client, "subscribe", {"subscription": subscription})
    assert answer.status_code == 400 and "keys.auth" in answer.json()["error"]
    assert not PushDevice.objects.exists()


def test_signed_out_is_sent_to_log_in_and_a_get_is_refused(client: Client) -> None:
    answer = _post(client, "subscribe", {})
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    client.force_login(UserFactory(username="me"))
    assert client.get("/notifications/push/subscribe/").status_code == 405


# -- the keys --------------------------------------------------------------------------------
def test_without_keys_in_production_push_is_off_and_the_page_says_so(
    client: Client, settings: Any
) -> None:
    settings.WEBPUSH_VAPID_PUBLIC_KEY = settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_KEY_FILE = None
    assert push.vapid_keys() is None
    me = UserFactory(username="me")
    client.force_login(me)
    page = client.get("/notifications/settings/").content.decode()
    assert "Push notifications are not set up on this site" in page
    answer = _post(
        client, "subscribe", {"subscription": Browser("https://p.example/x").subscription()}
    )
    assert answer.status_code == 400 and "not set up" in answer.json()["error"]
    assert push.deliver([1, 2, 3]) == 0


def test_a_development_run_makes_its_key_pair_once_and_keeps_it(
    settings: Any, tmp_path: Path
) -> None:
    settings.WEBPUSH_VAPID_PUBLIC_KEY = settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_KEY_FILE = tmp_path / "data" / "webpush-vapid.json"
    first = push.vapid_keys()
    assert first is not None and settings.WEBPUSH_KEY_FILE.exists()
    push._file_keys.clear()  # another process, as it were: it reads the file
    assert push.vapid_keys() == first
    raw = push.b64url_bytes(first.public)
    assert len(raw) == 65 and raw[0] == 4  # an uncompressed P-256 point: what browsers take


# -- the web app ----------------------------------------------------------------------------
def test_the_service_worker_is_served_at_the_root_and_the_offline_page_is_plain(
    client: Client,
) -> None:
    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker["Content-Type"].startswith("text/javascript")
    assert worker["Service-Worker-Allowed"] == "/"
    assert "no-cache" in worker["Cache-Control"]
    source = b"".join(worker.streaming_content).decode()
    assert 'var OFFLINE = "/offline/"' in source and "showNotification" in source
    client.force_login(UserFactory(username="someone"))
    offline = client.get("/offline/").content.decode()
    assert "You are offline" in offline and "someone" not in offline  # the same for all
    assert client.post("/offline/").status_code == 405


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_real_icons_and_every_page_links_it(client: Client) -> None:
    static = Path(django_settings.BASE_DIR) / "static"
    manifest = json.loads((static / "manifest.json").read_text())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        file = static / icon["src"].removeprefix("/static/")
        if icon["type"] == "image/png":
            width, height = _png_size(file)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
        else:
            assert file.exists()
    assert {192, 512} <= sizes
    assert any(i.get("purpose") == "maskable" for i in manifest["icons"])
    page = client.get("/").content.decode()
    assert 'rel="manifest" href="/static/manifest.json"' in page
    assert '<meta name="theme-color"' in page and "js/pwa.js" in page


@pytest.mark.django_db(transaction=True)
def test_the_embedded_run_pushes_from_a_thread_of_its_own(
    make_game: Any, host: Any, push_service: PushService, settings: Any
) -> None:
    """No Celery worker in the embedded run: the commit hands the push to this process's
    push thread, and the game action returns without waiting for it."""
    settings.EMBEDDED_SERVICES = True
    settings.WEBPUSH_VAPID_PUBLIC_KEY, settings.WEBPUSH_VAPID_PRIVATE_KEY = push.new_key_pair()
    game = make_game("forum-vanilla", start=False)
    player = game.slots.select_related("user").order_by("seat").first()
    assert player is not None
    browser = device(player.user, push_service, "embedded")
    services.start_game(host, game.pk)
    deadline = time.monotonic() + 30  # a bound on the wait, not on the speed
    while len(push_service.at(browser.path)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    kinds = [shows(m, player.user).kind for m in pushed(push_service, browser)]
    assert kinds == ["game_started", "phase_started"]
