"""``manage.py demo``: make sure a demo game is running and say how to see it."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games import demo


class Command(BaseCommand):
    help = "Start the demo game (seven bots; log in as demo/demo) unless one is running."

    def handle(self, *args, **options) -> None:
        game = demo.ensure_demo_game()
        phase = game.current_phase()
        where = phase.label if phase else game.get_status_display()
        self.stdout.write(self.style.SUCCESS(f"{game.title}: {where} (game id {game.pk})."))
        self.stdout.write(
            f"Log in as {demo.DEMO_USERNAME} / {demo.DEMO_PASSWORD} (the demo game's host)."
        )
