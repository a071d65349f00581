"""Live equals reload, in process, for every event kind and every kind of viewer.

The in-process twin of ``tests/e2e/test_live_equals_reload.py`` (as Zulip's
``verify_action`` is of its browser tests): no browser, no server. Games are played through
the JSON API (Django's test clients); pages are kept open as ``tests.live_model.OpenPage``,
a model of ``static/js/live.js``, whose frames are what the live layer itself would send
(``replay`` from the page's positions, routed and re-checked by the hub's and the
consumer's own code: ``tests.live_model.LiveRoom``). After every action every open page
applies its frames and each of its live parts must equal a fresh load of the page, with
``tests/e2e/live_parity.py``'s normalisations (countdown text, CSRF token, live status and
notices, whitespace). A page found drifted is loaded again, so each action is judged on its
own.

Viewers: an anonymous spectator, a signed-in non-player, a town player, the acting town
player, a mafia player, a dead player, a player who is replaced out (mafia, until the
replacement), the host, and an agent's seat (its socket signed in with its token); the
non-player is made a backup host, handed the game and removed again mid-game. Which
kinds each action emitted is read from the game's event log; each (kind, viewer) is its own
test case, and a failure names the kind, the viewer, the page and the part.

The games are played once per module (``play``), in a transaction rolled back at its end.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import transaction
from django.db.models.signals import post_save
from django.test import Client, TestCase, override_settings
from rest_framework.test import APIClient

from agents import services as agent_services
from games.api_tokens import sign_in
from games.event_kinds import KINDS, check_payload
from games.live import consumers
from games.live.inbox import publish_inbox
from games.models import Game, GameEvent, Phase, Slot
from games.reads import post_limit
from games.services.post_limit import lift_due
from tests.factories import UserFactory
from tests.live_model import LiveRoom, Mismatch, OpenPage, forget_gets

# Slow: the games are played with 86 pages open in the first test's setup; the quick loop
# leaves it to CI. Five games took 140 s alone and 700 s under the parallel run's load, past
# a third of any sensible timeout: so they are played in two halves, each a module (this one
# and its twin, ``test_live_in_process_tables.py``) that a worker of its own runs at once
# (about 75 and 55 s alone).
pytestmark = [pytest.mark.django_db, pytest.mark.slow, pytest.mark.timeout(900)]

HOST = "parityhost"
PLAYERS = tuple(f"par{i}" for i in range(10))
QUEUER = "parsub"
MEMBER = "parwatch"  # signed in, in no game
OWNER = "parowner"  # the agent's owner
AGENT = "parbot"
# "actor": a person who joins while watching the sign-ups (in game their pages are town's).
VIEWERS = (
    "anonymous", "member", "actor", "town", "mafia", "dead", "replaced", "host", "agent",
)  # fmt: skip
LONG = 600  # minutes: no deadline passes during a scenario


# ==========================================================================================
# Playing
# ==========================================================================================
@dataclass
class Step:
    """One action and what it did to the open pages."""

    game: str
    scenario: str
    action: str
    kinds: set[str]
    viewers: set[str]  # whose pages were open
    mismatches: list[Mismatch]
    # "you" notices a page showed for an item about someone else: (viewer, page, notice)
    misaddressed: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class Play:
    users: dict[str, Any] = field(default_factory=dict)
    clients: dict[str, Client] = field(default_factory=dict)
    agent_key: str = ""
    steps: list[Step] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu: float = 0.0  # this process's CPU seconds (the database's are not counted)
    # What the open pages did: items applied, asks for parts, reloads (not vacuous: most items
    # are applied, not reloaded away).
    stats: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("pages", "items", "asks", "reloads"), 0)
    )

    def client(self, name: str) -> Client:
        """One browser per person (its own cookies); "anonymous" signs in as no one."""
        if name not in self.clients:
            client = Client()
            if name != "anonymous":
                client.force_login(self.users[name])
            self.clients[name] = client
        return self.clients[name]

    def api(self, name: str) -> APIClient:
        api = APIClient()
        if name == AGENT:
            api.credentials(HTTP_AUTHORIZATION=f"Token {self.agent_key}")  # as an agent does
        else:
            api.force_authenticate(self.users[name])
        return api


class ApiError(Exception):
    pass


@dataclass
class GamePlay:
    """One game being played through the API, with its viewers' open pages."""

    play: Play
    label: str
    game_id: int = 0
    room: LiveRoom | None = None
    seq: int = 0
    scenario: str = ""
    roles: dict[str, str] = field(default_factory=dict)  # name -> role
    teams: dict[str, str] = field(default_factory=dict)  # name -> alignment
    slots: dict[str, int] = field(default_factory=dict)  # name -> slot id
    cast: dict[str, str] = field(default_factory=dict)  # viewer -> name
    told: set[int] = field(default_factory=set)  # user ids whose bells were pushed
    # The scenarios this play checks (None: all). Before the first of them the game is only
    # played (no page open, nothing compared), so one long game can be proved in halves.
    checked: frozenset[str] | None = None
    waiting: list[tuple[str, str, str]] = field(default_factory=list)  # pages to open then

    def checking(self) -> bool:
        return self.checked is None or self.scenario in self.checked

    def begin(self, scenario: str) -> None:
        """The next scenario. The first one checked after unchecked ones opens the pages
        asked for meanwhile, as they are now."""
        self.scenario = scenario
        if self.checking() and self.waiting:
            waiting, self.waiting = self.waiting, []
            for args in waiting:
                self.open(*args)
            self.seq = event_position(self.game_id)

    def call(self, name: str, method: str, suffix: str, data: dict[str, Any] | None = None) -> Any:
        path = f"/api/v1/games/{self.game_id}/{suffix}" if self.game_id else f"/api/v1/{suffix}"
        api = self.play.api(name)
        if method != "GET":
            forget_gets()  # the pages' answers may change now
        # What the action asks to run after its commit: here, whose bells it redraws.
        with TestCase.captureOnCommitCallbacks(execute=False) as after_commit:
            if method == "GET":
                answer = api.get(path)
            elif method == "DELETE":
                answer = api.delete(path)
            elif method == "PUT":
                answer = api.put(path, data or {}, format="json")
            else:
                answer = api.post(path, data or {}, format="json")
        for callback in after_commit:
            if getattr(callback, "func", None) is publish_inbox:
                self.told |= set(callback.args[0])
        if answer.status_code >= 400:
            raise ApiError(f"{method} {path} as {name}: {answer.status_code} {answer.content!r}")
        return answer.json() if answer.content else None

    def act(self, name: str, method: str, suffix: str, data: dict[str, Any] | None = None) -> Any:
        """One action, then every open page applies its frames and is compared."""
        answer = self.call(name, method, suffix, data)
        if self.checking():
            self.check(f"{name} {method} {suffix}")
        return answer

    def open(self, viewer: str, label: str, suffix: str = "") -> None:
        if not self.checking():
            self.waiting.append((viewer, label, suffix))
            return
        name = {"anonymous": "anonymous", "host": HOST, "member": MEMBER}.get(viewer)
        name = name or self.cast[viewer]
        user = self.play.users.get(name)
        if viewer == "agent":
            # Its socket signs in with its token (mafia_site.token_sockets): the token's user.
            found = sign_in(self.play.agent_key)
            assert found is not None
            user = found[0]
        assert self.room is not None
        page = OpenPage(
            self.play.client(name), f"/games/{self.game_id}/{suffix}",
            viewer=viewer, label=label, user=user,
        )  # fmt: skip
        self.room.open(page)

    def close(self) -> None:
        self.waiting = []
        if self.room is not None:
            for page in list(self.room.pages):
                stats = self.play.stats
                stats["pages"] += 1
                stats["items"] += page.applied
                stats["asks"] += page.asks
                stats["reloads"] += page.reloads
                self.room.close(page)

    def check(self, action: str) -> None:
        """Deliver every open page's frames; compare each page with a fresh load."""
        assert self.room is not None
        self.room.sync(self.told)
        self.told = set()
        kinds = set(
            GameEvent.objects.filter(game_id=self.game_id, seq__gt=self.seq).values_list(
                "kind", flat=True
            )
        )
        self.seq = event_position(self.game_id)
        found: list[Mismatch] = []
        drifted = []
        for page in self.room.pages:
            if not page.live:
                # No live.js on it (a 403 or 404 page): nothing keeps it up to date, and
                # nothing should; what it became is noted.
                self.play.notes.append(
                    f"{self.label}: {action}: {page.viewer} / {page.label}"
                    f" is not a live page ({page.statuses[-1]})"
                )
                continue
            wrong = page.drift()
            if wrong:
                drifted.append(page)
            found += wrong
        viewers = {p.viewer for p in self.room.pages}
        step = Step(self.label, self.scenario, action, kinds, viewers, found)
        for page in self.room.pages:
            step.misaddressed += [(page.viewer, page.label, str(m)) for m in page.misaddressed]
            page.misaddressed = []
        self.play.steps.append(step)
        # A page that drifted is loaded again: the next action is judged on its own.
        for page in drifted:
            page.load()

    def read_roles(self) -> None:
        # By the players' own names (``real_name``: an anonymous game's ``name`` is a mask).
        slots = self.call(HOST, "GET", "host/")["slots"]
        self.roles = {s["real_name"]: s["role"] for s in slots}
        self.teams = {s["real_name"]: s["alignment"] for s in slots}
        self.slots = {s["real_name"]: s["slot_id"] for s in slots}


