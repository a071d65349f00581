"""A signed-in viewer's own copy of the parts that differ per viewer, pushed on their socket.

The items carry the spectators' rendering of the players panel and the table (``render``);
a signed-in page shows its own (its vote buttons, "your vote", the host's role labels), and
used to fetch the whole page again for it at every vote. Now each of its sockets attaches
``"own": {"players": html, "turn-panel": html}`` to the items that redraw those parts, and
``static/js/live.js`` swaps them in (a page asks for them on connect: ``?own=players,...``,
naming the parts it has).

What is attached is exactly what that viewer's page shows now (``fragments.own_parts_html``:
the page's own reads and renders, keyed by the viewer), never anyone else's. It is rendered
once per viewer and game state, not per socket: the page's caches hold the HTML by (game
state, viewer), and the sockets of one person waiting on the same item share one render
(``_shared``). The render runs on the sockets' database threads (``socket_db``), inside the
socket's one sending task (``Outbox``), so the frames of a socket keep their order. A render
that fails costs the item its ``own``, not the item: the page then fetches, as before.
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Iterable
from typing import Any

from ..event_kinds import KINDS
from ..fragments import OWN_PARTS, own_parts_html
from ..socket_db import socket_db
from .wire import dumps

log = logging.getLogger(__name__)

# kind -> the viewer's own parts its items redraw on a signed-in page (``parts`` and
# ``own_parts``: live.js redraws both there).
REDRAWS: dict[str, frozenset[str]] = {
    name: (kind.parts | kind.own_parts) & OWN_PARTS
    for name, kind in KINDS.items()
    if (kind.parts | kind.own_parts) & OWN_PARTS
}

# ``render.Renderer.item`` puts "n" and "kind" first, and ``wire.dumps`` keeps that order:
# the kind is read from the text's head without parsing the whole item.
_HEAD = re.compile(r'\{"n":\d+,"kind":"([a-z_]+)"')


def parse_parts(value: str | None) -> frozenset[str]:
    """The page's ``own`` query parameter ("players,turn-panel"): the own parts it has."""
    return frozenset((value or "").split(",")) & OWN_PARTS


def wanted(text: str, parts: frozenset[str]) -> frozenset[str]:
    """The own parts (of ``parts``) the item ``text`` redraws."""
    head = _HEAD.match(text)
    if head is None or not text.endswith("}"):
        return frozenset()
    return REDRAWS.get(head.group(1), frozenset()) & parts


def with_own(text: str, own: dict[str, str]) -> str:
    """The item ``text`` with ``"own": own`` added (before its closing brace)."""
    return text[:-1] + ',"own":' + dumps(own) + "}"


# Per event loop: (game, user, parts, newest seq) -> the render in flight. The sockets of one
# person that wait on the same item (two tabs) share it; a later one finds it in the cache.
_inflight: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[Any, ...], asyncio.Task[dict[str, str]]]
] = weakref.WeakKeyDictionary()


async def _shared(game_id: int, user: Any, parts: frozenset[str], seq: int) -> dict[str, str]:
    """``own_parts_html`` for ``user`` as of at least event ``seq`` (it is committed: the
    hub or the replay has its item), one render for every socket asking at once."""
    loop = asyncio.get_running_loop()
    running = _inflight.setdefault(loop, {})
    key = (game_id, user.pk, parts, seq)
    task = running.get(key)
    if task is None:
        task = loop.create_task(socket_db(own_parts_html)(game_id, user, parts))
        running[key] = task
        task.add_done_callback(lambda _: running.pop(key, None))
    # One socket going away (cancelled) must not cancel the others' render.
    return await asyncio.shield(task)


async def attach(
    game_id: int, user: Any, parts: frozenset[str], batch: Iterable[tuple[int | None, str]]
) -> list[str]:
    """The texts of ``batch`` (a socket's next frame, in order), each item that redraws one
    of ``parts`` with the viewer's own rendering of them as ``"own"``."""
    batch = list(batch)
    texts = [text for _, text in batch]
    needs = [(i, wanted(text, parts)) for i, (seq, text) in enumerate(batch) if seq is not None]
    needs = [(i, want) for i, want in needs if want]
    if not needs:
        return texts
    newest = max(int(batch[i][0] or 0) for i, _ in needs)
    try:
        html = await _shared(game_id, user, frozenset().union(*(w for _, w in needs)), newest)
    except asyncio.CancelledError:
        raise
    except Exception:  # the database is away: the page fetches its parts instead
        log.warning("Game socket: the viewer's own parts were not rendered", exc_info=True)
        return texts
    for i, want in needs:
        own = {part: html[part] for part in sorted(want) if part in html}
        if own:
            texts[i] = with_own(texts[i], own)
    return texts
