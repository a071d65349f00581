"""Web Push: the notifications of a desktop kind (``kinds``: your turn, the vote opened, a
day starts, L-1...) reach the person's phones and browsers even with no tab of the site open.

- **Opting in** is per device: the settings page's button asks the browser to subscribe
  (``PushManager.subscribe`` with the site's VAPID public key) and posts the subscription
  here (``subscribe``); turning it off deletes it (``unsubscribe``).
- **Sending** never holds a game: ``fanout.write`` hands the new notifications' ids over
  after the commit (``queue_on_commit``), and a Celery task (the embedded run: a thread of
  its own) sends them with pywebpush (``deliver``). A push service that answers 404 or 410
  has forgotten the device: it is deleted. Any other failure is logged and dropped: the
  inbox and the bell still hold the notification.
- **What a push says** is what the person's inbox already shows them (``message``): the
  notification's own text and the link that opens it, nothing else about the game.
- **The keys** (VAPID) come from the settings; a development or embedded run without them
  makes a pair once and keeps it in ``WEBPUSH_KEY_FILE``.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import connections, transaction
from django.utils.translation import gettext as _

from games.errors import ErrorCode, InvalidInput, NotFound
from mafia_site.celery import app as celery_app
from webhooks.delivery import private_address

from .kinds import NOTIFICATION_KINDS
from .models import Notification, PushDevice
from .reads import open_link

log = logging.getLogger(__name__)

SEND_TASK = "notifications.tasks.send_push"
TITLE = "Forum Mafia"
# A push waits this long at the push service for a device that is offline (seconds).
TTL = 12 * 3600
# The push services' own names for "this subscription is gone".
GONE = (404, 410)
MAX_DEVICES = 20  # per person: an old one goes when a new one comes


# -- the keys ------------------------------------------------------------------------------
@dataclass(frozen=True)
class VapidKeys:
    public: str  # the uncompressed P-256 point, base64url (the browser's applicationServerKey)
    private: str  # the 32-byte private number, base64url (pywebpush's vapid_private_key)
    subject: str


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_bytes(text: str) -> bytes:
    """Decode base64url with or without its padding; ValueError if it is not."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(str(exc)) from None


def new_key_pair() -> tuple[str, str]:
    """(public, private), base64url, as WEBPUSH_VAPID_PUBLIC_KEY / _PRIVATE_KEY take them."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(key.private_numbers().private_value.to_bytes(32, "big"))


_keys_lock = threading.Lock()
_file_keys: dict[Path, tuple[str, str]] = {}


def _kept_pair(path: Path) -> tuple[str, str]:
    """The pair in ``path``, made and written first if there is none. Two processes that
    start together agree: the file is created exclusively, and the loser reads the winner's."""
    with _keys_lock:
        if path in _file_keys:
            return _file_keys[path]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            public, private = new_key_pair()
            with open(path, "x", encoding="utf-8") as out:
                os.chmod(path, 0o600)
                json.dump({"public": public, "private": private}, out)
        except FileExistsError:
            pass
        kept = json.loads(path.read_text(encoding="utf-8"))
        _file_keys[path] = (str(kept["public"]), str(kept["private"]))
        return _file_keys[path]


def vapid_keys() -> VapidKeys | None:
    """The site's keys: the settings', else (development, embedded) the kept file's, else
    None (production without keys: no push)."""
    public = settings.WEBPUSH_VAPID_PUBLIC_KEY
    private = settings.WEBPUSH_VAPID_PRIVATE_KEY
    if not (public and private):
        key_file = getattr(settings, "WEBPUSH_KEY_FILE", None)
        if key_file is None:
            return None
        try:
            public, private = _kept_pair(Path(key_file))
        except (OSError, ValueError, KeyError):
            log.exception("Web Push: no key pair in %s; push is off", key_file)
            return None
    return VapidKeys(public, private, settings.WEBPUSH_VAPID_SUBJECT)


# -- opting in and out ---------------------------------------------------------------------
def _user_id(user: Any) -> int:
    if not getattr(user, "is_authenticated", False):
        raise NotFound(_("There is no such device."), ErrorCode.NOT_FOUND)
    return int(user.pk)


