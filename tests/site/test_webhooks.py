"""The host's chat webhook: setting it (page, API, validation), its secrecy, and delivery
against a real HTTP receiver, calling the delivery function directly (no Celery: fast).
The real worker's part is in tests/live/test_webhooks_worker.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import services
from games.models import Post
from tests.servers import free_port
from tests.site.test_views import _create_post
from tests.webhook_receiver import webhook_receiver
from webhooks import delivery as webhooks
from webhooks import services as webhook_services
from webhooks.models import DeliveryStatus, GameWebhook, WebhookDelivery

pytestmark = pytest.mark.django_db

SECRET = "secret-hook-token"


@pytest.fixture(autouse=True)
def _webhook_settings(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    settings.WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on 127.0.0.1
    settings.WEBHOOK_RETRY_SECONDS = [0, 0, 0, 0]  # retried at once: no waiting here
    settings.WEBHOOK_TIMEOUT = 2
    settings.SITE_URL = "https://mafia.example"
    kicked: list[tuple] = []
    # No worker in these tests: record what would be queued instead of sending it.
    monkeypatch.setattr(webhooks, "kick", lambda game_id, eta=None: kicked.append((game_id, eta)))
    return kicked


def _with_webhook(make_game: Any, host: Any, url: str, **kw: Any) -> Any:
    game = make_game("forum-vanilla", start=False, **kw)
    webhook_services.set_webhook(host, game.pk, url)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    return game


def _announcements(game: Any) -> list[Post]:
    return list(Post.objects.filter(game=game, thread="public", is_auto=True).order_by("number"))


# -- delivery ---------------------------------------------------------------------------------
def test_announcements_arrive_in_order_with_the_right_json(make_game, host):
    with webhook_receiver() as receiver:
        game = _with_webhook(make_game, host, receiver.url)
        services.cut_deadline_now(host, game.pk)  # the day ends, the night begins
        services.cut_deadline_now(host, game.pk)  # the night ends, day 2 begins
        assert webhooks.deliver_game(game.pk) == len(_announcements(game)) >= 4
        got = receiver.delivered()
    posts = _announcements(game)
    assert [r.path for r in receiver.requests] == ["/api/webhooks/77/secret-hook-token"] * len(
        posts
    )
    assert receiver.requests[0].headers["Content-Type"] == "application/json"
    for body, post in zip(got, posts, strict=True):
        link = f"https://mafia.example/games/{game.pk}/posts/{post.number}/"
        assert set(body) == {"content", "text", "username", "allowed_mentions"}
        assert body["username"] == "Forum Mafia"
        assert body["allowed_mentions"] == {"parse": []}
        assert post.body in body["content"] and f"<{link}>" in body["content"]
        assert link in body["text"] and "Test forum-vanilla" in body["text"]
    assert "Day 1 begins" in got[0]["content"]
    assert "has been eliminated" in got[1]["content"] or "no elimination" in got[1]["content"]
    statuses = set(WebhookDelivery.objects.filter(game=game).values_list("status", flat=True))
    assert statuses == {DeliveryStatus.SENT}


def test_a_500_then_200_is_delivered_once_after_a_retry(make_game, host):
    with webhook_receiver(fail_first=2) as receiver:
        game = _with_webhook(make_game, host, receiver.url)
        webhooks.deliver_game(game.pk)
    assert [r.status for r in receiver.requests] == [500, 500, 204]
    assert len(receiver.delivered()) == 1
    row = WebhookDelivery.objects.get(game=game)
    assert (row.status, row.attempts) == (DeliveryStatus.SENT, 3)
    assert GameWebhook.objects.get(game=game).failure == ""


def test_retries_wait_their_backoff_and_later_posts_wait_behind(make_game, host, settings):
    settings.WEBHOOK_RETRY_SECONDS = [600, 600, 600, 600]
    with webhook_receiver(fail_first=1) as receiver:
        game = _with_webhook(make_game, host, receiver.url)
        services.cut_deadline_now(host, game.pk)
        webhooks.deliver_game(game.pk)
        assert [r.status for r in receiver.requests] == [500]  # the rest wait, in order
    first, *rest = WebhookDelivery.objects.filter(game=game).order_by("id")
    assert first.status == DeliveryStatus.PENDING and first.attempts == 1
    assert first.last_error == webhooks.NOT_TAKEN
    assert all(r.status == DeliveryStatus.PENDING and r.attempts == 0 for r in rest)
    assert webhooks.sweep() == []  # nothing due yet


def test_receiver_down_fails_shows_on_the_dashboard_and_retry_sends(
    make_game, host, client_for, _webhook_settings
):
    down = f"http://127.0.0.1:{free_port()}/hook/{SECRET}"
    game = _with_webhook(make_game, host, down)
    services.cut_deadline_now(host, game.pk)  # the game goes on meanwhile
    webhooks.deliver_game(game.pk)
    rows = list(WebhookDelivery.objects.filter(game=game).order_by("id"))
    assert {r.status for r in rows} == {DeliveryStatus.FAILED}
    assert rows[0].attempts == 5  # the first try and four retries
    hook = GameWebhook.objects.get(game=game)
    assert hook.failure == webhooks.NOT_TAKEN and SECRET not in hook.failure
    page = client_for(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "The webhook failed: the chat server did not take the post" in page
    assert "(last tried " in page
    assert "Retry the failed posts" in page
    game.refresh_from_db()
    assert game.phase_number == 2  # the phases were never held up

    with webhook_receiver() as receiver:
        webhook_services.set_webhook(
            host, game.pk, receiver.url
        )  # fixed: the host pastes a new one
        response = client_for(host).post(f"/games/{game.pk}/host/webhook-retry/")
        assert response.status_code == 302
        assert _webhook_settings[-1][0] == game.pk  # the worker is asked after the commit
        webhooks.deliver_game(game.pk)
        assert len(receiver.delivered()) == len(rows)
    page = client_for(host).get(f"/games/{game.pk}/host/").content.decode()
    assert "The webhook failed" not in page


def test_a_success_clears_an_old_failure(make_game, host):
    with webhook_receiver() as receiver:
        game = _with_webhook(make_game, host, receiver.url)
        GameWebhook.objects.filter(game=game).update(failure="the server answered HTTP 500")
        webhooks.deliver_game(game.pk)
    assert GameWebhook.objects.get(game=game).failure == ""


def test_without_a_webhook_nothing_is_queued_and_clearing_drops_waiting_posts(make_game, host):
    game = make_game("forum-vanilla")
    assert not WebhookDelivery.objects.filter(game=game).exists()
    webhook_services.set_webhook(host, game.pk, f"http://127.0.0.1:9/{SECRET}")
    services.cut_deadline_now(host, game.pk)
    assert WebhookDelivery.objects.filter(game=game, status="pending").exists()
    webhook_services.set_webhook(host, game.pk, "")
    assert not GameWebhook.objects.filter(game=game).exists()
    assert not WebhookDelivery.objects.filter(game=game).exists()


def test_only_public_announcements_go_out(make_game, host, make_users):
    game = make_game("forum-vanilla")
    webhook_services.set_webhook(host, game.pk, f"http://127.0.0.1:9/{SECRET}")
    slot = game.slots.order_by("seat").select_related("user").first()
    services.submit_post(slot.user, game.pk, body="A player's own words", thread="public")
    services.host_post(host, game.pk, body="The host's own words", thread="public")
    services.modkill(host, game.pk, slot.pk, reason="Idle")
    bodies = [d.body["content"] for d in WebhookDelivery.objects.filter(game=game)]
    assert len(bodies) == 1 and "has been modkilled" in bodies[0]


def test_a_long_announcement_is_cut_for_discord_with_its_link(make_game, host):
    game = make_game("forum-vanilla")
    post = Post(game=game, number=12, body="word " * 1000, html="")
    body = webhooks.payload(game, post)
    link = f"https://mafia.example/games/{game.pk}/posts/12/"
    assert len(body["content"]) <= 2000 and body["content"].endswith(f"<{link}>)")
    assert len(body["text"]) <= 2000 and link in body["text"]


def test_markup_is_safe_in_both_chats(make_game, host):
    game = make_game("forum-vanilla")
    game.title = "<!channel> @everyone & co"
    post = Post(game=game, number=3, body="**Bold** \\*star\\*", html="")
    body = webhooks.payload(game, post)
    assert "&lt;!channel&gt;" in body["text"] and "&amp; co" in body["text"]
    assert "*Bold* *star*" in body["text"]
    assert "\\@everyone" in body["content"] and body["allowed_mentions"] == {"parse": []}


def test_rolled_back_announcement_sends_nothing(make_game, host, _webhook_settings):
    from django.db import transaction

    game = make_game("forum-vanilla", start=False)
    webhook_services.set_webhook(host, game.pk, f"http://127.0.0.1:9/{SECRET}")
    with pytest.raises(RuntimeError), transaction.atomic():
        services.start_game(host, game.pk)
        raise RuntimeError
    assert not WebhookDelivery.objects.filter(game=game).exists()


# -- setting it, and its secrecy ---------------------------------------------------------------
BAD_URLS = [
    ("ftp://example.com/hook", "must start with https://"),
    ("discord.com/api/webhooks/1/x", "must start with https://"),
    ("https://", "must start with https://"),
    ("https://example.com:99999/x", "not a valid webhook URL"),
    ("https://user:pw@example.com/x", "user name or password"),
    ("https://example.com/" + "x" * 500, "at most 500 characters"),
]
PRIVATE_URLS = [
    "http://127.0.0.1:8000/hook",
    "http://localhost/hook",
    "http://10.1.2.3/hook",
    "http://192.168.0.5/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]/hook",
    "http://0.0.0.0/hook",
    # IPv4 inside IPv6 (compatible, mapped, NAT64, 6to4, Teredo) and the 6to4 relays
    "http://[::127.0.0.1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[64:ff9b::7f00:1]/hook",
    "http://[64:ff9b:1::7f00:1]/hook",
    "http://[2002:7f00:1::]/hook",
    "http://[2001:0:7f00:1::]/hook",
    "http://192.88.99.1/hook",
]


@pytest.mark.parametrize(("url", "message"), BAD_URLS)
def test_bad_urls_are_refused_with_a_clear_form_error(make_game, host, client_for, url, message):
    game = make_game("forum-vanilla")
    response = client_for(host).post(f"/games/{game.pk}/host/webhook/", {"url": url}, follow=True)
    assert message in response.content.decode()
    assert not GameWebhook.objects.filter(game=game).exists()


@pytest.mark.parametrize("url", PRIVATE_URLS)
def test_private_addresses_are_refused_unless_allowed(make_game, host, client_for, settings, url):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    game = make_game("forum-vanilla")
    answer = client_for(host).post(
        f"/api/v1/games/{game.pk}/host/webhook/", {"url": url}, content_type="application/json"
    )
    assert answer.status_code == 422, answer.content
    assert answer.json()["code"] == "bad_webhook" and answer.json()["field"] == "url"
    assert "private or local address" in answer.json()["error"]
    page = client_for(host).post(f"/games/{game.pk}/host/webhook/", {"url": url}, follow=True)
    assert "private or local address" in page.content.decode()
    assert not GameWebhook.objects.filter(game=game).exists()


def test_delivery_refuses_a_private_address_when_not_allowed(make_game, host, settings):
    game = _with_webhook(make_game, host, f"http://127.0.0.1:9/{SECRET}")
    settings.WEBHOOK_ALLOW_PRIVATE = False  # set while allowed, then the rule changed
    webhooks.deliver_game(game.pk)
    assert "private or local" in GameWebhook.objects.get(game=game).failure


def test_api_sets_masks_and_clears_the_webhook(make_game, host, client_for):
    game = make_game("forum-vanilla")
    api = client_for(host)
    url = f"https://discord.example/api/webhooks/1/{SECRET}"
    answer = api.post(
        f"/api/v1/games/{game.pk}/host/webhook/", {"url": url}, content_type="application/json"
    )
    assert answer.status_code == 200 and SECRET not in answer.content.decode()
    view = api.get(f"/api/v1/games/{game.pk}/host/webhook/").json()
    assert view["webhook"]["url_masked"] == "https://discord.example/…"
    assert view["webhook"]["failure"] is None and SECRET not in json.dumps(view)
    too_long = api.post(
        f"/api/v1/games/{game.pk}/host/webhook/",
        {"url": "https://x.example/" + "a" * 600},
        content_type="application/json",
    )
    assert too_long.status_code == 400 and too_long.json()["field"] == "url"
    retry = api.post(f"/api/v1/games/{game.pk}/host/webhook/retry/")
    assert retry.status_code == 200
    api.post(f"/api/v1/games/{game.pk}/host/webhook/", {"url": ""}, content_type="application/json")
    assert api.get(f"/api/v1/games/{game.pk}/host/webhook/").json()["webhook"] is None
    no_hook = api.post(f"/api/v1/games/{game.pk}/host/webhook/retry/")
    assert no_hook.status_code == 422 and no_hook.json()["code"] == "no_webhook"


def test_only_the_host_sets_it(make_game, host, client_for):
    game = make_game("forum-vanilla")
    player = game.slots.select_related("user").first().user
    url = f"https://discord.example/api/webhooks/1/{SECRET}"
    answer = client_for(player).post(
        f"/api/v1/games/{game.pk}/host/webhook/", {"url": url}, content_type="application/json"
    )
    assert answer.status_code == 403
    page = client_for(player).post(f"/games/{game.pk}/host/webhook/", {"url": url})
    assert page.status_code == 404
    assert not GameWebhook.objects.filter(game=game).exists()


def test_players_and_spectators_never_see_the_url(make_game, host, client_for, make_users):
    with webhook_receiver() as receiver:
        game = _with_webhook(make_game, host, receiver.url)
        webhooks.deliver_game(game.pk)
    services.cut_deadline_now(host, game.pk)
    g = game.pk
    player = game.slots.select_related("user").first().user
    (spectator,) = make_users(1, prefix="spectator")
    urls = [f"/games/{g}/", f"/games/{g}/role/", f"/games/{g}/host/", f"/games/{g}/archive/"]
    urls += ["/", f"/api/v1/games/{g}/", f"/api/v1/games/{g}/host/", "/api/v1/games/"]
    urls += [f"/api/v1/games/{g}/posts/?thread=public", f"/api/v1/games/{g}/role/"]
    for user in (player, spectator, None):
        client = client_for(user)
        for url in urls:
            body = client.get(url, follow=True).content.decode()
            assert SECRET not in body and str(receiver.port) not in body, (user, url)
    # The host sees it whole only in their dashboard's form.
    dashboard = client_for(host).get(f"/games/{g}/host/").content.decode()
    assert f'value="{receiver.url}"' in dashboard
    assert SECRET not in client_for(host).get(f"/api/v1/games/{g}/host/").content.decode()
    assert SECRET not in client_for(host).get(f"/games/{g}/").content.decode()


def test_the_create_page_sets_the_webhook_and_refuses_a_bad_one(host, client_for, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    client = client_for(host)
    page = client.get("/games/new/?ruleset=forum").content.decode()
    assert 'name="webhook_url"' in page and "Chat webhook (Discord or Slack)" in page
    bad = client.post("/games/new/?ruleset=forum", _create_post(webhook_url="http://10.0.0.1/x"))
    assert bad.status_code == 200 and "private or local address" in bad.content.decode()
    assert not GameWebhook.objects.exists()
    settings.WEBHOOK_ALLOW_PRIVATE = True
    url = f"https://discord.example/api/webhooks/1/{SECRET}"
    good = client.post("/games/new/?ruleset=forum", _create_post(webhook_url=url))
    assert good.status_code == 302, good.content.decode()[-2000:]
    assert GameWebhook.objects.get(game__title="My game").url == url


def test_a_night_kill_where_deaths_reveal_no_role_sends_no_role(make_game, host):
    """City: a death does not reveal the role until the end, so the webhook does not either."""
    from resolver.rulesets import get_ruleset

    game = make_game("city-ten")
    webhook_services.set_webhook(host, game.pk, f"http://127.0.0.1:9/{SECRET}")
    services.cut_deadline_now(host, game.pk)  # day 1 ends: night 1
    slots = list(game.slots.select_related("user").order_by("seat"))
    mafia = [s for s in slots if s.is_mafia]
    victim = next(s for s in slots if not s.is_mafia and s.role != "doctor")
    services.submit_night_action(mafia[0].user, game.pk, ability="kill", targets=[victim.pk])
    services.cut_deadline_now(host, game.pk)  # the night ends: the kill is announced
    victim.refresh_from_db()
    assert not victim.alive
    sent = [d.body for d in WebhookDelivery.objects.filter(game=game)]
    (body,) = [b for b in sent if "found dead" in b["content"]]
    title = get_ruleset("city").roles[victim.role].title
    for text in (body["content"], body["text"]):
        assert victim.display_name in text and "not revealed until the game ends" in text
        assert title not in text and victim.role not in text.lower()


def test_delivery_connects_to_the_address_it_checked(make_game, host, settings, monkeypatch):
    """DNS rebinding: the name answered a public address to the check and 127.0.0.1 to the
    connection, which resolved it again, so the post reached a loopback server. Now the
    delivery connects to the address it checked, and the host is told nothing of why
    the connection failed (no port scanner)."""
    import socket

    with webhook_receiver() as receiver:
        game = _with_webhook(make_game, host, f"http://rebind.example:{receiver.port}/{SECRET}")
        settings.WEBHOOK_ALLOW_PRIVATE = False
        answers = iter(["93.184.215.14"])  # public once, then loopback for ever
        real_getaddrinfo = socket.getaddrinfo

        def rebinding(name, *args, **kwargs):
            if name != "rebind.example":
                return real_getaddrinfo(name, *args, **kwargs)
            address = next(answers, "127.0.0.1")
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))]

        connected: list[tuple] = []

        def no_network(address, *args, **kwargs):
            connected.append(address)
            raise ConnectionRefusedError(111, "Connection refused")

        monkeypatch.setattr(socket, "getaddrinfo", rebinding)
        monkeypatch.setattr(socket, "create_connection", no_network)
        webhooks.deliver_game(game.pk)
        assert receiver.requests == []  # nothing reached the loopback server
    # The first try went to the public address it checked; the retries resolved the name
    # again, were answered loopback, and were refused before connecting.
    assert connected == [("93.184.215.14", receiver.port)]
    assert GameWebhook.objects.get(game=game).failure == webhooks.PRIVATE


def test_the_host_is_told_the_same_for_every_failure(make_game, host):
    """A refused connection, a 404 and a 500 read alike: which ports answer is not shown."""
    down = f"http://127.0.0.1:{free_port()}/{SECRET}"
    with webhook_receiver(fail_first=100) as failing:
        reasons = {webhooks.post_json(url, {"content": "x"}) for url in (down, failing.url)}
    assert reasons == {webhooks.NOT_TAKEN}


def test_a_pinned_https_post_is_checked_against_the_name(tmp_path):
    """Real webhooks are https: the connection goes to the address checked, while TLS
    still sends the URL's name (SNI) and checks the certificate against it."""
    import datetime
    import ssl
    import threading
    import urllib.error
    import urllib.request
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hook.test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hook.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers["Host"])
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert_file, key_file)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        pinned = webhooks._PinnedHTTPS("127.0.0.1")  # as if hook.test had resolved to it
        pinned._context = ssl.create_default_context(cafile=str(cert_file))
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), pinned)

        def post(url: str) -> int:
            request = urllib.request.Request(url, data=b"{}", method="POST")
            with opener.open(request, timeout=5) as answer:
                return answer.status

        assert post(f"https://hook.test:{port}/x") == 204
        assert seen == [f"hook.test:{port}"]
        with pytest.raises(urllib.error.URLError) as refused:  # the certificate is not its
            post(f"https://other.test:{port}/x")
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
    finally:
        server.shutdown()
