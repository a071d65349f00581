"""Live equals reload in Chromium: an open page shows what a fresh load shows.

This is the browser's smoke test of the property. The proof for every event kind x every
kind of viewer runs in process, without a browser (``tests/site/test_live_in_process.py``,
a model of ``static/js/live.js``); here the real live.js in a real browser plays two games
by default (votes locking a wagon; a classic table's turns and its vote), and all five with
``PARITY_GAMES=all``.

For each kind the chosen games emit, a scenario emits it while pages are open for six
viewers: an anonymous spectator, a town player, the acting player (their open tab; they
act through the API, as from another tab), a mafia player, a dead player and the host.
After each scenario, once live delivery has settled, every live part of every open page
must equal the same part of a fresh load of that page in the same browser context
(``tests/e2e/live_parity.py``). A page found drifted is reloaded after its checkpoint, so
each scenario is judged on its own.

The games are played through the JSON API (``scripts/reference_bot.py``'s client):

* a forum game (sign-ups, start, votes, the host's clock, chores, a modkill, a day shot, a
  replacement, a hammer, a night, the dawn, the end with prods);
* a forum game with locking wagons;
* a classic game played in the thread (nominations, a tied vote that goes to a revote);
* a classic table (the turn panel: turns, notices, a vote that closes);
* a forum game cancelled in sign-ups.

Which kinds each scenario emitted is read from the game's event log (PostgreSQL), so a kind
counts as covered only where it really happened. A kind with no scenario fails
``test_every_kind_has_a_scenario``; each (kind, viewer) is its own test case, and a failure
names the kind, the viewer, the page and the part. Every checkpoint (what its game logged,
what differed, how long the comparison took) is written to
``screenshots/e2e/logs/live-equals-reload.txt``; ``PARITY_GAMES=forum_game,...`` plays
the named games (for whoever debugs one).
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import pytest

from games.event_kinds import KINDS
from tests.bots import reference_bot

from . import story as story_module
from .conftest import LOGS, chromium_watchdog, create_users
from .live_parity import HOOK, Mismatch, OpenPage, compare, open_page

pytestmark = pytest.mark.e2e

PASSWORD = "Live-equals-reload-9"
HOST = "parityhost"
PLAYERS = tuple(f"par{i}" for i in range(10))
QUEUER = "parsub"
COHOST = "parcohost"  # made a co-host, handed the game and back, then removed
VIEWERS = ("spectator", "town", "actor", "mafia", "dead", "host")
LONG = 600  # minutes: no deadline passes during a scenario

# Which scenario emits each kind. The test checks the game's event log agrees.
SCENARIOS: dict[str, tuple[str, ...]] = {
    "signups": ("game_created", "signup_joined", "signup_left"),
    "cancel": ("game_cancelled",),
    "start": ("game_started", "role_pm", "roles", "phase_started"),
    "votes": ("vote", "unvote", "vote_count", "post", "vote_refused"),
    "pause": ("paused",),
    "resume": ("resumed",),
    "extend": ("deadline_changed",),
    "chores": ("absence", "absence_cancelled", "replacement_queue", "will_written"),
    "co-hosts": ("hosts_changed",),
    "whispers": ("whisper",),
    "post limit": ("posts_left",),
    "modkill": ("modkill",),
    "day shot": ("day_action", "day_shot"),
    "replacement": ("replaced",),
    "hammer": ("hammer", "day_ended", "phase_report", "prod"),
    "night": ("night_action", "night_action_withdrawn"),
    "dawn": ("night_ended", "private_result"),
    "the end": ("replacement_needed", "game_finished"),
    "locked wagon": ("wagon_locked",),
    "revote": ("nomination", "revote_started"),
    "table": ("turn", "your_turn"),
    "table vote": ("table_vote_closed", "turn_notice"),
}


# Kinds no act brings, only time, proved in a browser by a story of their own that waits
# for the real scan: a scenario here would race the scan.
PROVED_ELSEWHERE = {
    "post_limit_lifted": "tests/e2e/test_post_limit_in_browsers.py (and in process: "
    "tests/site/test_live_post_limit.py)",
}

bots = reference_bot()


@dataclass
class Checkpoint:
    """One scenario's outcome: the kinds its game logged, and what differed."""

    game: str
    scenario: str
    kinds: set[str]
    mismatches: list[Mismatch]
    seconds: float = 0.0


