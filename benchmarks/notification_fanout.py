"""Notification fan-out: a 50-player game's phase change, and a day start across 1,000 games.

Not a test: it prints figures (record them in BENCHMARKS.md, section "Notifications (issue
20)").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mafia_notifbench \\
    REDIS_URL=redis://127.0.0.1:6379/4 .venv/bin/python benchmarks/notification_fanout.py \\
        --changes 6 --games 1000 --players 12

(a) A started 50-player forum game (plurality, no votes and no actions, so nobody dies and
every change tells all 50): ``--changes`` phase changes (day -> night -> day ...) through
``services.advance_phase``, each one transaction as in production. Half the players have
settings of their own (a quarter e-mail only, a quarter one kind off), the rest the
defaults (a day or night start: inbox and e-mail). Timed: ``fan_out`` (every inbox row
written and every mail queued, ``mail = pending``, inside the transition's transaction)
and the whole transition; counted: the rows and pending mails each change wrote. Target:
fan-out under 1 s.

(b) ``--games`` started ``--players``-player games at night (one made through the
services, the rest copied row by row from it, each with its own players), then each
night ended (``advance_phase``, force) so that every game's day starts: the total, per game
(p50/p99) and the fan-out's share.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support

support.default_env("mafia_notifbench")

FANOUT: list[float] = []


def time_fan_out() -> None:
    """Wrap ``fan_out`` where ``game_tx`` calls it, to time it inside the real transition."""
    from games.services import common

    inner = common.fan_out

    def timed(*args: Any, **kwargs: Any) -> set[int]:
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            FANOUT.append(time.perf_counter() - start)

    common.fan_out = timed


def counts(game_ids: list[int], since_pk: int) -> tuple[str, int]:
    """("rows (in inboxes)", mails pending) written for these games since ``since_pk``."""
    from notifications.models import MailState, Notification

    rows = Notification.objects.filter(game_id__in=game_ids, pk__gt=since_pk)
    inbox = rows.filter(in_inbox=True).count()
    return f"{rows.count()} ({inbox})", rows.filter(mail=MailState.PENDING).count()


def last_pk() -> int:
    from notifications.models import Notification

    row = Notification.objects.order_by("-pk").values_list("pk", flat=True).first()
    return row or 0


def phase_changes(n: int, players: int) -> None:
    from games import services
    from notifications.models import NotificationPrefs

    tag = f"nf{uuid.uuid4().hex[:6]}"
    game, _host, users = support.make_game(
        tag, players, day_length=timedelta(days=2), night_length=timedelta(days=1)
    )
    quarter = players // 4
    NotificationPrefs.objects.bulk_create(
        [NotificationPrefs(user=u, channels={"phase_started": "email"}) for u in users[:quarter]]
        + [
            NotificationPrefs(user=u, channels={"game_finished": "off"})
            for u in users[quarter : 2 * quarter]
        ],
        ignore_conflicts=True,
    )
    print(f"(a) {players}-player game {game.pk}, {n} phase changes")
    print("| change | fan-out ms | transition ms | notifications (in inboxes) | mails pending |")
    print("|---|---:|---:|---:|---:|")
    fan, whole = [], []
    for _ in range(n):
        game.refresh_from_db()
        phase = game.current_phase()
        before = last_pk()
        FANOUT.clear()
        start = time.perf_counter()
        services.advance_phase(game.pk, phase.number, force=True)
        took = time.perf_counter() - start
        rows, pending = counts([game.pk], before)
        fan.append(sum(FANOUT))
        whole.append(took)
        label = f"{phase.label} → next"
        print(f"| {label} | {support.ms(fan[-1])} | {support.ms(took)} | {rows} | {pending} |")
    print(
        f"median fan-out {support.ms(statistics.median(fan))} ms, max {support.ms(max(fan))} ms;"
        f" median transition {support.ms(statistics.median(whole))} ms"
    )


def clone_games(n: int, players: int) -> list[int]:
    """``n`` games at night 1: one through the services, the others copies of its rows
    (game, slots, phases) with players of their own."""
    from django.db import transaction

    from games import services
    from games.models import Game, Phase, Slot

    tag = f"nd{uuid.uuid4().hex[:6]}"
    game, _host, _ = support.make_game(
        tag, players, day_length=timedelta(days=2), night_length=timedelta(days=1)
    )
    services.advance_phase(game.pk, 1, force=True)  # day 1 -> night 1
    game.refresh_from_db()
    slots = list(Slot.objects.filter(game=game).order_by("seat"))
    phases = list(Phase.objects.filter(game=game).order_by("number"))
    users = support.make_users(f"{tag}-c", players * (n - 1))
    ids = [game.pk]
    with transaction.atomic():
        copies = []
        for i in range(n - 1):
            copy = _copy(game)
            copy.title = f"{game.title} copy {i}"
            copies.append(copy)
        Game.objects.bulk_create(copies)
        new_slots, new_phases = [], []
        for i, copy in enumerate(copies):
            for j, slot in enumerate(slots):
                twin = _copy(slot)
                twin.game_id = copy.pk
                twin.user_id = users[i * players + j].pk
                new_slots.append(twin)
            for phase in phases:
                twin = _copy(phase)
                twin.game_id = copy.pk
                new_phases.append(twin)
        Slot.objects.bulk_create(new_slots, batch_size=2000)
        Phase.objects.bulk_create(new_phases, batch_size=2000)
        ids.extend(c.pk for c in copies)
    return ids


def _copy(row: Any) -> Any:
    twin = type(row)()
    for field in row._meta.concrete_fields:
        if not field.primary_key:
            setattr(twin, field.attname, getattr(row, field.attname))
    return twin


def day_starts(n: int, players: int) -> None:
    from games import services

    start = time.perf_counter()
    ids = clone_games(n, players)
    print(f"\n(b) {n} games of {players} players made in {time.perf_counter() - start:.1f} s")
    before = last_pk()
    FANOUT.clear()
    per_game = []
    start = time.perf_counter()
    for game_id in ids:
        t = time.perf_counter()
        services.advance_phase(game_id, 2, force=True)  # night 1 -> day 2
        per_game.append(time.perf_counter() - t)
    total = time.perf_counter() - start
    rows, pending = counts(ids, before)
    print(
        "| games | total s | per game p50 / p99 ms | fan-out total s "
        "| fan-out per game p50 / p99 ms | notifications (in inboxes) | mails pending |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {n} | {total:.1f} | {support.ms(support.percentile(per_game, 50))} / "
        f"{support.ms(support.percentile(per_game, 99))} | {sum(FANOUT):.2f} | "
        f"{support.ms(support.percentile(FANOUT, 50))} / "
        f"{support.ms(support.percentile(FANOUT, 99))} | {rows} | {pending} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--changes", type=int, default=6)
    parser.add_argument("--big", type=int, default=50, help="players in the (a) game")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=12)
    args = parser.parse_args()
    support.ensure_database()
    time_fan_out()
    print(support.machine())
    phase_changes(args.changes, args.big)
    if args.games:
        day_starts(args.games, args.players)
    print(f"load average {support.load_average()}")


if __name__ == "__main__":
    main()
