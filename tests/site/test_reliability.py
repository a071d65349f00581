"""Reliability (issue 31, part 2): a player's record of inactivity modkills, replacements out
and league games left (their page, the agent's page, the API); the league's cooldown after
an inactivity modkill; an inactivity modkill ranks the seat below every other seat in the
ratings ("a seat modkilled for silence lost 0.05 rating while the town that played and lost
lost 2.29")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agents.services import register_agent
from games import services
from games.errors import ErrorCode, GameRuleError
from games.models import AltAccount, AltStatus, DeathCause, Game, GameEvent, Slot
from games.reads.reliability import INACTIVITY, MODKILL, REPLACED, league_cooldown, record
from games.services.common import game_tx
from games.services.moderation import REMOVED
from games.services.phases import do_modkill, finish
from league import services as league_services
from league.models import LeagueQueueEntry
from notifications.models import Notification
from ratings import compute as ratings
from ratings.models import RatingChange
from tests.conftest import slots_of
from tests.factories import UserFactory, person_key

pytestmark = pytest.mark.django_db

VANILLA = "forum-vanilla"  # 7 seats, forum days; a silent seat is replaced, or modkilled
OTHER_QUEUE = "forum-newbie-seven"


def _league_game(capture: Any, prefix: str = "p", users: list[Any] | None = None) -> Game:
    users = users or [UserFactory(username=f"{prefix}{i}") for i in range(1, 8)]
    for user in users:
        with capture(execute=True):
            league_services.join_queue(user, VANILLA)
    game = Game.objects.filter(league_setup=VANILLA).order_by("-pk").first()
    assert game is not None and game.rated
    return game


def _silent_day(game: Game, silent: Slot) -> None:
    """Everyone but ``silent`` posts today; the day's deadline passes."""
    for slot in game.slots.filter(alive=True).exclude(pk=silent.pk).select_related("user"):
        services.submit_post(slot.user, game.pk, body="Good morning.")
    game.refresh_from_db()
    later = timezone.now() + timedelta(days=2)  # past the deadline, whenever it began
    assert services.advance_phase(game.pk, game.phase_number, now=later)


def _modkilled_for_silence(capture: Any, prefix: str = "p") -> tuple[Game, Slot]:
    """A league game whose first townie stays silent on day 1: nobody waits to replace
    them, so the inactivity rule modkills the seat."""
    game = _league_game(capture, prefix)
    silent = slots_of(game, "vanilla_townie")[0]
    _silent_day(game, silent)
    silent.refresh_from_db()
    assert not silent.alive and silent.death_cause == DeathCause.MODKILL
    return game, silent


def _section(html: str) -> str:
    """The page's reliability section."""
    start = html.index('id="reliability"')
    return html[start : html.index("</section>", start)]


def _minute_after(at: Any) -> str:
    """How a cooldown's end is said: the minute it has ended by."""
    at = at + timedelta(minutes=1) if at.second or at.microsecond else at
    return at.strftime("%a %-d %b %Y, %H:%M UTC")


def _ordinal_change(change: RatingChange) -> float:
    return ratings.ordinal(change.mu_after, change.sigma_after) - ratings.ordinal(
        change.mu_before, change.sigma_before
    )


# -- the ratings ---------------------------------------------------------------------------
@pytest.mark.parametrize("winner", ["town", "mafia"])
def test_an_inactivity_modkill_loses_more_than_any_seat_that_played(
    django_capture_on_commit_callbacks: Any, winner: str
) -> None:
    """On the winning side or the losing one, the silent seat loses more than every seat
    that played, on the overall figure and on its side's. (It lost 0.18 when the town
    that played and lost lost 2.30: ranked alone below the teams, its loss was expected.)"""
    game, silent = _modkilled_for_silence(django_capture_on_commit_callbacks)
    with game_tx(game.pk) as tx:
        finish(tx, winner, "The test says so.", [])
    for side in ("overall", "town"):
        changes = {
            c.user_id: _ordinal_change(c) for c in RatingChange.objects.filter(game=game, side=side)
        }
        theirs = changes.pop(silent.user_id)
        assert theirs < 0
        assert changes and theirs < min(changes.values()), (side, theirs, changes)
    change = RatingChange.objects.get(game=game, user=silent.user, side="overall")
    assert change.modkilled and not change.won


