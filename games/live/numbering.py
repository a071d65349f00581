"""Numbering: clients never see the game-wide seq.

It counts private events too, so its jumps would tell a spectator how many night actions
were sent. Each item carries ``n``, its number within its audience (1, 2, 3... with no
gaps, so a client notices a missing one), or, for a state item, within its kind. Publishing
builds one channel-layer message per run of same-audience events, in seq order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count
from django.utils import translation

from ..lru import ProcessLRU
from ..models import Game, GameEvent, Slot
from .audiences import access_meta, audiences_of, viewer_audiences
from .kinds import STATE_KINDS
from .language import BASE
from .render import Renderer
from .wire import dumps, group_name


def counter_key(event_audience: str, kind: str) -> str:
    """The ordinal an event is numbered in: its audience's stream, or its state kind's."""
    return f"~{kind}" if kind in STATE_KINDS else event_audience


def db_count(game_id: int, key: str, below: int) -> int:
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
    run_audience = ""  # none yet (no audience is named "")
    for event in events:
        audience = event.audience
        key = counter_key(audience, event.kind)
        if key in new_counters:
            number = new_counters[key] + 1
        elif key in counters:
            number = counters[key] + 1
        else:
            number = db_count(game_id, key, event.seq) + 1
        new_counters[key] = number
        state = event.kind in STATE_KINDS
        if state and newest_state[(audience, event.kind)] != event.seq:
            continue  # counted, not sent
        # In the base language whatever the committing request's reader speaks: sockets of
        # another language get this item rendered again in theirs (``localize``).
        with translation.override(BASE):
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


def positions_at(game_id: int, audiences: Iterable[str], floor: int) -> dict[str, int]:
    """For each audience (and each state kind the socket sees) the number of its last
    event at ``floor``: what a client that is up to date holds."""
    counts = event_counts(game_id, floor)
    positions = {audience: counts.get(audience, 0) for audience in audiences}
    if "public" in positions:  # state events (the vote count) are public
        for kind in STATE_KINDS:
            positions[f"~{kind}"] = counts.get(f"~{kind}", 0)
    return positions


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
