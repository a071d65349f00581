"""A game's chat webhook (Discord, Slack): the site's public announcements, posted there too.

Communities follow games in a chat server. The host may give a game an *incoming webhook*
URL (``GameWebhook``); every announcement the site posts in the public thread (phase
starts, day ends and eliminations, night deaths, day shots, modkills, replacements, the
game's start and end) is then posted to it, word for word, with a link to the post. Only
announcements go out, so the webhook says exactly what the thread says to everyone.

How it is delivered, without ever slowing a game:

1. ``queue`` writes a ``WebhookDelivery`` outbox row inside the announcement's own
   transaction (``services.announcements.announce``, the one place announcements are
   written, tells it through ``games.hooks.on_announcement``): a rolled-back change sends
   nothing, a committed one is never forgotten.
2. After the commit, ``kick`` queues the Celery task ``webhooks.tasks.deliver_webhooks`` for
   the game. It runs ``deliver_game``: the game's pending rows, oldest first, one POST each
   with a short timeout, outside any transaction and without the game's row lock.
3. A failed POST is retried with backoff (``settings.WEBHOOK_RETRY_SECONDS``: 5 attempts over
   about a quarter of an hour); later rows wait, so the chat reads in the thread's order.
   After the last attempt the game's pending rows are marked failed and the host's dashboard
   says why, with a retry button (``retry_failed``); a later success clears it.
4. Beat's ``sweep`` (and the embedded run's scanner) queues every game with a pending row
   that is due, so a task lost with a worker or a broker outage is only late.

One game's deliveries run one at a time (a PostgreSQL advisory lock per game), so two
workers never post the same row twice or out of order.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import logging
import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.models import Game, Post
from mafia_site.celery import app as celery_app

from .models import MAX_WEBHOOK_URL_LENGTH, DeliveryStatus, GameWebhook, WebhookDelivery
from .shapes import WebhookStatus

log = logging.getLogger(__name__)

DELIVER_TASK = "webhooks.tasks.deliver_webhooks"
USERNAME = "Forum Mafia"
# Discord refuses a message over 2000 characters; Slack's limit is far higher.
DISCORD_LIMIT = 2000
# The advisory lock namespace of webhook deliveries (the second key is the game id).
_LOCK_NAMESPACE = 0x5EB0
_local_locks: dict[int, threading.Lock] = {}
_local_guard = threading.Lock()


class BadWebhook(ValueError):
    """A webhook URL the site will not post to; the message says why, for the host."""


# -- the URL --------------------------------------------------------------------------------
def check_url(url: str) -> str:
    """The URL, stripped, if the site may post to it; raises ``BadWebhook`` otherwise.

    http(s) only, at most ``MAX_WEBHOOK_URL_LENGTH`` characters, and (unless
    ``settings.WEBHOOK_ALLOW_PRIVATE``) not on a private, loopback or link-local address:
    a host must not make the server call into its own network."""
    url = (url or "").strip()
    if len(url) > MAX_WEBHOOK_URL_LENGTH:
        raise BadWebhook(
            _("The webhook URL is too long (at most %(n)s).") % {"n": MAX_WEBHOOK_URL_LENGTH}
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a malformed port raises here)
    except ValueError:
        raise BadWebhook(_("That is not a valid webhook URL.")) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadWebhook(_("The webhook URL must start with https:// (or http://)."))
    if any(c.isspace() for c in url):
        raise BadWebhook(_("The webhook URL must not contain spaces."))
    if parts.username or parts.password:
        raise BadWebhook(_("The webhook URL must not carry a user name or password."))
    private = private_address(parts.hostname)
    if private:
        raise BadWebhook(_(private))  # i18n: marked at its source
    return url


# Ranges that carry an IPv4 address inside an IPv6 one (IPv4-compatible, IPv4-mapped,
# NAT64, 6to4, Teredo) and the 6to4 relays: whatever they embed, a webhook never needs
# them, and ``is_global`` lets some through (``[::127.0.0.1]``, ``[64:ff9b::7f00:1]``,
# ``[2002:7f00:1::]`` and 192.88.99.1 reached loopback or passed the check).
_EMBEDDING = tuple(
    ipaddress.ip_network(n)
    for n in (
        "::/96",
        "::ffff:0:0/96",
        "64:ff9b::/96",
        "64:ff9b:1::/48",
        "2002::/16",
        "2001::/32",
        "192.88.99.0/24",
    )
)
# Kept (``GameWebhook.failure``) and compared in English; said in the reader's language
# where shown (``status``, ``check_url``).
PRIVATE = gettext_noop("The webhook URL points to a private or local address.")
NO_ADDRESS = gettext_noop("The webhook's host name does not resolve.")


def _refused(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        not ip.is_global
        or ip.is_multicast
        or any(ip.version == net.version and ip in net for net in _EMBEDDING)
    )


def resolve(host: str) -> tuple[str, str]:
    """(the address to connect to, "") if the site may post to ``host``, else ("", why):
    every address the name resolves to must be a public one. The delivery connects to the
    address returned, the one checked: resolving the name again to connect let its DNS
    answer a public address to the check and a private one to the connection (rebinding).
    With WEBHOOK_ALLOW_PRIVATE (the development run) nothing is checked: ("", "")."""
    if settings.WEBHOOK_ALLOW_PRIVATE:
        return "", ""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return "", NO_ADDRESS
    addresses = [str(info[4][0]) for info in infos]  # (a str for IP: str() only types it)
    if not addresses:
        return "", NO_ADDRESS
    for address in addresses:
        if _refused(ipaddress.ip_address(address.split("%", 1)[0])):
            return "", PRIVATE
    return addresses[0], ""


def private_address(host: str) -> str:
    """Why the site may not post to ``host`` ("" if it may): see ``resolve``. In English
    (one of the constants above): ``gettext`` it to show it."""
    return resolve(host)[1]


def masked(url: str) -> str:
    """What the host sees of the URL outside the form: its site, the secret part hidden."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}/…"


