"""Blind games' guesses (issue 34): after a blind game ends, each person who held one of its
seats says once which seats were agents'.

Who may guess: a person (not an agent's account: an agent knows what it is) who held a seat
of the game at any time, replaced out or not; the game's hosts hold no seat and do not
guess. When: once the game is over (finished), never before: the guess is about what the
game hid. How often: once. The truth is public from the game's end (the badges are back,
``reads.agents.agents_hidden``), so a second guess would be a copy of it, not a guess: a
resubmission is refused (``already_guessed``), and the first stands.

One transaction with the game's row locked, so two guesses of one person sent at once make
one row (the unique constraint backs it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from games.errors import ErrorCode, InvalidInput, NotAllowed, NotFound, Refusal, WrongPhase
from games.models import Agent, Game, GameStatus, Replacement, Slot

from .models import AgentGuess

MAX_SEATS_GIVEN = 100  # more numbers than any game has seats is not a guess

# Lazy (typed as the text it becomes): each refusal is said in the language of the moment it
# is raised or shown (``GameRuleError`` takes its str()).
_ = cast(Callable[[str], str], gettext_lazy)

# The refusals, each said once (the page's messages and the API's errors).
# (Lazy: each is said in the language of the moment it is raised or shown.)
NO_GAME = Refusal(_("There is no such game."), ErrorCode.NO_GAME, kind=NotFound)
NOT_BLIND = Refusal(
    _("Only a blind game's players guess which seats were agents."), ErrorCode.NOT_BLIND
)
NOT_OVER = Refusal(_("Guesses open when the game ends."), ErrorCode.NOT_OVER, kind=WrongPhase)
AGENT_REFUSED = Refusal(
    _("An agent's account does not guess: the guesses are the people's."),
    ErrorCode.AGENT_ACCOUNT,
    kind=NotAllowed,
)
NOT_A_PLAYER = Refusal(_("Only the game's players guess."), ErrorCode.NOT_PLAYER, kind=NotAllowed)
ALREADY = Refusal(
    _("You have guessed in this game already; a guess is not changed."),
    ErrorCode.ALREADY_GUESSED,
    kind=WrongPhase,
)


def held_a_seat(game: Game, user: Any) -> bool:
    """Whether ``user`` held a seat of ``game`` at any time (now, or before a replacement)."""
    if not getattr(user, "pk", None):
        return False
    return (
        Slot.objects.filter(game=game, user_id=user.pk).exists()
        or Replacement.objects.filter(slot__game=game, old_user_id=user.pk).exists()
    )


def _seats(game: Game, given: Iterable[Any]) -> list[int]:
    """``given`` as the game's seat numbers, ascending, each once; else ``guess_seats``."""
    numbers = list(given)
    if len(numbers) > MAX_SEATS_GIVEN or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in numbers
    ):
        raise InvalidInput(gettext("Name seats by their numbers."), ErrorCode.GUESS_SEATS, "seats")
    seats = set(Slot.objects.filter(game=game).values_list("seat", flat=True))
    strange = sorted(set(numbers) - seats)
    if strange:
        listed = ", ".join(str(n) for n in strange[:5])
        raise InvalidInput(
            gettext("This game has no seat %(listed)s: its seats are 1 to %(last)s.")
            % {"listed": listed, "last": max(seats, default=0)},
            ErrorCode.GUESS_SEATS,
            "seats",
        )
    return sorted(set(numbers))


def submit_guess(user: Any, game_id: int, seats: Iterable[Any]) -> AgentGuess:
    """``user``'s guess of ``game_id``'s agent seats (``seats``: seat numbers, maybe none)."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(gettext("Log in to guess."), ErrorCode.LOGIN)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        game = open_for_guesses(game)
        if Agent.objects.filter(user_id=user.pk).exists():
            raise AGENT_REFUSED.error()
        if not held_a_seat(game, user):
            raise NOT_A_PLAYER.error()
        numbers = _seats(game, seats)
        if AgentGuess.objects.filter(game=game, person_id=user.pk).exists():
            raise ALREADY.error()
        return AgentGuess.objects.create(game=game, person=user, seats=numbers)


def open_for_guesses(game: Game | None) -> Game:
    """``game`` if it is a finished blind game; otherwise the refusal that says why not
    (the service's and the reads' one check)."""
    if game is None:
        raise NO_GAME.error()
    if not game.blind:
        raise NOT_BLIND.error()
    if game.status != GameStatus.FINISHED:
        raise NOT_OVER.error()
    return game
