"""An answer after a commit reports the commit.

Six players vote and unvote through the real HTTP stack (uvicorn) while every PostgreSQL
connection of the server is cut again and again (``pg_terminate_backend``, what a restart
does to its clients). Each answer is compared with the vote log afterwards: every vote or
unvote answered 2xx is in it, every one answered 5xx is not. A vote answered "503, nothing
was changed" that did count would make a bot vote twice.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest

from games.models import Slot, Vote
from tests.factories import person_key
from tests.servers import AsgiServer

from .celery_support import make_running_game
from .celery_support import test_database_url as db_url
from .test_outages import _our_pid, _post_json, _terminate_backends

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]

VOTERS = 6
ROUNDS = 14  # writes per voter
CUT_EVERY = (0.15, 0.45)  # seconds between two cuts of every connection


@pytest.mark.timeout(240)
def test_postgres_cut_under_concurrent_voters_every_answer_tells_the_truth(tmp_path):
    # Plurality: no vote ends the day, so every write stays legal all along.
    game, _, _ = make_running_game(day_length=timedelta(hours=1), vote_rule="plurality")
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    voters = slots[:VOTERS]
    tokens = {v.pk: person_key(v.user) for v in voters}
    server = AsgiServer(
        {
            "DATABASE_URL": db_url(),
            "DB_CONN_MAX_AGE": "60",
            "DEADLINE_WATCHDOG_SECONDS": "0",
            "RATE_LIMITS": "off",
        },
        tmp_path / "asgi.log",
        lifespan="off",
    )
    answers: dict[int, list[tuple[str, int, dict]]] = {v.pk: [] for v in voters}
    done = threading.Event()
    me = _our_pid()

    def play(voter: Slot) -> None:
        others = [s for s in slots if s.pk != voter.pk]
        rng = random.Random(voter.pk)
        base = f"{server.url}/api/v1/games/{game.pk}"
        standing = None  # as the answers tell it; a vote for it again would change nothing
        for i in range(ROUNDS):
            if i % 3 == 2 and standing is not None:
                kind, url, body = "unvote", f"{base}/unvote/", None
            else:
                kind, url = "vote", f"{base}/vote/"
                body = {"target": rng.choice([s for s in others if s.pk != standing]).pk}
            status, answer = _post_json(url, tokens[voter.pk], body)
            answers[voter.pk].append((kind, status, answer))
            if status == 200:
                standing = body["target"] if body else None

    def cut() -> None:
        rng = random.Random(1)
        while not done.is_set():
            _terminate_backends(keep={me})
            time.sleep(rng.uniform(*CUT_EVERY))

    cutter = threading.Thread(target=cut)
    players = [threading.Thread(target=play, args=(v,)) for v in voters]
    try:
        cutter.start()
        for thread in players:
            thread.start()
        for thread in players:
            thread.join(timeout=180)
    finally:
        done.set()
        cutter.join(timeout=30)
        server.stop()

    statuses = Counter(status for rows in answers.values() for _, status, _ in rows)
    print(f"\nanswers under cut connections: {dict(statuses)}")
    # Only "done" and "not done, try again": every write was legal when it was sent.
    odd = [a for rows in answers.values() for a in rows if a[1] not in (200, 503)]
    assert not odd, odd
    assert statuses[503] > 0 and statuses[200] > 0, "the cuts must hit some writes, not all"

    for voter in voters:
        rows = list(Vote.objects.filter(phase__game=game, voter=voter).order_by("id"))
        ok = [(kind, answer) for kind, status, answer in answers[voter.pk] if status == 200]
        # Every 2xx is in the log and nothing else is: the 5xx ones wrote nothing.
        assert [r.kind for r in rows] == [kind for kind, _ in ok], (
            f"seat {voter.seat}: log {[r.kind for r in rows]}, "
            f"answers {[(k, s) for k, s, _ in answers[voter.pk]]}"
        )
        for row, (_, answer) in zip(rows, ok, strict=True):
            # The answer names the post that cast it (built from the write itself).
            assert answer["post"]["number"] == row.post.number
    assert "Traceback" not in server.log()
