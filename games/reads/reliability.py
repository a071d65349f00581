"""A player's reliability record (a person's or an agent's), and the league's cooldown after
an inactivity modkill: one read for their page, the agent's page and the API.

The record is read from what the games already keep, all of it public while the game runs:
the ``modkill`` events (announced in the thread; the inactivity rule's carry the mark of
``games.inactivity.INACTIVITY_MODKILL``) and the ``Replacement`` rows ("X replaces Y").
Nothing here names a role, a team or a private thread, so a running game's hidden
information cannot reach it.

- **Inactivity modkills**: the site's inactivity rule removed their seat (in any game; a
  host's own modkills are the host's judgement and are not counted).
- **Replacements out**: someone took over their seat (the host's replace, the replacement
  queue, the league's queue after a silent day, a moderator's removal).
- **League games left**: league games they did not play to the end: replaced out or
  modkilled (for silence, or removed by the moderators). Leaving a queue is not leaving a
  game.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from django.conf import settings
from django.db.models import Case, Q, When
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .. import display
from ..inactivity import INACTIVITY_MODKILL, holder_at
from ..models import GameEvent, Replacement, Slot
from ..naming import masks_hide
from ..shapes import Reliability, ReliabilityMark

if TYPE_CHECKING:  # django-stubs' type of an annotated row; nothing of it runs
    from django_stubs_ext import WithAnnotations

INACTIVITY = "inactivity_modkill"
MODKILL = "modkill"  # any other modkill: on the record only as a league game left
REPLACED = "replaced"
LABELS = {
    INACTIVITY: _("Modkilled for inactivity"),
    MODKILL: _("Modkilled"),
    REPLACED: _("Replaced out"),
}
MAX_MARKS = 50  # marks listed (newest first); the counts are of them all
DEFAULT_COOLDOWN_HOURS = 72.0


def cooldown_hours() -> float:
    """``LEAGUE_COOLDOWN_AFTER_MODKILL``: hours after an inactivity modkill during which
    the player may not join a league queue (0: no cooldown)."""
    return max(0.0, float(getattr(settings, "LEAGUE_COOLDOWN_AFTER_MODKILL", 72.0)))


def cooldown_sentence(modkilled_at: datetime) -> str:
    """What the player modkilled for inactivity at ``modkilled_at`` is told of the league's
    cooldown (blank when there is none), with a space before it."""
    hours = cooldown_hours()
    if not hours:
        return ""
    until = when_text(modkilled_at + timedelta(hours=hours))
    return " " + gettext("You may not join a league queue until %(until)s.") % {"until": until}


def when_text(at: datetime) -> str:
    """An end in words, to the minute: rounded up, so a join at the minute named is never
    refused."""
    whole = at.replace(second=0, microsecond=0)
    if whole < at:
        whole += timedelta(minutes=1)
    return display.dated_moment(whole)


@dataclass(frozen=True)
class Mark:
    """One line of the record: a game they were modkilled or replaced out of."""

    what: str  # INACTIVITY, MODKILL or REPLACED
    game_id: int
    title: str
    league: bool
    at: datetime

    @property
    def label(self) -> str:
        return str(LABELS[self.what])

    def data(self) -> ReliabilityMark:
        return {
            "what": self.what,
            "game_id": self.game_id,
            "title": self.title,
            "league": self.league,
            "at": self.at,
        }


@dataclass(frozen=True)
class Cooldown:
    """No league queue until ``until``: the inactivity modkill in ``game_id`` started it."""

    until: datetime
    game_id: int
    title: str

    @property
    def until_text(self) -> str:
        return when_text(self.until)

    @property
    def message(self) -> str:
        """What the league page and a refused join say."""
        return gettext(
            "You were modkilled for inactivity in %(title)s: you may join a league queue "
            "again from %(until)s."
        ) % {"title": self.title, "until": self.until_text}


@dataclass(frozen=True)
class Record:
    inactivity_modkills: int
    replacements_out: int
    league_games_left: int
    cooldown: Cooldown | None
    marks: list[Mark]

    @property
    def clean(self) -> bool:
        return not self.marks

    def data(self) -> Reliability:
        """The API's ``reliability``."""
        return {
            "inactivity_modkills": self.inactivity_modkills,
            "replacements_out": self.replacements_out,
            "league_games_left": self.league_games_left,
            "league_cooldown_until": self.cooldown.until if self.cooldown else None,
            "marks": [m.data() for m in self.marks],
        }