def _key(keys: Mapping[str, Any], name: str, size: int) -> str:
    value = keys.get(name)
    try:
        raw = b64url_bytes(value) if isinstance(value, str) else b""
    except ValueError:
        raw = b""
    if len(raw) != size or (name == "p256dh" and raw[0] != 4):
        raise InvalidInput(
            _("The subscription's keys.%(name)s is not a browser's push key.") % {"name": name},
            ErrorCode.INVALID,
            name,
        )
    return b64url(raw)


def _plain(value: Any) -> bool:
    """Whether ``value`` could be a push service's address at all: printable ASCII that
    fits the column (so a NUL or a lone surrogate never reaches a query)."""
    return isinstance(value, str) and len(value) <= 1000 and value.isascii() and value.isprintable()


def _endpoint(value: Any) -> str:
    try:
        parts = urlsplit(value) if _plain(value) else None
        host = parts.hostname if parts is not None else None
    except ValueError:  # "https://[::1" and the like
        parts = host = None
    secure_enough = parts is not None and (
        parts.scheme == "https" or (parts.scheme == "http" and settings.WEBHOOK_ALLOW_PRIVATE)
    )
    if parts is None or not secure_enough or not host:
        raise InvalidInput(
            _("The subscription's endpoint is not a push service's https address."),
            ErrorCode.INVALID,
            "endpoint",
        )
    # The site posts to it: never to its own network (the webhooks' rule).
    why = private_address(host)
    if why:
        raise InvalidInput(
            # i18n: marked at its source
            _("The subscription's endpoint: %(why)s") % {"why": _(why)},
            ErrorCode.INVALID,
            "endpoint",
        )
    return str(value)


def subscribe(user: Any, subscription: Any, agent: str = "") -> PushDevice:
    """Store the browser's ``PushSubscription`` (its JSON: ``endpoint``, ``keys.p256dh``,
    ``keys.auth``) as one of the person's devices. The same browser again updates its row;
    a browser another person subscribed before becomes this person's."""
    user_id = _user_id(user)
    if vapid_keys() is None:
        raise InvalidInput(_("Push notifications are not set up on this site."), ErrorCode.INVALID)
    if not isinstance(subscription, dict) or not isinstance(subscription.get("keys"), dict):
        raise InvalidInput(
            _("Send the browser's push subscription: endpoint and keys (p256dh, auth)."),
            ErrorCode.INVALID,
        )
    endpoint = _endpoint(subscription.get("endpoint"))
    p256dh = _key(subscription["keys"], "p256dh", 65)
    auth = _key(subscription["keys"], "auth", 16)
    with transaction.atomic():
        device, _created = PushDevice.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user_id": user_id,
                "p256dh": p256dh,
                "auth": auth,
                "agent": "".join(c for c in agent if c.isprintable())[:200],
            },
        )
        stale = PushDevice.objects.filter(user_id=user_id).order_by("-created_at", "-pk")
        PushDevice.objects.filter(
            pk__in=list(stale.values_list("pk", flat=True)[MAX_DEVICES:])
        ).delete()
    return device


def unsubscribe(user: Any, endpoint: Any) -> None:
    """Forget the person's device at ``endpoint``; someone else's, or none: NotFound."""
    user_id = _user_id(user)
    gone, _counts = PushDevice.objects.filter(
        user_id=user_id, endpoint=endpoint if _plain(endpoint) else ""
    ).delete()
    if not gone:
        raise NotFound(_("This browser has no push subscription of yours."), ErrorCode.NOT_FOUND)


def devices_of(user_id: int) -> list[PushDevice]:
    return list(PushDevice.objects.filter(user_id=user_id))


# -- sending -------------------------------------------------------------------------------
def pushed_kinds() -> frozenset[str]:
    """The kinds a push is sent for: those that pop up on the desktop."""
    return frozenset(name for name, kind in NOTIFICATION_KINDS.items() if kind.desktop)


def message(notification: Notification) -> dict[str, str]:
    """What the push says: exactly what the person's inbox shows of this notification (its
    text) and the link that opens it there (marking it read), nothing more."""
    return {
        "title": TITLE,
        "body": notification.text,
        "url": open_link(notification.pk),
        "tag": f"mafia-notification-{notification.pk}",
    }