def test_the_silent_seat_comes_last_of_every_seat_alone() -> None:
    """``compute``: the silent seat's change is openskill's for last place in a match of
    every seat alone, the others in the order of the result (winners first, by seat); the
    others' changes are the team match's, as without the rule."""
    start = ratings.initial()

    def entry(slot: int, alignment: str, won: bool, **more: Any) -> ratings.Entry:
        return ratings.Entry(slot, slot, "r", alignment, won, False, 1.0, **more)

    town = [entry(i, "town", False) for i in (1, 2, 3)]
    mafia = [entry(i, "mafia", True) for i in (4, 5)]
    silent = ratings.Entry(6, 6, "r", "town", False, True, 1.0, inactive=True)
    seats = [ratings.Seat((e,)) for e in [*town, *mafia, silent]]
    computed = ratings.compute(seats, lambda user, side: start)
    changes = {c.entry.user_id: c.after for c in computed if c.side == "overall"}
    alone = ratings.rate_match([[start]] * 6, [1, 2, 3, 4, 5, 6])[-1][0]
    assert changes[6] == alone
    teams = ratings.rate_match([[start] * 3, [start] * 2, [start]], [2, 1, 3])
    assert changes[1] == teams[0][0] and changes[4] == teams[1][0]


def test_a_hosts_modkill_keeps_the_team_rule(make_game: Any) -> None:
    """A host's modkill is the host's word, whatever reason they type: the seat plays the
    team match alone and last, as before (``test_ratings``), and is no inactivity modkill."""
    game = make_game(VANILLA, starts_with="day")
    Game.objects.filter(pk=game.pk).update(rated=True)
    flake = slots_of(game, "vanilla_townie")[0]
    services.modkill(game.host, game.pk, flake.pk, reason="inactivity")
    event = GameEvent.objects.get(game=game, kind="modkill")
    assert "inactivity" not in event.payload
    assert [e.inactive for seat in ratings.seats_of(game) for e in seat.holders] == [False] * 7
    assert record(flake.user).inactivity_modkills == 0 and record(flake.user).clean
    assert league_cooldown([flake.user_id]) is None


# -- the record ----------------------------------------------------------------------------
def test_the_record_shows_an_inactivity_modkill_on_the_page_and_in_the_api(
    django_capture_on_commit_callbacks: Any, client_for: Any
) -> None:
    game, silent = _modkilled_for_silence(django_capture_on_commit_callbacks)
    event = GameEvent.objects.get(game=game, kind="modkill")
    assert event.payload["inactivity"] is True and event.payload["reason"] == "inactivity"
    mine = record(silent.user)
    assert (mine.inactivity_modkills, mine.replacements_out, mine.league_games_left) == (1, 0, 1)
    assert [(m.what, m.game_id, m.league) for m in mine.marks] == [(INACTIVITY, game.pk, True)]
    name = silent.user.get_username()
    html = client_for(None).get(f"/players/{name}/").content.decode()
    section = _section(html)
    assert "Modkilled for inactivity</dt><dd>1</dd>" in section
    assert "League games left</dt><dd>1</dd>" in section
    assert f'href="/games/{game.pk}/"' in section and "No league queue until" in section
    # The game still runs: the record names no role, team or anything else it hides.
    hidden = section.replace(game.title, "").lower()
    assert "vanilla" not in hidden and "town" not in hidden and "mafia" not in hidden
    body = APIClient().get(f"/api/v1/players/{name}/").json()["reliability"]
    assert body["inactivity_modkills"] == 1 and body["league_games_left"] == 1
    assert body["league_cooldown_until"] is not None
    assert [set(m) for m in body["marks"]] == [{"what", "game_id", "title", "league", "at"}]
    assert body["marks"][0]["what"] == "inactivity_modkill"
    # They are told, with the cooldown's end.
    (told,) = Notification.objects.filter(user=silent.user, kind="modkilled")
    until = _minute_after(event.created_at + timedelta(hours=72))
    assert told.text == (
        f"You were modkilled for inactivity in {game.title}. "
        f"You may not join a league queue until {until}."
    )
    # Everyone else played on: a clean record.
    other = game.slots.exclude(pk=silent.pk).first().user
    assert record(other).clean and record(other).cooldown is None


