"""What a blind game shows of its agents once it is over (issue 34): which seats were
agents', the players' guesses (``league.guesses``), and each agent's "spotted" rate.

Nothing here answers before the game's end: the guesses are made only after it, and every
read below asks for a finished blind game, so what the game hid (which seats are agents:
``games.reads.agents.agents_hidden``) cannot reach a running game's viewer through it.

**Spotted**: over the finished blind games an agent held a seat of, the guesses made in
them (by their people, the only ones who guess), and of those the ones that named its seat:
"spotted in n of d guesses (x%)".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Agent, Game, GameStatus, Replacement, Slot
from games.shares import Share

from .guesses import held_a_seat, open_for_guesses
from .models import AgentGuess
from .shapes import AgentGuesses, AgentGuessResult, AgentGuessRow, AgentSeat


@dataclass(frozen=True)
class Spotted(Share):
    """``count`` of ``of`` guesses named the agent's seat."""

    @property
    def spoken(self) -> str:
        """ "n of d guesses (x%)", as the agent's page says it (in the reader's language)."""
        values = {"count": self.count, "of": self.of, "percent": self.percent}
        if not self.of:
            return _("%(count)s of %(of)s guesses") % values
        return (
            ngettext(
                "%(count)s of %(of)s guess (%(percent)s)",
                "%(count)s of %(of)s guesses (%(percent)s)",
                self.of,
            )
            % values
        )


def agent_seats(game: Game) -> list[Slot]:
    """The seats of ``game`` an agent's account held, now or before a replacement."""
    agents = Agent.objects.values("user_id")
    held_before = Replacement.objects.filter(slot__game=game, old_user_id__in=agents).values(
        "slot_id"
    )
    return list(
        Slot.objects.filter(Q(user_id__in=agents) | Q(pk__in=held_before), game=game)
        .select_related("user", "game")
        .order_by("seat")
    )


def _over(game_id: int) -> Game:
    """The finished blind game ``game_id``; otherwise the refusal that says why not."""
    return open_for_guesses(Game.objects.filter(pk=game_id).first())


def may_guess(game: Game, user: Any) -> bool:
    """Whether ``user`` may guess in the finished blind ``game`` now (``guesses``' rules)."""
    return (
        bool(getattr(user, "is_authenticated", False))
        and not Agent.objects.filter(user_id=user.pk).exists()
        and held_a_seat(game, user)
        and not AgentGuess.objects.filter(game=game, person_id=user.pk).exists()
    )


def guesses_of(game_id: int, user: Any) -> AgentGuesses:
    """A finished blind game's truth and guesses, as ``user`` asks (the page, the API)."""
    game = _over(game_id)
    truth = agent_seats(game)
    seats = {slot.seat for slot in truth}
    rows: list[AgentGuessRow] = [
        {
            "name": guess.person.get_username(),
            "seats": list(guess.seats),
            "right": len(seats & set(guess.seats)),
            "created_at": guess.created_at,
        }
        for guess in AgentGuess.objects.filter(game=game).select_related("person")
    ]
    named: list[AgentSeat] = [{"seat": slot.seat, "name": slot.display_name} for slot in truth]
    return {
        "game_id": game.pk,
        "agent_seats": named,
        "guesses": rows,
        "may_guess": may_guess(game, user),
    }


def guess_result(guess: AgentGuess) -> AgentGuessResult:
    """A guess just made, with how it went."""
    seats = sorted(slot.seat for slot in agent_seats(guess.game))
    return {
        "game_id": guess.game_id,
        "seats": list(guess.seats),
        "right": len(set(seats) & set(guess.seats)),
        "agent_seats": seats,
    }


def spotted(agent: Agent) -> Spotted:
    """How often ``agent`` was spotted: the guesses of the finished blind games it held a
    seat of that named that seat, of all the guesses of those games."""
    user_id = agent.user_id
    held = Slot.objects.filter(
        Q(user_id=user_id) | Q(replacements__old_user_id=user_id),
        game__blind=True,
        game__status=GameStatus.FINISHED,
    ).values_list("game_id", "seat")
    seat_in = dict(held)
    guesses = AgentGuess.objects.filter(game_id__in=list(seat_in)).values_list("game_id", "seats")
    named = of = 0
    for game_id, seats in guesses:
        of += 1
        named += seat_in[game_id] in seats
    return Spotted(named, of)
