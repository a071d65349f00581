"""``manage.py baseline_ladder``: make the two baseline agents (idempotent), put them in a
league queue, and with ``--every N`` play their seats every N seconds until stopped (for a
site run without Celery beat, which otherwise runs ``league.tasks.play_baselines``)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from league import baseline


class Command(BaseCommand):
    help = "Make the baseline ladder's two agents and queue them; --every N plays them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every", type=float, default=0.0, help="Play their seats every N seconds."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        users = baseline.ensure_baseline_agents()
        joined = baseline.queue_baselines()
        names = ", ".join(u.get_username() for u in users)
        self.stdout.write(self.style.SUCCESS(f"Baseline agents: {names}; queued in {joined}."))
        every = options["every"]
        while every > 0:
            moves = baseline.tick()
            if moves:
                self.stdout.write(f"{moves} baseline move(s).")
            time.sleep(every)
