"""What an inactivity modkill does to a player beyond the game (issue 31, "Reliability").

The modkill itself is ``phases.do_modkill`` (its event marked ``inactivity``); the record
and the league's cooldown are reads of those events (``reads.reliability``), so the only
state this changes is the league queues: a player modkilled for silence while waiting in a
league queue (a hosted game's modkill) leaves it, or the matchmaker would seat them during
the cooldown that refuses them a new join.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from .. import hooks
from ..reads.moderation import same_person
from ..reads.reliability import cooldown_hours


def leave_league_queues(user_id: int) -> None:
    """Take the person of ``user_id`` (every account of theirs: the cooldown is theirs) out
    of every league queue, inside the caller's transaction. The accounts' rows are locked
    first, as a join, a leave and the matchmaker lock them, so a join under way either
    finishes first (and its entry goes here) or waits and then sees the cooldown."""
    if not cooldown_hours():
        return  # no cooldown: waiting in a queue is no harm
    people = sorted(same_person(user_id))
    list(get_user_model().objects.select_for_update().filter(pk__in=people).order_by("pk"))
    hooks.bench(people)  # the league's queues (the league app) let them go
