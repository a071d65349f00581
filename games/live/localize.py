"""Items in a socket's language: the publisher's item rendered again, once per language.

The publisher renders each event once, in ``language.BASE``, for its audience's group
(``numbering.build_messages``). A socket of another language (``language.socket_language``)
gets, in its one sending task (``Outbox``'s prepare: ``own.attach``), each item of its next
frame rendered again in its language: the same event (``(game, seq)``), the same number
``n``, the same ``Renderer.item``, inside ``translation.override``. So a socket is never sent
anything it was not routed already: the language changes the words of an item, never which
item goes where, and the hub's routing and the channel-layer groups know no language.

Once per process and language: the renders are kept by (game, seq, n, language) (``_ITEMS``)
and the sockets that wait on the same item share the render in flight (``_inflight``), so a
thousand Russian spectators of a game cost one Russian render of each item, and no Russian
is rendered while no Russian socket is open. A catch-up (``replay``) made in the socket's
language puts its items here too (``remember``), so they are not rendered twice.
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.utils import translation

from ..lru import ProcessLRU
from ..models import GameEvent
from ..socket_db import socket_db
from .language import BASE
from .render import Renderer
from .wire import dumps

log = logging.getLogger(__name__)

Key = tuple[int, int, int, str]  # (game, seq, n, language)

# (game, seq, n, language) -> the item's text in that language.
_ITEMS: ProcessLRU[str] = ProcessLRU(8192)
# Per event loop: the key -> the render in flight that makes it.
_inflight: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[Key, asyncio.Task[dict[Key, str]]]
] = weakref.WeakKeyDictionary()

# ``render.Renderer.item`` puts "n", "kind" and "aud" first (``wire.dumps`` keeps the order).
_HEAD = re.compile(r'\{"n":(\d+),"kind":"[a-z_]+","aud":"[^"\\]*"')


def number_of(text: str) -> int | None:
    head = _HEAD.match(text)
    return int(head.group(1)) if head else None


def remember(game_id: int, language: str, items: Iterable[tuple[int, str]]) -> None:
    """Items already rendered in ``language`` (a catch-up made in it)."""
    if language == BASE:
        return
    for seq, text in items:
        number = number_of(text)
        if number is not None:
            _ITEMS.put((game_id, seq, number, language), text)


def render_items(game_id: int, keys: Sequence[Key]) -> dict[Key, str]:
    """Each key's item rendered in its language (sync: the socket's database thread). An
    event no longer there (its game deleted) is left out: the socket sends it as it came."""
    by_seq = {key[1]: key for key in keys}
    events = list(GameEvent.objects.filter(game_id=game_id, seq__in=by_seq).order_by("seq"))
    renderer = Renderer(game_id)
    renderer.prefetch_posts(events)
    out: dict[Key, str] = {}
    for event in events:
        key = by_seq[event.seq]
        with translation.override(key[3]):
            text = dumps(renderer.item(event, key[2]))
        _ITEMS.put(key, text)
        out[key] = text
    return out


async def localized(
    game_id: int,
    language: str,
    batch: Sequence[tuple[int | None, str]],
    run: Callable[..., Any] = socket_db,
) -> list[str]:
    """The texts of ``batch`` (a socket's next frame) in ``language``: each item (a pair
    with a seq) as ``Renderer.item`` renders it in that language; controls as they are.
    ``run``: how the render is called on a database thread (the caller's ``socket_db``)."""
    texts = [text for _, text in batch]
    if language == BASE:
        return texts
    wanted: dict[int, Key] = {}
    for i, (seq, text) in enumerate(batch):
        number = number_of(text) if seq is not None else None
        if seq is not None and number is not None:
            wanted[i] = (game_id, seq, number, language)
    if not wanted:
        return texts
    found: dict[Key, str] = {}
    missing = []
    for key in wanted.values():
        held = _ITEMS.get(key)
        if held is not None:
            found[key] = held
        elif key not in missing:
            missing.append(key)
    if missing:
        loop = asyncio.get_running_loop()
        running = _inflight.setdefault(loop, {})
        tasks = {running[key] for key in missing if key in running}
        mine = [key for key in missing if key not in running]
        if mine:
            task = loop.create_task(run(render_items)(game_id, mine))
            for key in mine:
                running[key] = task

            def done(_: object, keys: list[Key] = mine, task: asyncio.Task = task) -> None:
                for key in keys:
                    if running.get(key) is task:
                        del running[key]

            task.add_done_callback(done)
            tasks.add(task)
        for task in tasks:
            try:
                # One socket going away (cancelled) must not cancel the others' render.
                found.update(await asyncio.shield(task))
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: those items go as they came
                log.warning("Game socket: items not rendered in %s", language, exc_info=True)
    for i, key in wanted.items():
        words = found.get(key)
        # The same item in other words, or the item as it came: a render whose number,
        # kind or audience differ from the routed item's is never sent in its stead.
        if words is not None and _same_item(words, texts[i]):
            texts[i] = words
    return texts


def _same_item(text: str, routed: str) -> bool:
    head, was = _HEAD.match(text), _HEAD.match(routed)
    return head is not None and was is not None and head.group(0) == was.group(0)
