"""Every modifier, third party and vote modifier through the JSON API: a game created by
``POST /api/v1/games/``, joined and started by API calls, read back through the role PM
and vote-count endpoints (the resolver's own tests cover every outcome in depth)."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Slot
from tests.site.test_forum_parts import api

pytestmark = pytest.mark.django_db

FILLER = [{"role": "goon"}, {"role": "vanilla_townie", "count": 4}]


def _game(host, make_users, first: dict[str, Any], **settings: Any) -> int:
    body = {"title": "Parts", "ruleset": "forum", "role_list": [first, *FILLER], **settings}
    made = api(host).post("/api/v1/games/", body, content_type="application/json")
    assert made.status_code == 201, made.content
    gid = made.json()["id"]
    for user in make_users(6):
        assert api(user).post(f"/api/v1/games/{gid}/join/").status_code == 200
    assert api(host).post(f"/api/v1/games/{gid}/start/").status_code == 200
    return gid


def _seat(gid: int, role: str, **where: Any) -> Slot:
    return Slot.objects.filter(game_id=gid, role=role, **where).select_related("user").first()


# (modifier, role, whether the role has an ability to use on night 1)
MODIFIERS = [
    ("shots:2", "cop", True),
    ("odd_night", "cop", True),
    ("even_night", "cop", False),
    ("ninja", "vigilante", True),
    ("macho", "cop", True),
    ("weak", "cop", True),
    ("self_target", "doctor", True),
    ("loyal", "cop", True),
    ("disloyal", "cop", True),
    ("novice", "cop", False),
    ("compulsive", "doctor", True),
    ("strong_willed", "vanilla_townie", False),
    ("bulletproof", "vanilla_townie", False),
    ("one_shot_bulletproof", "vanilla_townie", False),
]


@pytest.mark.parametrize(("modifier", "role", "acts"), MODIFIERS)
def test_modifier_in_the_role_pm_and_night_one(host, make_users, modifier, role, acts):
    gid = _game(host, make_users, {"role": role, "modifiers": [modifier]}, starts_with="night")
    seat = next(s for s in Slot.objects.filter(game_id=gid, role=role) if s.modifiers)
    me = api(seat.user).get(f"/api/v1/games/{gid}/role/").json()
    mods = {m["slug"]: m for m in me["role_pm"]["modifiers"]}
    assert modifier in mods and mods[modifier]["description"]
    assert mods[modifier]["title"] in me["role_pm"]["title"]
    assert bool(me["abilities"]) is acts
    if modifier.startswith("shots:"):
        assert me["role_pm"]["shots_left"] == 2
    # nobody else's view names it
    other = _seat(gid, "goon")
    assert modifier not in str(api(other.user).get(f"/api/v1/games/{gid}/").json())


@pytest.mark.parametrize(
    ("role", "words"),
    [
        ("serial_killer", "alone"),
        ("survivor", "alive"),
        ("jester", "day vote eliminates you"),
    ],
)
def test_third_party_win_condition_in_the_role_pm(host, make_users, role, words):
    gid = _game(host, make_users, {"role": role})
    me = api(_seat(gid, role).user).get(f"/api/v1/games/{gid}/role/").json()
    assert words in me["role_pm"]["win_condition"].lower()
    assert me["alignment"] not in ("town", "mafia")


# (vote modifier, the first wagon's count with one vote, votes needed: 6 alive, majority 4)
VOTE_MODIFIERS = [
    ("double_voter", "voter", 2, 4),
    ("vote_weight:3", "voter", 3, 4),
    ("loved", "target", 1, 5),
    ("hated", "target", 1, 3),
    ("lynch_proof", "target", 1, 4),
]


@pytest.mark.parametrize(("modifier", "side", "count", "needed"), VOTE_MODIFIERS)
def test_vote_modifier_in_the_api_vote_count(host, make_users, modifier, side, count, needed):
    first = {"role": "cop", "modifiers": [modifier]}
    gid = _game(host, make_users, first, vote_modifiers_public=True)
    special, goon = _seat(gid, "cop"), _seat(gid, "goon")
    voter, target = (special, goon) if side == "voter" else (goon, special)
    assert (
        api(voter.user).post(f"/api/v1/games/{gid}/vote/", {"target": target.pk}).status_code == 200
    )
    wagon = api(host).get(f"/api/v1/games/{gid}/vote-count/").json()["wagons"][0]
    assert (wagon["count"], wagon["needed"]) == (count, needed)
    if modifier == "lynch_proof":
        assert wagon["modifiers"] == ["lynch-proof"]


@pytest.mark.parametrize("ends_day", [False, True])
def test_lynch_proof_at_the_threshold_through_the_api(host, make_users, ends_day):
    first = {"role": "cop", "modifiers": ["lynch_proof"]}
    gid = _game(host, make_users, first, lynch_proof_ends_day=ends_day)
    assert api(host).get(f"/api/v1/games/{gid}/").json()["lynch_proof_ends_day"] is ends_day
    proof = _seat(gid, "cop")
    voters = [s for s in Slot.objects.filter(game_id=gid).exclude(pk=proof.pk)][:4]
    for voter in voters:
        api(voter.user).post(f"/api/v1/games/{gid}/vote/", {"target": proof.pk})
    game = api(host).get(f"/api/v1/games/{gid}/").json()
    assert game["phase"]["kind"] == ("night" if ends_day else "day")
    assert all(p["alive"] for p in game["players"])