def queue_on_commit(rows: Iterable[Notification]) -> None:
    """After the current transaction commits: push the rows of a pushed kind to their
    people's devices (if they have any). Called with the rows just written."""
    kinds = pushed_kinds()
    wanted = [row for row in rows if row.kind in kinds and row.pk is not None]
    if not wanted:
        return
    with_devices = set(
        PushDevice.objects.filter(user_id__in={row.user_id for row in wanted}).values_list(
            "user_id", flat=True
        )
    )
    ids = [row.pk for row in wanted if row.user_id in with_devices]
    if ids:
        transaction.on_commit(partial(queue, ids))


_thread: ThreadPoolExecutor | None = None
_thread_lock = threading.Lock()


def queue(notification_ids: list[int]) -> None:
    """Hand the pushes to the worker (the embedded run: this process's push thread).
    Never raises and never waits on a push service: a game action called it."""
    global _thread
    if settings.EMBEDDED_SERVICES:
        with _thread_lock:
            if _thread is None:
                _thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="web-push")
        _thread.submit(_deliver_in_thread, notification_ids)
        return
    try:
        # By name: ``tasks`` imports this module. ``apply_async`` (not ``send_task``) so an
        # eager Celery (tests) runs it here.
        celery_app.tasks[SEND_TASK].apply_async((notification_ids,), retry=False)
    except Exception:
        log.warning("Web Push: could not queue %s; not pushed", notification_ids, exc_info=True)


def _deliver_in_thread(notification_ids: list[int]) -> None:
    try:
        deliver(notification_ids)
    except Exception:
        log.exception("Web Push: sending %s failed", notification_ids)
    finally:
        connections.close_all()  # this thread's own: nothing held between pushes


def deliver(notification_ids: list[int]) -> int:
    """Push each notification to each device of its person; how many pushes went out."""
    keys = vapid_keys()
    if keys is None:
        return 0
    # In the order they were written ("the game has started" before "Day 1 has started");
    # one read on the site meanwhile needs no push.
    rows = list(
        Notification.objects.filter(
            pk__in=notification_ids, kind__in=pushed_kinds(), read_at__isnull=True
        ).order_by("pk")
    )
    devices: dict[int, list[PushDevice]] = {}
    for device in PushDevice.objects.filter(user_id__in={row.user_id for row in rows}):
        devices.setdefault(device.user_id, []).append(device)
    sent = 0
    for row in rows:
        body = json.dumps(message(row))
        for device in list(devices.get(row.user_id, [])):
            outcome = send(device, body, keys)
            sent += outcome == SENT
            if outcome == GONE_NOW:  # deleted: not tried again for the next notification
                devices[row.user_id].remove(device)
    return sent


SENT, FAILED, GONE_NOW = "sent", "failed", "gone"


def send(device: PushDevice, body: str, keys: VapidKeys) -> str:
    """One push to one device: ``SENT`` if its push service took it, ``FAILED``, or
    ``GONE_NOW``: its service says it is gone (404, 410), or it now resolves to a private
    address, and it is deleted."""
    from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

    host = urlsplit(device.endpoint).hostname or ""
    why = private_address(host)
    if why:
        log.warning("Web Push: device %s refused (%s); deleted", device.pk, why)
        PushDevice.objects.filter(pk=device.pk).delete()
        return GONE_NOW
    try:
        webpush(
            subscription_info={
                "endpoint": device.endpoint,
                "keys": {"p256dh": device.p256dh, "auth": device.auth},
            },
            data=body,
            vapid_private_key=keys.private,
            vapid_claims={"sub": keys.subject},
            ttl=TTL,
            timeout=settings.WEBPUSH_TIMEOUT,
            headers={"Urgency": "high"},
        )
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in GONE:
            PushDevice.objects.filter(pk=device.pk).delete()
            log.info("Web Push: device %s is gone (%s); deleted", device.pk, status)
            return GONE_NOW
        log.warning("Web Push to device %s failed: %s", device.pk, str(exc)[:300])
        return FAILED
    except Exception as exc:  # the push service unreachable, a timeout
        log.warning("Web Push to device %s failed: %r", device.pk, exc)
        return FAILED
    return SENT