# -- what is posted ------------------------------------------------------------------------
def post_link(game_id: int, number: int) -> str:
    return settings.SITE_URL + reverse("games:post_link", args=[game_id, number])


def payload(game: Game, post: Post) -> dict[str, Any]:
    """The JSON of one announcement: ``content`` for Discord, ``text`` for Slack (each in
    its own markup), and the link to the post in the thread."""
    link = post_link(game.pk, post.number)
    title = game.title.strip()
    discord = _fit(f"**{_discord_escape(title)}** (#{post.number})\n{post.body}", f"<{link}>")
    slack = _fit(f"*{_slack_escape(title)}* (#{post.number})\n{_slack_text(post.body)}", link)
    return {
        "content": discord,
        "text": slack,
        "username": USERNAME,
        # Discord: a name like "everyone" in a post must never ping the whole server.
        "allowed_mentions": {"parse": []},
    }


def _fit(text: str, link: str) -> str:
    """``text`` and the link, cut to Discord's limit (the link is always kept)."""
    full = f"{text}\n\n{link}"
    if len(full) <= DISCORD_LIMIT:
        return full
    tail = f"…\n\n(continued in the thread: {link})"
    return text[: DISCORD_LIMIT - len(tail)].rstrip() + tail


_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")


def _discord_escape(text: str) -> str:
    return re.sub(r"([\\`*_~|>@#])", r"\\\1", text)


def _slack_escape(text: str) -> str:
    # Slack reads &, < and > as markup (links, @channel): they must be escaped.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_text(body: str) -> str:
    """The post for Slack: its Markdown escapes undone (Slack shows backslashes), its bold
    in Slack's single stars, and &, <, > escaped."""
    text = _MARKDOWN_ESCAPE.sub(r"\1", body).replace("**", "*")
    return _slack_escape(text)


# -- the outbox ----------------------------------------------------------------------------
def queue(tx: Any, post: Post) -> WebhookDelivery | None:
    """Write the outbox row of announcement ``post`` if the game has a webhook, inside the
    caller's game transaction (``tx``: ``services.common.Tx``), and send it after commit."""
    game, notes = tx.game, tx.extras
    if "webhook" not in notes:  # one look-up per transaction
        notes["webhook"] = GameWebhook.objects.filter(game_id=game.pk).exists()
    if not notes["webhook"]:
        return None
    delivery = WebhookDelivery.objects.create(
        game=game, post=post, body=payload(game, post), next_attempt_at=tx.now
    )
    if not notes.get("webhook_kicked"):  # one task per commit, however many posts
        notes["webhook_kicked"] = True
        transaction.on_commit(partial(kick, game.pk))
    return delivery


