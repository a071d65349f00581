"""``/healthz``: is the site up, and are deadlines being kept? For people, monitors and
docker compose's health checks alike.

200 when the database answers and deadlines are kept (a sweeper ran recently and no
running phase is overdue), else 503. Redis being down makes it "degraded" but still 200:
pages and votes keep working and the watchdog keeps the clock; only live pushes wait.
It shows counts and ages, never a game, a role or anything about one.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from .. import deadlines
from ..outage import OUTAGE_ERRORS


def _redis_ok() -> bool | None:
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return None  # embedded mode: no Redis to ask
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        return bool(client.ping())
    except OUTAGE_ERRORS:
        return False
    finally:
        client.close()


def check() -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {"database": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        kept = deadlines.health()
    except OUTAGE_ERRORS:
        body.update(status="down", database="down", deadlines=None)
        redis_ok = _redis_ok()
        body["redis"] = "not used" if redis_ok is None else ("ok" if redis_ok else "down")
        return 503, body
    redis_ok = _redis_ok()
    body["redis"] = "not used" if redis_ok is None else ("ok" if redis_ok else "down")
    body["deadlines"] = kept
    if not kept["ok"]:
        body["status"] = "late"
        return 503, body
    body["status"] = "degraded" if redis_ok is False else "ok"
    return 200, body


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    status, body = check()
    return JsonResponse(body, status=status)
