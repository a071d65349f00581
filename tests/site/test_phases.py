"""Phase transitions and host actions: idempotent deadlines, pause, modkill, replacement."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.errors import InvalidInput, NotAllowed, WrongPhase
from games.models import Game, GameEvent, Phase, Replacement
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LATER = timedelta(days=3)


def test_advance_phase_only_when_due_and_only_once(make_game):
    game = make_game()
    assert not services.advance_phase(game.pk, 1)  # deadline not reached
    later = timezone.now() + LATER
    assert not services.advance_phase(game.pk, 2, now=later)  # not the current phase
    assert services.advance_phase(game.pk, 1, now=later)
    assert not services.advance_phase(game.pk, 1, now=later)  # fired twice
    assert list(game.phases.values_list("number", "kind", "resolved")) == [
        (1, "day", True),
        (2, "night", False),
    ]
    night = current_phase(game)
    assert night.deadline == later + game.night_length


def test_due_phases_finds_what_the_beat_must_advance(make_game):
    game = make_game()
    assert services.due_phases() == []
    assert services.due_phases(timezone.now() + LATER) == [(game.pk, 1)]


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_advance_the_game_once(make_game):
    game = make_game()
    later = timezone.now() + LATER
    barrier = threading.Barrier(2)
    results: list[bool] = []
    errors: list[BaseException] = []

    def worker():
        try:
            barrier.wait()
            results.append(services.advance_phase(game.pk, 1, now=later))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert sorted(results) == [False, True]
    assert Phase.objects.filter(game=game).count() == 2
    assert GameEvent.objects.filter(game=game, kind="phase_started").count() == 2


def test_extend_pause_resume_and_cut(make_game, host):
    game = make_game()
    day = current_phase(game)
    with pytest.raises(NotAllowed):
        services.extend_deadline(slot_of(game, "goon").user, game.pk, by=timedelta(hours=1))
    services.extend_deadline(host, game.pk, by=timedelta(hours=2))
    day.refresh_from_db()
    deadline = day.deadline
    now = timezone.now()
    services.pause_game(host, game.pk, now=now)
    day.refresh_from_db()
    assert day.deadline is None and day.paused_remaining == deadline - now
    assert not services.advance_phase(game.pk, 1, now=now + LATER * 10)  # paused: never due
    with pytest.raises(WrongPhase, match="paused"):
        services.cast_vote(slot_of(game, "goon").user, game.pk, None)
    with pytest.raises(WrongPhase, match="already paused"):
        services.pause_game(host, game.pk)
    services.extend_deadline(host, game.pk, by=timedelta(hours=1), now=now)
    resumed_at = now + timedelta(days=1)
    services.resume_game(host, game.pk, now=resumed_at)
    day.refresh_from_db()
    assert day.deadline == resumed_at + (deadline - now) + timedelta(hours=1)
    with pytest.raises(WrongPhase, match="not paused"):
        services.resume_game(host, game.pk)
    assert services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night


def test_modkill_runs_the_win_check(make_game, host):
    game = make_game()
    goons = slots_of(game, "goon")
    with pytest.raises(NotAllowed):
        services.modkill(goons[0].user, game.pk, goons[1].pk)
    services.modkill(host, game.pk, goons[0].pk, reason="inactive")
    with pytest.raises(InvalidInput, match="already dead"):
        services.modkill(host, game.pk, goons[0].pk)
    game.refresh_from_db()
    assert game.is_running
    services.modkill(host, game.pk, goons[1].pk)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town" and game.win_reason
    assert current_phase(game).resolved
    finished = GameEvent.objects.get(game=game, kind="game_finished")
    assert finished.audience == "public"
    assert {s["role"] for s in finished.payload["slots"]} == {"goon", "vanilla_townie"}
    with pytest.raises(WrongPhase, match="over"):
        services.cast_vote(slot_of(game, "vanilla_townie").user, game.pk, None)


def test_mafia_win_by_parity_after_the_night(make_game, host):
    pytest.importorskip("resolver.rulesets.forum.rar")
    game = make_game()
    townies = slots_of(game, "vanilla_townie")
    goon = slot_of(game, "goon")
    for t in townies[:2]:
        services.modkill(host, game.pk, t.pk)  # 2 goons vs 3 townies
    services.cut_deadline_now(host, game.pk)
    services.submit_night_action(goon.user, game.pk, ability="kill", targets=[townies[2].pk])
    services.cut_deadline_now(host, game.pk)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "mafia"
    assert game.phase_number == 2  # no new phase after the end


def test_replacement_keeps_the_slot(make_game, host):
    game = make_game()
    goon = slot_of(game, "goon")
    old_user = goon.user
    sub = UserFactory(username="sub")
    services.cast_vote(old_user, game.pk, slot_of(game, "vanilla_townie").pk)
    with pytest.raises(InvalidInput, match="already has a slot"):
        services.replace_player(host, game.pk, goon.pk, slot_of(game, "vanilla_townie").user)
    slot = services.replace_player(host, game.pk, goon.pk, sub)
    assert slot.pk == goon.pk and slot.user == sub and slot.role == "goon"
    assert Replacement.objects.get(slot=slot).old_user == old_user
    with pytest.raises(NotAllowed, match="Only the players"):
        services.submit_post(old_user, game.pk, body="I'm back")
    assert services.submit_post(sub, game.pk, body="replacing in", thread="mafia").post.slot == slot
    count = services.vote_count(current_phase(game))
    assert count["wagons"][0]["voters"][0]["name"] == "sub"  # the slot's vote stands
    pm = GameEvent.objects.filter(game=game, kind="role_pm", audience=f"slot:{slot.pk}").last()
    assert pm.payload["role"] == "goon" and pm.payload["partners"]


def test_inactivity_prods_then_the_hosts_action(make_game, host):
    pytest.importorskip("resolver.rulesets.forum.rar")
    game = make_game(min_posts_per_day=1, inactivity_action="modkill")
    talker = slot_of(game, "vanilla_townie")
    services.submit_post(talker.user, game.pk, body="I am active")
    services.cut_deadline_now(host, game.pk)
    prods = GameEvent.objects.filter(game=game, kind="prod", audience="host")
    assert prods.count() == 6 and talker.pk not in [p.payload["slot_id"] for p in prods]
    services.cut_deadline_now(host, game.pk)  # night
    services.submit_post(talker.user, game.pk, body="still here")
    services.cut_deadline_now(host, game.pk)  # second quiet day: modkills
    game.refresh_from_db()
    dead = game.slots.filter(death_cause="modkill")
    assert dead.count() == 6 and talker.pk not in set(dead.values_list("pk", flat=True))
    assert game.is_finished and game.winner == "town"  # both goons were among the quiet


def test_inactivity_replace_asks_the_host(make_game, host):
    game = make_game("classic-ten", min_posts_per_day=1)
    for _ in range(3):  # day, night, day
        services.cut_deadline_now(host, game.pk)
    asks = GameEvent.objects.filter(game=game, kind="replacement_needed")
    assert asks.count() == 10 and {e.audience for e in asks} == {"host"}
    assert game.slots.filter(alive=True).count() == 10


def test_game_deleted_mid_call_is_not_found(make_game):
    game = make_game()
    pk = game.pk
    Game.objects.filter(pk=pk).delete()
    with pytest.raises(Exception, match="no such game"):
        services.advance_phase(pk, 1)
