"""The live layer's server side: who hears what, what a frame says, and the fan-out.

Audiences. Every ``GameEvent`` is addressed to one audience: "public", "host",
"slot:<id>", "mafia", "dead" or "masons". A socket's audiences are computed from the
database (``viewer_audiences``: the policy of ``games.reads.access``, as ``Viewer``'s): public
always, the player's own slot, the mafia chat / masons' thread while alive in the team, the
dead thread once dead; the host and, after the game, everyone: every audience.

Frames. An event is rendered ONCE for its audience (``Renderer``: the HTML of a post via
``_post.html``, the vote count via ``_vote_count.html``, the phase banner, the players
list) and serialized to JSON text once. A websocket frame is a JSON array of such items.
Each item carries ``seq`` and, except for state items, ``prev``: the seq of the previous
event of the same audience, so a client that sees ``prev`` above what it has knows it
missed something and resumes. The vote count is state: a newer count replaces an older one
that has not been sent yet.

Fan-out. ``Hub`` is one per process (per event loop): it is the only member of the
channel-layer groups, so a group message costs one Redis message per process, not one
per socket. It routes items to the local sockets whose audiences include the item's,
batching per game at most every ``len(sockets) / LIVE_FRAME_BUDGET`` seconds (0 for a
small audience: immediate); each socket's ``Outbox`` sends joined text and, while a send is
in flight, merges what arrives (dropping superseded vote counts, never posts).

Redis away. The hub pings the channel layer's Redis every ``LIVE_HEALTH_SECONDS``; when it
stops answering, every local socket gets ``{"type": "live", "state": "paused"}`` (the page
says live updates are paused: the socket is up but nothing can come through it), and when
it answers again, and the layer has had a moment to subscribe again, ``"state": "live"``:
the page then resumes from its positions and catches up from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html

from . import fragments
from .layer_config import layer_redis_url
from .lru import ProcessLRU
from .models import TEAM_THREADS, Game, GameEvent, Post, Slot
from .reads import access

# No client holds a number this high; larger ones are refused before they reach SQL.
MAX_POSITION = 2**31

# Events that carry state rather than news: a newer one replaces an older one, so they are
# outside the per-audience ``prev`` chain and may be coalesced on the way to a socket.
STATE_KINDS = frozenset({"vote_count"})


def group_name(game_id: int, audience: str) -> str:
    """The channel-layer group of one audience of one game (group names allow no colon)."""
    return f"game-{game_id}.{audience.replace(':', '-')}"


log = logging.getLogger(__name__)

TEAM_AUDIENCES = frozenset({"mafia", *TEAM_THREADS})

# Kinds after which the phase banner / players list / deadline are re-rendered.
BANNER_KINDS = frozenset(
    {
        "game_started",
        "phase_started",
        "day_ended",
        "night_ended",
        "revote_started",
        "deadline_changed",
        "paused",
        "resumed",
        "hammer",
        "game_finished",
        "modkill",
        "signup_joined",
        "signup_left",
    }
)
# Kinds after which the table (a turn-based day's panel) is re-rendered.
TURN_KINDS = frozenset(
    {
        "turn",
        "phase_started",
        "day_ended",
        "night_ended",
        "paused",
        "resumed",
        "deadline_changed",
        "game_finished",
    }
)
PLAYER_KINDS = frozenset(
    {
        "game_started",
        "day_ended",
        "night_ended",
        "modkill",
        "replaced",
        "game_finished",
        "signup_joined",
        "signup_left",
        "day_shot",
    }
)
# Kinds that change who may see what: the hub re-checks the sockets' access on them.
ACCESS_KINDS = frozenset(
    {"game_started", "day_ended", "night_ended", "modkill", "replaced", "game_finished", "day_shot"}
)


def _setting(name: str, default: Any) -> Any:
    """A LIVE_* tuning knob: Django settings first, then the environment."""
    return getattr(settings, name, os.environ.get(name, default))


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


# ======================================================================================
# Audiences
# ======================================================================================
def everything(game_id: int, slot_ids: Iterable[int] | None = None) -> frozenset[str]:
    if slot_ids is None:
        slot_ids = Slot.objects.filter(game_id=game_id).values_list("pk", flat=True)
    return access.every_audience(slot_ids)


def audiences_of(game: Game, user: Any, slots: Iterable[Slot]) -> frozenset[str]:
    """What ``user`` may follow of ``game``, from rows already read (the game and all its
    slots): ``games.reads.access.audiences``."""
    return access.audiences(game, user, slots)


def viewer_audiences(game_id: int, user: Any) -> tuple[frozenset[str], int] | None:
    """(audiences, the game's event seq when read), or None if there is no such game.

    The seq is read first, so the audiences reflect at least that point of the game.
    """
    game = Game.objects.filter(pk=game_id).only("pk", "status", "host_id", "event_seq").first()
    if game is None:
        return None
    return access.user_audiences(game, user), game.event_seq


def access_meta(event: GameEvent) -> dict[str, Any] | None:
    """What an access-changing event means for sockets, read from its payload."""
    if event.kind not in ACCESS_KINDS:
        return None
    payload = event.payload or {}
    meta: dict[str, Any] = {"kind": event.kind}
    if event.kind == "day_ended" and payload.get("eliminated"):
        meta["dead"] = [payload["eliminated"]["slot_id"]]
    elif event.kind in ("night_ended", "day_shot"):
        meta["dead"] = [d["slot_id"] for d in payload.get("deaths", [])]
    elif event.kind == "modkill":
        meta["dead"] = [payload.get("slot_id")]
    elif event.kind == "replaced":
        meta["replaced"] = {"slot_id": payload.get("slot_id"), "old": payload.get("old_user_id")}
    return meta


# ======================================================================================
# Rendering: once per event and audience
# ======================================================================================
class Renderer:
    """Renders the items of one publish (or replay) call, sharing look-ups between them."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self._game: Game | None = None
        self._posts: dict[int, Post] = {}
        self._banner: dict[str, Any] | None = None
        self._players: str | None = None
        self._turn: str | None = None

    @property
    def game(self) -> Game:
        if self._game is None:
            self._game = Game.objects.select_related("host").get(pk=self.game_id)
        return self._game

    def prefetch_posts(self, events: Iterable[GameEvent]) -> None:
        keys = {_post_key(e.payload) for e in events if e.kind == "post"}
        numbers = Q()
        for thread, number in keys:
            numbers |= Q(thread=thread, number=number)
        if keys:
            rows = Post.objects.filter(numbers, game_id=self.game_id)
            rows = rows.select_related("author", "slot", "phase")
            self._posts.update({(p.thread, p.number): p for p in rows})

    def item(self, event: GameEvent, number: int) -> dict[str, Any]:
        """What a client gets for ``event``: ``n`` is its number in its audience (see
        ``build_messages``), never the game-wide seq."""
        item: dict[str, Any] = {"n": number, "kind": event.kind, "aud": event.audience}
        payload = event.payload or {}
        if event.kind == "post":
            item.update(
                thread=payload.get("thread"),
                number=payload.get("number"),
                html=self.post_html(payload),
            )
        elif event.kind == "vote_count":
            item.update(
                html=self.vote_count_html(payload),
                phase=payload.get("phase"),
                deadline=payload.get("deadline"),
                paused_remaining=payload.get("paused_remaining"),
            )
        else:
            item["data"] = without_site_ids(payload)
        if event.kind in TURN_KINDS:
            item["turn"] = self.turn_html()
        if event.kind in BANNER_KINDS:
            item.update(self.banner())
        if event.kind in PLAYER_KINDS:
            item["players"] = self.players_html()
        return item

    # -- partials: the same templates the pages render, for an anonymous viewer ----------
    def post_html(self, payload: dict[str, Any]) -> str:
        key = _post_key(payload)
        post = self._posts.get(key)
        if post is None:
            post = (
                Post.objects.filter(game_id=self.game_id, thread=key[0], number=key[1])
                .select_related("author", "slot", "phase")
                .first()
            )
        if post is None:  # deleted with its game; the payload has what the thread shows
            return format_html('<article class="post">{}</article>', payload.get("author", ""))
        return fragments.render_post(post)

    def vote_count_html(self, count: dict[str, Any]) -> str:
        # The count as of this event (not as of now): a newer one follows if it changed.
        game = self.game
        phase = SimpleLazyObject(lambda: game.phases.filter(number=count.get("phase")).first())
        return render_to_string(
            "games/_vote_count.html", {"count": count, "game": game, "phase": phase}
        )

    def banner(self) -> dict[str, Any]:
        """The phase banner and the deadline, from the game as it is now."""
        if self._banner is None:
            game = self.game
            phase = game.current_phase()
            self._banner = {
                "banner": fragments.render_phase_banner(game),
                "deadline": phase.deadline.isoformat() if phase and phase.deadline else None,
                "paused": bool(phase and phase.is_paused),
                "status": game.status,
            }
        return self._banner

    def turn_html(self) -> str:
        """The table as everyone sees it now (a player's page fetches its own buttons)."""
        if not self.game.turn_based:
            return ""
        if self._turn is None:
            self._turn = fragments.render_turn(self.game)
        return self._turn

    def players_html(self) -> str:
        if self._players is None:
            self._players = fragments.render_players(self.game)
        return self._players


def _post_key(payload: dict[str, Any]) -> tuple[str, int]:
    return str(payload.get("thread") or "public"), int(payload.get("number") or 0)


# Site-wide ids no client gets: post ids (events stored before posts were referred to by
# number carry them; their gaps would count other audiences' posts) and the user id a
# ``replaced`` event keeps for the server (``access_meta``: the hub takes the old player's
# sockets off the slot).
SITE_ID_KEYS = frozenset({"id", "post_id", "old_user_id"})


def without_site_ids(value: Any) -> Any:
    """``value`` minus the site-wide ids of ``SITE_ID_KEYS``."""
    if isinstance(value, dict):
        return {k: without_site_ids(v) for k, v in value.items() if k not in SITE_ID_KEYS}
    if isinstance(value, list):
        return [without_site_ids(v) for v in value]
    return value


# ======================================================================================
# Publishing: one message per run of same-audience events, in seq order
# ======================================================================================
def counter_key(event_audience: str, kind: str) -> str:
    """The ordinal an event is numbered in: its audience's stream, or its state kind's."""
    return f"~{kind}" if kind in STATE_KINDS else event_audience


def _db_count(game_id: int, key: str, below: int) -> int:
    """How many events of ``key``'s numbering come before seq ``below`` (store lost it)."""
    return event_counts(game_id, below - 1).get(key, 0)


# Per game, process-wide: the numbering's counts at one seq (``event_counts``).
_EVENT_COUNTS: ProcessLRU[tuple[int, dict[str, int]]] = ProcessLRU(2048)


def _counts_between(game_id: int, low: int, high: int) -> dict[str, int]:
    """Events with ``low < seq <= high`` per numbering key (audience, or ``~kind``)."""
    rows = (
        GameEvent.objects.filter(game_id=game_id, seq__gt=low, seq__lte=high)
        .values_list("audience", "kind")
        .annotate(c=Count("id"))
        .order_by()
    )
    counts: dict[str, int] = {}
    for audience, kind, c in rows:
        key = f"~{kind}" if kind in STATE_KINDS else audience
        counts[key] = counts.get(key, 0) + c
    return counts


def event_counts(game_id: int, floor: int) -> dict[str, int]:
    """How many events each numbering (an audience's items, ``~vote_count``...) holds up to
    seq ``floor``: the position of a client that has seen everything up to there.

    The log only grows and every event up to a committed ``event_seq`` is committed, so the
    counts at a seq never change: they are kept per game and moved to a new floor by
    counting only the events between (a page view costs a few rows, not the whole log).
    """
    if floor <= 0:
        return {}
    held = _EVENT_COUNTS.get(game_id)
    if held is None:
        counts = _counts_between(game_id, 0, floor)
    elif held[0] == floor:
        return held[1]
    elif held[0] < floor:
        counts = dict(held[1])
        for key, c in _counts_between(game_id, held[0], floor).items():
            counts[key] = counts.get(key, 0) + c
    else:  # an older floor (a slow request): take the newer counts back, keep them
        counts = dict(held[1])
        for key, c in _counts_between(game_id, floor, held[0]).items():
            counts[key] -= c
        return counts
    _EVENT_COUNTS.put(game_id, (floor, counts), keep=lambda held: held[0] >= floor)
    return counts


def build_messages(
    game_id: int, events: list[GameEvent], counters: dict[str, int]
) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, int]]:
    """Channel-layer messages for ``events`` (every event above the cursor, by seq) and
    the new counters.

    Clients never see the game-wide seq: it counts private events too, so its jumps
    would tell a spectator how many night actions were sent (a factional kill writes
    three events, a town action two). Each item carries ``n``, its number within its
    audience (1, 2, 3... with no gaps, so a client notices a missing one), or, for a
    state item, within its kind (vote counts: newer has a higher ``n``).
    """
    renderer = Renderer(game_id)
    renderer.prefetch_posts(events)
    messages: list[tuple[str, dict[str, Any]]] = []
    new_counters: dict[str, int] = {}
    # Commits that piled up while a push ran: only the newest vote count of the pile goes.
    newest_state = {(e.audience, e.kind): e.seq for e in events if e.kind in STATE_KINDS}
    run: list[dict[str, Any]] = []
    run_audience = None
    for event in events:
        audience = event.audience
        key = counter_key(audience, event.kind)
        if key in new_counters:
            number = new_counters[key] + 1
        elif key in counters:
            number = counters[key] + 1
        else:
            number = _db_count(game_id, key, event.seq) + 1
        new_counters[key] = number
        state = event.kind in STATE_KINDS
        if state and newest_state[(audience, event.kind)] != event.seq:
            continue  # counted, not sent
        item = renderer.item(event, number)
        entry = {"seq": event.seq, "kind": event.kind, "state": state, "text": dumps(item)}
        meta = access_meta(event)
        if meta:
            entry["meta"] = meta
        if audience != run_audience and run:
            messages.append(_message(game_id, run_audience, run))
            run = []
        run_audience = audience
        run.append(entry)
    if run:
        messages.append(_message(game_id, run_audience, run))
    return messages, new_counters


