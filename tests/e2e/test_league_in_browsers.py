"""A league game end to end: a person in Chromium and nine agents on the client library.

Nine agents (registered by their owner, each signed in with its own token) join the
classic ten-player queue through the API and wait for their game on the inbox socket; the
person joins the same queue with the League page's button, which fills the table: the
site makes the game, deals the seats and starts it by itself (there is no host). The
agents play it with the reference bot's strategy (``scripts/reference_bot.py`` on
``mafia_client``), driven by the game's live stream; the person plays through the page:
speeches in the reply box, the turn panel's Nominate, Vote and Pass buttons, night actions
on the role PM. When the game ends, each of the ten ratings has changed once, exactly as
``openskill`` computes them from the result, and the leaderboard lists the players.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest
from openskill.models import PlackettLuce
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.bots import reference_bot

from .conftest import chromium_watchdog, create_users, django_shell
from .story import LIVE_MS, goto, open_as, post_reply

pytestmark = pytest.mark.e2e

PASSWORD = "League-e2e-person-9"
PERSON = "leaguelea"
OWNER = "leagueowner"
AGENTS = tuple(f"leaguebot{i}" for i in range(9))
SETUP = "classic-ten"
GAME_TIMEOUT = 900  # seconds: a league table of 45 s turns in which everyone acts at once
SPEECH = (
    "I have listened to every speech and the quiet seats worry me. Nobody explained the "
    "votes yesterday, so I will follow the nominations closely before I decide today."
)

bots = reference_bot()


def register_agents(env: dict[str, str]) -> dict[str, str]:
    """The owner registers the nine agents; their first tokens' keys, by name."""
    code = (
        "import json\n"
        "from django.contrib.auth import get_user_model\n"
        "from agents import services as agents\n"
        f"owner = get_user_model().objects.get(username={OWNER!r})\n"
        "keys = {}\n"
        f"for name in {list(AGENTS)!r}:\n"
        "    agents.register_agent(owner, name, description='e2e league bot', code_url='')\n"
        "    keys[name] = agents.create_token(owner, name, token_name='e2e').key\n"
        "print(json.dumps(keys))\n"
    )
    return json.loads(django_shell(env, code).strip().splitlines()[-1])


class Seat(threading.Thread):
    """One agent: joins the queue, waits for its game on the inbox socket, plays it."""

    def __init__(self, base_url: str, name: str, key: str) -> None:
        super().__init__(name=f"agent-{name}", daemon=True)
        self.api = bots.Api(base_url, token=key, username=name)
        self.game_id: int | None = None
        self.joined = threading.Event()
        self.error: BaseException | None = None
        self.result: Any = None

    def run(self) -> None:
        try:
            client = self.api.client
            known = [g.game_id for g in client.my_games().active]
            client.enter_queue(SETUP)  # no wait: the person joins the queue last
            self.joined.set()
            self.game_id = client.wait_for_game(known=known, timeout=GAME_TIMEOUT).game_id
            strategy = bots.Bot(self.api, self.game_id)
            self.result = bots.mafia_client.play(client, self.game_id, strategy)
        except BaseException as error:  # reported by the test's thread
            self.error = error
            self.joined.set()


def person_turn(page: Page, game_url: str, turn: Any) -> None:
    """One move of the person's table turn, through the page as a person makes it."""
    goto(page, game_url)
    expect(page).to_have_title(re.compile("Your turn"), timeout=LIVE_MS)
    panel = page.locator("#turn-panel")
    may = set(turn.you_may)
    if "vote" in may:
        panel.locator("#turn-vote").select_option(index=0)
        panel.get_by_role("button", name="Vote").click()
    elif "post" in may:
        post_reply(page, f"{SPEECH} (day {turn.day}, {turn.step})")
        return
    elif "nominate" in may:
        panel.locator("#turn-nominate").select_option(index=0)
        panel.get_by_role("button", name="Nominate").click()
    elif "pass" in may:
        panel.get_by_role("button", name="Pass").click()
    page.wait_for_load_state("domcontentloaded")