def event_position(game_id: int) -> int:
    return Game.objects.filter(pk=game_id).values_list("event_seq", flat=True).get()


def new_game(
    play: Play, label: str, body: dict[str, Any], players: tuple[str, ...], seed: int = 7
) -> GamePlay:
    game = GamePlay(play, label)
    made = game.call(HOST, "POST", "games/", {"title": f"Parity: {label}", **body})
    game.game_id = made["id"]
    Game.objects.filter(pk=game.game_id).update(seed=seed)  # the same deal every run
    game.room = LiveRoom(game.game_id)
    for name in players:
        game.call(name, "POST", "join/")
    return game  # seq 0: the first check counts game_created and the sign-ups before it


def pick(game: GamePlay, *, keep: tuple[str, ...] = ()) -> dict[str, str]:
    """Viewers by dealt role: two town players, a mafia player, one to kill, the other mafia
    player (to be replaced out); ``keep``: names that are none of these (the agent)."""
    town = [n for n in game.roles if game.teams[n] == "town" and n not in keep]
    plain = [n for n in town if game.roles[n] in ("vanilla_townie", "town", "citizen")]
    mafia = [n for n in game.roles if game.teams[n] == "mafia" and n not in keep]
    others = [n for n in plain if n not in plain[:3]] + [n for n in town if n not in plain]
    return {
        "town": plain[0],
        "actor": plain[1],
        "dead": plain[2],
        "mafia": mafia[0],
        "replaced": mafia[1] if len(mafia) > 1 else "",
        "others": ",".join(others),
    }


