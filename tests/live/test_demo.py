"""The demo game: bots play through services, the in-process scanner ends phases, a new game
starts when one ends."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.utils import timezone

from games import demo, tasks
from games.models import Game, GameEvent, NightAction, Phase, Post, Vote

pytestmark = pytest.mark.django_db


def _end_phase_now(game: Game) -> list[tuple[int, int]]:
    """Let the deadline pass and run the embedded scanner, as ``runsite`` does."""
    game.refresh_from_db()
    Phase.objects.filter(game=game, number=game.phase_number).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    return tasks.run_due_phases()


def _late_in_the_day(monkeypatch) -> None:
    monkeypatch.setattr(demo, "_progress", lambda phase: 1.0)


def test_demo_command_starts_one_game_hosted_by_demo(capsys):
    call_command("demo")
    call_command("demo")
    out = capsys.readouterr().out
    assert "demo / demo" in out
    games = Game.objects.filter(setup=demo.DEMO_SETUP)
    assert games.count() == 1
    game = games.get()
    assert game.is_running and game.host.username == "demo"
    assert authenticate(username="demo", password="demo") == game.host
    assert sorted(game.slots.values_list("user__username", flat=True)) == sorted(demo.BOT_NAMES)
    phase = game.current_phase()
    assert phase.is_day
    assert phase.deadline - phase.started_at == demo.DAY_LENGTH == timedelta(minutes=3)
    assert game.night_length == timedelta(minutes=1)


def test_bots_chat_vote_and_act_through_a_day_and_a_night(monkeypatch):
    _late_in_the_day(monkeypatch)
    game = demo.create_demo_game(seed=11)
    rng = random.Random(3)
    for _ in range(60):
        demo.play_bots(game, rng)
        game.refresh_from_db()
        if game.phase_number != 1:
            break
    day_posts = Post.objects.filter(game=game, thread="public", slot__isnull=False)
    assert day_posts.count() >= 5
    votes = Vote.objects.filter(phase__game=game, phase__number=1)
    assert votes.exists() and all(v.post_id for v in votes)  # every vote came from a post
    if game.phase_number == 1:  # no hammer: the deadline ends the day
        assert _end_phase_now(game) == [(game.pk, 1)]
    game.refresh_from_db()
    night = game.current_phase()
    assert night.is_night and night.number == 2

    demo.play_bots(game, rng)
    actions = NightAction.objects.filter(phase=night).select_related("actor")
    by_ability = {}
    for action in actions:
        by_ability.setdefault(action.ability, []).append(action)
    assert len(by_ability["kill"]) == 1  # one faction kill, by one goon
    assert by_ability["kill"][0].actor.is_mafia
    living_power_roles = {s.role for s in game.slots.filter(alive=True, role__in=["cop", "doctor"])}
    assert {a.actor.role for a in actions if a.ability != "kill"} == living_power_roles
    demo.play_bots(game, rng)  # acting twice changes nothing
    assert NightAction.objects.filter(phase=night).count() == actions.count()
    assert not Post.objects.filter(game=game, thread="public", phase=night, slot__isnull=False)

    assert _end_phase_now(game) == [(game.pk, 2)]
    game.refresh_from_db()
    assert GameEvent.objects.filter(game=game, kind="night_ended").count() == 1
    assert game.current_phase().is_day or game.is_finished


def test_bots_play_a_whole_game_and_a_new_one_follows(monkeypatch):
    _late_in_the_day(monkeypatch)
    game = demo.create_demo_game(seed=5)
    rng = random.Random(8)
    for _ in range(40):  # phases
        for _ in range(10):
            demo.play_bots(game, rng)
        game.refresh_from_db()
        if game.is_finished:
            break
        _end_phase_now(game)
        game.refresh_from_db()
        if game.is_finished:
            break
    assert game.is_finished and game.winner in {"town", "mafia"}

    # The result stays up for a while, then tick() starts the next demo game.
    assert demo.ensure_demo_game() == game
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - demo.RESULT_PAUSE)
    new = demo.tick(rng)
    assert new.pk != game.pk and new.is_running and new.setup == demo.DEMO_SETUP
    assert Game.objects.filter(setup=demo.DEMO_SETUP).count() == 2


def test_scanner_skips_a_failing_game_and_ends_the_others(monkeypatch, caplog):
    first = demo.create_demo_game(seed=1)
    second = demo.create_demo_game(seed=2)
    for game in (first, second):
        Phase.objects.filter(game=game).update(deadline=timezone.now() - timedelta(seconds=1))
    real = tasks.services.advance_phase

    def flaky(game_id, number, **kwargs):
        if game_id == first.pk:
            raise RuntimeError("resolver exploded")
        return real(game_id, number, **kwargs)

    monkeypatch.setattr(tasks.services, "advance_phase", flaky)
    assert tasks.run_due_phases() == [(second.pk, 1)]
    assert "Could not end phase 1 of game" in caplog.text
    first.refresh_from_db()
    assert first.phase_number == 1  # retried on the next scan


def test_the_demo_keeps_a_classic_table_of_bots_playing_turn_by_turn():
    rng = random.Random(3)
    demo.tick(rng)
    table = demo.current_demo_table()
    assert table.turn_based and table.ruleset == "classic"
    assert table.current_phase().night_zero
    assert demo.current_demo_game().ruleset == "forum"  # the forum game is still there
    _end_phase_now(table)
    for _ in range(300):
        demo.tick(rng)
        table.refresh_from_db()
        if not table.current_phase().is_day:
            break
    assert table.current_phase().is_night or table.is_finished
    day = Phase.objects.get(game=table, number=2)
    assert day.resolved and day.day_state["step"] == "done"
    assert Post.objects.filter(game=table, phase=day, slot__isnull=False).count() >= 10
    assert Vote.objects.filter(phase=day).count() >= 1