class _ByRule(TypedDict):
    """What ``_modkills`` annotates on each event (for the type checker's django-stubs)."""

    by_rule: bool


def _modkills(user_ids: set[int], events: Q) -> list[WithAnnotations[GameEvent, _ByRule]]:
    """The public ``modkill`` events (of ``events``) of seats one of ``user_ids`` held at
    the time, newest first; ``by_rule`` on each: the inactivity rule's."""
    held = Q(user_id__in=user_ids) | Q(replacements__old_user_id__in=user_ids)
    # The modkills of the games they held a seat in (the games a subquery: a player of a
    # thousand games is not a thousand seats read and sent back), by game first: the log's
    # index is (game, seq), and the log holds every vote. Modkills are few: the seats they
    # name are read after, and only those.
    found = list(
        GameEvent.objects.filter(
            events,
            game_id__in=Slot.objects.filter(held).values("game_id"),
            audience="public",
            kind="modkill",
        )
        .annotate(by_rule=Case(When(INACTIVITY_MODKILL, then=True), default=False))
        .select_related("game")
        .order_by("-created_at", "-pk")
    )
    if not found:
        return []
    named = {e.payload.get("slot_id") for e in found}
    slots = {
        s.pk: s
        for s in Slot.objects.filter(held, pk__in=[pk for pk in named if isinstance(pk, int)])
        .distinct()
        .order_by()
        .only("pk", "user_id")
    }
    found = [e for e in found if e.payload.get("slot_id") in slots]
    replaced: dict[int, list[Replacement]] = defaultdict(list)
    for r in Replacement.objects.filter(slot_id__in=[e.payload["slot_id"] for e in found]):
        replaced[r.slot_id].append(r)

    def theirs(event: GameEvent) -> bool:
        slot_id = event.payload["slot_id"]
        return holder_at(event.created_at, slots[slot_id], replaced[slot_id]) in user_ids

    return [event for event in found if theirs(event)]


def record(user: Any, now: datetime | None = None) -> Record:
    """``user``'s record (a person's or an agent's account), newest marks first."""
    marks = []
    modkills = _modkills({user.pk}, Q())
    for event in modkills:
        league = bool(event.game.league_setup)
        if not event.by_rule and not league:
            continue  # a host's modkill: their judgement, not the record's
        if masks_hide(event.game):
            continue  # an anonymous game's: it would tie the account to a masked seat
        marks.append(
            Mark(
                INACTIVITY if event.by_rule else MODKILL,
                event.game_id,
                event.game.title,
                league,
                event.created_at,
            )
        )
    for r in Replacement.objects.filter(old_user_id=user.pk).select_related("slot__game"):
        game = r.slot.game
        if masks_hide(game):
            continue  # shown once the anonymous game is over
        marks.append(Mark(REPLACED, game.pk, game.title, bool(game.league_setup), r.at))
    marks.sort(key=lambda m: m.at, reverse=True)
    return Record(
        inactivity_modkills=sum(m.what == INACTIVITY for m in marks),
        replacements_out=sum(m.what == REPLACED for m in marks),
        league_games_left=len({m.game_id for m in marks if m.league}),
        cooldown=_cooldown(modkills, now),  # (``league_cooldown`` of their one account)
        marks=marks[:MAX_MARKS],
    )


def league_cooldown(user_ids: Iterable[int], now: datetime | None = None) -> Cooldown | None:
    """The cooldown in force for these accounts (a person's: ``same_person``), if any: it
    ends ``LEAGUE_COOLDOWN_AFTER_MODKILL`` hours after their latest inactivity modkill."""
    hours = cooldown_hours()
    if not hours:
        return None
    now = now or timezone.now()
    recent = Q(INACTIVITY_MODKILL, created_at__gt=now - timedelta(hours=hours))
    return _cooldown(_modkills(set(user_ids), recent), now)


def _cooldown(
    modkills: Iterable[WithAnnotations[GameEvent, _ByRule]], now: datetime | None
) -> Cooldown | None:
    """The cooldown the newest of ``modkills`` (``_modkills``' answer, newest first) that
    is the inactivity rule's and recent enough starts, if any."""
    hours = cooldown_hours()
    if not hours:
        return None
    now = now or timezone.now()
    span = timedelta(hours=hours)
    for event in modkills:
        if event.by_rule and event.created_at > now - span:
            return Cooldown(event.created_at + span, event.game_id, event.game.title)
    return None