def person_night(page: Page, game_url: str) -> None:
    """The person's night actions on the role PM: the first target of each form."""
    goto(page, game_url + "role/")
    forms = page.locator("#night-actions form.night-action")
    try:
        send_night_actions(page, forms)
    except PlaywrightError:
        # The night ended while the page was used (the agents had all acted): live.js took
        # its forms away under the person. Forms still there are a fault of the page.
        if forms.count():
            raise


def send_night_actions(page: Page, forms: Any) -> None:
    for index in range(forms.count()):
        form = forms.nth(index)
        if form.locator(".badge", has_text="submitted").count():
            continue
        selects = form.locator("select")
        for s in range(selects.count()):
            select = selects.nth(s)
            values = [
                v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)") if v
            ]
            select.select_option(values[0] if values else "", timeout=5_000)
        form.get_by_role("button", name=re.compile("Submit|Change")).click(timeout=5_000)
        page.wait_for_load_state("domcontentloaded")


def play_person(page: Page, api: Any, game_id: int, seats: list[Seat]) -> tuple[Any, int]:
    """Plays the person's seat until the game ends (reading the state with the person's
    own token, acting through the page); returns the finished game and the moves made."""
    client, game_url = api.client, f"/games/{game_id}/"
    end = time.monotonic() + GAME_TIMEOUT
    done_nights: set[int] = set()
    moves = 0
    while time.monotonic() < end:
        for seat in seats:
            assert seat.error is None, f"{seat.name}: {seat.error!r}"
        game = client.game(game_id)
        if game.over:
            return game, moves
        phase = game.phase
        if phase is not None and phase.kind == "night":
            # None: the game ended since it was read.
            mine = next((g for g in client.my_games().active if g.game_id == game_id), None)
            if mine and "night_action" in mine.needs and phase.number not in done_nights:
                person_night(page, game_url)
                done_nights.add(phase.number)
                moves += 1
        else:
            turn = client.turn(game_id)
            if turn.your_turn:
                person_turn(page, game_url, turn)
                moves += 1
                continue
        time.sleep(0.5)
    raise AssertionError(f"the league game {game_id} did not end in {GAME_TIMEOUT} s")


def outcome(env: dict[str, str], game_id: int, names: list[str]) -> dict[str, Any]:
    """The finished game's seats and the ratings the site stored, from the database."""
    code = (
        "import json\n"
        "from games.models import Game\n"
        "from ratings.models import RatedGame, Rating, RatingChange\n"
        f"game = Game.objects.get(pk={game_id})\n"
        "seats = [{'name': s.user.username, 'alignment': s.alignment, 'cause': s.death_cause}\n"
        "         for s in game.slots.select_related('user').order_by('seat')]\n"
        "ratings = [{'name': r.user.username, 'side': r.side, 'mu': r.mu, 'sigma': r.sigma,\n"
        "            'games': r.games} for r in Rating.objects.select_related('user')\n"
        f"           .filter(ruleset='classic', user__username__in={names!r})]\n"
        "print(json.dumps({'winner': game.winner, 'co_winners': game.co_winners,\n"
        "  'rated': game.rated, 'league_setup': game.league_setup,\n"
        "  'host': game.host.username, 'seats': seats, 'ratings': ratings,\n"
        "  'marks': RatedGame.objects.filter(game=game).count(),\n"
        "  'changes': RatingChange.objects.filter(game=game).count()}))\n"
    )
    return json.loads(django_shell(env, code).strip().splitlines()[-1])


def expected_ratings(seats: list[dict[str, Any]], winner: str) -> dict[str, tuple[float, float]]:
    """What openskill itself makes of the result: the town and the mafia as two teams,
    the winners first, everyone starting from the default rating."""
    model = PlackettLuce()
    teams: dict[str, list[str]] = {}
    for seat in seats:
        teams.setdefault(seat["alignment"], []).append(seat["name"])
    order = sorted(teams)
    rated = model.rate(
        [[model.rating(name=n) for n in teams[side]] for side in order],
        ranks=[1 if side == winner else 2 for side in order],
    )
    return {r.name: (r.mu, r.sigma) for team in rated for r in team}


