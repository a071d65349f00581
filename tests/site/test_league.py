"""The league's matchmaking: standing queues per setup, the matchmaker that makes, seats and
starts a rated game when enough seats wait, and the unattended play of league games."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services, tasks
from games.errors import ErrorCode, GameRuleError, InvalidInput
from games.models import DeathCause, Game, GameStatus, Replacement, Slot
from games.setups import SETUPS
from league import formats as league
from league import services as league_services
from league import tasks as league_tasks
from league.models import LeagueQueueEntry, LeagueQueueState
from notifications.models import Notification
from tests.factories import UserFactory, person_key

VANILLA = "forum-vanilla"  # 7 seats, forum days, silent seats replaced


def people(n: int, prefix: str = "q") -> list[Any]:
    return [UserFactory(username=f"{prefix}{i}") for i in range(1, n + 1)]


def fill(setup: str, users: list[Any], capture: Any) -> Game | None:
    """Join each user to the queue, the matchmaker running after each commit."""
    for user in users:
        with capture(execute=True):
            league_services.join_queue(user, setup)
    return Game.objects.filter(league_setup=setup).order_by("-pk").first()


def problem(setup: str) -> str:
    return LeagueQueueState.objects.get(setup=setup).problem


def test_every_ready_made_setup_has_a_queue_with_league_timing() -> None:
    assert set(league.FORMATS) == set(SETUPS)
    for slug, fmt in league.FORMATS.items():
        kwargs = fmt.game_kwargs()
        assert kwargs["seats_in_signup_order"] is False
        assert kwargs["min_posts_per_day"] == 1
        assert kwargs["inactivity_action"] in (league.REPLACE, league.MODKILL)
        if SETUPS[slug].turn_based:  # table turns are short, the silent seat is modkilled
            assert kwargs["turn_length"] <= timedelta(minutes=1)
            assert fmt.silent_seat == league.MODKILL
        else:  # a forum day is shorter than a person's 24 h
            assert kwargs["day_length"] < timedelta(hours=24)


def test_join_and_leave_errors(db: Any, django_capture_on_commit_callbacks: Any) -> None:
    [user] = people(1)
    with pytest.raises(GameRuleError) as exc:
        league_services.join_queue(user, "no-such-setup")
    assert exc.value.code == ErrorCode.UNKNOWN_SETUP
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(user, VANILLA)
    with pytest.raises(GameRuleError) as exc:
        league_services.join_queue(user, VANILLA)
    assert exc.value.code == ErrorCode.ALREADY_QUEUED
    assert problem(VANILLA) == "Waiting for 6 more players."
    league_services.leave_queue(user, VANILLA)
    assert not LeagueQueueEntry.objects.exists()
    with pytest.raises(GameRuleError) as exc:
        league_services.leave_queue(user, VANILLA)
    assert exc.value.code == ErrorCode.NOT_QUEUED


def test_one_queue_at_a_time_and_counts_that_follow(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    first, second = people(2)
    other = next(slug for slug in league.FORMATS if slug != VANILLA)
    fill(VANILLA, [first, second], django_capture_on_commit_callbacks)
    assert problem(VANILLA) == "Waiting for 5 more players."
    # Joining another queue takes her out of the first: two queues filling at once must
    # never seat her twice. The queue she left counts one more missing.
    fill(other, [first], django_capture_on_commit_callbacks)
    assert list(LeagueQueueEntry.objects.filter(user=first).values_list("setup", flat=True)) == [
        other
    ]
    assert problem(VANILLA) == "Waiting for 6 more players."
    with django_capture_on_commit_callbacks(execute=True):
        league_services.leave_queue(second, VANILLA)
    assert problem(VANILLA) == "Waiting for 7 more players."
    # A refused join (already in that queue) keeps her where she was.
    with pytest.raises(GameRuleError) as exc:
        league_services.join_queue(first, other)
    assert exc.value.code == ErrorCode.ALREADY_QUEUED
    assert LeagueQueueEntry.objects.filter(user=first, setup=other).exists()


def test_the_last_seat_makes_a_started_rated_game_and_tells_each_seat(
    db: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    from games.services import common

    belled: set[int] = set()
    real = common.publish_inbox_on_commit

    def spy(user_ids: Any) -> None:
        belled.update(user_ids)
        real(user_ids)

    monkeypatch.setattr(common, "publish_inbox_on_commit", spy)
    users = people(8)
    assert fill(VANILLA, users[:6], django_capture_on_commit_callbacks) is None
    assert problem(VANILLA) == "Waiting for 1 more player."
    game = fill(VANILLA, users[6:7], django_capture_on_commit_callbacks)
    assert game is not None
    assert game.status == GameStatus.RUNNING and game.phase_number == 1
    assert game.rated and game.admits == "both" and game.league_setup == VANILLA
    assert game.host.username == league.LEAGUE_HOST_NAME
    assert not game.host.has_usable_password()
    assert not game.seats_in_signup_order
    assert game.day_length == league.FORUM_TIMING["day_length"]
    seated = {s.user_id: s.seat for s in game.slots.all()}
    assert set(seated) == {u.pk for u in users[:7]}
    assert sorted(seated.values()) == list(range(1, 8))
    assert not LeagueQueueEntry.objects.exists()
    state = LeagueQueueState.objects.get(setup=VANILLA)
    assert state.problem == "" and state.last_game_id == game.pk
    told = set(
        Notification.objects.filter(game=game, kind="game_started").values_list(
            "user_id", flat=True
        )
    )
    assert told == {u.pk for u in users[:7]}
    assert told <= belled  # the live bell of each seat is redrawn after the commit
    # The next person starts the next queue.
    assert fill(VANILLA, users[7:], django_capture_on_commit_callbacks).pk == game.pk
    assert problem(VANILLA) == "Waiting for 6 more players."


def test_seats_are_dealt_at_random(db: Any, django_capture_on_commit_callbacks: Any) -> None:
    orders = set()
    for round_ in range(4):
        users = people(7, prefix=f"r{round_}-")
        game = fill(VANILLA, users, django_capture_on_commit_callbacks)
        by_seat = sorted(game.slots.all(), key=lambda s: s.seat)
        orders.add(tuple(users.index(next(u for u in users if u.pk == s.user_id)) for s in by_seat))
    assert len(orders) > 1  # four deals all in join order: 1 in 5040**3


def test_a_failure_while_making_the_game_keeps_everyone_queued(
    db: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the dealer dropped the cards")

    monkeypatch.setattr(league_services, "start_game", broken)
    users = people(7)
    assert fill(VANILLA, users, django_capture_on_commit_callbacks) is None
    assert not Game.objects.exists()  # the half-made game went with the transaction
    assert LeagueQueueEntry.objects.filter(setup=VANILLA).count() == 7
    assert "could not be made" in problem(VANILLA)
    monkeypatch.undo()
    assert league_tasks.match_queues() == 1  # the sweep makes it once the fault is gone
    assert not LeagueQueueEntry.objects.exists()


def test_a_rules_refusal_is_told_in_its_own_words(db: Any, monkeypatch: Any) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InvalidInput("This setup is not legal: too many mafia.", "setup")

    monkeypatch.setattr(league_services, "create_game", refuse)
    for user in people(7):
        LeagueQueueEntry.objects.create(user=user, setup=VANILLA)
    assert league_services.match(VANILLA) is None
    assert problem(VANILLA).startswith("The game could not be made: This setup is not legal")
    assert LeagueQueueEntry.objects.count() == 7


def test_a_setup_that_no_longer_exists_keeps_its_queue_and_says_so(
    db: Any, monkeypatch: Any
) -> None:
    for user in people(7):
        LeagueQueueEntry.objects.create(user=user, setup=VANILLA)
    monkeypatch.delitem(league.FORMATS, VANILLA)
    assert league_tasks.match_queues() == 0
    assert LeagueQueueEntry.objects.filter(setup=VANILLA).count() == 7
    assert problem(VANILLA) == "This setup no longer exists; you stay queued until it returns."
    monkeypatch.undo()
    assert league_tasks.match_queues() == 1


def test_the_sweep_matches_entries_left_by_a_restart(db: Any) -> None:
    # Entries in the database and no join call (the web process died before its match).
    earlier = timezone.now() - timedelta(minutes=5)
    users = people(15)
    for i, user in enumerate(users):
        LeagueQueueEntry.objects.create(
            user=user, setup=VANILLA, joined_at=earlier + timedelta(seconds=i)
        )
    made = league_services.sweep_queues()
    assert len(made) == 2  # two full tables; the 15th keeps waiting
    [left] = LeagueQueueEntry.objects.all()
    assert left.user_id == users[-1].pk  # oldest first
    players = set(Slot.objects.filter(game_id__in=made).values_list("user_id", flat=True))
    assert players == {u.pk for u in users[:14]}
    assert problem(VANILLA) == "Waiting for 6 more players."


# -- unattended play ---------------------------------------------------------------------
def _league_game(setup: str, capture: Any, prefix: str = "p") -> Game:
    game = fill(setup, people(SETUPS[setup].player_count, prefix), capture)
    assert game is not None
    return game


def _end_day_with_one_silent(game: Game) -> Slot:
    """Everyone posts today but the first seat; the day's deadline passes."""
    slots = list(game.slots.order_by("seat").select_related("user"))
    for slot in slots[1:]:
        services.submit_post(slot.user, game.pk, body="Good morning.")
    later = timezone.now() + game.day_length + timedelta(seconds=1)
    assert services.advance_phase(game.pk, game.phase_number, now=later)
    return slots[0]


