"""What a notification rule proposes (``Note``) and what it may read (``Context``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from django.urls import reverse

from games.models import Game, GameEvent, Phase, Slot
from games.reads.access import audiences


@dataclass(frozen=True)
class Note:
    """A notification a rule proposes for one person."""

    user_id: int
    kind: str
    text: str
    link: str
    # Batched kinds fold into the unread note of the same key; once-only kinds (a reminder)
    # are written once per key.
    key: str = ""
    # A batched kind's text once it counts more than one ("{count} new posts in ...").
    text_many: str = ""


class Context:
    """What the rules read about the game, from the rows the transaction already holds."""

    def __init__(self, game: Game, slots: list[Slot], phase: Phase | None, now: datetime):
        self.game = game
        self.slots = slots
        self.phase = phase
        self.now = now
        self._audiences: dict[int, frozenset[str]] = {}

    @cached_property
    def by_id(self) -> dict[int, Slot]:
        return {s.pk: s for s in self.slots}

    def slot(self, ref: dict[str, Any] | None) -> Slot | None:
        return self.by_id.get(ref["slot_id"]) if ref else None

    def players(self, *, alive_only: bool = False) -> list[Slot]:
        return [s for s in self.slots if s.user_id and (s.alive or not alive_only)]

    def audiences_of(self, user_id: int) -> frozenset[str]:
        if user_id not in self._audiences:
            user = _Person(user_id)
            self._audiences[user_id] = audiences(self.game, user, self.slots)
        return self._audiences[user_id]

    # -- links ---------------------------------------------------------------------------
    def thread(self) -> str:
        return reverse("games:thread", args=[self.game.pk])

    def post(self, number: int, thread: str = "public") -> str:
        if thread == "public":
            return reverse("games:post_link", args=[self.game.pk, number])
        return reverse("games:private_thread", args=[self.game.pk, thread]) + f"#p{number}"

    def role_pm(self) -> str:
        return reverse("games:role", args=[self.game.pk])

    def host_page(self) -> str:
        return reverse("games:host", args=[self.game.pk])


class _Person:
    """Enough of a user for ``access.audiences``: who, and that they are signed in."""

    is_authenticated = True

    def __init__(self, pk: int) -> None:
        self.pk = pk


Rule = Callable[[GameEvent, Context], Iterable[Note]]
