"""What a notification rule proposes (``Note``) and what it may read (``Context``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from games.models import Game, GameEvent, Phase, Slot
from games.reads.access import audiences

# A note's words: a text, or (what the rules give) a function writing it in the language
# active when it is called. ``fanout.write`` calls it in its recipient's language
# (``games.i18n.in_language_of``): every person reads their notifications in their own.
Text = str | Callable[[], str]
# A batched kind's text for a count ("3 new posts in ..."), likewise in the active language.
CountText = Callable[[int], str]


@dataclass(frozen=True)
class Note:
    """A notification a rule proposes for one person."""

    user_id: int
    kind: str
    text: Text
    link: str
    # Batched kinds fold into the unread note of the same key; once-only kinds (a reminder)
    # are written once per key.
    key: str = ""
    # A batched kind's text once it counts more than one ("3 new posts in ...").
    text_many: CountText | None = None

    def words(self) -> str:
        """The text in the active language (call it inside ``in_language_of``)."""
        return self.text() if callable(self.text) else self.text


_NUMBERED = re.compile(r".*\D(\d+)", re.DOTALL)


def _day(number: int) -> str:
    return gettext("Day %(number)s") % {"number": number}


def _night(number: int) -> str:
    return gettext("Night %(number)s") % {"number": number}


def phase_name(label: str) -> str:
    """A phase's label as an event stored it ("Day 3", "Night 0": ``Phase.label`` in the
    language of the moment it was written, "День 3" for a game in Russian) in the active
    language; any other label as it is."""
    found = _NUMBERED.fullmatch(label or "")
    if found is None:
        return label
    number = int(found.group(1))
    for say in (_day, _night):
        for language, _name in settings.LANGUAGES:
            with translation.override(language):
                written = say(number)
            if label == written:
                return say(number)  # in the active language
    return label


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
