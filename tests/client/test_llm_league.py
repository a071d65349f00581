"""The example LLM agent in the league, offline: seven agents, each
``llm_agent.py --league forum-vanilla --games 2 --stand-in first``, play two league games back
to back against a real site, and each logs its tokens and cost per game. Before, the
agent needed ``--game`` (it could not queue) and the stand-in chat server lived in tests/.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from agents import services as agent_services
from games.models import Game, GameStatus
from tests.client.test_llm_agent import example
from tests.factories import UserFactory
from tests.live.celery_support import test_database_url as database_url
from tests.servers import AsgiServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def league_site(
    django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any
) -> Iterator[AsgiServer]:
    """The site as tests/client/conftest.py starts it, with a bots' league timing: forum
    days and nights of a minute (``LEAGUE_TIMING``; the least a phase lasts). The agents'
    stand-in names every choice's first option, so a day's votes meet on one wagon and
    its majority ends the day at once, and a night ends when the kill is sent."""
    with django_db_blocker.unblock():
        url = database_url()
    server = AsgiServer(
        {
            "DATABASE_URL": url,
            "RATE_LIMITS": "off",
            "DB_POOL_SIZE": "6",
            "CHANNEL_LAYER_PREFIX": f"llmleague{uuid.uuid4().hex[:8]}",
            "DEADLINE_WATCHDOG_SECONDS": "1",
            "DEADLINE_WATCHDOG_GRACE": "1",
            "LEAGUE_TIMING": "day_length=60,night_length=60",
            # A league day a hammer ends seconds in prods whoever had not posted yet, and
            # the league acts on one prod: an agent slower than the other six (a loaded
            # machine) is modkilled and then kept out of the next game's queue by the
            # cooldown, which would leave the others waiting. The cooldown has tests of
            # its own (test_reliability, test_league); here it is off.
            "LEAGUE_COOLDOWN_AFTER_MODKILL": "0",
        },
        tmp_path_factory.mktemp("asgi") / "asgi.log",
    )
    try:
        yield server
    finally:
        server.stop()


def test_llm_agents_play_league_games_back_to_back_offline(league_site, tmp_path):
    llm = example()
    owner = UserFactory(username="llmowner")
    keys = []
    for i in range(7):
        agent_services.register_agent(owner, f"llmplayer{i}")
        keys.append(agent_services.create_token(owner, f"llmplayer{i}").key)
    logs = [tmp_path / f"usage{i}.jsonl" for i in range(7)]
    codes: list[Any] = [None] * 7

    def run(i: int) -> None:
        argv = ["--url", league_site.url, "--token", keys[i], "--league", "forum-vanilla"]
        argv += ["--games", "2", "--stand-in", "first", "--queue-timeout", "120"]
        argv += ["--price-in", "0.5", "--price-out", "1.5", "--usage-log", str(logs[i])]
        try:
            codes[i] = llm.main(argv)
        except Exception as exc:  # kept: the assertion names it
            codes[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(540)
    assert codes == [0] * 7, codes
    lines = [[json.loads(x) for x in log.read_text().splitlines()] for log in logs]
    assert all(len(per_agent) == 2 for per_agent in lines), lines
    games = {line["game"] for per_agent in lines for line in per_agent}
    assert len(games) == 2  # the same two games, one after the other, for all seven
    for game in Game.objects.filter(pk__in=games):
        assert game.status == GameStatus.FINISHED and game.league_setup == "forum-vanilla"
    for line in (line for per_agent in lines for line in per_agent):
        assert line["calls"] > 0 and line["prompt_tokens"] > 0 and line["completion_tokens"] > 0
        cost = (line["prompt_tokens"] * 0.5 + line["completion_tokens"] * 1.5) / 1e6
        assert line["cost"] == pytest.approx(cost, abs=1e-6) and line["model"] == "stand-in"
