"""``manage.py checkdeadlines``: exit 0 if deadlines are being kept, 1 if not (a health check).

Used by docker compose for beat (and usable by any supervisor): the named sweeper must have
swept within ``--max-age`` seconds and no running phase may be overdue. The Celery sweep
row is written by the worker running beat's scan, so it proves beat, broker and worker.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from games import deadlines
from games.models import DeadlineSweep


class Command(BaseCommand):
    help = "Exit 1 unless deadlines are being kept (recent sweep, no overdue phase)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--sweeper", default="", help="e.g. celery; default: any")
        parser.add_argument("--max-age", type=float, default=90.0, help="seconds")

    def handle(self, *args, sweeper: str, max_age: float, **options) -> None:
        now = timezone.now()
        health = deadlines.health(now)
        self.stdout.write(json.dumps(health))
        rows = DeadlineSweep.objects.all()
        if sweeper:
            rows = rows.filter(sweeper=sweeper)
        if not rows.filter(swept_at__gte=now - timedelta(seconds=max_age)).exists():
            raise CommandError(f"no {sweeper or 'deadline'} sweep in the last {max_age:.0f} s")
        if health["overdue_phases"]:
            raise CommandError(f"{health['overdue_phases']} phase(s) overdue")