def open_viewers(
    game: GamePlay, *, table: bool = False, agent: bool = False, replaced: bool = False
) -> None:
    """Each viewer's pages (the browser module's, and the new viewers')."""
    game.open("anonymous", "thread")
    game.open("member", "thread")
    game.open("host", "thread")
    game.open("host", "host dashboard", "host/")
    for viewer in ("town", "mafia", "dead"):
        game.open(viewer, "thread")
        game.open(viewer, "role PM", "role/")
    game.open("mafia", "mafia thread", "t/mafia/")
    if replaced:  # the forum game's replacement (elsewhere a second mafia player: no news)
        game.open("replaced", "thread")
        game.open("replaced", "role PM", "role/")
        game.open("replaced", "mafia thread", "t/mafia/")
    if replaced:
        # The thread grows past a page in this game: page 1 must stay page 1, and
        # ?page=last must follow the thread to its newest page.
        game.open("anonymous", "page 1", "?page=1")
        game.open("member", "newest page", "?page=last")
    if agent:
        game.open("agent", "thread")
        game.open("agent", "role PM", "role/")
    if not table:
        game.open("host", "mafia thread", "t/mafia/")
        game.open("anonymous", "activity", "activity/")
        game.open("town", "activity", "activity/")
        game.open("host", "activity", "activity/")
        # ISO views: the acting player's posts (and the town player's, side by side), by
        # seat: a name would stop choosing anyone once its seat is replaced.
        seats = dict(
            Slot.objects.filter(game_id=game.game_id).values_list("user__username", "seat")
        )
        actor, town = seats[game.cast["actor"]], seats[game.cast["town"]]
        game.open("anonymous", "ISO", f"?iso={actor}")
        game.open("town", "ISO", f"?iso={actor}")
        game.open("member", "multi-ISO", f"iso/?iso={actor}&iso={town}")


def start(game: GamePlay, *, table: bool = False) -> None:
    """Start, read who is who, modkill the dead viewer, then open every viewer's pages."""
    game.call(HOST, "POST", "start/")
    game.read_roles()
    game.cast = pick(game, keep=(AGENT,))
    game.cast["agent"] = AGENT  # every game has the agent in its last seat
    dead = game.cast["dead"]
    game.call(HOST, "POST", "host/modkill/", {"slot_id": game.slots[dead], "reason": "parity"})
    open_viewers(game, table=table, agent=True)
    game.open("dead", "dead thread", "t/dead/")
    check_agent_socket(game)
    game.seq = event_position(game.game_id)