def _message(game_id: int, audience: str, items: list[dict[str, Any]]) -> tuple[str, dict]:
    return group_name(game_id, audience), {
        "type": "live.batch",
        "game": game_id,
        "aud": audience,
        "items": items,
    }


# ======================================================================================
# Replay: what a (re)connecting socket missed
# ======================================================================================
@dataclass
class Replay:
    floor: int  # game-wide seq (internal): everything visible up to here is covered
    positions: dict[str, int] = field(default_factory=dict)  # the client's numbers at floor
    items: list[tuple[int, str]] = field(default_factory=list)  # (seq, text)
    reload: bool = False


def positions_at(game_id: int, audiences: Iterable[str], floor: int) -> dict[str, int]:
    """For each audience (and each state kind the socket sees) the number of its last
    event at ``floor``: what a client that is up to date holds."""
    counts = event_counts(game_id, floor)
    positions = {audience: counts.get(audience, 0) for audience in audiences}
    if "public" in positions:  # state events (the vote count) are public
        for kind in STATE_KINDS:
            positions[f"~{kind}"] = counts.get(f"~{kind}", 0)
    return positions


def _seq_of(game_id: int, key: str, number: int) -> int | None:
    """The game-wide seq of event ``number`` of ``key``'s numbering (None: no such)."""
    if number <= 0:
        return 0
    if number > MAX_POSITION:
        return None  # beyond any log (and beyond what the database can count to)
    rows = GameEvent.objects.filter(game_id=game_id)
    if key.startswith("~"):
        rows = rows.filter(kind=key[1:])
    else:
        rows = rows.filter(audience=key).exclude(kind__in=STATE_KINDS)
    found = list(rows.order_by("seq").values_list("seq", flat=True)[number - 1 : number])
    return found[0] if found else None