def kick(game_id: int, eta: datetime | None = None) -> None:
    """Queue the game's delivery task (at ``eta``); never raises: the sweep catches up."""
    if getattr(settings, "EMBEDDED_SERVICES", False):
        return  # no worker: the embedded run's scanner delivers (``sweep``)
    try:
        celery_app.send_task(DELIVER_TASK, args=(game_id,), eta=eta, retry=False)
    except Exception:
        log.warning("Could not queue the webhook of game %s; the sweep will.", game_id)


def sweep(now: datetime | None = None, *, inline: bool = False) -> list[int]:
    """Every game with a delivery due (its task lost, or never queued): queue its task, or
    with ``inline`` deliver here (the embedded run). Returns those games."""
    now = now or timezone.now()
    games = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .values_list("game_id", flat=True)
        .distinct()
    )
    games = [g for g in games if _due(g)]  # its oldest post due, not just a later one
    for game_id in games:
        if inline:
            try:
                deliver_game(game_id)
            except Exception:
                log.exception("Webhook deliveries of game %s failed", game_id)
        else:
            kick(game_id)
    return games


# -- delivering ------------------------------------------------------------------------------
def deliver_game(game_id: int) -> int:
    """Post the game's due deliveries in order; returns how many were sent.

    Runs outside any transaction and holds no game lock; another worker already delivering
    this game makes it return at once (that one sends the rows, in order)."""
    sent = 0
    while True:
        with _game_lock(game_id) as mine:
            if not mine:
                return sent
            sent += _deliver_locked(game_id)
        # A row committed while we held the lock had its task turned away by it: look again.
        if not _due(game_id):
            return sent


def _due(game_id: int) -> bool:
    """Whether the game's next post (its oldest pending one: they go in order) is due."""
    first = (
        WebhookDelivery.objects.filter(game_id=game_id, status=DeliveryStatus.PENDING)
        .order_by("id")
        .values_list("next_attempt_at", flat=True)
        .first()
    )
    return first is not None and first <= timezone.now()


def _deliver_locked(game_id: int) -> int:
    sent = 0
    while True:
        row = (
            WebhookDelivery.objects.filter(game_id=game_id, status=DeliveryStatus.PENDING)
            .order_by("id")
            .first()
        )
        if row is None:
            return sent
        now = timezone.now()
        if row.next_attempt_at > now:  # waiting for its retry: the later rows wait too
            kick(game_id, eta=row.next_attempt_at)
            return sent
        hook = GameWebhook.objects.filter(game_id=game_id).first()
        if hook is None:  # the host removed the webhook: nothing to send to
            WebhookDelivery.objects.filter(game_id=game_id, status=DeliveryStatus.PENDING).delete()
            return sent
        error = post_json(hook.url, row.body)
        row.attempts += 1
        if error is None:
            row.status, row.sent_at, row.last_error = DeliveryStatus.SENT, timezone.now(), ""
            row.save(update_fields=["status", "sent_at", "last_error", "attempts"])
            GameWebhook.objects.filter(pk=hook.pk).exclude(failure="").update(
                failure="", failed_at=None
            )
            sent += 1
            continue
        row.last_error = error[:300]
        delays = settings.WEBHOOK_RETRY_SECONDS
        if row.attempts <= len(delays):
            row.next_attempt_at = now + timedelta(seconds=delays[row.attempts - 1])
            row.save(update_fields=["attempts", "last_error", "next_attempt_at"])
            log.info("Webhook of game %s failed (%s); retry %d", game_id, error, row.attempts)
            kick(game_id, eta=row.next_attempt_at)
            return sent
        _give_up(hook, row, error, now)
        return sent


