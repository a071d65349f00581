"""Night actions: the resolver's own validation, changes until the deadline, night end."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services
from games.errors import InvalidInput, NotAllowed, NotFound, WrongPhase
from games.models import GameEvent, NightAction, PrivateResult
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def classic_night(make_game, host):
    pytest.importorskip("resolver.rulesets.classic")
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)  # day 1 ends with no votes
    assert current_phase(game).is_night
    return game


def test_night_actions_are_checked_by_the_resolver(classic_night):
    game = classic_night
    mafia = slots_of(game, "mafia")
    detective = slot_of(game, "detective")
    town = slot_of(game, "town")
    with pytest.raises(InvalidInput) as err:
        services.submit_night_action(mafia[0].user, game.pk, ability="kill", targets=[mafia[1].pk])
    assert mafia[1].display_name in err.value.message and "P" + str(mafia[1].seat) not in (
        err.value.message.replace(mafia[1].display_name, "")
    )
    with pytest.raises(InvalidInput, match="themself"):
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[detective.pk]
        )
    with pytest.raises(InvalidInput, match="no 'kill' ability"):
        services.submit_night_action(town.user, game.pk, ability="kill", targets=[detective.pk])
    with pytest.raises(InvalidInput, match="no such player"):
        services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[0])
    with pytest.raises(InvalidInput, match="Choose a target"):
        services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[])
    assert not NightAction.objects.exists()


def test_actions_change_until_the_deadline_and_can_be_withdrawn(classic_night):
    game = classic_night
    detective = slot_of(game, "detective")
    a, b = slots_of(game, "town")[:2]
    services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[a.pk])
    services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[b.pk])
    action = NightAction.objects.get()
    assert action.targets == [b.pk]
    host_events = GameEvent.objects.filter(game=game, kind="night_action", audience="host")
    assert host_events.count() == 2
    assert not GameEvent.objects.filter(game=game, kind="night_action", audience="public")
    services.withdraw_night_action(detective.user, game.pk, ability="investigate")
    assert not NightAction.objects.exists()
    with pytest.raises(NotFound):
        services.withdraw_night_action(detective.user, game.pk, ability="investigate")


def test_no_night_actions_by_day_or_by_the_dead(make_game, host):
    game = make_game("classic-ten")
    detective = slot_of(game, "detective")
    town = slot_of(game, "town")
    with pytest.raises(WrongPhase, match="at night"):
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[town.pk]
        )
    services.modkill(host, game.pk, detective.pk)
    services.cut_deadline_now(host, game.pk)
    with pytest.raises(NotAllowed, match="dead"):
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[town.pk]
        )


def test_night_options_offer_legal_targets_only(classic_night):
    game = classic_night
    mafia = slots_of(game, "mafia")
    options = services.night_options(game, mafia[0])
    assert [o["ability"] for o in options] == ["kill"]
    choices = set(options[0]["choices"])
    assert not choices & {m.pk for m in mafia}
    assert len(choices) == 7
    detective = slot_of(game, "detective")
    (investigate,) = services.night_options(game, detective)
    assert detective.pk not in investigate["choices"]
    assert services.night_options(game, slot_of(game, "town")) == []


def test_night_end_through_the_resolver(classic_night, host):
    game = classic_night
    mafia = slots_of(game, "mafia")
    detective, doctor = slot_of(game, "detective"), slot_of(game, "doctor")
    victim, saved = slots_of(game, "town")[:2]
    services.submit_night_action(mafia[0].user, game.pk, ability="kill", targets=[saved.pk])
    # The last faction kill submitted stands.
    services.submit_night_action(mafia[1].user, game.pk, ability="kill", targets=[victim.pk])
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[saved.pk])
    services.submit_night_action(
        detective.user, game.pk, ability="investigate", targets=[mafia[2].pk]
    )
    assert services.cut_deadline_now(host, game.pk)
    night = game.phases.get(number=2)
    assert night.resolved and night.report["dead"] == [victim.resolver_name]
    victim.refresh_from_db()
    assert not victim.alive and victim.death_cause == "night" and victim.died_in_phase == 2
    result = PrivateResult.objects.get(slot=detective)
    assert result.payload == {
        "kind": "investigation",
        "target": mafia[2].resolver_name,
        "result": "mafia",
    }
    assert result.text == f"Your investigation of {mafia[2].display_name}: mafia."
    event = GameEvent.objects.get(game=game, kind="private_result")
    assert event.audience == f"slot:{detective.pk}"
    public = GameEvent.objects.get(game=game, kind="night_ended")
    assert public.audience == "public"
    assert public.payload["deaths"][0]["slot_id"] == victim.pk
    assert public.payload["deaths"][0]["revealed_role"] == ""  # classic: hidden until the end
    report = GameEvent.objects.filter(game=game, kind="phase_report").last()
    assert report.audience == "host"
    assert any(victim.display_name in line for line in report.payload["explanation"])
    assert current_phase(game).is_day and current_phase(game).number == 3


def test_an_action_on_a_player_modkilled_before_the_deadline_is_dropped(classic_night, host):
    game = classic_night
    detective = slot_of(game, "detective")
    target = slot_of(game, "town")
    services.submit_night_action(
        detective.user, game.pk, ability="investigate", targets=[target.pk]
    )
    services.modkill(host, game.pk, target.pk)
    services.cut_deadline_now(host, game.pk)
    night = game.phases.get(number=2)
    assert night.resolved and not PrivateResult.objects.exists()
    assert any("Dropped" in note for note in night.report["site_notes"])


def test_forum_night_with_a_cop(make_game, host):
    pytest.importorskip("resolver.rulesets.forum.rar")
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    cop, goon = slot_of(game, "cop"), slot_of(game, "goon")
    townie = slot_of(game, "vanilla_townie")
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon.pk])
    services.submit_night_action(goon.user, game.pk, ability="kill", targets=[townie.pk])
    services.cut_deadline_now(host, game.pk)
    assert PrivateResult.objects.get(slot=cop).payload["result"] == "mafia"
    townie.refresh_from_db()
    assert not townie.alive and townie.revealed_role == "vanilla_townie"


def test_a_night_action_after_the_night_s_deadline_is_refused(classic_night):
    """The deadline is the rule, before any sweeper has ended the night."""
    game = classic_night
    detective = slot_of(game, "detective")
    town = slots_of(game, "town")[0]
    late = current_phase(game).deadline + timedelta(seconds=1)
    with pytest.raises(WrongPhase) as refused:
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[town.pk], now=late
        )
    assert refused.value.code == "turn_ended"
    assert refused.value.message == "The night ended: its deadline has passed."
    assert not NightAction.objects.exists()


def test_classic_counts_refused_night_actions_and_the_third_picks_a_random_valid_target(
    classic_night,
):
    """Classic: "After 3 failed attempts, a default action is applied (... random valid
    target for nominations/night actions)". Each refusal is committed before it is told."""
    game = classic_night
    detective = slot_of(game, "detective")
    for attempt in (1, 2):
        with pytest.raises(InvalidInput, match=f"Attempt {attempt} of 3") as err:
            services.submit_night_action(
                detective.user, game.pk, ability="investigate", targets=[detective.pk]
            )
        assert err.value.code == "illegal_action"
        assert current_phase(game).night_refusals == {f"{detective.pk}:investigate": attempt}
        assert not NightAction.objects.exists()
    with pytest.raises(InvalidInput, match="random valid target for you") as err:
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[detective.pk]
        )
    action = NightAction.objects.get()
    (target,) = action.targets
    legal = next(
        o for o in services.night_options(game, detective) if o["ability"] == "investigate"
    )
    assert target in legal["choices"] and target != detective.pk
    chosen = game.slots.get(pk=target)
    assert chosen.display_name in err.value.message
    told = GameEvent.objects.get(game=game, kind="night_action", audience=f"slot:{detective.pk}")
    assert told.payload["default"] is True and told.payload["targets"][0]["slot_id"] == target
    # The player may still choose for themself afterwards: the default is only a default.
    other = next(s for s in slots_of(game, "town") if s.pk != target)
    services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[other.pk])
    assert NightAction.objects.get().targets == [other.pk]


