"""Ratings: a Weng-Lin (``openskill``, Plackett-Luce) rating per player, rule set and side,
changed once when a rated game ends (README, "Ratings", says the rules in words).

The match a game makes: the town is one team, the mafia another, every third-party slot a
team of its own, and a modkilled player a team of their own. Every winner (the winning
faction and every co-winner) shares rank 1, every other team rank 2, a modkilled player
rank 3 (last, whatever their team did).

A seat the inactivity rule modkilled (``games.inactivity``) is rated apart: alone and last
against teams, its loss was a foregone result and cost next to nothing (0.05, when the town
that played and lost lost 2.29), so going silent was almost free. It plays a match of its
own where every seat of the game plays alone, in the order of the game's result, and it
comes last: below every other seat, as many lost races as there are seats.

Three layers, so each can be checked alone: ``rate_match`` is the one call to openskill
(plain numbers in and out); ``compute`` turns a game's seats into rating changes (plain
data, no database); ``apply_game`` reads the finished game, writes the changes and a
``RatedGame`` marker, inside the transaction that ends the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from games.inactivity import inactivity_modkilled
from games.models import DeathCause, Game, Slot
from games.outcomes import FACTIONS, holders_of, slot_won

from .models import RatedGame, Rating, RatingChange, RatingSide

# openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): changing any of them
# changes every rating from then on, so they are named nowhere else.
MODEL = PlackettLuce()
# The shown figure is openskill's ordinal, mu - Z * sigma: 99.7% sure the skill is above.
Z = 3.0

MuSigma = tuple[float, float]


def initial() -> MuSigma:
    """A new player's rating."""
    rating = MODEL.rating()
    return rating.mu, rating.sigma


def ordinal(mu: float, sigma: float) -> float:
    """The figure the leaderboard sorts and shows (openskill's ``ordinal``)."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal(z=Z)


def rate_match(teams: list[list[MuSigma]], ranks: list[int]) -> list[list[MuSigma]]:
    """The one call to openskill: teams of (mu, sigma) ranked (1 = first; equal = tied) ->
    the same teams' new (mu, sigma)."""
    rated = MODEL.rate(
        [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams],
        ranks=[float(rank) for rank in ranks],
    )
    return [[(player.mu, player.sigma) for player in team] for team in rated]


@dataclass(frozen=True)
class Entry:
    """One person's part in a game: a slot they held, for ``share`` of its phases."""

    user_id: int
    slot_id: int
    role: str
    alignment: str
    won: bool
    modkilled: bool
    share: float
    # Modkilled by the inactivity rule (not the host's word): ranked below every seat.
    inactive: bool = False

    @property
    def team(self) -> str:
        """Town and mafia play as teams; a third party or a modkilled player alone."""
        if self.alignment in FACTIONS and not self.modkilled:
            return f"{self.alignment}:{self.won}"
        return f"slot:{self.slot_id}"

    @property
    def side(self) -> str | None:
        """The side figure this game counts for (third parties have none)."""
        return self.alignment if self.alignment in FACTIONS else None


@dataclass(frozen=True)
class Seat:
    """A slot at the end: ``holders`` in order, the last the one who held it at the end."""

    holders: tuple[Entry, ...]


@dataclass(frozen=True)
class Change:
    entry: Entry
    side: str
    before: MuSigma
    after: MuSigma


def _rank(entry: Entry) -> int:
    """Winners first (tied), losers second; a modkilled player last, alone: alone and tied
    with a losing team their single rating would count as an upset and rise."""
    if entry.modkilled:
        return 3
    return 1 if entry.won else 2


def _rate_lineup(lineup: list[Entry], rating_of: Callable[[Entry], MuSigma]) -> list[MuSigma]:
    """Each entry's new rating after the match this lineup (one entry per slot) makes."""
    teams: dict[str, list[int]] = {}
    for i, entry in enumerate(lineup):
        teams.setdefault(entry.team, []).append(i)
    order = list(teams.values())
    if len(order) < 2:  # no opponent, no match (a game always has two sides; be safe)
        return [rating_of(entry) for entry in lineup]
    new = rate_match(
        [[rating_of(lineup[i]) for i in team] for team in order],
        [_rank(lineup[team[0]]) for team in order],
    )
    after: list[MuSigma] = [(0.0, 0.0)] * len(lineup)
    for team, results in zip(order, new, strict=True):
        for i, result in zip(team, results, strict=True):
            after[i] = result
    return after


def _last_of_all(lineup: list[Entry], index: int, rating_of: Callable[[Entry], MuSigma]) -> MuSigma:
    """The new rating of ``lineup[index]`` placed below every other seat: each seat plays
    alone, the others ranked by their result (winners, losers, other modkills; by seat
    within), this one last. Ranks are distinct: tied ahead of it, the others would count
    as one race and the loss would shrink again."""
    others = sorted((i for i in range(len(lineup)) if i != index), key=lambda i: _rank(lineup[i]))
    order = [*others, index]
    if len(order) < 2:
        return rating_of(lineup[index])
    new = rate_match([[rating_of(lineup[i])] for i in order], list(range(1, len(order) + 1)))
    return new[-1][0]