# -- the games ------------------------------------------------------------------------------
def forum_game(play: Play, checked: frozenset[str] | None = None) -> None:
    """Sign-ups to the end: the scenarios ``checked`` (None: all) are compared, the others
    only played."""
    game = new_game(
        play,
        "forum",
        {
            "ruleset": "forum",
            "role_list": [
                {"role": "goon", "count": 2},
                {"role": "cop"},
                {"role": "day_vigilante", "modifiers": ["shots:1"]},
                {"role": "vanilla_townie", "count": 6},
            ],
            "vote_rule": "majority_hammer",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
            "min_posts_per_day": 1,
            "inactivity_action": "replace",
            "whispers": "announced",
            "last_wills": True,
        },
        PLAYERS[:1],
    )
    game.checked = checked
    # Sign-ups: the spectator, a member, the host, a signed-up player and one about to join.
    game.begin("signups")
    game.cast = {"town": PLAYERS[0], "actor": PLAYERS[1]}
    game.open("anonymous", "sign-ups")
    game.open("member", "sign-ups")
    game.open("host", "sign-ups")
    game.open("host", "host dashboard", "host/")
    game.open("town", "sign-ups")
    game.open("actor", "sign-ups")
    game.cast["agent"] = AGENT
    game.open("agent", "sign-ups")  # it joins last
    for name in PLAYERS[1:9]:
        game.act(name, "POST", "join/")
    game.act(PLAYERS[8], "POST", "leave/")
    game.act(PLAYERS[8], "POST", "join/")
    game.act(AGENT, "POST", "join/")
    game.begin("start")
    game.act(HOST, "POST", "start/")
    game.close()

    game.read_roles()
    game.cast = pick(game, keep=(AGENT,))
    game.cast["agent"] = AGENT
    c = game.cast
    cop = next(n for n, r in game.roles.items() if r == "cop")
    vig = next(n for n, r in game.roles.items() if r == "day_vigilante")
    x, y = [n for n in c["others"].split(",") if game.roles[n] == "vanilla_townie"][:2]
    assert AGENT not in (cop, vig, x, y) and game.teams[AGENT] == "town", game.roles
    open_viewers(game, agent=True, replaced=True)
    # The whispers pages: the two players' (the actor whispers to the town player), the
    # host's and an outsider's (the mafia player's: nothing of it may show there).
    for viewer in ("actor", "town", "host", "mafia"):
        game.open(viewer, "whispers", "whispers/")
    check_agent_socket(game)
    game.seq = event_position(game.game_id)

    actor, town, mafia, mafia2 = c["actor"], c["town"], c["mafia"], c["replaced"]
    game.begin("votes")
    game.act(actor, "POST", "vote/", {"target": game.slots[x]})
    game.act(actor, "POST", "posts/", {"body": "I think so. **Vote: nobody-of-that-name**"})
    game.act(town, "POST", "posts/", {"body": "Good morning, everyone."})
    game.act(AGENT, "POST", "posts/", {"body": "Beep boop."})
    game.act(actor, "POST", "unvote/")
    game.act(actor, "POST", "vote/", {"target": game.slots[y]})
    game.act(mafia, "POST", "posts/", {"body": "Quiet day."})
    game.act(mafia2, "POST", "posts/", {"body": "Indeed."})
    game.act(mafia, "POST", "posts/", {"body": "Let us plan.", "thread": "mafia"})
    game.act(actor, "POST", "whispers/", {"to": game.slots[town], "body": "Between us."})

    game.begin("pause")
    game.act(HOST, "POST", "host/pause/")
    game.begin("resume")
    game.act(HOST, "POST", "host/resume/")
    game.begin("extend")
    game.act(HOST, "POST", "host/extend/", {"minutes": 30})

    game.begin("chores")
    today = date.today()
    away = game.act(
        town, "POST", "away/", {"starts": str(today), "ends": str(today + timedelta(days=1))}
    )
    game.act(town, "DELETE", f"away/{away['id']}/")
    game.act(QUEUER, "POST", "queue/join/")
    # Last wills: the town player's, changed once; the dead player's, posted at the modkill.
    game.act(town, "PUT", "will/", {"text": "I am town. Check the quiet ones."})
    game.act(town, "PUT", "will/", {"text": "I am town. **Lynch** the quiet ones."})
    game.act(c["dead"], "PUT", "will/", {"text": "Goodbye, all."})

    # The member becomes a backup host (their pages gain the host's), the game is handed to
    # them and back (the host's controls change hands), and the host removes them again.
    game.begin("co-hosts")
    member = play.users[MEMBER]
    game.act(HOST, "POST", "cohosts/", {"username": MEMBER, "kind": "backup"})
    game.act(HOST, "POST", "hand-over/", {"username": MEMBER})
    game.act(MEMBER, "POST", "hand-over/", {"username": HOST})
    game.act(HOST, "DELETE", f"cohosts/{member.pk}/")
    if game.checked is not None and not game.checked & FORUM_END:
        game.close()
        return  # the rest is the other half's

    game.begin("modkill")
    dead = c["dead"]
    game.act(HOST, "POST", "host/modkill/", {"slot_id": game.slots[dead], "reason": "parity"})
    game.open("dead", "dead thread", "t/dead/")

    game.begin("day shot")
    game.act(vig, "POST", "day-action/", {"target": game.slots[x]})

    game.begin("replacement")
    game.act(QUEUER, "POST", "queue/leave/")
    game.act(HOST, "POST", "host/replace/", {"slot_id": game.slots[mafia2], "username": QUEUER})
    game.read_roles()

    # Eight alive: a majority (five) hammers y.
    game.begin("hammer")
    vote_until_the_day_ends(game, (town, mafia, vig, QUEUER, cop, AGENT), y)

    game.begin("night")
    game.act(cop, "POST", "actions/", {"ability": "investigate", "targets": [game.slots[mafia]]})
    game.act(mafia, "POST", "actions/", {"ability": "kill", "targets": [game.slots[vig]]})
    game.act(mafia, "DELETE", "actions/kill/")
    game.act(mafia, "POST", "actions/", {"ability": "kill", "targets": [game.slots[vig]]})

    game.begin("dawn")
    game.act(HOST, "POST", "host/cut/")

    # Day 2, six alive: a majority eliminates the town player; the silent players are
    # prodded again (nobody in the queue: a replacement is wanted). Night 2's kill brings
    # the mafia to parity at dawn.
    game.begin("the end")
    vote_until_the_day_ends(game, (mafia, QUEUER, actor, AGENT, cop), town)
    game.act(mafia, "POST", "actions/", {"ability": "kill", "targets": [game.slots[cop]]})
    game.act(HOST, "POST", "host/cut/")
    assert game.call(HOST, "GET", "")["status"] == "finished"
    check_agent_socket(game)
    game.close()


