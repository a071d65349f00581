"""Must-act nights (``Game.must_act``): a night action not sent by the night's end is taken
at a random legal target (the night form's choices), and its player is told so."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Game, GameStatus, NightAction, PrivateResult
from notifications.models import Notification
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def must_act_night(make_game, host):
    game = make_game("classic-ten", must_act=True)
    services.cut_deadline_now(host, game.pk)  # day 1 ends with no votes
    assert current_phase(game).is_night
    return game


def _legal(game: Game, slot: Any, ability: str) -> list[int]:
    return next(o for o in services.night_options(game, slot) if o["ability"] == ability)["choices"]


def test_every_ability_not_sent_is_taken_at_a_random_legal_target(must_act_night, host):
    game = must_act_night
    detective, doctor = slot_of(game, "detective"), slot_of(game, "doctor")
    mafia = slots_of(game, "mafia")
    legal = {
        "investigate": _legal(game, detective, "investigate"),
        "protect": _legal(game, doctor, "protect"),
        "kill": _legal(game, mafia[0], "kill"),
    }
    services.cut_deadline_now(host, game.pk)  # nobody sent anything
    night = game.phases.get(number=2)
    actions = {a.ability: a for a in NightAction.objects.filter(phase=night)}
    assert set(actions) == {"investigate", "protect", "kill"}  # one kill for the faction
    assert actions["investigate"].actor_id == detective.pk
    assert actions["protect"].actor_id == doctor.pk
    assert actions["kill"].actor_id in {m.pk for m in mafia}
    for ability, action in actions.items():
        (target,) = action.targets
        assert target in legal[ability], ability
    # Each is told, in a private result of their own, before the night's own results.
    chosen = game.slots.get(pk=actions["investigate"].targets[0])
    told, result = PrivateResult.objects.filter(slot=detective).order_by("id")
    assert told.text == (
        f"You did not act: the site chose {chosen.display_name} at random for your investigate."
    )
    assert result.payload["kind"] == "investigation"
    killer = PrivateResult.objects.get(slot_id=actions["kill"].actor_id)
    assert "at random for your team's kill" in killer.text
    assert PrivateResult.objects.filter(slot__role="mafia").count() == 1
    # The host's report says which actions the site took.
    assert sum("taken at random" in n for n in night.report["site_notes"]) == 3
    # The night was played with them: the kill happened unless the doctor's pick saved it.
    victim = game.slots.get(pk=actions["kill"].targets[0])
    assert victim.alive == (actions["protect"].targets == actions["kill"].targets)
    # The host is not told "all night actions are in" by the site's own picks.
    assert not Notification.objects.filter(user=host, kind="night_actions_in").exists()


def test_what_was_sent_stands_and_a_partners_kill_is_the_factions(must_act_night, host):
    game = must_act_night
    detective, doctor = slot_of(game, "detective"), slot_of(game, "doctor")
    mafia = slots_of(game, "mafia")
    town = slots_of(game, "town")
    services.submit_night_action(
        detective.user, game.pk, ability="investigate", targets=[town[0].pk]
    )
    services.submit_night_action(mafia[2].user, game.pk, ability="kill", targets=[town[1].pk])
    services.cut_deadline_now(host, game.pk)
    night = game.phases.get(number=2)
    sent = {(a.actor_id, a.ability): a.targets for a in NightAction.objects.filter(phase=night)}
    assert sent.keys() == {
        (detective.pk, "investigate"),
        (mafia[2].pk, "kill"),
        (doctor.pk, "protect"),  # the only one taken at random
    }
    assert sent[detective.pk, "investigate"] == [town[0].pk]
    assert sent[mafia[2].pk, "kill"] == [town[1].pk]
    assert not PrivateResult.objects.filter(text__contains="at random", slot__role="mafia")
    assert not PrivateResult.objects.filter(text__contains="at random", slot=detective)
    assert PrivateResult.objects.get(slot=doctor).text.startswith("You did not act")


def test_without_must_act_nothing_is_taken(make_game, host):
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)
    services.cut_deadline_now(host, game.pk)
    assert not NightAction.objects.exists() and not PrivateResult.objects.exists()
    assert all(s.alive for s in game.slots.all())


def test_the_dead_are_not_made_to_act(must_act_night, host):
    game = must_act_night
    doctor = slot_of(game, "doctor")
    services.modkill(host, game.pk, doctor.pk)
    services.cut_deadline_now(host, game.pk)
    assert not NightAction.objects.filter(actor=doctor).exists()
    assert NightAction.objects.filter(ability="investigate").count() == 1


def test_night_zero_is_unchanged(make_game, host):
    """Classic at its table opens with night zero, the mafia's meeting: nobody acts."""
    game = make_game("classic-ten", table=True, must_act=True)
    phase = current_phase(game)
    assert phase.is_night and phase.night_zero
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_day
    assert not NightAction.objects.exists() and not PrivateResult.objects.exists()


def test_a_whole_must_act_game_through_the_api(host, make_users):
    """Nobody ever acts or votes: the site's random picks alone play the nights out until
    the goons win."""
    created = api(host).post(
        "/api/v1/games/",
        {"title": "Must act", "setup": "forum-cop-doctor-nine", "must_act": True},
        format="json",
    )
    assert created.status_code == 201, created.content
    gid = created.json()["id"]
    assert Game.objects.get(pk=gid).must_act
    for user in make_users(9):
        assert api(user).post(f"/api/v1/games/{gid}/join/").status_code == 200
    assert api(host).post(f"/api/v1/games/{gid}/start/").status_code == 200
    game = Game.objects.get(pk=gid)
    cop = slot_of(game, "cop")
    nights = 0
    for _ in range(30):
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        night = current_phase(game).is_night
        if night and cop.user and game.slots.get(pk=cop.pk).alive:
            # The cop's own choice stands: nothing is taken for them tonight.
            pm = api(cop.user).get(f"/api/v1/games/{gid}/role/").json()
            target = pm["abilities"][0]["choices"][0]["slot_id"]
            sent = api(cop.user).post(
                f"/api/v1/games/{gid}/actions/",
                {"ability": "investigate", "targets": [target]},
                format="json",
            )
            assert sent.status_code == 200, sent.content
        assert api(host).post(f"/api/v1/games/{gid}/host/cut/").status_code == 200
        nights += night
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.winner == "mafia"
    # Every night but the doctor's last (dead by then) had a kill and a protection taken
    # at random; the cop chose their own checks.
    kills = NightAction.objects.filter(phase__game=game, ability="kill")
    assert kills.count() == nights
    goons = slots_of(game, "goon")
    told = [
        r["text"]
        for g in goons
        for r in api(g.user).get(f"/api/v1/games/{gid}/role/").json()["results"]
    ]
    assert len(told) == nights and all("at random for your team's kill" in t for t in told)
    cop_pm = api(cop.user).get(f"/api/v1/games/{gid}/role/").json()
    assert cop_pm["results"] and not any("at random" in r["text"] for r in cop_pm["results"])
    doctor = slot_of(game, "doctor")
    doctor_pm = api(doctor.user).get(f"/api/v1/games/{gid}/role/").json()
    assert doctor_pm["results"]
    assert all(r["text"].startswith("You did not act") for r in doctor_pm["results"])