def compute(seats: list[Seat], rating: Callable[[int, str], MuSigma]) -> list[Change]:
    """The changes a game makes: overall for everyone, and the town or mafia side figure of
    each town or mafia player (a second match where everyone plays with the figure of the
    side they played; third parties with their overall rating, which it does not change).

    A slot's final holder plays the match as it was; an earlier holder is rated as if they
    had held the slot in that same match. Each holder's change is scaled by their share of
    the game's phases (a whole game: openskill's change exactly)."""
    changes: list[Change] = []
    final = [seat.holders[-1] for seat in seats]
    for mode in ("overall", "side"):

        def rating_of(entry: Entry, mode: str = mode) -> MuSigma:
            side = RatingSide.OVERALL.value if mode == "overall" else entry.side
            return rating(entry.user_id, side or RatingSide.OVERALL.value)

        base = _rate_lineup(final, rating_of)
        for index, seat in enumerate(seats):
            for entry in seat.holders:
                side = RatingSide.OVERALL.value if mode == "overall" else entry.side
                if side is None or entry.share <= 0:
                    continue
                if entry.inactive:  # (only ever the final holder: the modkill is theirs)
                    full = _last_of_all(final, index, rating_of)
                elif entry is seat.holders[-1]:
                    full = base[index]
                else:
                    lineup = [*final[:index], entry, *final[index + 1 :]]
                    full = _rate_lineup(lineup, rating_of)[index]
                before = rating_of(entry)
                if entry.share >= 1:
                    after = full  # the whole game: openskill's figures, to the last bit
                else:
                    after = (
                        before[0] + entry.share * (full[0] - before[0]),
                        before[1] + entry.share * (full[1] - before[1]),
                    )
                changes.append(Change(entry, side, before, after))
    return changes


# -- the game's seats, from its records (who won: ``games.outcomes``) ----------------------
def seats_of(game: Game) -> list[Seat]:
    slots = list(Slot.objects.filter(game=game).prefetch_related("replacements").order_by("seat"))
    phases = max(game.phase_number, 1)
    by_rule = inactivity_modkilled(game)
    seats = []
    for slot in slots:
        won = slot_won(slot, game.winner, game.co_winners)
        holders = holders_of(slot, phases)
        modkilled = slot.death_cause == DeathCause.MODKILL
        entries = tuple(
            Entry(
                user_id=user_id,
                slot_id=slot.pk,
                role=slot.role,
                alignment=slot.alignment,
                # The modkill is the final holder's: a loss whatever their team does.
                won=won and not (modkilled and i == len(holders) - 1),
                modkilled=modkilled and i == len(holders) - 1,
                share=share,
                inactive=modkilled and i == len(holders) - 1 and slot.pk in by_rule,
            )
            for i, (user_id, share) in enumerate(holders)
        )
        seats.append(Seat(entries))
    return _once_per_person(seats)


def _once_per_person(seats: list[Seat]) -> list[Seat]:
    """Someone who held two slots of one game is rated for the one they held longest."""
    best: dict[int, Entry] = {}
    for seat in seats:
        for entry in seat.holders:
            kept = best.get(entry.user_id)
            if kept is None or entry.share > kept.share:
                best[entry.user_id] = entry
    out = []
    for seat in seats:
        holders = [e if best[e.user_id] is e else replace(e, share=0.0) for e in seat.holders]
        out.append(Seat(tuple(holders)))
    return out


# -- writing them -------------------------------------------------------------------------
def apply_game(game: Game, now: datetime) -> bool:
    """Rate a finished rated game, once: True if this call did it. Called by
    ``rate_ending_game`` inside the game's transaction (the game row locked); the
    ``RatedGame`` marker makes a second call (a replayed end) do nothing."""
    if not game.rated or not game.is_finished:
        return False
    _, created = RatedGame.objects.get_or_create(game=game, defaults={"applied_at": now})
    if not created:
        return False
    seats = seats_of(game)
    users = {e.user_id for seat in seats for e in seat.holders}
    sides = [s.value for s in RatingSide]
    mu, sigma = initial()
    # Create missing rows first (a concurrent game's insert is no error), then lock them
    # in one order, so two games ending at once with a player in common queue up.
    Rating.objects.bulk_create(
        [
            Rating(
                user_id=u,
                ruleset=game.ruleset,
                side=side,
                mu=mu,
                sigma=sigma,
                ordinal=ordinal(mu, sigma),
                updated_at=now,
            )
            for u in sorted(users)
            for side in sides
        ],
        ignore_conflicts=True,
    )
    rows = {
        (r.user_id, r.side): r
        for r in Rating.objects.select_for_update()
        .filter(user_id__in=users, ruleset=game.ruleset)
        .order_by("pk")
    }
    changes = compute(seats, lambda user, side: (rows[user, side].mu, rows[user, side].sigma))
    RatingChange.objects.bulk_create(
        [
            RatingChange(
                game=game,
                user_id=c.entry.user_id,
                ruleset=game.ruleset,
                side=c.side,
                slot_id=c.entry.slot_id,
                role=c.entry.role,
                alignment=c.entry.alignment,
                won=c.entry.won,
                modkilled=c.entry.modkilled,
                share=c.entry.share,
                mu_before=c.before[0],
                sigma_before=c.before[1],
                mu_after=c.after[0],
                sigma_after=c.after[1],
                at=now,
            )
            for c in changes
        ]
    )
    for c in changes:
        row = rows[c.entry.user_id, c.side]
        row.mu, row.sigma = c.after
        row.ordinal = ordinal(*c.after)
        row.games += 1
        row.wins += int(c.entry.won)
        row.updated_at = now
        row.save(update_fields=["mu", "sigma", "ordinal", "games", "wins", "updated_at"])
    return True


def rate_ending_game(tx: Any) -> None:
    """Rate the game ending in ``tx`` (``games.hooks.on_game_ending``: in its transaction,
    under its row lock, so exactly once; an unrated game is left alone)."""
    apply_game(tx.game, tx.now)