# The forum game in two halves, each proved by its own module (its setup under a third of
# the timeout): the first day's scenarios here, from the modkill on in the third module.
FORUM_DAY = frozenset(
    {"signups", "start", "votes", "pause", "resume", "extend", "chores", "co-hosts"}
)
FORUM_END = frozenset({"modkill", "day shot", "replacement", "hammer", "night", "dawn", "the end"})


def forum_day(play: Play) -> None:
    forum_game(play, FORUM_DAY)


def forum_end(play: Play) -> None:
    forum_game(play, FORUM_END)


def vote_until_the_day_ends(game: GamePlay, voters: tuple[str, ...], target: str) -> None:
    for name in voters:
        if is_night(game):
            return
        game.act(name, "POST", "vote/", {"target": game.slots[target]})
    assert is_night(game), "the votes did not end the day"


def is_night(game: GamePlay) -> bool:
    phase = Game.objects.get(pk=game.game_id).current_phase()
    return phase is not None and phase.kind == "night"


def check_agent_socket(game: GamePlay) -> None:
    """The agent's socket, signed in with its token, follows exactly its seat's audiences."""
    found = sign_in(game.play.agent_key)
    assert found is not None
    by_token = consumers.viewer_access(game.game_id, found[0])
    seat = Slot.objects.select_related("user").get(game_id=game.game_id, user__username=AGENT)
    by_seat = consumers.viewer_access(game.game_id, seat.user)
    assert by_token is not None and by_seat is not None
    if by_token[0] != by_seat[0] or by_token[2] != seat.pk:
        game.play.errors.append(f"agent socket {by_token} is not its seat's {by_seat}")


