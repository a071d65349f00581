"""``manage.py export_games``: finished games as open data, one JSON object per line (JSON
Lines), as ``GET /api/v1/games/{id}/export/`` answers each (``games.reads.export``; the
README's "Open data" gives the schema).

    manage.py export_games                      # every finished game, to standard output
    manage.py export_games --out games.jsonl --ruleset classic --since 2026-11-01
"""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.core.serializers.json import DjangoJSONEncoder

from games.models import Game, GameStatus, Ruleset
from games.reads.export import game_export


class Command(BaseCommand):
    help = "Write finished games as open data, one JSON object per line."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--out", default="-", help="A file to write (default: stdout).")
        parser.add_argument("--ruleset", choices=Ruleset.values, help="Only this rule set.")
        parser.add_argument("--since", help="Only games finished on or after this day (ISO).")

    def handle(
        self, *args: Any, out: str, ruleset: str | None, since: str | None, **_: Any
    ) -> None:
        games = Game.objects.filter(status=GameStatus.FINISHED).order_by("finished_at", "pk")
        if ruleset:
            games = games.filter(ruleset=ruleset)
        if since:
            try:
                day = date.fromisoformat(since)
            except ValueError:
                raise CommandError(f"--since takes a day like 2026-11-01, not {since!r}.") from None
            games = games.filter(finished_at__date__gte=day)
        stream = sys.stdout if out == "-" else open(out, "w", encoding="utf-8")  # noqa: SIM115
        written = 0
        try:
            for game in games.select_related("host").iterator(chunk_size=50):
                found = game_export(game)
                if found is not None:
                    stream.write(json.dumps(found, cls=DjangoJSONEncoder, ensure_ascii=False))
                    stream.write("\n")
                    written += 1
        finally:
            if stream is not sys.stdout:
                stream.close()
        self.stderr.write(f"{written} game{'s' if written != 1 else ''} exported.")