def replay(
    game_id: int,
    audiences: Iterable[str],
    since: int | None = None,
    positions: dict[str, int] | None = None,
) -> Replay:
    """The visible events a client misses, rendered, or ``reload`` when too far behind.

    The client says what it has as ``positions`` (its number per audience, from the page
    or earlier frames). ``since=0`` asks for everything from the start; any other
    ``since`` (a game-wide seq, which clients no longer hold) is ignored: answering it
    would depend on hidden events (a "reload" exactly above the game's event counter, or
    replays that place each public event in the game-wide sequence and so count the
    private events between them). So is an audience the client has no position for: it
    gets nothing older than now.
    """
    floor = Game.objects.filter(pk=game_id).values_list("event_seq", flat=True).first() or 0
    audiences = sorted(audiences)
    positions = {k: v for k, v in (positions or {}).items() if isinstance(v, int)}
    since = 0 if since == 0 else None
    starts: dict[str, int] = {}
    for audience in audiences:
        if audience in positions:
            seq = _seq_of(game_id, audience, positions[audience])
            if seq is None:
                return Replay(floor, reload=True)
            starts[audience] = seq
        else:
            starts[audience] = floor if since is None else since
    if all(start == floor for start in starts.values()) and "~vote_count" not in positions:
        return Replay(floor, positions_at(game_id, audiences, floor))
    visible = Q()
    for audience, start in starts.items():
        visible |= Q(audience=audience, seq__gt=start)
    limit = int(_setting("LIVE_REPLAY_LIMIT", 200))
    rows = list(
        GameEvent.objects.filter(visible, game_id=game_id, seq__lte=floor)
        .exclude(kind__in=STATE_KINDS)
        .order_by("seq")[: limit + 1]
    )
    if len(rows) > limit:
        return Replay(floor, reload=True)
    numbers = {
        a: positions[a] if a in positions else _db_count(game_id, a, starts[a] + 1)
        for a in audiences
    }
    numbered: list[tuple[GameEvent, int]] = []
    for event in rows:
        numbers[event.audience] += 1
        numbered.append((event, numbers[event.audience]))
    # State events: only the newest of each kind matters, if newer than the client's.
    if "public" in audiences:
        for kind in STATE_KINDS:
            latest = GameEvent.objects.filter(game_id=game_id, kind=kind, seq__lte=floor)
            latest = latest.order_by("-seq").first()
            if latest is None:
                continue
            number = _db_count(game_id, f"~{kind}", latest.seq) + 1
            has = positions.get(f"~{kind}")
            newer = number > has if has is not None else latest.seq > starts["public"]
            if newer:
                numbered.append((latest, number))
    renderer = Renderer(game_id)
    renderer.prefetch_posts(e for e, _ in numbered)
    items = [(event.seq, dumps(renderer.item(event, number))) for event, number in numbered]
    return Replay(floor, positions_at(game_id, audiences, floor), items)