def test_a_silent_seat_is_replaced_from_the_same_queue(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _league_game(VANILLA, django_capture_on_commit_callbacks)
    [spare, other] = people(2, prefix="spare")
    # A seat of the game queued again must not replace into its own game.
    seated = game.slots.order_by("seat").last().user
    LeagueQueueEntry.objects.create(user=seated, setup=VANILLA)
    LeagueQueueEntry.objects.create(user=spare, setup=VANILLA)
    LeagueQueueEntry.objects.create(user=other, setup="forum-newbie-seven")
    silent = _end_day_with_one_silent(game)
    silent.refresh_from_db()
    assert silent.alive and silent.user_id == spare.pk
    assert Replacement.objects.filter(slot=silent, new_user=spare).exists()
    assert not LeagueQueueEntry.objects.filter(user=spare).exists()
    assert LeagueQueueEntry.objects.filter(user=seated).exists()  # stays for a next game
    assert LeagueQueueEntry.objects.filter(user=other).exists()


def test_a_silent_seat_is_modkilled_when_nobody_waits(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _league_game(VANILLA, django_capture_on_commit_callbacks)
    silent = _end_day_with_one_silent(game)
    silent.refresh_from_db()
    assert not silent.alive and silent.death_cause == DeathCause.MODKILL


def test_a_vote_alone_keeps_a_seat(db: Any, django_capture_on_commit_callbacks: Any) -> None:
    game = _league_game(VANILLA, django_capture_on_commit_callbacks)
    slots = list(game.slots.order_by("seat").select_related("user"))
    services.cast_vote(slots[0].user, game.pk, None)  # the vote button (it posts the vote)
    silent = _end_day_with_one_silent(game)
    silent.refresh_from_db()
    assert silent.alive and silent.prods == 0 and silent.user_id == slots[0].user_id


def test_a_modkill_format_modkills_even_with_people_waiting(
    db: Any, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    monkeypatch.setitem(league.FORMATS, VANILLA, league.LeagueFormat(VANILLA, league.MODKILL))
    game = _league_game(VANILLA, django_capture_on_commit_callbacks)
    assert game.inactivity_action == league.MODKILL
    [spare] = people(1, prefix="spare")
    LeagueQueueEntry.objects.create(user=spare, setup=VANILLA)
    silent = _end_day_with_one_silent(game)
    silent.refresh_from_db()
    assert not silent.alive and silent.death_cause == DeathCause.MODKILL
    assert LeagueQueueEntry.objects.filter(user=spare).exists()


def test_a_league_night_ends_once_every_action_is_in(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _league_game("forum-cop-nine", django_capture_on_commit_callbacks)
    phase = game.current_phase()
    assert not phase.is_day
    slots = list(game.slots.order_by("seat").select_related("user"))
    cop = next(s for s in slots if s.role == "cop")
    goon = next(s for s in slots if s.role == "goon")
    town = [s for s in slots if s.role == "vanilla_townie"]
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon.pk])
    phase.refresh_from_db()
    assert phase.deadline > timezone.now()  # the mafia's kill is still missing
    services.submit_night_action(goon.user, game.pk, ability="kill", targets=[town[0].pk])
    phase.refresh_from_db()
    assert phase.deadline > timezone.now()  # the partner may still send the kill (issue 33)
    partner = next(s for s in slots if s.role == "goon" and s != goon)
    services.submit_night_action(partner.user, game.pk, ability="kill", targets=[town[1].pk])
    phase.refresh_from_db()
    assert phase.deadline <= timezone.now()  # all in: the deadline is now
    assert tasks.run_due_phases() == [(game.pk, phase.number)]
    game.refresh_from_db()
    assert game.current_phase().is_day
    # "All night actions are in" is the host's note: League reads no inbox, so none piles up.
    assert Notification.objects.filter(user__in=[s.user for s in slots]).exists()
    assert not Notification.objects.filter(user=game.host).exists()


def test_a_league_night_zero_is_the_mafia_s_time_to_talk(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Classic's night zero is the mafia's coordination phase (issue 33: it ran about a
    second, as nobody acts in it): it lasts its night, or ends once every living mafia
    member has posted in the mafia chat."""
    game = _league_game("classic-ten", django_capture_on_commit_callbacks)
    phase = game.current_phase()
    assert not phase.is_day and phase.night_zero
    assert phase.deadline >= timezone.now() + league.TABLE_TIMING["night_length"] / 2
    mafia = list(game.slots.filter(role="mafia").select_related("user"))
    for n, member in enumerate(mafia, start=1):
        services.submit_post(member.user, game.pk, body=f"Signal {n}.", thread="mafia")
        phase.refresh_from_db()
        assert (phase.deadline <= timezone.now()) == (n == len(mafia))
    assert tasks.run_due_phases() == [(game.pk, phase.number)]
    game.refresh_from_db()
    assert game.current_phase().is_day


def test_a_hosted_night_zero_keeps_its_length(make_game: Any) -> None:
    game = make_game("classic-ten", table=True)
    phase = game.current_phase()
    assert phase.night_zero and phase.deadline > timezone.now() + timedelta(minutes=1)


def test_a_hosted_night_waits_for_its_deadline(make_game: Any) -> None:
    game = make_game("forum-cop-nine")
    phase = game.current_phase()
    slots = list(game.slots.select_related("user"))
    cop = next(s for s in slots if s.role == "cop")
    goon = next(s for s in slots if s.role == "goon")
    town = next(s for s in slots if s.role == "vanilla_townie")
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon.pk])
    services.submit_night_action(goon.user, game.pk, ability="kill", targets=[town.pk])
    phase.refresh_from_db()
    assert phase.deadline > timezone.now()


# -- the API and the page -----------------------------------------------------------------
def test_the_api_lists_joins_and_leaves_queues(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from rest_framework.test import APIClient

    users = people(7)
    anon = APIClient()
    rows = anon.get("/api/v1/queues/").json()
    assert sorted(r["setup"] for r in rows) == sorted(SETUPS)
    vanilla = next(r for r in rows if r["setup"] == VANILLA)
    assert vanilla == {
        "setup": VANILLA,
        "name": str(SETUPS[VANILLA].name),
        "ruleset": "forum",
        "players": 7,
        "waiting": 0,
        "queued": False,
        "queued_since": None,
        "problem": "",
        "silent_seat": "replace",
        "blind": False,
        "exists": True,
        "latest_game": None,
    }
    assert anon.post(f"/api/v1/queues/{VANILLA}/join/").status_code in (401, 403)
    clients = []
    for user in users:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {person_key(user)}")
        clients.append(client)
    with django_capture_on_commit_callbacks(execute=True):
        answer = clients[0].post(f"/api/v1/queues/{VANILLA}/join/")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["queued"] and body["waiting"] == 1 and body["queued_since"]
    # (Outside a test's transaction the matchmaker has run before the answer is read.)
    listed = next(r for r in clients[0].get("/api/v1/queues/").json() if r["setup"] == VANILLA)
    assert listed["problem"] == "Waiting for 6 more players." and listed["queued"]
    again = clients[0].post(f"/api/v1/queues/{VANILLA}/join/")
    assert again.status_code == 422 and again.json()["code"] == "already_queued"
    missing = clients[0].post("/api/v1/queues/no-such-setup/join/")
    assert missing.status_code == 404 and missing.json()["code"] == "unknown_setup"
    left = clients[0].post(f"/api/v1/queues/{VANILLA}/leave/")
    assert left.status_code == 200 and left.json()["waiting"] == 0 and not left.json()["queued"]
    refused = clients[0].post(f"/api/v1/queues/{VANILLA}/leave/")
    assert refused.status_code == 422 and refused.json()["code"] == "not_queued"
    for client in clients:
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(f"/api/v1/queues/{VANILLA}/join/").status_code == 200
    game = Game.objects.get(league_setup=VANILLA)
    mine = next(r for r in clients[3].get("/api/v1/queues/").json() if r["setup"] == VANILLA)
    assert mine["latest_game"] == game.pk and not mine["queued"]


def test_the_page_joins_and_leaves(
    client_for: Any, django_capture_on_commit_callbacks: Any
) -> None:
    users = people(7)
    page = client_for(None).get("/league/")
    assert page.status_code == 200 and str(SETUPS[VANILLA].name) in page.content.decode()
    assert f"/league/{VANILLA}/join/" not in page.content.decode()  # log in first
    web = client_for(users[0])
    assert f'action="/league/{VANILLA}/join/"' in web.get("/league/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        answer = web.post(f"/league/{VANILLA}/join/")
    html = web.get(answer["Location"]).content.decode()
    assert "You are in the queue" in html and "Waiting for 6 more players." in html
    assert f'action="/league/{VANILLA}/leave/"' in html
    answer = web.post(f"/league/{VANILLA}/leave/", follow=True)
    assert "You left the queue." in answer.content.decode()
    assert (
        "You are not waiting in this queue."
        in web.post(f"/league/{VANILLA}/leave/", follow=True).content.decode()
    )
    for user in users:
        with django_capture_on_commit_callbacks(execute=True):
            client_for(user).post(f"/league/{VANILLA}/join/")
    game = Game.objects.get(league_setup=VANILLA)
    html = web.get("/league/").content.decode()
    assert f'href="/games/{game.pk}/"' in html and game.title in html  # your league games
    assert "League</a>" in client_for(None).get("/").content.decode()  # the header's link


def test_a_league_table_day_runs_on_timeouts_alone(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Nobody at the table acts: every turn and the vote time out and play the rules'
    default (classic: a random nomination, a missing vote is skip), the day ends with no
    host, and the seats silent all day are modkilled (the table format's rule)."""
    game = _league_game("classic-ten", django_capture_on_commit_callbacks)
    assert game.turn_length == league.TABLE_TIMING["turn_length"]
    night_zero = game.current_phase()
    assert services.advance_phase(game.pk, night_zero.number, now=night_zero.deadline)
    game.refresh_from_db()
    day = game.current_phase()
    assert day.is_table_day
    for _ in range(100):  # ten speeches, a vote, maybe a defense, a revote and last words
        day.refresh_from_db()
        if day.resolved:
            break
        assert services.advance_phase(game.pk, day.number, now=day.deadline, turn_seq=day.turn_seq)
    assert day.resolved
    game.refresh_from_db()
    voted_out = game.slots.filter(death_cause=DeathCause.DAY).count()
    assert voted_out == 0  # every missing vote defaulted to skip: skip won
    # Every seat was silent all day, so every seat is modkilled (none was left alive).
    assert game.slots.filter(death_cause=DeathCause.MODKILL).count() == 10
    assert not game.slots.filter(alive=True).exists()
    assert game.is_finished or game.current_phase().number == day.number + 1


# The last one ends in a Cyrillic "ie".
@pytest.mark.parametrize("name", ["League", "league", "LEAGUE", "Leagu\u0435"])
def test_nobody_may_sign_up_as_the_league_host(db: Any, name: str) -> None:
    from django import forms

    from games.accounts import clean_name

    with pytest.raises(forms.ValidationError):
        clean_name(name)


def test_a_persons_account_named_league_never_hosts(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """An account that held the name before it was reserved, with a password: the queue
    says the game could not be made, and everyone stays queued."""
    UserFactory(username=league.LEAGUE_HOST_NAME)  # a person: a usable password
    users = people(SETUPS[VANILLA].player_count)
    assert fill(VANILLA, users, django_capture_on_commit_callbacks) is None
    assert not Game.objects.filter(league_setup=VANILLA).exists()
    assert LeagueQueueEntry.objects.filter(setup=VANILLA).count() == len(users)
    assert "could not be made" in problem(VANILLA)


def test_a_person_playing_a_league_game_may_not_queue_until_dead_or_done(
    db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    users = people(7, prefix="busy")
    game = fill(VANILLA, users, django_capture_on_commit_callbacks)
    assert game is not None and game.status == GameStatus.RUNNING
    other = next(slug for slug in league.FORMATS if slug != VANILLA)
    with pytest.raises(GameRuleError) as refused:
        league_services.join_queue(users[0], other)
    assert refused.value.code == ErrorCode.ALREADY_PLAYING
    assert f"league game {game.pk}" in refused.value.message
    assert not LeagueQueueEntry.objects.filter(user=users[0]).exists()
    # A seat already dead has nothing more to do there: its player may queue again.
    Slot.objects.filter(game=game, user=users[0]).update(alive=False)
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(users[0], other)
    assert LeagueQueueEntry.objects.filter(user=users[0], setup=other).exists()
