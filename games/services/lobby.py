"""Sign-ups: creating a game (its setup checked by the resolver), joining, leaving, the
host removing a sign-up, and the start (the seeded deal of seats and roles, role PMs, the
first phase)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import F
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from games.i18n import in_game_language

from .. import gateway, naming
from ..display import joined_line
from ..errors import ErrorCode, InvalidInput, NotAllowed, WrongPhase
from ..game_settings import BY_NAME, MAX_PLAYERS, MIN_PLAYERS, Kind, check_settings
from ..gateway import DayRuleError, GameState
from ..locks import Locked
from ..models import (
    Absence,
    Game,
    GameStatus,
    Phase,
    Post,
    Ruleset,
    SavedSetup,
    Slot,
    VoteRule,
    resolver_name,
)
from ..name_decks import MASK_NAMES, deal_masks
from ..naming import slot_ref
from ..reads.access import is_host
from ..reads.policy import require_host_control
from ..setups import SETUPS, Setup
from . import announcements
from .common import (
    Tx,
    by_resolver_name,
    emit,
    game_tx,
    notify,
    require_admitted,
    require_host,
    require_one_seat_per_person,
    require_player,
    role_pm,
    rules_of,
    slot_roles,
    target_slot,
)
from .phases import open_phase


def create_game(
    user: Any,
    *,
    title: str,
    ruleset: str,
    role_list: list[dict[str, Any]],
    method: str = "",
    flags: Mapping[str, Any] | None = None,
    setup: str = "",
    seed: int | None = None,
    **settings: Any,
) -> Game:
    """A new game in sign-ups, hosted by ``user``; the setup is checked by the resolver.

    ``settings``: any of ``games.game_settings.SETTINGS`` by name (the rest get their
    defaults); each is checked by its spec entry, the table's together here.
    """
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to host a game."), ErrorCode.LOGIN)
    title = (title or "").strip()
    if not title or len(title) > 200:
        raise InvalidInput(
            _("Give the game a title (at most 200 characters)."), ErrorCode.TITLE, "title"
        )
    if ruleset not in Ruleset.values:
        raise InvalidInput(
            _("Unknown rule set %(ruleset)s; use one of %(choices)s.")
            % {"ruleset": repr(ruleset), "choices": ", ".join(Ruleset.values)},
            ErrorCode.RULESET,
            "ruleset",
        )
    values = check_settings(gateway.rules_named(ruleset), settings)
    values["day_settings"] = _check_table(ruleset, values)
    entries = normalize_role_list(role_list)
    count = sum(e["count"] for e in entries)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InvalidInput(
            _("A game needs between %(min)s and %(max)s roles.")
            % {"min": MIN_PLAYERS, "max": MAX_PLAYERS},
            ErrorCode.ROLE_COUNT,
            "role_list",
        )
    if values["player_cap"] is None:
        values["player_cap"] = count
    if values["player_cap"] != count:
        raise InvalidInput(
            _("The role list has %(count)s roles, so the game takes exactly %(count)s players.")
            % {"count": count},
            ErrorCode.PLAYER_CAP,
            "player_cap",
        )
    game = Game(
        title=title,
        host=user,
        setup=setup,
        ruleset=ruleset,
        method=method or "",
        flags=dict(flags or {}),
        role_list=entries,
        **values,
    )
    if seed is not None:
        game.seed = seed
    game.flags = resolver_flags(game)
    if setup in SETUPS and _setup_key(game) != _setup_key(_as_the_setup(SETUPS[setup])):
        # The host changed the setup's roles or their rules: a game of their own, whose
        # results must not count as the setup's (its statistics beside the simulator's).
        # (Another name, the demo's "demo", is the site's own tag and stays.)
        game.setup = ""
    # A dry run of the deal proves the setup is legal before anyone signs up.
    _build_state(game, _deal(game, list(range(1, count + 1))))
    with transaction.atomic():
        game.save()
        tx = Tx(Locked(game, [], None), timezone.now(), 1)
        emit(tx, "game_created", {"title": game.title, "host": user.get_username()})
        notify(game.pk, 1)
    return game


def _as_the_setup(setup: Setup) -> Game:
    """A game (unsaved) of the ready-made ``setup`` as it is dealt."""
    kwargs = setup.game_kwargs()
    settings = {k: v for k, v in kwargs.items() if k in BY_NAME}
    values = check_settings(gateway.rules_named(setup.ruleset), settings)
    game = Game(
        ruleset=setup.ruleset,
        method=kwargs.get("method") or "",
        flags=dict(kwargs.get("flags") or {}),
        role_list=normalize_role_list(kwargs["role_list"]),
        **{k: v for k, v in values.items() if k != "day_settings"},
    )
    game.flags = resolver_flags(game)
    return game


def _setup_key(game: Game) -> tuple[Any, ...]:
    """What makes a game its setup: its rule set, the cards dealt (roles, modifiers,
    alignments, sanity; however the rows split the counts), the resolution method and the
    flags (the rule set's defaults written in). Timing and house rules may differ."""
    rules = gateway.rules_named(game.ruleset)
    cards: dict[str, int] = {}
    for entry in game.role_list:
        card = json.dumps({k: v for k, v in entry.items() if k != "count"}, sort_keys=True)
        cards[card] = cards.get(card, 0) + entry["count"]
    flags = {name: spec.default for name, spec in rules.flags.items()} | dict(game.flags or {})
    method = game.method or rules.methods[0]
    return (game.ruleset, sorted(cards.items()), method, sorted(flags.items(), key=str))


def _check_table(ruleset: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A table game's clock and day settings, checked by its day script."""
    if not values["turn_based"]:
        return {}
    script = gateway.day_script(ruleset)
    if script is None:
        raise InvalidInput(
            _("Forum games play their day as a free thread: they have no turns."),
            ErrorCode.TURN_BASED,
            "turn_based",
        )
    for name in ("turn_length", "vote_length"):
        length, spec = values[name], BY_NAME[name]
        if not isinstance(length, timedelta) or not spec.least <= length <= spec.most:
            raise InvalidInput(
                _("A turn or a table vote lasts between ten seconds and a day."),
                ErrorCode.TURN_LENGTH,
                name,
            )
    settings = dict(values["day_settings"] or {})
    for name in script.game_decided:  # the game decides these, not the host (city)
        settings.pop(name, None)
    try:
        script.check_settings(settings, (), set())
    except DayRuleError as exc:
        raise InvalidInput(exc.reason, ErrorCode.DAY_SETTINGS, "day_settings") from None
    return settings


def save_setup(user: Any, name: str, game_kwargs: Mapping[str, Any]) -> SavedSetup:
    """Keep a host's setup (``create_game``'s keyword arguments, title aside) for reuse;
    it is checked like a game's, so a saved setup always deals."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to save a setup."), ErrorCode.LOGIN)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise InvalidInput(_("Name the setup (at most 100 characters)."), ErrorCode.NAME, "save_as")
    kwargs = {k: v for k, v in game_kwargs.items() if k not in {"title", "seed"}}
    # Proves the setup legal without saving a game.
    probe = dict(kwargs)
    probe.pop("setup", None)
    with transaction.atomic():
        create_game(user, title=name, **probe)
        transaction.set_rollback(True)
    data = {
        k: (v.total_seconds() if isinstance(v, timedelta) else v)
        for k, v in kwargs.items()
        if k != "setup"
    }
    return SavedSetup.objects.create(owner=user, name=name, ruleset=kwargs["ruleset"], data=data)


DURATIONS = tuple(s.name for s in BY_NAME.values() if s.kind is Kind.DURATION)


def saved_setup_kwargs(saved: SavedSetup) -> dict[str, Any]:
    """``create_game`` keyword arguments of a saved setup (lengths back to durations)."""
    data = dict(saved.data)
    for key in DURATIONS:
        if data.get(key) is not None:
            data[key] = timedelta(seconds=data[key])
    return data


def normalize_role_list(role_list: Any) -> list[dict[str, Any]]:
    """Check the shape of a role list and fill in defaults (count 1, no modifiers)."""
    if not isinstance(role_list, list) or not role_list:
        raise InvalidInput(
            _("The role list must name at least one role."), ErrorCode.ROLE_LIST, "role_list"
        )
    entries = []
    for i, raw in enumerate(role_list):
        where = f"role_list[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
            raise InvalidInput(_("Each role list entry needs a role."), ErrorCode.ROLE_LIST, where)
        count = raw.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAYERS:
            raise InvalidInput(
                _("%(role)s: count must be a whole number from 1.") % {"role": raw["role"]},
                ErrorCode.COUNT,
                where,
            )
        entry: dict[str, Any] = {"role": raw["role"], "count": count}
        modifiers = raw.get("modifiers", [])
        if not isinstance(modifiers, list) or not all(isinstance(m, str) for m in modifiers):
            raise InvalidInput(
                _("%(role)s: modifiers must be a list.") % {"role": raw["role"]},
                ErrorCode.MODIFIERS,
                where,
            )
        if modifiers:
            entry["modifiers"] = list(modifiers)
        for key in ("alignment", "sanity"):
            if raw.get(key) is not None:
                if not isinstance(raw[key], str):
                    raise InvalidInput(
                        _("%(role)s: %(field)s must be text.")
                        % {"role": raw["role"], "field": key},
                        ErrorCode(key),
                        where,
                    )
                entry[key] = raw[key]
        if raw.get("immune"):
            entry["immune"] = True
        unknown = set(raw) - {"role", "count", "modifiers", "alignment", "sanity", "immune"}
        if unknown:
            raise InvalidInput(
                _("Unknown role list field %(field)s.") % {"field": repr(sorted(unknown)[0])},
                ErrorCode.ROLE_LIST,
                where,
            )
        entries.append(entry)
    return entries


# Site settings that some rule sets also know as flags: the site's field is the truth.
_SITE_FLAGS = {
    "dayVote": lambda g: "plurality" if g.vote_rule == VoteRule.PLURALITY else "majority",
    "selfVote": lambda g: g.self_vote_allowed,
    "noEliminationVote": lambda g: g.skip_vote_allowed,
}


def resolver_flags(game: Game) -> dict[str, Any]:
    """The game's rule set flags with the site-level settings written in."""
    rules = rules_of(game)
    flags = dict(game.flags or {})
    for name, source in _SITE_FLAGS.items():
        if name in rules.flags:
            flags[name] = source(game)
    return flags


def _deal(game: Game, seats: list[int]) -> list[dict[str, Any]]:
    """Resolver player entries for ``seats``: roles shuffled by the game's seed."""
    rules = rules_of(game)
    cards: list[dict[str, Any]] = []
    for entry in game.role_list:
        card = {k: v for k, v in entry.items() if k != "count"}
        cards.extend(dict(card) for _copy in range(entry["count"]))
    rng = random.Random(game.seed)
    rng.shuffle(cards)
    players = []
    for seat, card in zip(seats, cards, strict=True):
        players.append({"name": resolver_name(seat), **card})
    if rules.uses_executioner_target:
        for player in players:
            if player["role"] == "executioner":
                town = [
                    p["name"]
                    for p in players
                    if p is not player
                    and p["role"] in rules.roles
                    and p.get("alignment", rules.roles[p["role"]].alignment) == "town"
                ]
                if town:
                    player["target"] = rng.choice(town)
    return players


def _build_state(game: Game, players: list[dict[str, Any]]) -> GameState:
    try:
        return gateway.new_state(
            game.ruleset, players, method=game.method or None, flags=game.flags, seed=game.seed
        )
    except gateway.InvalidScenario as exc:
        # The message names seats ("P3"): say it about the setup instead.
        message = naming.RESOLVER_NAME.sub("a player", exc.message)
        raise InvalidInput(
            _("This setup is not legal: %(reason)s") % {"reason": message},
            ErrorCode.SETUP,
            "role_list",
        ) from None


def join_game(user: Any, game_id: int) -> Slot:
    """Sign ``user`` up for the game."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to join a game."), ErrorCode.LOGIN)
    with game_tx(game_id) as tx:
        game = tx.game
        if game.is_cancelled:
            raise WrongPhase(_("The host cancelled this game."), ErrorCode.CANCELLED)
        if not game.is_signups:
            raise WrongPhase(_("Sign-ups are closed."), ErrorCode.SIGNUPS_CLOSED)
        if is_host(game, user):
            raise NotAllowed(_("The host cannot play in their own game."), ErrorCode.HOST)
        if tx.locked.slot_of_user(user.pk) is not None:
            raise InvalidInput(_("You have already joined this game."), ErrorCode.ALREADY_JOINED)
        require_admitted(game, user)
        require_one_seat_per_person(tx, user)
        if len(tx.slots) >= game.player_cap:
            raise WrongPhase(_("The game is full."), ErrorCode.FULL)
        seat = max((s.seat for s in tx.slots), default=0) + 1
        slot = Slot.objects.create(game=game, seat=seat, user=user)
        tx.slots.append(slot)
        emit(tx, "signup_joined", {**slot_ref(slot), "count": len(tx.slots)})
        return slot


def leave_game(user: Any, game_id: int) -> None:
    """Withdraw ``user``'s sign-up (only before the start)."""
    with game_tx(game_id) as tx:
        if not tx.game.is_signups:
            raise WrongPhase(
                _("The game has started: ask the host for a replacement."), ErrorCode.SIGNUPS_CLOSED
            )
        slot = require_player(tx, user, alive=False)
        _remove_signup(tx, slot)


def remove_signup(user: Any, game_id: int, slot_id: int) -> None:
    """The host removes a player from the sign-ups."""
    with game_tx(game_id) as tx:
        require_host(user, tx.game)
        if not tx.game.is_signups:
            raise WrongPhase(
                _("The game has started: use replace or modkill."), ErrorCode.SIGNUPS_CLOSED
            )
        _remove_signup(tx, target_slot(tx, slot_id))


def cancel_game(user: Any, game_id: int, *, reason: str = "") -> Game:
    """The host calls the game off during sign-ups: it leaves the lobby, and its thread
    keeps an announcement to the players who had signed up."""
    with game_tx(game_id) as tx:
        game = tx.game
        require_host_control(game, user, "cancel", tx.phase)
        game.status = GameStatus.CANCELLED
        game.finished_at = tx.now
        game.save(update_fields=["status", "finished_at"])
        with in_game_language(game):
            announcements.announce(tx, announcements.cancelled(tx.slots, reason))
        emit(
            tx,
            "game_cancelled",
            {"title": game.title, "players": [slot_ref(s) for s in tx.slots]},
        )
        return game


def _remove_signup(tx: Tx, slot: Slot) -> None:
    ref = slot_ref(slot)
    Post.objects.filter(slot=slot).update(slot=None)  # sign-up chatter stays, unlinked
    slot.delete()
    tx.slots.remove(slot)
    emit(tx, "signup_left", {**ref, "count": len(tx.slots)})


def start_game(user: Any, game_id: int, *, now: datetime | None = None) -> Phase:
    """Deal the roles (reproducibly from the game's seed) and open the first phase."""
    with game_tx(game_id, now) as tx:
        game = tx.game
        require_host(user, game)
        if not game.is_signups:
            raise WrongPhase(_("The game has already started."), ErrorCode.STARTED)
        if len(tx.slots) != game.role_count:
            raise WrongPhase(
                _("The setup needs %(count)s players; %(joined)s.")
                % {"count": game.role_count, "joined": joined_line(len(tx.slots))},
                ErrorCode.NOT_ENOUGH_PLAYERS,
            )
        joined = list(tx.slots)  # in sign-up order
        _seat(tx, deal_seats(game, len(joined)))
        if game.anonymous_names:
            _mask(tx)  # the masked names, and new ids for the seats
        # Roles go by sign-up, as before seats were dealt (the seed alone decides them);
        # the resolver's players are in seat order, as the table sits.
        players = _deal(game, [s.seat for s in joined])
        players.sort(key=lambda p: naming.seat_of(p["name"]) or 0)
        state = _build_state(game, players)
        for slot, player in zip(tx.slots, state.players, strict=True):
            slot.role = player.role
            slot.alignment = player.alignment
            slot.modifiers = list(player.modifiers)
            slot.sanity = player.sanity
            slot.immune = player.immune
            slot.executioner_target = by_resolver_name(tx, player.target or "")
            slot.save()
        game.resolver_state = state.to_dict()
        game.status = GameStatus.RUNNING
        game.started_at = tx.now
        game.save()
        tx.names = naming.seat_names(tx.slots)  # the masked names, in an anonymous game
        emit(
            tx,
            "game_started",
            {"players": [slot_ref(s) for s in tx.slots], "starts_with": game.starts_with},
        )
        for slot in tx.slots:
            emit(tx, "role_pm", role_pm(slot, tx.slots), f"slot:{slot.pk}")
        emit(tx, "roles", {"slots": [slot_roles(s) for s in tx.slots]}, "host")
        return open_phase(tx, game.starts_with)


def deal_seats(game: Game, count: int) -> list[int]:
    """The seats of the players in sign-up order: 1..n dealt at random from the game's
    seed (the classic document: "Seating positions are randomized each game"), or in
    sign-up order where the host keeps it (a forum game's setting)."""
    seats = list(range(1, count + 1))
    # An anonymous game always deals them: the sign-ups showed each name's seat.
    if not game.seats_in_signup_order or game.anonymous_names:
        # Its own stream of the seed: the roles' deal stays what the seed made it.
        random.Random(f"seats:{game.seed}").shuffle(seats)
    return seats


def _mask(tx: Tx) -> None:
    """An anonymous game's start: each seat gets a masked name from the deck and a new id.
    The sign-ups showed every seat's id beside its player's name (the pages, the API, the
    sign-up events), so the old ids would say whose each mask is. The ids are taken in seat
    order, and the seats were dealt at random (``deal_seats``). Nothing but sign-up posts
    and V/LAs refers to a seat before the start; the foreign keys are checked at commit."""
    taken = get_user_model().objects.annotate(folded=Lower("username"))
    taken = taken.filter(folded__in=[name.lower() for name in MASK_NAMES])
    masks = deal_masks(tx.game.seed, len(tx.slots), taken.values_list("username", flat=True))
    with connection.cursor() as cursor:
        for slot, mask in zip(tx.slots, masks, strict=True):
            new_id = _fresh_slot_id(cursor)
            Slot.objects.filter(pk=slot.pk).update(id=new_id, mask_name=mask)
            Post.objects.filter(slot_id=slot.pk).update(slot_id=new_id)
            Absence.objects.filter(slot_id=slot.pk).update(slot_id=new_id)
            slot.id, slot.mask_name = new_id, mask


def _fresh_slot_id(cursor: Any) -> int:
    """A slot id above every one taken so far: PostgreSQL's sequence; on SQLite (the
    embedded run), one above the largest, which is safe there because the transaction
    holds the database's only write lock (and AUTOINCREMENT never hands out an id at or
    below one in use)."""
    table = Slot._meta.db_table
    if connection.vendor == "postgresql":
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [table])
    else:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
    (new_id,) = cursor.fetchone()
    return int(new_id)


def _seat(tx: Tx, seats: list[int]) -> None:
    """Give the players (in sign-up order) ``seats``; ``tx.slots`` then go by seat."""
    if [s.seat for s in tx.slots] != seats:
        offset = 10_000  # step aside first: (game, seat) is unique
        Slot.objects.filter(game=tx.game).update(seat=F("seat") + offset)
        for slot, seat in zip(tx.slots, seats, strict=True):
            slot.seat = seat
            Slot.objects.filter(pk=slot.pk).update(seat=seat)
    tx.slots.sort(key=lambda s: s.seat)
    tx.names = naming.seat_names(tx.slots)
