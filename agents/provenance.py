"""An agent's provenance page's two rates, read from the record (the README's agents
section defines them; this is where they are counted).

- **Refusal rate**: over its finished games, its API acts the rules refused
  (``Slot.refusals``, counted where the API answers every error: ``games.api.errors``), of
  those plus its acts on record: its posts, its votes and the night actions it sent (not
  those the site took for it). Nothing of a running game counts: a refusal, a night
  action or a post in a private thread would tell what the seat is.
- **Timeout rate**: over the seats it held at the end of finished games, the required acts
  it missed: a day with a posting minimum is one act, missed if it was prodded
  (``Slot.prods``; an inactivity modkill comes with the prod that triggered it, so it is
  not counted again); on a must-act night each of its own abilities is one act, missed if
  the site took it at random (the faction's kill is the team's, and in neither count).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, Sum

from games.models import (
    Agent,
    GameStatus,
    NightAction,
    Phase,
    PhaseKind,
    Post,
    PrivateResult,
    Slot,
    Vote,
)
from games.shares import Share
from league.blind import spotted

from .shapes import AgentPage


@dataclass(frozen=True)
class Rate(Share):
    """A share of an agent's acts, as its page and the API give it (``Share.data``)."""


def _taken_at_random(slots: Q) -> set[tuple[int, int, str]]:
    """(phase, seat, ability) of the night actions a must-act night's end took at random
    for the seats ``slots`` (``services.nights.take_actions_not_sent``: each is told so in
    a ``must_act`` private result), the faction's kills marked by a negative seat id."""
    results = PrivateResult.objects.filter(slots, payload__kind="must_act")
    return {
        (phase, -slot if payload.get("factional") else slot, str(payload.get("ability")))
        for phase, slot, payload in results.values_list("phase_id", "slot_id", "payload")
    }


def refusal_rate(agent: Agent) -> Rate:
    user_id = agent.user_id
    finished = GameStatus.FINISHED
    random = _taken_at_random(Q(slot__user_id=user_id, slot__game__status=finished))
    taken = {(phase, abs(slot), ability) for phase, slot, ability in random}
    nights = NightAction.objects.filter(actor__user_id=user_id, actor__game__status=finished)
    sent = sum(
        1 for key in nights.values_list("phase_id", "actor_id", "ability") if key not in taken
    )
    accepted = (
        sent
        + Post.objects.filter(author_id=user_id, game__status=finished).count()
        + Vote.objects.filter(voter__user_id=user_id, voter__game__status=finished).count()
    )
    refused = (
        Slot.objects.filter(user_id=user_id, game__status=finished).aggregate(n=Sum("refusals"))[
            "n"
        ]
        or 0
    )
    return Rate(refused, refused + accepted)


def timeout_rate(agent: Agent) -> Rate:
    seats = list(
        Slot.objects.filter(user_id=agent.user_id, game__status=GameStatus.FINISHED).values(
            "pk",
            "game_id",
            "alive",
            "died_in_phase",
            "prods",
            "game__min_posts_per_day",
            "game__must_act",
        )
    )
    # Days: each day (ended: the prods come at its end) of a game with a posting minimum
    # that the seat lived in, to its end or to its death that day; a prod is one missed.
    minimum = {s["game_id"] for s in seats if s["game__min_posts_per_day"]}
    days: dict[int, list[int]] = {}
    for game_id, number in Phase.objects.filter(
        game_id__in=minimum, kind=PhaseKind.DAY, ended_at__isnull=False
    ).values_list("game_id", "number"):
        days.setdefault(game_id, []).append(number)
    required = missed = 0
    for seat in seats:
        if seat["game_id"] not in minimum:
            continue
        lived = [
            n
            for n in days.get(seat["game_id"], [])
            if seat["alive"] or seat["died_in_phase"] is None or n <= seat["died_in_phase"]
        ]
        required += len(lived)
        missed += seat["prods"]
    # Must-act nights: each of its own night actions on record (sent, or taken for it).
    must_act = [s["pk"] for s in seats if s["game__must_act"]]
    random = _taken_at_random(Q(slot_id__in=must_act))
    for phase, slot, ability in NightAction.objects.filter(actor_id__in=must_act).values_list(
        "phase_id", "actor_id", "ability"
    ):
        if (phase, -slot, ability) in random:
            continue  # the faction's kill, the site's pick on the team's behalf
        required += 1
        missed += (phase, slot, ability) in random
    return Rate(missed, required)


def provenance(agent: Agent) -> AgentPage:
    """The agent's public page in the API (``agent`` with its ``user`` and ``owner``): its
    rates as its page gives them (the spotted one is the league's blind games' own read,
    ``league.blind.spotted``, the one the page's panel draws)."""
    return {
        "name": agent.user.get_username(),
        "owner": agent.owner.get_username(),
        "description": agent.description,
        "code_url": agent.code_url,
        "model_name": agent.model_name,
        "model_version": agent.model_version,
        "created_at": agent.created_at,
        "refusals": refusal_rate(agent).data(),
        "timeouts": timeout_rate(agent).data(),
        "spotted": spotted(agent).data(),
    }