def page_positions(game: Game, user: Any, slots: Iterable[Slot] | None = None) -> str:
    """What a page renders into ``data-live-positions`` for ``live.js`` (``public.17,
    slot:5.3,~vote_count.4``): the viewer's numbers at render time, so the page need not
    print the game-wide seq (whose jumps count hidden events). ``slots``: all the game's
    slots, read after ``game`` (a page has them), which saves reading them again."""
    if slots is None:
        access = viewer_audiences(game.pk, user)
        if access is None:
            return ""
        audiences = access[0]
    else:
        audiences = audiences_of(game, user, slots)
    positions = positions_at(game.pk, audiences, game.event_seq)
    return ",".join(f"{key}.{number}" for key, number in sorted(positions.items()))


def heads(game_id: int, audiences: Iterable[str]) -> dict[str, int]:
    """The ping answer: each audience's newest number now. A client holding less missed
    a frame (even one that nothing has followed yet) and resumes."""
    floor = Game.objects.filter(pk=game_id).values_list("event_seq", flat=True).first() or 0
    return positions_at(game_id, audiences, floor)


# ======================================================================================
# Per-socket outbox: join, send, merge while a send is in flight
# ======================================================================================
class Outbox:
    """What is waiting to go out on one socket.

    ``items`` keep their order and are never dropped (posts, deaths, phase changes);
    ``states`` hold the newest item of each state kind (the vote count), replacing an
    older one not yet sent. If a socket falls hopelessly behind (its client stopped
    reading), the backlog is dropped and the client is told to resume from its last seq:
    nothing is lost silently.
    """

    def __init__(self, send: Callable[[str], Awaitable[None]]) -> None:
        self._send = send
        self.items: list[tuple[int | None, str]] = []
        self.states: dict[str, tuple[int, str]] = {}
        self.sent_state_seq: dict[str, int] = {}
        self.held = False
        self.sending = False
        self.closed = False
        self.floor = 0  # every visible event up to here has been sent (by a replay)
        self.overflowed = False
        self.limit = int(_setting("LIVE_OUTBOX_LIMIT", 1000))
        self.frames_sent = 0

    def push(self, items: list[tuple[int, str]], states: dict[str, tuple[int, str]]) -> None:
        if self.closed or self.overflowed:
            return  # overflowed: the client resumes from the log, then we carry on
        if items and items[0][0] <= self.floor:
            # Published late (a push that was still running during our replay): the
            # replay up to ``floor`` had these already.
            items = [(seq, text) for seq, text in items if seq > self.floor]
        self.items.extend(items)
        for kind, (seq, text) in states.items():
            current = self.states.get(kind)
            if seq > max(
                current[0] if current else 0, self.sent_state_seq.get(kind, 0), self.floor
            ):
                self.states[kind] = (seq, text)
        if len(self.items) > self.limit:
            self.items = [(None, dumps({"type": "resync", "reason": "backlog"}))]
            self.states.clear()
            self.overflowed = True
        self._kick()

    def control(self, message: dict[str, Any]) -> None:
        self.items.append((None, dumps(message)))
        self._kick()

    def hold(self) -> None:
        self.held = True

    def release(self, floor: int, replayed: list[tuple[int | None, str]] = ()) -> None:
        """Resume sending: ``replayed`` (everything visible up to ``floor``) goes first,
        then what arrived live meanwhile, minus what the replay already covered."""
        self.floor = max(self.floor, floor)
        self.overflowed = False
        live = [(s, t) for s, t in self.items if s is None or s > floor]
        self.items = [
            *live[: self._controls_first(live)],
            *replayed,
            *live[self._controls_first(live) :],
        ]
        self.states = {k: v for k, v in self.states.items() if v[0] > floor}
        self.held = False
        self._kick()

    @staticmethod
    def _controls_first(items: list[tuple[int | None, str]]) -> int:
        """How many control messages (hello) lead the queue: they stay in front."""
        n = 0
        while n < len(items) and items[n][0] is None:
            n += 1
        return n

    def seen_state(self, kind: str, seq: int) -> None:
        self.sent_state_seq[kind] = max(self.sent_state_seq.get(kind, 0), seq)

    def _kick(self) -> None:
        if self.held or self.sending or self.closed or not (self.items or self.states):
            return
        self.sending = True
        asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while not self.held and not self.closed and (self.items or self.states):
                texts = [t for _, t in self.items]
                for kind, (seq, text) in self.states.items():
                    texts.append(text)
                    self.sent_state_seq[kind] = seq
                self.items, self.states = [], {}
                await self._send("[" + ",".join(texts) + "]")
                self.frames_sent += 1
        except Exception:  # the socket went away; the consumer cleans up
            self.closed = True
        finally:
            self.sending = False


