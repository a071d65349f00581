"""``python -m mafia_site.healthcheck``: docker compose's health check of a web replica.

It asks this container's server for ``/healthz`` (``games.views.health``: 200 when the
database answers and deadlines are kept) the way the proxy asks it, with a Host the site
allows: ALLOWED_HOSTS may name only the public host, and a request for "127.0.0.1" would be
refused (400) by a healthy replica. Plain http is fine: ``/healthz`` is exempt from the
HTTPS redirect. Exit status 0 for a 200, 1 otherwise; the answer is printed either way
(``docker inspect`` shows it).
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys


def probe_host(allowed_hosts: list[str]) -> str:
    """A Host header ``ALLOWED_HOSTS`` lets through: its first entry (``.example.org``
    allows example.org itself; ``*`` anything)."""
    for entry in allowed_hosts:
        entry = entry.strip()
        if entry == "*":
            return "localhost"
        if entry:
            return entry.lstrip(".")
    return "localhost"  # an empty list: Django allows localhost with DEBUG only


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check /healthz of the web server here.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")
    from django.conf import settings

    host = probe_host(list(settings.ALLOWED_HOSTS))
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=args.timeout)
    try:
        conn.request("GET", "/healthz", headers={"Host": host, "Accept": "application/json"})
        response = conn.getresponse()
        body = response.read().decode("utf-8", "replace")
    except OSError as exc:
        print(f"/healthz on port {args.port}: {exc!r}", file=sys.stderr)
        return 1
    finally:
        conn.close()
    print(f"/healthz (Host: {host}): {response.status} {body}")
    return 0 if response.status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