def locked_wagon_game(play: Play) -> None:
    game = new_game(
        play,
        "forum, locking wagons",
        {
            "ruleset": "forum",
            "role_list": [{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 6}],
            "vote_rule": "majority_lock",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        (*PLAYERS[:7], AGENT),
    )
    start(game)
    game.scenario = "locked wagon"
    # Seven alive: majority 4, one more (5) locks the wagon.
    target = game.cast["others"].split(",")[0]
    voters = [n for n in game.roles if n not in (target, game.cast["dead"])][:5]
    if game.cast["actor"] in voters:
        voters.remove(game.cast["actor"])
    for name in [game.cast["actor"], *voters[:4]]:
        game.act(name, "POST", "vote/", {"target": game.slots[target]})
    game.close()


def post_limit_game(play: Play) -> None:
    """The post limit: a player's own posts redraw their reply box (posts left today), and
    the lift, a moment no request marks, redraws every player's (its event, sent by the
    scan or its ETA task at that moment: the post limit's clock is moved there)."""
    game = new_game(
        play,
        "forum, post limit",
        {
            "ruleset": "forum",
            "role_list": [{"role": "goon", "count": 2}, {"role": "vanilla_townie", "count": 6}],
            "vote_rule": "majority_hammer",
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
            "post_limit": 2,
            "post_limit_lifted_minutes": 60,
        },
        (*PLAYERS[:7], AGENT),
    )
    start(game)
    game.scenario = "post limit"
    town, mafia = game.cast["town"], game.cast["mafia"]
    game.act(town, "POST", "posts/", {"body": "Two posts a day: this is one."})
    game.act(town, "POST", "posts/", {"body": "And that was my last."})
    try:
        game.call(town, "POST", "posts/", {"body": "One more?"})
        game.play.errors.append("post limit game: a third post was not refused")
    except ApiError:
        pass
    game.act(town, "POST", "vote/", {"target": game.slots[mafia]})  # a vote, not a post
    game.scenario = "post limit lifted"
    deadline = Phase.objects.get(game_id=game.game_id, number=1).deadline
    assert deadline is not None
    lifts = deadline - timedelta(minutes=60)
    with mock.patch.object(post_limit, "now", lambda: lifts):
        if lift_due(lifts) != [(game.game_id, 1)]:
            game.play.errors.append("post limit game: the lift was not announced")
        forget_gets()  # the pages' answers change with the clock, not with a request
        game.check("the post limit lifts")
        game.close()


def classic_thread_game(play: Play) -> None:
    game = new_game(
        play,
        "classic in the thread",
        {
            "setup": "classic-ten",
            "turn_based": False,
            "starts_with": "day",
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        (*PLAYERS[:9], AGENT),
    )
    start(game)
    game.scenario = "revote"
    others = game.cast["others"].split(",")
    a, b = others[0], others[1]
    game.act(game.cast["actor"], "POST", "nominate/", {"target": game.slots[a]})
    game.act(game.cast["town"], "POST", "nominate/", {"target": game.slots[b]})
    for voter, target in (
        (game.cast["actor"], a),
        (game.cast["mafia"], a),
        (game.cast["town"], b),
        (others[2], b),
    ):
        game.act(voter, "POST", "vote/", {"target": game.slots[target]})
    game.act(HOST, "POST", "host/cut/")
    game.close()


def table_game(play: Play) -> None:
    game = new_game(
        play,
        "classic table",
        {"setup": "classic-ten", "turn_length_seconds": 600, "vote_length_seconds": 600},
        (*PLAYERS[:9], AGENT),
    )
    start(game, table=True)
    game.scenario = "table"
    game.act(HOST, "POST", "host/cut/")  # night zero ends: day 1's speeches
    # Every speech is skipped by the host (a random nomination each): then the vote.
    for _ in range(12):
        turn = game.call(HOST, "GET", "turn/")
        if turn["step"] != "speech":
            break
        game.act(HOST, "POST", "host/skip-turn/")
    turn = game.call(HOST, "GET", "turn/")
    assert turn["step"] == "vote", turn
    game.scenario = "table vote"
    ballot = [o for o in turn["ballot"] if not o.get("skip")]
    choice = game.slots[ballot[0]["name"]]
    alive = [p["name"] for p in game.call(HOST, "GET", "")["players"] if p["alive"]]
    for name in alive:
        try:
            game.call(name, "POST", "vote/", {"target": choice})
        except ApiError:
            continue  # not this player's vote (dead, or already closed)
        game.check(f"{name} POST vote/")
    game.close()


def anonymous_game(play: Play) -> None:
    """Anonymous names: pages opened at sign-ups (real names) are redrawn under the masks
    when the game starts, for every viewer; then posts, a mention and votes by masked name
    (a bold vote and the button) redraw them as a reload shows them."""
    game = new_game(
        play,
        "forum, anonymous names",
        {
            "setup": "forum-vanilla",
            "anonymous_names": True,
            "day_length_minutes": LONG,
            "night_length_minutes": LONG,
        },
        (*PLAYERS[:6], AGENT),
    )
    game.cast = {"actor": PLAYERS[0]}
    game.open("anonymous", "sign-ups")
    game.open("member", "sign-ups")
    game.open("host", "sign-ups")
    game.open("host", "host dashboard", "host/")
    game.open("actor", "sign-ups")
    game.scenario = "anonymous start"
    game.act(HOST, "POST", "start/")
    game.read_roles()
    game.cast = {**pick(game, keep=(AGENT,)), "actor": PLAYERS[0], "agent": AGENT}
    for viewer in ("town", "mafia"):
        game.open(viewer, "thread")
        game.open(viewer, "role PM", "role/")
    game.open("mafia", "mafia thread", "t/mafia/")
    game.open("agent", "thread")
    game.open("anonymous", "activity", "activity/")
    game.scenario = "anonymous votes"
    masks = dict(
        Slot.objects.filter(game_id=game.game_id).values_list("user__username", "mask_name")
    )
    town, mafia = game.cast["town"], game.cast["mafia"]
    body = f"@{masks[mafia]}, explain.\n\n[b]Vote: {masks[mafia]}[/b]"
    game.act(town, "POST", "posts/", {"body": body})
    game.act(mafia, "POST", "posts/", {"body": f"[quote={masks[town]}]explain[/quote] No."})
    game.act(mafia, "POST", "vote/", {"target": game.slots[town]})
    game.close()


def cancelled_game(play: Play) -> None:
    """The host cancels a game in sign-ups while its pages are open."""
    game = new_game(
        play,
        "cancelled",
        {"setup": "forum-vanilla", "day_length_minutes": LONG, "night_length_minutes": LONG},
        PLAYERS[:3],
    )
    game.cast = {"town": PLAYERS[0], "actor": PLAYERS[1]}
    game.open("anonymous", "sign-ups")
    game.open("member", "sign-ups")
    game.open("host", "sign-ups")
    game.open("host", "host dashboard", "host/")
    game.open("town", "sign-ups")
    game.open("actor", "sign-ups")
    game.scenario = "cancel"
    game.act(HOST, "POST", "host/cancel/", {"reason": "parity"})
    game.close()


# The three parts of the proof: this module plays the forum game's sign-ups and first day
# (and a cancelled game), ``test_live_in_process_forum_end`` the rest of that game, and
# ``test_live_in_process_tables`` the other games. Each asks (kind x viewer) only of the
# kinds its games emit, and checks that it emits exactly those.
GAMES = (forum_day, cancelled_game, anonymous_game)
FORUM_END_GAMES = (forum_end,)
TABLE_GAMES = (locked_wagon_game, post_limit_game, classic_thread_game, table_game)
FORUM_DAY_KINDS = frozenset(
    {
        "absence", "absence_cancelled", "deadline_changed", "game_cancelled", "game_created",
        "game_started", "paused", "phase_started", "post", "replacement_queue", "resumed",
        "role_pm", "roles", "signup_joined", "signup_left", "unvote", "vote", "vote_count",
        "vote_refused", "whisper", "will_written", "hosts_changed",
    }
)  # fmt: skip
FORUM_END_KINDS = frozenset(
    {
        "day_action", "day_ended", "day_shot", "game_finished", "hammer", "modkill",
        "night_action", "night_action_withdrawn", "night_ended", "phase_report",
        "phase_started", "post", "private_result", "prod", "replaced", "replacement_needed",
        "replacement_queue", "role_pm", "vote", "vote_count",
    }
)  # fmt: skip
# The tables ask of every kind but these.
ONLY_IN_THE_FORUM_GAME = frozenset(
    {
        "absence", "absence_cancelled", "day_action", "day_ended", "day_shot",
        "deadline_changed", "game_cancelled", "game_created", "game_finished", "game_started",
        "hammer", "modkill", "night_action", "night_action_withdrawn", "paused", "phase_report",
        "private_result", "prod", "replaced", "replacement_needed", "replacement_queue",
        "resumed", "role_pm", "roles", "signup_joined", "signup_left", "unvote", "vote_refused",
        "whisper", "will_written", "hosts_changed",
    }
)  # fmt: skip
CASE_KINDS = FORUM_DAY_KINDS  # this module's


# ==========================================================================================
# The fixture and the tests
# ==========================================================================================
def play_fixture(games: tuple[Callable[[Play], None], ...]) -> Any:
    """A half's ``play`` fixture: its ``games`` played once for its module."""

    @pytest.fixture(scope="module")
    def play(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Play]:
        yield from play_games(games, django_db_blocker)

    return play


def play_games(games: tuple[Callable[[Play], None], ...], django_db_blocker: Any) -> Iterator[Play]:
    """Every game played once, in one transaction rolled back at the end: the tests read
    only the outcome (plain data), never the database."""
    result = Play()
    payload_errors: list[str] = []

    def check(sender: Any, instance: GameEvent, created: bool, **kwargs: Any) -> None:
        if created:
            payload_errors.extend(check_payload(instance.kind, instance.payload))

    began, cpu = time.monotonic(), time.process_time()
    settings = override_settings(
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        RATE_LIMITS_ENABLED=False,
        LIVE_PUBLISH_IN_BACKGROUND=False,
    )
    post_save.connect(check, sender=GameEvent, weak=False)
    try:
        with django_db_blocker.unblock(), settings, transaction.atomic():
            for name in (HOST, *PLAYERS, QUEUER, MEMBER, OWNER):
                result.users[name] = UserFactory(username=name)
            agent_services.register_agent(result.users[OWNER], AGENT)
            result.agent_key = agent_services.create_token(result.users[OWNER], AGENT).key
            result.users[AGENT] = sign_in(result.agent_key)[0]  # type: ignore[index]
            only = os.environ.get("PARITY_GAMES")  # whoever debugs one game plays only it
            for game in games:
                if only and game.__name__ not in only.split(","):
                    continue
                try:
                    game(result)
                except Exception:  # a game that broke off: its later kinds report it
                    result.errors.append(f"{game.__name__}: {traceback.format_exc(limit=8)}")
            transaction.set_rollback(True)
    finally:
        post_save.disconnect(check, sender=GameEvent)
    result.errors += [f"payload: {e}" for e in payload_errors[:10]]
    result.seconds = time.monotonic() - began
    result.cpu = time.process_time() - cpu
    yield result


play = play_fixture(GAMES)


def test_the_model_sees_a_page_left_behind_and_catches_it_up(client_for, make_game) -> None:
    """The comparison has teeth: a page that missed its frames differs from a reload, and
    the same page equals one once it has applied them (nothing here is vacuous)."""
    from games import services
    from tests.conftest import slot_of

    game = make_game("forum-vanilla")
    goon = slot_of(game, "goon")
    target = game.slots.exclude(pk=goon.pk).order_by("seat").first()
    room = LiveRoom(game.pk)
    pages = [
        room.open(OpenPage(client_for(), f"/games/{game.pk}/", viewer="anonymous")),
        room.open(OpenPage(client_for(goon.user), f"/games/{game.pk}/", user=goon.user)),
    ]
    services.cast_vote(goon.user, game.pk, target.pk)
    forget_gets()
    assert "vote-count" in {m.part for m in pages[0].drift()}
    assert {"vote-count", "players"} <= {m.part for m in pages[1].drift()}  # "your vote"
    room.sync()
    for page in pages:
        assert page.drift() == [], page.drift()
    # The consumer's own access re-check reaches the model: a player who dies gets the
    # dead thread, so their open page is told to reload.
    host = game.host
    services.modkill(host, game.pk, goon.pk)
    forget_gets()
    room.sync()
    assert pages[1].reloads == 1 and "dead" in room.audiences(pages[1])
    assert pages[0].reloads == 0 and pages[0].drift() == []


def test_the_model_sees_a_bell_left_behind_and_catches_it_up(client_for, make_game) -> None:
    """The bell is compared too: a notification nobody pushed leaves the open page's count
    behind a reload; its inbox frame (as ``publish_inbox`` sends it) brings it level."""
    from notifications.models import Notification

    game = make_game("forum-vanilla")
    player = game.slots.order_by("seat").first().user
    room = LiveRoom(game.pk)
    page = room.open(OpenPage(client_for(player), f"/games/{game.pk}/", user=player))
    unread = int(page.doc.by_id("bell").get("data-unread"))  # the start's notifications
    Notification.objects.create(user=player, game=game, kind="prod", text="Post.", link="/")
    forget_gets()
    assert [m.part for m in page.drift()] == ["bell"]
    room.sync()  # the game's frames alone: nobody's bell
    assert [m.part for m in page.drift()] == ["bell"]
    room.sync({player.pk})
    assert page.drift() == []
    assert page.doc.by_id("bell").get("data-unread") == str(unread + 1)


def test_the_games_played_through(play: Play) -> None:
    steps = len(play.steps)
    print(f"{steps} actions checked in {play.seconds:.0f} s ({play.cpu:.0f} s of CPU here)")
    print("open pages: " + ", ".join(f"{v} {k}" for k, v in play.stats.items()))
    assert not play.errors, "\n".join(play.errors)


def test_every_kind_has_a_case(play: Play, request: pytest.FixtureRequest) -> None:
    """A kind this half asks of that no action emitted (read from the games' event logs)
    fails here, and so does one it emitted but does not ask of (its mismatches would go
    unreported): a new kind is asked of by the half whose games emit it."""
    emitted = {kind for step in play.steps for kind in step.kinds}
    asked = request.module.CASE_KINDS
    missing, unasked = sorted(asked - emitted), sorted(emitted - asked)
    assert not missing, f"event kinds no in-process case emitted: {missing}"
    assert not unasked, (
        f"event kinds emitted here but not asked of (see the halves' lists): {unasked}"
    )


def test_the_three_parts_ask_of_every_kind() -> None:
    """Between them the three modules ask of every kind (and of nothing that is not one)."""
    tables = frozenset(KINDS) - ONLY_IN_THE_FORUM_GAME
    assert FORUM_DAY_KINDS | FORUM_END_KINDS | tables == set(KINDS)
    assert FORUM_DAY_KINDS | FORUM_END_KINDS <= set(KINDS) >= ONLY_IN_THE_FORUM_GAME


# Differences the proof finds that are known and being fixed: (kind, viewer) -> the bug.
# strict: the case fails once the bug is fixed, so the mark goes with it.
KNOWN: dict[tuple[str, str], str] = {}


def _cases(kinds: frozenset[str]) -> list[Any]:
    cases = []
    for kind in sorted(kinds):
        for viewer in VIEWERS:
            bug = KNOWN.get((kind, viewer))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            cases.append(pytest.param(kind, viewer, marks=marks, id=f"{kind}-{viewer}"))
    return cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each half's cases are the kinds it asks of (``CASE_KINDS`` of the module collecting
    the test: the twin imports these tests)."""
    kinds: frozenset[str] = metafunc.module.CASE_KINDS
    name = metafunc.function.__name__
    if name == "test_live_equals_reload":
        metafunc.parametrize(("kind", "viewer"), _cases(kinds))
    elif name == "test_you_notices_reach_only_their_player":
        metafunc.parametrize("kind", sorted(k for k in kinds if KINDS[k].to_you))


def test_you_notices_reach_only_their_player(play: Play, kind: str) -> None:
    """live.js words a result, a prod, a refused vote or a turn to "you": never on the
    pages of someone else (the host follows every player's feed, and the host's own)."""
    if not any(kind in s.kinds for s in play.steps):
        pytest.skip(f"no action emitted {kind}")
    wrong = [
        f"[{s.game}: {s.scenario}: {s.action}] {viewer} / {page}: {notice}"
        for s in play.steps
        for viewer, page, notice in s.misaddressed
        if notice.startswith(f"('{kind}'")
    ]
    assert not wrong, "\n".join(wrong)


def responsible(step: Step, mismatch: Mismatch) -> set[str]:
    """The kinds of the step that redraw the drifted part (its data-live-part names); when
    none does, every kind of the step (nothing was meant to redraw it)."""
    names = set(mismatch.names) or {mismatch.part}
    mine = {k for k in step.kinds if names & (KINDS[k].parts | KINDS[k].own_parts)}
    return mine or step.kinds


def test_live_equals_reload(play: Play, kind: str, viewer: str) -> None:
    where = [s for s in play.steps if kind in s.kinds and viewer in s.viewers]
    if not where:
        pytest.skip(f"no action emitting {kind} had pages open for {viewer}")
    wrong = [
        f"[{s.game}: {s.scenario}: {s.action}] {m}"
        for s in where
        for m in s.mismatches
        if m.viewer == viewer and kind in responsible(s, m)
    ]
    assert not wrong, f"{kind}, {viewer}: the open page differs from a reload:\n" + "\n".join(wrong)
