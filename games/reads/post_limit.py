"""The post limit (issue 33's ``post_limit`` variant): how many posts a living player has
left today in the game thread, and when the limit lifts.

One read for the service that refuses a post (``services.posts``), the reply box
(``views.game``: at the limit it is closed, with the sentence) and the API's game
(``posts_left``).

- **What counts:** a living player's posts in the game thread during the current day
  (the day's ``Phase``; a revote is the same day). Posts by night, in private threads and
  the host's never count.
- **A vote is not talk:** a post that is nothing but one vote line as the vote and unvote
  buttons write it ("**Vote: Name**", "**Vote: No elimination**", "**Unvote**", a name of
  the game) does not count, and may be made at the limit; a bold vote inside a post with
  anything else in it is a post like any other.
- **Lifted:** with ``post_limit_lifted`` set, from ``deadline - post_limit_lifted`` until
  the deadline the limit does not apply. A paused day keeps the time it had left, so a
  day paused inside the window stays lifted; a moved deadline moves the lift with it.
  At the lift moment nothing is asked of the site, so ``services.post_limit`` announces
  it (``post_limit_lifted``, scheduled like a deadline: ``games.scheduling``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..bold_votes import SECRET_VOTE_TEXT
from ..display import moment_label, time_span
from ..markup import escape_markdown
from ..models import Game, Phase, Post, Slot, Thread
from .access import Viewer
from .vote_count import SKIP_LABEL


def now() -> datetime:
    """The post limit's clock (one seam: the live tests move it to the lift moment)."""
    return timezone.now()


@dataclass(frozen=True)
class Allowance:
    """A living player's posts today in a game thread with a post limit."""

    limit: int
    used: int
    lifted: bool  # the deadline is near: the limit does not apply until it
    lifts_at: datetime | None  # when it lifts today (None: never, already, or paused)
    lifted_before: timedelta | None  # the game's ``post_limit_lifted``

    @property
    def left(self) -> int:
        return max(self.limit - self.used, 0)

    @property
    def reached(self) -> bool:
        """No more posts until tomorrow or the lift."""
        return not self.lifted and self.used >= self.limit

    @property
    def posts_left(self) -> int | None:
        """What the API says (null: no limit applies now)."""
        return None if self.lifted else self.left

    def refusal(self) -> str:
        """The refused post's sentence."""
        return ngettext(
            "You have used your %(limit)s post today.",
            "You have used your %(limit)s posts today.",
            self.limit,
        ) % {"limit": self.limit}

    def sentence(self) -> str:
        """What the reply box says."""
        if self.lifted:
            return _("The post limit is lifted until the deadline.")
        values: dict[str, Any] = {"left": self.left, "limit": self.limit}
        if not self.reached:
            return (
                ngettext(
                    "%(left)s of %(limit)s post left today.",
                    "%(left)s of %(limit)s posts left today.",
                    self.limit,
                )
                % values
            )
        if self.lifts_at is not None:
            values["at"] = moment_label(self.lifts_at)
            return (
                ngettext(
                    "You have used your %(limit)s post today; the limit lifts at %(at)s.",
                    "You have used your %(limit)s posts today; the limit lifts at %(at)s.",
                    self.limit,
                )
                % values
            )
        if self.lifted_before is not None:  # paused: the lift moves with the deadline
            values["span"] = time_span(self.lifted_before)
            return (
                ngettext(
                    "You have used your %(limit)s post today; the limit lifts %(span)s before "
                    "the deadline.",
                    "You have used your %(limit)s posts today; the limit lifts %(span)s before "
                    "the deadline.",
                    self.limit,
                )
                % values
            )
        return (
            ngettext(
                "You have used your %(limit)s post today; the limit holds until tomorrow.",
                "You have used your %(limit)s posts today; the limit holds until tomorrow.",
                self.limit,
            )
            % values
        )


def applies(game: Game, phase: Phase | None) -> bool:
    """Whether the game's post limit counts posts now: a running forum game's open day."""
    return (
        game.post_limit is not None
        and game.is_running
        and not game.turn_based
        and phase is not None
        and phase.is_day
        and not phase.resolved
    )


def lift_moment(game: Game, phase: Phase) -> datetime | None:
    """When the limit lifts in this day (None: never, or the day is paused)."""
    if game.post_limit_lifted is None or phase.deadline is None:
        return None
    return phase.deadline - game.post_limit_lifted


def is_lifted(game: Game, phase: Phase, at: datetime | None = None) -> bool:
    """The deadline is within ``post_limit_lifted`` (a paused day: its time left is)."""
    lifted = game.post_limit_lifted
    if lifted is None:
        return False
    if phase.deadline is None:
        return phase.paused_remaining is not None and phase.paused_remaining <= lifted
    return phase.deadline - lifted <= (at or now())


def vote_lines(slots: Iterable[Slot]) -> list[str]:
    """The posts the vote and unvote buttons write (``services.votes``): votes, not talk.
    With secret votes a typed vote line is stored as ``SECRET_VOTE_TEXT`` (the buttons post
    nothing then): still a vote."""
    names = [escape_markdown(s.display_name) for s in slots]
    votes = [f"**Vote: {name}**" for name in [SKIP_LABEL, *names]]
    return ["**Unvote**", SECRET_VOTE_TEXT, *votes]


def is_vote_line(body: str, slots: Iterable[Slot]) -> bool:
    return body.strip() in vote_lines(slots)


def posts_today(phase: Phase, slot: Slot, slots: Iterable[Slot]) -> int:
    """The player's posts in the game thread this day that count (not button votes)."""
    return (
        Post.objects.filter(game_id=phase.game_id, thread=Thread.PUBLIC, slot=slot, phase=phase)
        .exclude(body__in=vote_lines(slots))
        .count()
    )


def of_viewer(viewer: Viewer, thread: str, current: Phase | None = None) -> Allowance | None:
    """The viewer's posts left today in ``thread`` (None: no limit applies to them there:
    not the game thread, the host, not a living player...); ``current``: the game's
    current phase when the caller has read it."""
    if thread != Thread.PUBLIC or viewer.slot is None or viewer.is_host:
        return None
    phase = current if current is not None else viewer.game.current_phase()
    return allowance(viewer.game, viewer.slot, phase, slots=viewer.slots)


def allowance(
    game: Game,
    slot: Slot | None,
    phase: Phase | None,
    *,
    slots: Iterable[Slot] | None = None,
    at: datetime | None = None,
) -> Allowance | None:
    """The player's posts left today, or None when no limit applies to them now (no
    limit, not a day, not a living player)."""
    if slot is None or not slot.alive or not applies(game, phase):
        return None
    assert phase is not None and game.post_limit is not None  # applies() says so
    at = at or now()
    lifted = is_lifted(game, phase, at)
    moment = lift_moment(game, phase)
    seats: Any = slots if slots is not None else game.slots.select_related("user")
    return Allowance(
        limit=game.post_limit,
        used=posts_today(phase, slot, seats),
        lifted=lifted,
        lifts_at=moment if moment is not None and not lifted else None,
        lifted_before=game.post_limit_lifted,
    )
