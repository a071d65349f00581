"""``manage.py runsite``: the whole site in one process, for a bare machine.

Serves ``mafia_site.asgi`` (HTTP and websockets) with uvicorn and, on the same event loop:

* the deadline scanner (``games.tasks.run_due_phases`` every ``--scan-seconds``), standing
  in for Celery worker + beat when there is no Redis (``--scanner auto``), with beat's
  minute jobs (scheduled vote counts; the side domains' jobs, ``games.hooks.embedded_jobs``:
  deadline reminders, the e-mail digests' sweep with mail files under MAIL_DIR, the chat
  webhooks' posts, missed ratings, the league's matchmaking sweep);
* the demo bots (``games.demo.tick`` every ``--bot-seconds``), unless ``--no-demo``.

Both run their synchronous database work in worker threads through ``sync_to_async``, so the
events they publish go through this loop: the in-memory channel layer reaches every socket.
With Redis configured, ``scripts/run.sh`` starts a real Celery worker and beat (supervised)
instead of the scanner, and the deadline watchdog that the ASGI lifespan starts
(``games.deadlines``) ends any phase they leave overdue.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections

from mafia_site.serve import uvicorn_options

log = logging.getLogger("games.runsite")


def _in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        close_old_connections()
        try:
            return fn()
        finally:
            close_old_connections()

    return run


async def every(seconds: float, fn: Callable[[], Any], what: str) -> None:
    """Run ``fn`` in a thread every ``seconds``; an error is logged and the loop goes on."""
    call = sync_to_async(_in_thread(fn), thread_sensitive=False)
    while True:
        try:
            await call()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s failed; trying again in %.0f s", what, seconds)
        await asyncio.sleep(seconds)


class Command(BaseCommand):
    help = "Serve the site with the deadline scanner and the demo bots in one process."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--scanner",
            choices=["auto", "on", "off"],
            default="auto",
            help="End due phases in this process (auto: when there is no Redis/Celery).",
        )
        parser.add_argument("--scan-seconds", type=float, default=2.0)
        parser.add_argument("--no-demo", action="store_true", help="No demo bots.")
        parser.add_argument("--bot-seconds", type=float, default=4.0)

    def handle(self, *args, **options) -> None:
        scanner = options["scanner"] == "on" or (
            options["scanner"] == "auto" and settings.EMBEDDED_SERVICES
        )
        asyncio.run(self.serve(options, scanner))

    async def serve(self, options: dict[str, Any], scanner: bool) -> None:
        import uvicorn

        from games import demo, hooks, services, tasks

        host, port = options["host"], options["port"]
        server = uvicorn.Server(uvicorn.Config(**uvicorn_options(host=host, port=port)))
        jobs = []
        if scanner:
            jobs.append(every(options["scan_seconds"], tasks.run_due_phases, "Deadline scan"))
            jobs.append(every(60.0, services.post_scheduled_counts, "Vote count schedule"))
            jobs.append(every(60.0, tasks.lift_ended_sanctions, "Sanctions that end"))
            # No worker either: the side domains' periodic work runs here (e.g. the chat
            # webhooks' posts).
            jobs += [every(j.seconds, j.run, j.label) for j in hooks.embedded_jobs()]
        if not options["no_demo"]:
            rng = random.Random()
            jobs.append(every(options["bot_seconds"], lambda: demo.tick(rng), "Demo bots"))
        running = [asyncio.create_task(job) for job in jobs]
        db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        layer = "Redis" if not settings.EMBEDDED_SERVICES else "in-memory"
        deadlines = (
            "in-process scanner"
            if scanner
            else "Celery worker + beat, this process's watchdog as backstop"
        )
        self.stdout.write(
            self.style.SUCCESS(f"\n  Forum Mafia on http://{host}:{port}/\n")
            + f"  Log in as {demo.DEMO_USERNAME} / {demo.DEMO_PASSWORD} "
            "(host of the demo game), or just watch.\n"
            + f"  Database: {db}; live updates: {layer}; deadlines: {deadlines}.\n"
        )
        try:
            await server.serve()
        finally:
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