@dataclass
class Run:
    base_url: str
    env: dict[str, str]
    browser: Any
    contexts: dict[str, Any] = field(default_factory=dict)
    apis: dict[str, Any] = field(default_factory=dict)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    played: set[str] = field(default_factory=set)

    def need(self, name: str) -> None:
        """Play a game when the first case needs it: so each test's time holds one game,
        not the fixture's setup every game (230 s of its 600 under the parallel suite)."""
        if name in self.played:
            return
        self.played.add(name)
        play = next(g for g in GAMES if g.__name__ == name)
        started = time.monotonic()
        try:
            play(self)
        except Exception:  # a game that broke off: its later kinds report it
            self.errors.append(f"{name}: {traceback.format_exc(limit=6)}")
        self.seconds += time.monotonic() - started
        _write_summary(self)


# -- people, pages and the event log -----------------------------------------------------


def context_of(run: Run, name: str) -> Any:
    """One browser context per person (own cookies), logged in once; "spectator" is anonymous."""
    if name in run.contexts:
        return run.contexts[name]
    context = run.browser.new_context(
        base_url=run.base_url, viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(15_000)
    context.add_init_script(HOOK)
    if name != "spectator":
        page = context.new_page()
        story_module.log_in(page, name, PASSWORD)
        page.close()
    run.contexts[name] = context
    return context


def event_position(run: Run, game_id: int) -> int:
    return int(
        _sql(run, "SELECT coalesce(max(seq), 0) FROM games_gameevent WHERE game_id = %s", game_id)[
            0
        ][0]
    )


def kinds_since(run: Run, game_id: int, seq: int) -> set[str]:
    rows = _sql(
        run, "SELECT kind FROM games_gameevent WHERE game_id = %s AND seq > %s", game_id, seq
    )
    return {kind for (kind,) in rows}


def _sql(run: Run, query: str, *args: Any) -> list[tuple[Any, ...]]:
    import psycopg

    url = run.env["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, args).fetchall()


@dataclass
class Game:
    """One game being played, with its viewers' open pages."""

    run: Run
    label: str
    game_id: int = 0
    pages: list[OpenPage] = field(default_factory=list)
    seq: int = 0
    roles: dict[str, str] = field(default_factory=dict)  # name -> role
    teams: dict[str, str] = field(default_factory=dict)  # name -> alignment
    slots: dict[str, int] = field(default_factory=dict)  # name -> slot id
    cast: dict[str, str] = field(default_factory=dict)  # viewer -> name

    def url(self, suffix: str = "") -> str:
        return f"/games/{self.game_id}/{suffix}"

    def api(self, name: str) -> Any:
        return self.run.apis[name]

    def call(self, name: str, method: str, suffix: str, data: dict[str, Any] | None = None) -> Any:
        path = f"games/{self.game_id}/{suffix}"
        api = self.api(name)
        if method == "GET":
            return api.get(path)
        if method in ("DELETE", "PUT"):
            return api._call(method, path, data)
        return api.post(path, data)

    def open(self, viewer: str, label: str, suffix: str = "") -> None:
        name = {"spectator": "spectator", "host": HOST}.get(viewer) or self.cast[viewer]
        page = open_page(context_of(self.run, name), viewer, label, self.url(suffix))
        self.pages.append(page)

    def read_roles(self) -> None:
        slots = self.call(HOST, "GET", "host/")["slots"]
        self.roles = {s["name"]: s["role"] for s in slots}
        self.teams = {s["name"]: s["alignment"] for s in slots}
        self.slots = {s["name"]: s["slot_id"] for s in slots}

    def checkpoint(self, scenario: str) -> None:
        """Everything since the last checkpoint has been emitted: compare every open page."""
        time.sleep(0.3)  # the frames are on their way (published after the commit)
        kinds = kinds_since(self.run, self.game_id, self.seq)
        self.seq = event_position(self.run, self.game_id)
        began = time.monotonic()
        mismatches = compare(self.pages)
        seconds = time.monotonic() - began
        self.run.checkpoints.append(Checkpoint(self.label, scenario, kinds, mismatches, seconds))
        # A page that drifted is reloaded, so the next scenario is judged on its own.
        drifted = {(m.viewer, m.page) for m in mismatches}
        for o in self.pages:
            if (o.viewer, o.label) in drifted:
                o.page.reload(wait_until="commit")

    def close(self) -> None:
        for o in self.pages:
            for page in (o.page, o.fresh):
                with contextlib.suppress(Exception):
                    if page is not None:
                        page.close()
        self.pages = []


def new_game(run: Run, label: str, body: dict[str, Any], players: tuple[str, ...]) -> Game:
    game = Game(run, label)
    made = run.apis[HOST].post("games/", {"title": f"Parity: {label}", **body})
    game.game_id = made["id"]
    for name in players:
        game.call(name, "POST", "join/")
    return game


def start(game: Game, viewers: Callable[[Game], dict[str, str]], *, table: bool = False) -> None:
    """Start, read who is who, remove the dead viewer (the modkill scenario is the forum
    game's), then open every viewer's pages."""
    game.call(HOST, "POST", "start/")
    game.read_roles()
    game.cast = viewers(game)
    dead = game.cast["dead"]
    game.call(HOST, "POST", "host/modkill/", {"slot_id": game.slots[dead], "reason": "parity"})
    open_viewers(game, table=table)
    game.open("dead", "dead thread", "t/dead/")
    game.seq = event_position(game.run, game.game_id)


def open_viewers(game: Game, *, table: bool = False) -> None:
    game.open("spectator", "thread")
    game.open("host", "thread")
    game.open("host", "host dashboard", "host/")
    for viewer in ("town", "actor", "mafia", "dead"):
        game.open(viewer, "thread")
        game.open(viewer, "role PM", "role/")
    game.open("mafia", "mafia thread", "t/mafia/")
    if not table:
        game.open("host", "mafia thread", "t/mafia/")
        game.open("spectator", "activity", "activity/")
        game.open("town", "activity", "activity/")
        game.open("host", "activity", "activity/")


def pick(game: Game, *, dead_role: str | None = None) -> dict[str, str]:
    """Viewers by dealt role: two town players, a mafia player, and one to kill."""
    town = [n for n in game.roles if game.teams[n] == "town"]
    plain = [n for n in town if game.roles[n] in ("vanilla_townie", "town", "citizen")]
    mafia = [n for n in game.roles if game.teams[n] == "mafia"]
    others = [n for n in plain if n not in plain[:3]] + [n for n in town if n not in plain]
    return {
        "town": plain[0],
        "actor": plain[1],
        "dead": plain[2],
        "mafia": mafia[0],
        "other_mafia": mafia[1] if len(mafia) > 1 else "",
        "others": ",".join(others),
    }


def modkill_dead_viewer(game: Game) -> None:
    dead = game.cast["dead"]
    game.call(HOST, "POST", "host/modkill/", {"slot_id": game.slots[dead], "reason": "parity"})
    game.checkpoint("modkill")
    game.open("dead", "dead thread", "t/dead/")


# -- the games ------------------------------------------------------------------------------
def forum_game(run: Run) -> None:
    game = new_game(
        run,
        "forum",
        {
            "ruleset": "forum",
            "role_list": [
                {"role": "goon", "count": 2},
                {"role": "cop"},
                {"role": "day_vigilante", "modifiers": ["shots:1"]},
                {"role": "vanilla_townie", "count": 5},
            ],
            "vote_rule": "majority_hammer",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
            "min_posts_per_day": 1,
            "inactivity_action": "replace",
            "last_wills": True,
            "whispers": "announced",
            "post_limit": 30,  # the reply box counts down; no scenario comes near it
        },
        PLAYERS[:1],
    )
    # Sign-ups: the spectator, the host, a signed-up player and one about to join watch.
    game.cast = {"town": PLAYERS[0], "actor": PLAYERS[1]}
    game.open("spectator", "sign-ups")
    game.open("host", "sign-ups")
    game.open("host", "host dashboard", "host/")
    game.open("town", "sign-ups")
    game.open("actor", "sign-ups")
    for name in PLAYERS[1:9]:
        game.call(name, "POST", "join/")
    game.call(PLAYERS[8], "POST", "leave/")
    game.call(PLAYERS[8], "POST", "join/")
    game.checkpoint("signups")
    game.call(HOST, "POST", "start/")
    game.checkpoint("start")
    game.close()

    game.read_roles()
    game.cast = pick(game)
    c = game.cast
    mafia2 = c["other_mafia"]
    cop = next(n for n, r in game.roles.items() if r == "cop")
    vig = next(n for n, r in game.roles.items() if r == "day_vigilante")
    x, y = [n for n in c["others"].split(",") if game.roles[n] == "vanilla_townie"][:2]
    open_viewers(game)
    game.seq = event_position(run, game.game_id)

    actor, town, mafia = c["actor"], c["town"], c["mafia"]
    game.call(actor, "POST", "vote/", {"target": game.slots[x]})
    game.call(actor, "POST", "posts/", {"body": "I think so. **Vote: nobody-of-that-name**"})
    game.call(town, "POST", "posts/", {"body": "Good morning, everyone."})
    game.call(actor, "POST", "unvote/")
    game.call(actor, "POST", "vote/", {"target": game.slots[y]})
    game.checkpoint("votes")

    game.call(HOST, "POST", "host/pause/")
    game.checkpoint("pause")
    game.call(HOST, "POST", "host/resume/")
    game.checkpoint("resume")
    game.call(HOST, "POST", "host/extend/", {"minutes": 30})
    game.checkpoint("extend")

    today = date.today()
    away = game.call(
        town, "POST", "away/", {"starts": str(today), "ends": str(today + timedelta(days=1))}
    )
    game.call(town, "DELETE", f"away/{away['id']}/")
    game.call(QUEUER, "POST", "queue/join/")
    game.call(town, "PUT", "will/", {"text": "I am town. Check the quiet ones."})
    game.checkpoint("chores")

    game.call(town, "POST", "whispers/", {"to": game.slots[actor], "body": "I trust you."})
    game.checkpoint("whispers")
    game.call(town, "POST", "posts/", {"body": "One post fewer left today."})
    game.checkpoint("post limit")

    game.call(HOST, "POST", "cohosts/", {"username": COHOST, "kind": "backup"})
    game.call(HOST, "POST", "hand-over/", {"username": COHOST})
    game.call(COHOST, "POST", "hand-over/", {"username": HOST})
    hosts = game.call(HOST, "GET", "")["cohosts"]
    cohost_id = next(c["user_id"] for c in hosts if c["username"] == COHOST)
    game.call(HOST, "DELETE", f"cohosts/{cohost_id}/")
    game.checkpoint("co-hosts")

    modkill_dead_viewer(game)

    game.call(vig, "POST", "day-action/", {"target": game.slots[x]})
    game.checkpoint("day shot")

    game.call(QUEUER, "POST", "queue/leave/")
    game.call(HOST, "POST", "host/replace/", {"slot_id": game.slots[mafia2], "username": QUEUER})
    game.checkpoint("replacement")
    game.read_roles()

    # Seven alive (town, actor, mafia, the new mafia player, cop, vig, y): four hammer y.
    for name in (town, mafia, vig):
        game.call(name, "POST", "vote/", {"target": game.slots[y]})
    game.checkpoint("hammer")

    game.call(cop, "POST", "actions/", {"ability": "investigate", "targets": [game.slots[mafia]]})
    game.call(mafia, "POST", "actions/", {"ability": "kill", "targets": [game.slots[vig]]})
    game.call(mafia, "DELETE", "actions/kill/")
    game.call(mafia, "POST", "actions/", {"ability": "kill", "targets": [game.slots[vig]]})
    game.checkpoint("night")

    game.call(HOST, "POST", "host/cut/")
    game.checkpoint("dawn")

    # Day 2, five alive: three votes eliminate the town player; the mafia reach parity. The
    # cop, silent on both days (a vote is a post), is prodded again with nobody in the queue.
    for name in (mafia, QUEUER, actor):
        game.call(name, "POST", "vote/", {"target": game.slots[town]})
    game.checkpoint("the end")
    game.close()


def locked_wagon_game(run: Run) -> None:
    game = new_game(
        run,
        "forum, locking wagons",
        {
            "ruleset": "forum",
            "role_list": [{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 6}],
            "vote_rule": "majority_lock",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        PLAYERS[:8],
    )
    start(game, pick)
    # Seven alive: majority 4, one more (5) locks the wagon.
    target = game.cast["others"].split(",")[0]
    voters = [n for n in game.roles if n not in (target, game.cast["dead"])][:5]
    voters.remove(game.cast["actor"])
    for name in [game.cast["actor"], *voters[:4]]:
        game.call(name, "POST", "vote/", {"target": game.slots[target]})
    game.checkpoint("locked wagon")
    game.close()


def classic_thread_game(run: Run) -> None:
    game = new_game(
        run,
        "classic in the thread",
        {
            "setup": "classic-ten",
            "turn_based": False,
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        PLAYERS,
    )
    start(game, pick)
    others = game.cast["others"].split(",")
    a, b = others[0], others[1]
    game.call(game.cast["actor"], "POST", "nominate/", {"target": game.slots[a]})
    game.call(game.cast["town"], "POST", "nominate/", {"target": game.slots[b]})
    for voter, target in (
        (game.cast["actor"], a),
        (game.cast["mafia"], a),
        (game.cast["town"], b),
        (others[2], b),
    ):
        game.call(voter, "POST", "vote/", {"target": game.slots[target]})
    game.call(HOST, "POST", "host/cut/")
    game.checkpoint("revote")
    game.close()


def table_game(run: Run) -> None:
    game = new_game(
        run,
        "classic table",
        {"setup": "classic-ten", "turn_length_seconds": 600, "vote_length_seconds": 600},
        PLAYERS,
    )
    start(game, pick, table=True)
    game.call(HOST, "POST", "host/cut/")  # night zero ends: day 1's speeches
    game.checkpoint("table")
    # Every speech is skipped by the host (a random nomination each): then the vote.
    for _ in range(12):
        turn = game.call(HOST, "GET", "turn/")
        if turn["step"] != "speech":
            break
        game.call(HOST, "POST", "host/skip-turn/")
    turn = game.call(HOST, "GET", "turn/")
    assert turn["step"] == "vote", turn
    ballot = [o for o in turn["ballot"] if not o.get("skip")]
    choice = game.slots[ballot[0]["name"]]
    alive = [p["name"] for p in game.call(HOST, "GET", "")["players"] if p["alive"]]
    for name in alive:
        with contextlib.suppress(bots.ApiError):
            game.call(name, "POST", "vote/", {"target": choice})
    game.checkpoint("table vote")
    game.close()


def cancelled_game(run: Run) -> None:
    """The host cancels a game in sign-ups while its pages are open."""
    game = new_game(
        run,
        "cancelled",
        {"setup": "forum-vanilla", "day_length_minutes": LONG, "night_length_minutes": LONG},
        PLAYERS[:3],
    )
    game.cast = {"town": PLAYERS[0], "actor": PLAYERS[1]}
    game.open("spectator", "sign-ups")
    game.open("host", "sign-ups")
    game.open("host", "host dashboard", "host/")
    game.open("town", "sign-ups")
    game.open("actor", "sign-ups")
    game.seq = event_position(run, game.game_id)
    game.call(HOST, "POST", "host/cancel/", {"reason": "parity"})
    game.checkpoint("cancel")
    game.close()


GAMES = (forum_game, locked_wagon_game, classic_thread_game, table_game, cancelled_game)
# Which scenarios each game plays (the checkpoints it calls).
GAME_SCENARIOS: dict[str, tuple[str, ...]] = {
    "forum_game": (
        "signups", "start", "votes", "pause", "resume", "extend", "chores", "whispers",
        "post limit", "co-hosts", "modkill", "day shot", "replacement", "hammer", "night",
        "dawn", "the end",
    ),
    "locked_wagon_game": ("locked wagon",),
    "classic_thread_game": ("revote",),
    "table_game": ("table", "table vote"),
    "cancelled_game": ("cancel",),
}  # fmt: skip
# The smoke run (the default): the in-process proof (tests/site/test_live_in_process.py)
# covers every kind x viewer without a browser; in Chromium, votes redrawing the vote count
# and panels of open pages, and a table's turns and its vote, as the real live.js does them.
SMOKE = ("locked_wagon_game", "table_game")


def chosen_games() -> tuple[str, ...]:
    """``PARITY_GAMES=all`` (or a list of names) plays more than the smoke run."""
    only = os.environ.get("PARITY_GAMES", "")
    if only == "all":
        return tuple(g.__name__ for g in GAMES)
    return tuple(only.split(",")) if only else SMOKE


def chosen_kinds() -> list[str]:
    scenarios = {s for g in chosen_games() for s in GAME_SCENARIOS.get(g, ())}
    return sorted({kind for s in scenarios for kind in SCENARIOS[s]})


# -- the fixture and the tests ----------------------------------------------------------------
@pytest.fixture(scope="module")
def parity(e2e_stack: Any, browser: Any) -> Iterator[Run]:
    story_module.BROWSER_LOG = LOGS
    create_users(e2e_stack.env, [HOST, *PLAYERS, QUEUER, COHOST], PASSWORD)
    run = Run(base_url=e2e_stack.base_url, env=e2e_stack.env, browser=browser)
    for name in (HOST, *PLAYERS, QUEUER, COHOST):
        run.apis[name] = bots.Api.login(e2e_stack.base_url, name, PASSWORD)
    yield run
    with chromium_watchdog():
        for context in run.contexts.values():
            with contextlib.suppress(Exception):
                context.close()


def _write_summary(run: Run) -> None:
    """What each scenario emitted and what differed, for whoever reads the failures."""
    lines = [f"scenarios ran in {run.seconds:.0f} s"]
    for c in run.checkpoints:
        lines.append(f"== {c.game}: {c.scenario} ({c.seconds:.1f} s): {', '.join(sorted(c.kinds))}")
        lines += [f"   {m}" for m in c.mismatches]
    lines += ["== errors", *run.errors]
    (LOGS / "live-equals-reload.txt").write_text("\n".join(lines) + "\n")


def test_every_kind_has_a_scenario() -> None:
    """A kind with no scenario fails here (as the authorization table does for URLs)."""
    covered = {kind for kinds in SCENARIOS.values() for kind in kinds}
    missing = sorted(set(KINDS) - covered - set(PROVED_ELSEWHERE))
    assert not missing, f"event kinds with no live-equals-reload scenario: {missing}"
    unknown = sorted(covered - set(KINDS))
    assert not unknown, f"scenarios name kinds the registry does not have: {unknown}"
    played = {s for scenarios in GAME_SCENARIOS.values() for s in scenarios}
    assert played == set(SCENARIOS), f"scenarios no game plays: {set(SCENARIOS) ^ played}"


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("kind", chosen_kinds())
def test_live_equals_reload(parity: Run, kind: str, viewer: str) -> None:
    scenario = next((s for s, kinds in SCENARIOS.items() if kind in kinds), None)
    assert scenario is not None, f"no scenario emits {kind}"
    for game in chosen_games():  # the first chosen game that plays it
        if scenario in GAME_SCENARIOS.get(game, ()):
            parity.need(game)
            break
    where = [c for c in parity.checkpoints if c.scenario == scenario and kind in c.kinds]
    assert where, (
        f"the scenario {scenario!r} did not emit {kind!r}; errors: {parity.errors or 'none'}"
    )
    wrong = [
        f"[{c.game}: {c.scenario}] {m}" for c in where for m in c.mismatches if m.viewer == viewer
    ]
    assert not wrong, f"{kind}, {viewer}: the open page differs from a reload:\n" + "\n".join(wrong)
