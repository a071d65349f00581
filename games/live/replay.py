"""Replay: what a (re)connecting socket missed, rendered, or "reload" when too far behind."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils import translation

from ..models import Game, GameEvent
from . import localize
from .kinds import STATE_KINDS
from .language import BASE
from .numbering import db_count, positions_at
from .render import Renderer
from .wire import MAX_POSITION, dumps, setting


@dataclass
class Replay:
    floor: int  # game-wide seq (internal): everything visible up to here is covered
    positions: dict[str, int] = field(default_factory=dict)  # the client's numbers at floor
    items: list[tuple[int, str]] = field(default_factory=list)  # (seq, text)
    reload: bool = False


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
    language: str = BASE,
) -> Replay:
    """The visible events a client misses, rendered, or ``reload`` when too far behind.

    The client says what it has as ``positions`` (its number per audience, from the page
    or earlier frames). ``since=0`` asks for everything from the start; any other
    ``since`` (a game-wide seq, which clients no longer hold) is ignored: answering it
    would depend on hidden events (a "reload" exactly above the game's event counter, or
    replays that place each public event in the game-wide sequence and so count the
    private events between them). So is an audience the client has no position for: it
    gets nothing older than now.

    The items are rendered in ``language`` (the socket's: ``language.socket_language``) and
    kept for the socket's frames (``localize.remember``).
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
    limit = int(setting("LIVE_REPLAY_LIMIT", 200))
    rows = list(
        GameEvent.objects.filter(visible, game_id=game_id, seq__lte=floor)
        .exclude(kind__in=STATE_KINDS)
        .order_by("seq")[: limit + 1]
    )
    if len(rows) > limit:
        return Replay(floor, reload=True)
    numbers = {
        a: positions[a] if a in positions else db_count(game_id, a, starts[a] + 1)
        for a in audiences
    }
    numbered: list[tuple[GameEvent, int]] = []
    for event in rows:
        numbers[event.audience] += 1
        numbered.append((event, numbers[event.audience]))
    # State events: only the newest of each kind matters, if newer than the client's.
    if "public" in audiences:
        for kind in STATE_KINDS:
            latest = (
                GameEvent.objects.filter(game_id=game_id, kind=kind, seq__lte=floor)
                .order_by("-seq")
                .first()
            )
            if latest is None:
                continue
            number = db_count(game_id, f"~{kind}", latest.seq) + 1
            has = positions.get(f"~{kind}")
            newer = number > has if has is not None else latest.seq > starts["public"]
            if newer:
                numbered.append((latest, number))
    renderer = Renderer(game_id)
    renderer.prefetch_posts(e for e, _ in numbered)
    with translation.override(language):
        items = [(event.seq, dumps(renderer.item(event, number))) for event, number in numbered]
    localize.remember(game_id, language, items)
    return Replay(floor, positions_at(game_id, audiences, floor), items)
