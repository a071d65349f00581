"""The baseline ladder (``league.baseline``): two agents of the League's, made once, kept in
a league queue, and played by the site through the core's services, the same way each time
for the same game seed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games import services
from games.models import Agent, Game, NightAction, Post, Slot, Vote
from games.setups import SETUPS
from league import baseline
from league import services as league_services
from league.models import LeagueQueueEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_command_makes_the_two_agents_once_and_queues_them(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("baseline_ladder")
        call_command("baseline_ladder")  # idempotent
    agents = Agent.objects.filter(user__username__in=baseline.BASELINES).select_related("owner")
    assert sorted(a.user.username for a in agents) == sorted(baseline.BASELINES)
    assert {a.owner.username for a in agents} == {"League"}
    assert not any(a.user.has_usable_password() for a in agents)
    queued = LeagueQueueEntry.objects.filter(user__username__in=baseline.BASELINES)
    assert queued.count() == 2


def test_a_persons_account_of_that_name_is_never_taken_over() -> None:
    UserFactory(username=baseline.RANDOM)  # a person's, with a password
    with pytest.raises(RuntimeError, match="not the League's agent"):
        baseline.ensure_baseline_agents()


def test_they_wait_where_most_wait_and_not_while_playing(
    host: Any, django_capture_on_commit_callbacks: Any
) -> None:
    playing = _game(host, 3, "x")  # both hold seats in a running league game
    Game.objects.filter(pk=playing.pk).update(league_setup="forum-vanilla")
    for n in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            league_services.join_queue(UserFactory(username=f"waiting{n}"), "forum-cop-nine")
    assert baseline.queue_baselines() == []
    Game.objects.filter(pk=playing.pk).update(league_setup="")  # a hosted game: free to queue
    with django_capture_on_commit_callbacks(execute=True):
        assert baseline.queue_baselines() == ["forum-cop-nine", "forum-cop-nine"]
        assert baseline.queue_baselines() == []  # already waiting
    assert LeagueQueueEntry.objects.filter(setup="forum-cop-nine").count() == 5


def _game(host: Any, seed: int, prefix: str) -> Game:
    """A forum vanilla game of five people and the two baselines (seats 6 and 7: seats in
    sign-up order), started by day."""
    kwargs = {**SETUPS["forum-vanilla"].game_kwargs(), "seats_in_signup_order": True}
    game = services.create_game(host, title="Baselines", seed=seed, **kwargs)
    for n in range(5):
        services.join_game(UserFactory(username=f"{prefix}{n}"), game.pk)
    for user in baseline.ensure_baseline_agents():
        services.join_game(user, game.pk)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    return game


def _votes(game: Game) -> dict[str, int]:
    """Each baseline's vote target, by seat."""
    votes = Vote.objects.filter(phase__game=game, voter__user__username__in=baseline.BASELINES)
    return {
        v.voter.user.username: v.target.seat for v in votes.select_related("voter__user", "target")
    }


def test_they_vote_once_a_day_and_act_at_night(host: Any) -> None:
    game = _game(host, 2, "p")  # seed 2 deals Baseline-Reference (seat 6) a goon
    assert game.slots.get(seat=6).alignment == "mafia"
    assert game.current_phase().is_day
    assert baseline.tick() == 2
    assert baseline.tick() == 0  # one vote a day: nothing more waits on them
    mine = Slot.objects.filter(game=game, user__username__in=baseline.BASELINES)
    assert Post.objects.filter(game=game, slot__in=mine).count() == 2
    assert set(_votes(game)) == set(baseline.BASELINES)
    services.cut_deadline_now(host, game.pk)
    game.refresh_from_db()
    phase = game.current_phase()
    assert phase.is_night
    baseline.tick()
    living_goons = [
        s for s in Slot.objects.filter(pk__in=[m.pk for m in mine]) if s.alive and s.is_mafia
    ]
    kills = NightAction.objects.filter(phase=phase, ability="kill").select_related("actor__user")
    assert living_goons  # (day 1's two votes eliminated nobody of theirs)
    [kill] = kills  # the team's one kill, sent by the baseline (the person goon sends none)
    assert kill.actor.user.username == baseline.REFERENCE
    assert Slot.objects.get(pk=kill.targets[0]).alignment != "mafia"  # never at a partner


def test_the_same_seed_plays_the_same(host: Any) -> None:
    first = _game(host, 99, "a")
    second = _game(host, 99, "b")
    baseline.tick()
    assert _votes(first) == _votes(second)
    assert set(_votes(first)) == set(baseline.BASELINES)


def test_a_baseline_whose_game_ends_queues_again(
    host: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _game(host, 5, "e")
    Game.objects.filter(pk=game.pk).update(league_setup="forum-vanilla")
    goons = list(game.slots.filter(alignment="mafia"))
    with django_capture_on_commit_callbacks(execute=True):
        for goon in goons:
            services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    queued = get_user_model().objects.filter(
        username__in=baseline.BASELINES, league_entries__isnull=False
    )
    assert queued.count() == 2