def _give_up(hook: GameWebhook, row: WebhookDelivery, error: str, now: datetime) -> None:
    """The last attempt failed: this row and the game's others waiting behind it are marked
    failed (the host's retry button sends them again, in order)."""
    log.warning("Webhook of game %s failed for good: %s", hook.game_id, error)
    row.status = DeliveryStatus.FAILED
    row.save(update_fields=["status", "attempts", "last_error"])
    WebhookDelivery.objects.filter(game_id=hook.game_id, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.FAILED, last_error="Not sent: the webhook was failing."
    )
    GameWebhook.objects.filter(pk=hook.pk).update(failure=error[:300], failed_at=now)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect could lead anywhere (a private address): a webhook answers, not redirects.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _pinned(connection_class: type, address: str) -> Callable[..., Any]:
    """``connection_class`` (http.client's) connecting to ``address`` whatever its host
    name resolves to now; the name still goes in the Host header and, over TLS, in SNI and
    the certificate check."""

    def make(*args: Any, **kwargs: Any) -> Any:
        connection = connection_class(*args, **kwargs)
        connect = connection._create_connection
        connection._create_connection = lambda where, *a, **k: connect((address, where[1]), *a, **k)
        return connection

    return make


class _PinnedHTTP(urllib.request.HTTPHandler):
    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def http_open(self, req: Any) -> Any:
        return self.do_open(_pinned(http.client.HTTPConnection, self.address), req)


class _PinnedHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def https_open(self, req: Any) -> Any:
        return self.do_open(
            _pinned(http.client.HTTPSConnection, self.address),
            req,
            context=self._context,  # type: ignore[attr-defined]
        )


# What the host is told of a failed post. One reason for every failure of the connection
# or the answer: "connection refused" against "HTTP 404" (or a timeout) told apart which
# ports of any address were open, a port scanner run by the site.
NOT_TAKEN = gettext_noop("the chat server did not take the post (check the webhook URL)")


def post_json(url: str, body: dict[str, Any]) -> str | None:
    """POST ``body`` to ``url``, at the address checked; None on a 2xx answer, else why
    it failed, for the host (never the URL, which is a secret, nor what the server said)."""
    host = urlsplit(url).hostname or ""
    address, refused = resolve(host)
    if refused:
        return refused
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "User-Agent": "ForumMafia-Webhook/1"},
        method="POST",
    )
    # No proxy from the environment: the connection goes to the address checked.
    handlers: list[Any] = [urllib.request.ProxyHandler({}), _NoRedirects]
    if address:
        handlers += [_PinnedHTTP(address), _PinnedHTTPS(address)]
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=settings.WEBHOOK_TIMEOUT) as answer:
            answer.read(1024)
            return None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        log.info("Webhook post failed: %r", exc)  # the detail stays in the server's log
        return NOT_TAKEN


@contextlib.contextmanager
def _game_lock(game_id: int) -> Iterator[bool]:
    """Whether this process now delivers the game's webhook (no wait: False if another does)."""
    if connection.vendor != "postgresql":  # the embedded single-process run (SQLite)
        with _local_guard:
            lock = _local_locks.setdefault(game_id, threading.Lock())
        got = lock.acquire(blocking=False)
        try:
            yield got
        finally:
            if got:
                lock.release()
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_NAMESPACE, game_id])
        got = cursor.fetchone()[0]
    try:
        yield got
    finally:
        if got:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_NAMESPACE, game_id])


# -- what the host sees ----------------------------------------------------------------------
def status(game: Game) -> WebhookStatus | None:
    """The host's view of the game's webhook (None: it has none): the masked URL, whether
    posts are waiting, and the last failure if no success came after it."""
    hook = GameWebhook.objects.filter(game=game).first()
    if hook is None:
        return None
    failed = WebhookDelivery.objects.filter(game=game, status=DeliveryStatus.FAILED).count()
    return {
        "url_masked": masked(hook.url),
        # kept in English, said in the reader's  # i18n: marked at its source
        "failure": _(hook.failure) if hook.failure else None,
        "failed_at": hook.failed_at,
        "failed_posts": failed,
        "pending_posts": WebhookDelivery.objects.filter(
            game=game, status=DeliveryStatus.PENDING
        ).count(),
    }
