"""Every field of the client's models is filled by the live site, and every key the site
sends is a field: each model is checked against real answers (a forum day and night with a
day vigilante, a double voter and a loved townie; a classic table's nominations; a city
table's closed vote; my games, notifications, the league's queues), nested models too.

Before the fix this failed: the models lacked 45 keys the site sends (the game's settings
and times, the vote count's kind, dead, away and texts, a wagon's L-minus and lock, the
turn's closed votes, a partner's death, the role PM's forum text...), and modelled a
partner and one's own seat as bare references. Fields the API sends only where they apply
(``OPTIONAL``) must each be seen once here."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, get_args

import mafia_client
import pytest
from mafia_client.models import Model, _hints

from tests.conftest import slot_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

# Fields the API declares optional (``required=False`` in games/api/serializers.py), sent
# only when they apply: a skip option has no seat, a seat option no ``skip``.
OPTIONAL = {
    "SlotRef": {"agent"},  # in the player list and vote counts only
    "TurnOption": {"slot_id", "seat", "name", "skip"},
    "Voter": {"weight"},  # only when not 1 and public
    "Wagon": {"modifiers"},  # only when the setup makes them public
    "VoteCount": {"nominated", "lock_text", "secret"},  # nominations; majority lock; secret votes
    "RolePM": {"executioner_target"},
}


class Checker:
    def __init__(self) -> None:
        self.problems: set[str] = set()
        self.seen: set[str] = set()
        self.optional_sent: set[str] = set()

    def check(self, cls: type[Model], data: Any, where: str) -> None:
        if not isinstance(data, dict):
            return
        self.seen.add(cls.__name__)
        fields = {f.name for f in dataclasses.fields(cls)} - {"raw"}
        optional = set().union(*(OPTIONAL.get(c.__name__, set()) for c in cls.__mro__))
        self.optional_sent |= {f"{cls.__name__}.{k}" for k in optional & set(data)}
        if missing := fields - set(data) - optional:
            self.problems.add(f"{where} ({cls.__name__}): never sent {sorted(missing)}")
        if unknown := set(data) - fields:
            self.problems.add(f"{where} ({cls.__name__}): not modelled {sorted(unknown)}")
        hints = _hints(cls)
        for name in fields & set(data):
            for inner in models_in(hints[name]):
                value = data[name]
                for item in value if isinstance(value, list) else [value]:
                    self.check(inner, item, f"{where}.{name}")
        cls.from_json(data)  # and it parses


def models_in(hint: Any) -> list[type[Model]]:
    if isinstance(hint, type) and issubclass(hint, Model):
        return [hint]
    return [m for arg in get_args(hint) for m in models_in(arg)]


def all_models() -> set[str]:
    return {
        name
        for name, obj in vars(mafia_client.models).items()
        if isinstance(obj, type) and issubclass(obj, Model) and obj is not Model
    }


def seated(game: Any) -> list[Any]:
    return list(game.slots.select_related("user").order_by("seat"))


def test_every_model_field_is_filled_by_the_live_site(make_game, client_for, host):
    c = Checker()
    hosting = client_for(host)
    # A forum day: posts, votes (a double voter's weight, a loved townie's wagon), V/LA.
    game = make_game("forum-third-party-ten")
    g = f"games/{game.pk}/"
    slots = seated(game)
    by = {s.pk: client_for(s.user) for s in slots}
    double = next(s for s in slots if "double_voter" in s.modifiers)
    loved = next(s for s in slots if "loved" in s.modifiers)
    goons = [s for s in slots if s.role == "goon"]
    cop, dayvig = slot_of(game, "cop"), slot_of(game, "day_vigilante")
    quiet = next(s for s in slots if s not in (double, loved, cop, dayvig, *goons))
    today = datetime.date.today().isoformat()
    by[quiet.pk].post_json(g + "away/", {"starts": today, "ends": today, "note": "travel"})
    c.check(mafia_client.PostResult, by[cop.pk].post_json(g + "posts/", {"body": "Hi."}), "post")
    voted = by[double.pk].post_json(g + "vote/", {"target": loved.pk})
    c.check(mafia_client.VoteResult, voted, "vote")
    c.check(mafia_client.RolePM, by[dayvig.pk].get_json(g + "role/"), "role(day vigilante)")
    c.check(mafia_client.PostPage, by[cop.pk].get_json(g + f"posts/?iso={cop.seat}"), "posts(iso)")
    c.check(mafia_client.VoteCount, by[cop.pk].get_json(g + "vote-count/"), "vote-count(day 1)")
    # The night: the cop checks a goon, the goons kill; day 2 has results and the dead.
    hosting.post_json(g + "host/cut/")
    check = by[cop.pk].role(game.pk).abilities[0].ability
    by[cop.pk].post_json(g + "actions/", {"ability": check, "targets": [goons[0].pk]})
    kill = next(a for a in by[goons[0].pk].role(game.pk).abilities if a.factional)
    by[goons[0].pk].post_json(g + "actions/", {"ability": kill.ability, "targets": [quiet.pk]})
    c.check(mafia_client.RolePM, by[goons[1].pk].get_json(g + "role/"), "role(goon, night)")
    hosting.post_json(g + "host/cut/")
    for path, model in (
        ("", mafia_client.Game),
        ("turn/", mafia_client.Turn),
        ("role/", mafia_client.RolePM),
        ("vote-count/", mafia_client.VoteCount),
        ("posts/?page=last", mafia_client.PostPage),
    ):
        c.check(model, by[cop.pk].get_json(g + path), f"{path or 'game'} (day 2)")
    c.check(mafia_client.RolePM, by[goons[1].pk].get_json(g + "role/"), "role(goon, day 2)")
    c.check(mafia_client.MyGames, by[cop.pk].get_json("my-games/"), "my-games")
    c.check(mafia_client.NotificationPage, by[cop.pk].get_json("notifications/"), "notifications")
    for queue in by[cop.pk].get_json("queues/"):
        c.check(mafia_client.Queue, queue, "queues")
    # A classic table: the speaker speaks and nominates (the vote count's nominees).
    table = make_game("classic-ten", table=True)
    t = f"games/{table.pk}/"
    tables = {s.pk: client_for(s.user) for s in seated(table)}
    anyone = next(iter(tables.values()))
    hosting.post_json(t + "host/cut/")  # night zero (the mafia meet)
    c.check(mafia_client.Turn, anyone.get_json(t + "turn/"), "turn(classic speech)")
    speaker = tables[anyone.turn(table.pk).speaker.slot_id]
    speaker.post(table.pk, "I suspect the next seat.")
    nominee = next(o.slot_id for o in speaker.turn(table.pk).options if not o.skip)
    speaker.nominate(table.pk, nominee)
    c.check(mafia_client.Turn, anyone.get_json(t + "turn/"), "turn(classic, nominated)")
    c.check(mafia_client.VoteCount, anyone.get_json(t + "vote-count/"), "vote-count(classic)")
    # A city table: every speaker passes, the vote ties, the revote shows the closed vote.
    city = make_game("city-ten", table=True)
    y = f"games/{city.pk}/"
    cities = {s.pk: client_for(s.user) for s in seated(city)}
    anyone = next(iter(cities.values()))
    for _ in range(len(cities)):
        cities[anyone.turn(city.pk).speaker.slot_id].pass_turn(city.pk)
    ballot = [o.slot_id for o in anyone.turn(city.pk).ballot if not o.skip]
    for i, (slot_id, voter) in enumerate(cities.items()):
        # A tie (half each way; a seat named never votes for itself).
        voter.vote(city.pk, next(b for b in (ballot[i % 2], *ballot) if b != slot_id))
    c.check(mafia_client.Turn, anyone.get_json(y + "turn/"), "turn(city, after the vote)")
    # Secret votes: a player's count says how much it hides.
    secret = make_game("forum-vanilla", secret_votes="totals")
    player = client_for(seated(secret)[0].user)
    c.check(mafia_client.VoteCount, player.get_json(f"games/{secret.pk}/vote-count/"), "secret")
    assert not c.problems, "\n".join(sorted(c.problems))
    unseen = all_models() - c.seen
    assert not unseen, f"models no answer here carried: {sorted(unseen)}"
    # The optional fields came too where they apply (not a majority lock nor an executioner).
    for cls, names in OPTIONAL.items():
        for name in names - {"lock_text", "executioner_target"}:
            assert any(s.endswith(f".{name}") for s in c.optional_sent), f"{cls}.{name}"


def test_models_ignore_keys_they_do_not_know():
    """A newer site may send more: an older client parses what it knows."""
    game = mafia_client.Game.from_json({"id": 3, "new_thing": 1, "players": [{"slot_id": 4}]})
    assert game.id == 3 and game.players[0].slot_id == 4 and game.raw["new_thing"] == 1