# ======================================================================================
# The hub: one per process and event loop
# ======================================================================================
class Member:
    """What the hub needs from a socket (implemented by ``consumers.GameConsumer``)."""

    game_id: int
    user_id: int | None
    slot_id: int | None
    outbox: Outbox

    def access_may_have_changed(self, seq: int, meta: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Room:
    game_id: int
    sockets: dict[Any, frozenset[str]] = field(default_factory=dict)
    pending: list[tuple[int, str, str]] = field(default_factory=list)
    states: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    handle: asyncio.Handle | None = None
    last_flush: float = 0.0
    groups: set[str] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    def __init__(self) -> None:
        from channels.layers import get_channel_layer

        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.rooms: dict[int, Room] = {}
        self._task: asyncio.Task | None = None
        self._ready = asyncio.Lock()
        self.budget = float(_setting("LIVE_FRAME_BUDGET", 2000))
        self.max_interval = float(_setting("LIVE_MAX_BATCH_INTERVAL", 0.5))
        self.health_interval = float(_setting("LIVE_HEALTH_SECONDS", 2.0))
        # False while the channel layer's Redis does not answer (``_watch``).
        self.layer_ok = True
        self._watch_task: asyncio.Task | None = None

    async def start(self) -> None:
        async with self._ready:
            if self.channel is None:
                # The default prefix: the core Redis layer reads every process-specific
                # channel of a process through one queue named after that prefix.
                self.channel = await self.layer.new_channel()
                loop = asyncio.get_running_loop()
                self._task = loop.create_task(self._run())
                url = layer_redis_url()
                if url is not None and self.health_interval > 0:
                    self._watch_task = loop.create_task(self._watch(url))

    async def stop(self) -> None:
        for name in ("_task", "_watch_task"):
            task = getattr(self, name)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                setattr(self, name, None)

    # -- the channel layer's health ----------------------------------------------------------
    async def _watch(self, url: str) -> None:
        import redis.asyncio as aioredis

        timeout = min(1.0, self.health_interval)
        client = aioredis.Redis.from_url(
            url, socket_connect_timeout=timeout, socket_timeout=timeout
        )
        try:
            while True:
                try:
                    ok = bool(await client.ping())
                except asyncio.CancelledError:
                    raise
                except Exception:
                    ok = False
                if ok and not self.layer_ok:
                    # The layer's subscriber reconnects on its own (about a second):
                    # let it, and subscribe what failed meanwhile, before saying "live".
                    await asyncio.sleep(self.health_interval)
                    for room in list(self.rooms.values()):
                        await self._sync_groups(room)
                if ok != self.layer_ok:
                    self.layer_ok = ok
                    log.warning("Live hub: the channel layer is %s", "back" if ok else "away")
                    self.tell_everyone(layer_state(ok))
                await asyncio.sleep(self.health_interval)
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()

    def tell_everyone(self, message: dict[str, Any]) -> None:
        for room in list(self.rooms.values()):
            for member in list(room.sockets):
                member.outbox.control(message)

    # -- membership --------------------------------------------------------------------------
    async def attach(self, member: Any, audiences: frozenset[str]) -> None:
        await self.start()
        room = self.rooms.get(member.game_id)
        if room is None:
            room = self.rooms[member.game_id] = Room(member.game_id)
        room.sockets[member] = audiences
        await self._sync_groups(room)

    async def detach(self, member: Any) -> None:
        room = self.rooms.get(member.game_id)
        if room is None or member not in room.sockets:
            return
        del room.sockets[member]
        await self._sync_groups(room)
        if not room.sockets and not room.groups and self.rooms.get(room.game_id) is room:
            if room.handle:
                room.handle.cancel()
            del self.rooms[room.game_id]

    def audiences(self, member: Any) -> frozenset[str]:
        room = self.rooms.get(member.game_id)
        return room.sockets.get(member, frozenset()) if room else frozenset()

    def set_audiences(self, member: Any, audiences: frozenset[str]) -> None:
        """Takes effect for routing at once; the group subscriptions follow."""
        room = self.rooms.get(member.game_id)
        if room is None or member not in room.sockets:
            return
        if room.sockets[member] != audiences:
            room.sockets[member] = audiences
            asyncio.get_running_loop().create_task(self._sync_groups(room))

    async def _sync_groups(self, room: Room) -> None:
        """Subscribe to the groups the room's sockets need. With Redis away it fails: the
        sockets are told (``_watch``) and it is done again when Redis is back."""
        async with room.lock:
            wanted = {group_name(room.game_id, a) for auds in room.sockets.values() for a in auds}
            try:
                for group in sorted(wanted - room.groups):
                    await self.layer.group_add(group, self.channel)
                    room.groups.add(group)
                for group in sorted(room.groups - wanted):
                    await self.layer.group_discard(group, self.channel)
                    room.groups.discard(group)
            except Exception as exc:
                log.warning("Live hub: subscribing game %s failed: %r", room.game_id, exc)

    # -- receiving ---------------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Live hub: receiving from the channel layer failed")
                await asyncio.sleep(0.5)
                continue
            try:
                if message.get("type") == "live.batch":
                    self.dispatch(message)
            except Exception:
                log.exception("Live hub: a message could not be routed")

    def dispatch(self, message: dict[str, Any]) -> None:
        room = self.rooms.get(message["game"])
        if room is None:
            return
        audience = message["aud"]
        for entry in message["items"]:
            if entry["state"]:
                key = (audience, entry["kind"])
                current = room.states.get(key)
                if current is None or entry["seq"] > current[0]:
                    room.states[key] = (entry["seq"], entry["text"])
            else:
                room.pending.append((entry["seq"], audience, entry["text"]))
            meta = entry.get("meta")
            if meta:
                # Deliver everything up to this event under the old access, then change it
                # before anything later is routed: a dead player's mafia socket gets nothing
                # posted after the death.
                self.flush(room)
                self._apply_access(room, entry["seq"], meta)
        self._schedule(room)

    def _apply_access(self, room: Room, seq: int, meta: dict[str, Any]) -> None:
        dead = set(meta.get("dead") or ())
        replaced = meta.get("replaced")
        for member, audiences in list(room.sockets.items()):
            new = audiences
            if member.slot_id in dead:
                new = audiences - TEAM_AUDIENCES
            if (
                replaced
                and member.slot_id == replaced.get("slot_id")
                and member.user_id == replaced.get("old")
            ):
                new = frozenset({"public"})
            if new != audiences:
                self.set_audiences(member, new)
            member.access_may_have_changed(seq, meta)

    # -- sending -----------------------------------------------------------------------------
    def _schedule(self, room: Room) -> None:
        if room.handle is not None or not (room.pending or room.states):
            return
        loop = asyncio.get_running_loop()
        interval = min(self.max_interval, len(room.sockets) / self.budget)
        wait = max(0.0, room.last_flush + interval - loop.time())
        room.handle = loop.call_later(wait, self.flush, room)

    def flush(self, room: Room) -> None:
        if room.handle is not None:
            room.handle.cancel()
            room.handle = None
        room.last_flush = asyncio.get_running_loop().time()
        pending = sorted(room.pending)
        states = room.states
        room.pending, room.states = [], {}
        if not (pending or states):
            return
        frames: dict[frozenset[str], tuple[list, dict]] = {}
        for member, audiences in room.sockets.items():
            frame = frames.get(audiences)
            if frame is None:
                items = [(seq, text) for seq, aud, text in pending if aud in audiences]
                kinds = {k: v for (aud, k), v in states.items() if aud in audiences}
                frame = frames[audiences] = (items, kinds)
            if frame[0] or frame[1]:
                member.outbox.push(frame[0], frame[1])


def layer_state(ok: bool) -> dict[str, Any]:
    """The control message telling a page whether live updates can reach it."""
    return {"type": "live", "state": "live" if ok else "paused"}


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def get_hub() -> Hub:
    """This process's hub for the running event loop (tests run one loop per test)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = Hub()
    return hub


def hub_loops() -> list[asyncio.AbstractEventLoop]:
    """The running event loops of this process that have a hub (the in-memory layer)."""
    return [loop for loop, hub in list(_hubs.items()) if hub.channel and loop.is_running()]


def server_time() -> str:
    return timezone.now().isoformat()