def test_replaced_out_of_a_league_game_is_a_league_game_left(
    django_capture_on_commit_callbacks: Any,
) -> None:
    game = _league_game(django_capture_on_commit_callbacks)
    spare = UserFactory(username="spare")
    LeagueQueueEntry.objects.create(user=spare, setup=VANILLA)
    silent = slots_of(game, "vanilla_townie")[0]
    left = silent.user
    _silent_day(game, silent)
    silent.refresh_from_db()
    assert silent.alive and silent.user_id == spare.pk
    theirs = record(left)
    assert (theirs.inactivity_modkills, theirs.replacements_out, theirs.league_games_left) == (
        0,
        1,
        1,
    )
    assert [m.what for m in theirs.marks] == [REPLACED]
    assert theirs.cooldown is None  # replaced, not modkilled: no cooldown
    assert record(spare).clean  # the one who came in left nothing
    # The newcomer's later modkill is theirs, not the one they replaced.
    game.refresh_from_db()
    assert services.advance_phase(game.pk, game.phase_number, force=True)  # the night
    _silent_day(game, silent)
    silent.refresh_from_db()
    assert not silent.alive
    assert record(spare).inactivity_modkills == 1 and record(left).inactivity_modkills == 0


def test_removed_from_a_league_game_by_the_moderators_is_a_league_game_left(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A league game modkills the seat of a person the moderators take off the site: a
    league game left, but no inactivity modkill and no cooldown."""
    game = _league_game(django_capture_on_commit_callbacks)
    seat = game.slots.order_by("seat").select_related("user").first()
    with game_tx(game.pk) as tx:
        do_modkill(tx, tx.locked.slot(seat.pk), REMOVED)
    theirs = record(seat.user)
    assert (theirs.inactivity_modkills, theirs.league_games_left) == (0, 1)
    assert [m.what for m in theirs.marks] == [MODKILL] and theirs.cooldown is None


def test_leaving_a_queue_is_not_leaving_a_game(django_capture_on_commit_callbacks: Any) -> None:
    user = UserFactory(username="undecided")
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(user, VANILLA)
    with django_capture_on_commit_callbacks(execute=True):
        league_services.leave_queue(user, VANILLA)
    assert record(user).clean and record(user).league_games_left == 0


def test_a_hosted_games_records(make_game: Any, client_for: Any) -> None:
    """In a hosted game: the rule's modkill counts (not a league game left), the host's
    replacement counts as a replacement out, and a host's modkill is not on the record."""
    game = make_game(VANILLA, starts_with="day", min_posts_per_day=1, inactivity_action="modkill")
    silent, replaced, flaked = slots_of(game, "vanilla_townie")[:3]
    replaced_user, flaked_user = replaced.user, flaked.user
    services.replace_player(game.host, game.pk, replaced.pk, UserFactory(username="newcomer"))
    services.modkill(game.host, game.pk, flaked.pk, reason="rude")
    for _ in range(2):  # two silent days: the second prod modkills
        _silent_day(game, silent)
        game.refresh_from_db()
        services.cut_deadline_now(game.host, game.pk)  # the night
    silent.refresh_from_db()
    assert silent.death_cause == DeathCause.MODKILL
    theirs = record(silent.user)
    assert (theirs.inactivity_modkills, theirs.league_games_left) == (1, 0)
    assert theirs.marks[0].league is False and theirs.cooldown is not None
    assert record(replaced_user).replacements_out == 1
    assert record(replaced_user).league_games_left == 0
    assert record(flaked_user).clean
    html = client_for(None).get(f"/players/{replaced_user.get_username()}/").content.decode()
    assert "Replaced out</dt><dd>1</dd>" in html and "Replaced out</td>" in html


def test_an_agents_page_shows_its_record(django_capture_on_commit_callbacks: Any) -> None:
    owner = UserFactory(username="maker")
    agent = register_agent(owner, "sleepy-bot")
    players = [agent.user, *(UserFactory(username=f"a{i}") for i in range(6))]
    game = _league_game(django_capture_on_commit_callbacks, users=players)
    seat = Slot.objects.get(game=game, user=agent.user)
    _silent_day(game, seat)
    html = APIClient().get("/agents/sleepy-bot/").content.decode()
    assert "Modkilled for inactivity</dt><dd>1</dd>" in _section(html)
    api = APIClient().get("/api/v1/players/sleepy-bot/").json()
    assert api["agent"] and api["reliability"]["inactivity_modkills"] == 1


# -- the league's cooldown -----------------------------------------------------------------
def test_the_cooldown_refuses_a_join_on_the_page_and_the_api(
    django_capture_on_commit_callbacks: Any, client_for: Any, settings: Any
) -> None:
    settings.LEAGUE_COOLDOWN_AFTER_MODKILL = 24
    game, silent = _modkilled_for_silence(django_capture_on_commit_callbacks)
    user = silent.user
    modkilled_at = GameEvent.objects.get(game=game, kind="modkill").created_at
    until = modkilled_at + timedelta(hours=24)
    with pytest.raises(GameRuleError) as refused:
        league_services.join_queue(user, OTHER_QUEUE)
    assert refused.value.code == ErrorCode.LEAGUE_COOLDOWN and refused.value.status == 403
    when = _minute_after(until)
    assert when in refused.value.message and game.title in refused.value.message
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {person_key(user)}")
    answer = api.post(f"/api/v1/queues/{OTHER_QUEUE}/join/")
    assert answer.status_code == 403 and answer.json()["code"] == "league_cooldown"
    assert when in answer.json()["error"]
    # The league page says so before they try, and only to them.
    notice = client_for(user).get("/league/").content.decode().split('id="league-cooldown"')
    assert len(notice) == 2 and when in notice[1].split("</p>")[0]
    assert 'id="league-cooldown"' not in client_for(None).get("/league/").content.decode()
    page = client_for(user).post(f"/league/{OTHER_QUEUE}/join/", follow=True)
    assert when in page.content.decode()
    assert not LeagueQueueEntry.objects.filter(user=user).exists()
    # Once it has run out, they may queue again.
    GameEvent.objects.filter(game=game, kind="modkill").update(
        created_at=modkilled_at - timedelta(hours=24, minutes=1)
    )
    assert record(user).cooldown is None
    assert 'id="league-cooldown"' not in client_for(user).get("/league/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(user, OTHER_QUEUE)
    assert LeagueQueueEntry.objects.filter(user=user, setup=OTHER_QUEUE).exists()


def test_no_cooldown_when_the_setting_is_zero(
    django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.LEAGUE_COOLDOWN_AFTER_MODKILL = 0
    _, silent = _modkilled_for_silence(django_capture_on_commit_callbacks)
    assert record(silent.user).cooldown is None
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(silent.user, OTHER_QUEUE)
    assert LeagueQueueEntry.objects.filter(user=silent.user).exists()


def test_an_alternate_account_is_no_way_round_the_cooldown(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, silent = _modkilled_for_silence(django_capture_on_commit_callbacks)
    alt = UserFactory(username="second-self")
    AltAccount.objects.create(alt=alt, main=silent.user, status=AltStatus.APPROVED)
    with pytest.raises(GameRuleError) as refused:
        league_services.join_queue(alt, OTHER_QUEUE)
    assert refused.value.code == ErrorCode.LEAGUE_COOLDOWN


def test_an_inactivity_modkill_takes_the_player_out_of_the_queues(
    make_game: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Queued for the league while silent in a hosted game: the modkill takes them out, or
    the matchmaker would seat them during the cooldown a new join is refused."""
    game = make_game(VANILLA, starts_with="day", min_posts_per_day=1, inactivity_action="modkill")
    silent = slots_of(game, "vanilla_townie")[0]
    with django_capture_on_commit_callbacks(execute=True):
        league_services.join_queue(silent.user, OTHER_QUEUE)
    _silent_day(game, silent)  # the first prod: still queued
    assert LeagueQueueEntry.objects.filter(user=silent.user).exists()
    services.cut_deadline_now(game.host, game.pk)  # the night
    _silent_day(game, silent)  # the second: modkilled
    silent.refresh_from_db()
    assert silent.death_cause == DeathCause.MODKILL
    assert not LeagueQueueEntry.objects.filter(user=silent.user).exists()