def test_a_person_and_nine_agents_play_a_queued_classic_game(e2e_stack, browser) -> None:
    base_url, env = e2e_stack.base_url, e2e_stack.env
    create_users(env, [PERSON, OWNER], PASSWORD)
    keys = register_agents(env)
    seats = [Seat(base_url, name, keys[name]) for name in AGENTS]

    def queue_up(some: list[Seat]) -> None:
        for seat in some:
            seat.start()
        for seat in some:
            assert seat.joined.wait(60), f"{seat.name} did not join the queue"
            assert seat.error is None, f"{seat.name}: {seat.error!r}"

    queue_up(seats[:-1])
    context, page = open_as(browser, base_url, PERSON, PASSWORD, "league-person")
    try:
        goto(page, "/league/")
        row = page.locator("table.league-queues tr", has_text="Classic ten-player game")
        expect(row).to_contain_text("8 of 10")
        queue_up(seats[-1:])  # the page follows the queue live, with no reload
        expect(row).to_contain_text("9 of 10", timeout=LIVE_MS)
        row.get_by_role("button", name=re.compile("^Join")).click()
        page.wait_for_load_state("domcontentloaded")
        # The tenth seat filled the table: the game was made and started at once.
        game_link = page.locator("#league-games-heading + ul a").first
        expect(game_link).to_be_visible(timeout=LIVE_MS)
        game_id = int(re.search(r"/games/(\d+)/", game_link.get_attribute("href"))[1])
        expect(page.locator("table.league-queues tr", has_text="Classic ten")).to_contain_text(
            "0 of 10"
        )
        for seat in seats:  # each agent was told on its inbox socket
            deadline = time.monotonic() + 60
            while seat.game_id is None and seat.error is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert seat.game_id == game_id, f"{seat.name}: {seat.error!r}"

        person_api = bots.Api.login(base_url, PERSON, PASSWORD)
        game, moves = play_person(page, person_api, game_id, seats)
        assert game.winner in ("town", "mafia")
        assert moves >= 1  # the day-1 speech at least: nobody dies on night zero
        for seat in seats:
            seat.join(120)
            assert seat.error is None, f"{seat.name}: {seat.error!r}"
            assert seat.result is not None and seat.result.over

        # The leaderboard lists the person and the agents, the agents with their badge.
        goto(page, "/leaderboard/classic/")
        board = page.locator("main table")
        expect(board).to_contain_text(PERSON)
        expect(board.locator("tr", has_text=AGENTS[0]).locator(".agent-badge")).to_have_count(1)
    finally:
        with chromium_watchdog():
            context.close()

    names = [PERSON, *AGENTS]
    result = outcome(env, game_id, names)
    assert result["rated"] and result["league_setup"] == SETUP and result["host"] == "League"
    assert sorted(s["name"] for s in result["seats"]) == sorted(names)
    assert not [s for s in result["seats"] if s["cause"] == "modkill"], result["seats"]
    # Once: one mark for the game, one change per player on its overall and side ratings.
    assert result["marks"] == 1
    assert result["changes"] == 2 * len(names)
    expected = expected_ratings(result["seats"], result["winner"])
    sides = {s["name"]: s["alignment"] for s in result["seats"]}
    stored = {(r["name"], r["side"]): r for r in result["ratings"]}
    for name in names:
        for side in ("overall", sides[name]):
            rating = stored[(name, side)]
            assert rating["games"] == 1, (name, side, rating)
            assert rating["mu"] == pytest.approx(expected[name][0], abs=1e-9), (name, side)
            assert rating["sigma"] == pytest.approx(expected[name][1], abs=1e-9), (name, side)
    # Nothing applies it twice: a later look finds the same figures.
    time.sleep(2)
    again = outcome(env, game_id, names)
    assert again["marks"] == 1 and again["ratings"] == result["ratings"]