def test_a_valid_night_action_stands_and_later_refusals_cost_nothing(classic_night):
    game = classic_night
    detective = slot_of(game, "detective")
    town = slots_of(game, "town")[0]
    services.submit_night_action(detective.user, game.pk, ability="investigate", targets=[town.pk])
    for _ in range(4):
        with pytest.raises(InvalidInput) as err:
            services.submit_night_action(
                detective.user, game.pk, ability="investigate", targets=[detective.pk]
            )
        assert "Attempt" not in err.value.message
    assert NightAction.objects.get().targets == [town.pk]
    assert current_phase(game).night_refusals == {}


def test_rules_without_night_attempts_count_no_refusal(make_game, host):
    game = make_game("forum-vanilla")
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    goon = slots_of(game, "goon")[0]
    dead = slots_of(game, "vanilla_townie")[0]
    services.modkill(host, game.pk, slot_id=dead.pk)
    for _ in range(3):
        with pytest.raises(InvalidInput) as err:
            services.submit_night_action(goon.user, game.pk, ability="kill", targets=[dead.pk])
        assert "Attempt" not in err.value.message
    assert not NightAction.objects.exists()
    assert current_phase(game).night_refusals == {}


def test_a_partners_kill_stands_whatever_the_other_mafia_member_gets_wrong(classic_night):
    game = classic_night
    first, second = slots_of(game, "mafia")[:2]
    victim = slots_of(game, "town")[0]
    services.submit_night_action(first.user, game.pk, ability="kill", targets=[victim.pk])
    for _ in range(3):
        with pytest.raises(InvalidInput) as err:
            services.submit_night_action(second.user, game.pk, ability="kill", targets=[first.pk])
        assert "Attempt" not in err.value.message
    assert list(NightAction.objects.values_list("actor_id", "targets")) == [(first.pk, [victim.pk])]
