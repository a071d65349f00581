"""Statistics from real games (issue 34, part 2): a setup's wins by side and by role with
Wilson intervals beside the simulator's prediction, a person's or agent's wins by side and
by role, latest games and head-to-head records; on pages, panels and the API. Real games
played through the services; only finished ones may count (a running game's roles never
show, a cancelled one never counts)."""

from __future__ import annotations

import html as html_lib
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from analytics import stats
from games import services
from games.models import Agent, Game, Replacement, SimulationRun, Slot
from games.outcomes import holders_of, slot_won
from games.services.common import game_tx
from games.services.phases import finish
from games.setups import SETUPS
from games.simulator import wilson
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _finish(game: Game, winner: str, co_winners: list[str] | tuple[str, ...] = ()) -> Game:
    with game_tx(game.pk) as tx:
        finish(tx, winner, "The test says so.", co_winners)
    game.refresh_from_db()
    assert game.is_finished
    return game


def _vote_out(game: Game, target: Slot) -> None:
    """Every other living player votes ``target`` (the hammer ends the day)."""
    game.refresh_from_db()
    day = game.phase_number
    for slot in game.slots.filter(alive=True).select_related("user"):
        if slot.pk != target.pk:
            services.cast_vote(slot.user, game.pk, target.pk)
            game.refresh_from_db()
            if game.phase_number != day or game.is_finished:
                return


def _text(response: Any) -> str:
    return html_lib.unescape(response.content.decode())


# -- the interval ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # table I, method 3 (the score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # Symmetric about a half; 10 of 10 mirrors 0 of 10.
        (50, 100, 0.4038, 0.5962),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_the_wilson_interval_gives_the_published_values(wins, games, low, high):
    assert wilson(wins, games) == pytest.approx((low, high), abs=1e-4)
    rate = stats.WinRate.counted(wins, games)
    assert (rate.low, rate.high) == pytest.approx((low, high), abs=1e-4)
    assert rate.rate == pytest.approx(wins / games)


def test_no_game_is_the_whole_interval():
    rate = stats.WinRate.counted(0, 0)
    assert (rate.rate, rate.low, rate.high) == (0.0, 0.0, 1.0)


# -- a setup -----------------------------------------------------------------------------------
@pytest.fixture
def vanilla_games(make_game):
    """Three forum-vanilla games that ended (town by the vote, mafia and town by the
    host's word), one running and one cancelled in sign-ups."""
    first = make_game("forum-vanilla", starts_with="day")
    goons = slots_of(first, "goon")
    _vote_out(first, goons[0])
    services.cut_deadline_now(first.host, first.pk)  # the night: nobody acts
    _vote_out(first, goons[1])
    first.refresh_from_db()
    assert first.is_finished and first.winner == "town"
    second = _finish(make_game("forum-vanilla", starts_with="day", seed=11), "mafia")
    third = _finish(make_game("forum-vanilla", starts_with="day", seed=12), "town")
    running = make_game("forum-vanilla", starts_with="day", seed=13)
    cancelled = make_game("forum-vanilla", start=False, seed=14)
    services.cancel_game(cancelled.host, cancelled.pk)
    return [first, second, third], running


def _side(ruleset: stats.RulesetStats, side: str) -> stats.SideRow:
    return next(row for row in ruleset.sides if row.side == side)


def _role(ruleset: stats.RulesetStats, role: str) -> stats.RoleRow:
    return next(row for row in ruleset.roles if row.role == role)


def test_a_setups_wins_by_side_and_role_count_finished_games_only(vanilla_games):
    found = stats.setup_stats("forum-vanilla")
    assert found.games == 3 and [r.ruleset for r in found.rulesets] == ["forum"]
    forum = found.rulesets[0]
    assert [row.side for row in forum.sides] == ["town", "mafia"]
    assert _side(forum, "town").real == stats.WinRate.counted(2, 3)
    assert _side(forum, "mafia").real == stats.WinRate.counted(1, 3)
    # A role's games are the seats dealt it: two goons and five townies a game.
    assert _role(forum, "goon").rate == stats.WinRate.counted(2, 6)
    assert _role(forum, "vanilla_townie").rate == stats.WinRate.counted(10, 15)
    assert _role(forum, "goon").title == "Mafia Goon"
    assert all(side.predicted is None for side in forum.sides) and found.prediction is None


def test_a_running_game_changes_nothing_until_it_ends(vanilla_games):
    _, running = vanilla_games
    before = stats.setup_stats("forum-vanilla")
    player = slot_of(running, "goon").user.username
    mine = stats.player_stats(player)
    assert running.pk not in {g.game_id for g in mine.recent}
    _finish(running, "mafia")
    after = stats.setup_stats("forum-vanilla")
    assert after.games == before.games + 1
    mafia_before = _side(before.rulesets[0], "mafia").real.wins
    assert _side(after.rulesets[0], "mafia").real.wins == mafia_before + 1
    assert stats.player_stats(player).overall.games == mine.overall.games + 1
    assert running.pk in {g.game_id for g in stats.player_stats(player).recent}


def test_a_setup_the_host_changed_counts_as_a_game_of_its_own(vanilla_games, make_game):
    """Only a game dealt as its setup has it (its roles, modifiers, method and flags) is
    the setup's: a host who adds a doctor makes a game of their own; another day length or
    another row split of the same cards is still the setup."""
    roles = [{"role": "vanilla_townie", "count": 4}, {"role": "doctor", "count": 1}]
    changed = make_game("forum-vanilla", role_list=[*roles, {"role": "goon", "count": 2}])
    assert changed.setup == ""
    split = [{"role": "vanilla_townie", "count": 2}] * 2 + [{"role": "vanilla_townie"}]
    same_cards = make_game("forum-vanilla", role_list=[*split, {"role": "goon", "count": 2}])
    slower = make_game("forum-vanilla", day_length=timedelta(hours=72))
    assert same_cards.setup == slower.setup == "forum-vanilla"
    before = stats.setup_stats("forum-vanilla").games
    _finish(changed, "town")
    after = stats.setup_stats("forum-vanilla")
    assert after.games == before and "doctor" not in {r.role for r in after.rulesets[0].roles}


def test_co_winners_win_for_their_side_and_role(make_game):
    game = make_game("forum-third-party-ten", starts_with="day")
    survivor = slot_of(game, "survivor")
    _finish(game, "town", [survivor.resolver_name])
    forum = stats.setup_stats("forum-third-party-ten").rulesets[0]
    assert _side(forum, "town").real.wins == 1
    assert _side(forum, "survivor").real.wins == 1
    assert _side(forum, "serial_killer").real.wins == 0 and _side(forum, "mafia").real.wins == 0
    assert _role(forum, "survivor").rate.wins == 1
    assert _role(forum, "serial_killer").rate == stats.WinRate.counted(0, 1)


def test_a_seats_win_is_the_ratings_answer(make_game):
    """``stats.seat_won`` (rows) and ``games.outcomes.slot_won`` (a model) agree, seat by
    seat: a co-winner, dead and living third parties, both factions."""
    game = make_game("forum-third-party-ten", starts_with="day")
    killer = slot_of(game, "serial_killer")
    services.modkill(game.host, game.pk, killer.pk)
    _finish(game, "survivor", [slot_of(game, "goon").resolver_name])
    answers = set()
    for slot in game.slots.all():
        expected = slot_won(slot, game.winner, game.co_winners)
        co = frozenset(game.co_winners)
        assert stats.seat_won(slot.pk, slot.alignment, slot.alive, game.winner, co) == expected
        answers.add(expected)
    assert answers == {True, False}


def test_the_latest_finished_simulation_is_the_prediction(vanilla_games):
    SimulationRun.objects.create(
        setup="forum-vanilla", games=100, done=100, status="done", wins={"town": 40, "mafia": 60}
    )
    latest = SimulationRun.objects.create(
        setup="forum-vanilla", games=200, done=200, status="done", wins={"town": 50, "mafia": 150}
    )
    # Neither a run still going nor a failed one is a prediction.
    SimulationRun.objects.create(setup="forum-vanilla", games=500, done=10, status="running")
    SimulationRun.objects.create(setup="forum-vanilla", games=500, status="failed")
    found = stats.setup_stats("forum-vanilla")
    assert found.prediction is not None and found.prediction.run_id == latest.pk
    forum = found.rulesets[0]
    assert _side(forum, "town").predicted == stats.WinRate.counted(50, 200)
    assert _side(forum, "mafia").predicted == stats.WinRate.counted(150, 200)


def test_the_setup_queries_do_not_grow_with_the_games(make_game):
    _finish(make_game("forum-vanilla", starts_with="day"), "town")
    with CaptureQueriesContext(connection) as one:
        stats.setup_stats("forum-vanilla")
    for seed in (21, 22, 23):
        _finish(make_game("forum-vanilla", starts_with="day", seed=seed), "mafia")
    with CaptureQueriesContext(connection) as four:
        assert stats.setup_stats("forum-vanilla").games == 4
    assert len(four.captured_queries) == len(one.captured_queries)


# -- a person or an agent ----------------------------------------------------------------------
def test_a_players_wins_by_side_role_and_head_to_head(vanilla_games):
    (first, _second, _third), _running = vanilla_games
    goon = slot_of(first, "goon").user
    partner = slots_of(first, "goon")[1].user
    found = stats.player_stats(goon.username)
    # The same seven people played every game; whoever was dealt what.
    dealt = [g.slots.get(user=goon) for g in vanilla_games[0]]
    won = [s.alignment == g.winner for s, g in zip(dealt, vanilla_games[0], strict=True)]
    assert found.overall == stats.WinRate.counted(sum(won), 3)
    town = next(s for s in found.sides if s.side == "town")
    mafia = next(s for s in found.sides if s.side == "mafia")
    assert mafia.rate.games == sum(s.alignment == "mafia" for s in dealt)
    assert town.rate.games + mafia.rate.games == 3
    assert [g.game_id for g in found.recent] == [g.pk for g in reversed(vanilla_games[0])]
    assert all(g.pk != _running.pk for g in vanilla_games[0])
    # Head to head with their first game's fellow goon: together there, maybe apart later.
    together = sum(
        g.slots.get(user=goon).alignment == g.slots.get(user=partner).alignment
        for g in vanilla_games[0]
    )
    record = next(h for h in found.opponents if h.name == partner.username)
    assert record.together.games == together and record.against.games == 3 - together
    assert len(found.opponents) == 6  # everyone else at the table, nobody from nowhere
    assert {h.games for h in found.opponents} == {3}


def test_a_players_figures_are_kept_until_a_game_of_theirs_ends(make_game, host):
    """``person_figures`` is cached: the next view reads it in one query, a game of theirs
    that ends is counted at once (a new key), a running one never, and the names of the
    people they met are read fresh (a renamed account shows its new name)."""
    first = _finish(make_game("forum-vanilla", starts_with="day"), "town")
    me = slot_of(first, "goon").user
    assert stats.player_stats(me.username).overall == stats.WinRate.counted(0, 1)
    with CaptureQueriesContext(connection) as kept:
        stats.person_figures(me.pk)
    assert len(kept.captured_queries) == 1
    running = make_game("forum-vanilla", starts_with="day", seed=11)  # (the same people)
    assert stats.player_stats(me.username).overall.games == 1
    mate = next(s.user for s in first.slots.select_related("user") if s.user != me)
    mate.username = "renamed"
    mate.save(update_fields=["username"])
    assert "renamed" in {h.name for h in stats.player_stats(me.username).opponents}
    _finish(running, "mafia")
    mine = running.slots.get(user=me)
    found = stats.player_stats(me.username)
    assert found.overall == stats.WinRate.counted(int(mine.alignment == "mafia"), 2)
    assert [g.game_id for g in found.recent] == [running.pk, first.pk]


def test_a_replaced_player_and_the_replacement_both_count_the_game(make_game):
    game = make_game("forum-vanilla", starts_with="day")
    goons = slots_of(game, "goon")
    _vote_out(game, goons[0])  # day 1
    services.cut_deadline_now(game.host, game.pk)  # night 1
    seat = slot_of(game, "vanilla_townie")
    old = seat.user
    newcomer = UserFactory(username="newcomer")
    services.replace_player(game.host, game.pk, seat.pk, newcomer)  # day 2
    _vote_out(game, goons[1])
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    for person, share in ((old, 2 / 3), (newcomer, 1 / 3)):
        found = stats.player_stats(person.username)
        assert found.overall == stats.WinRate.counted(1, 1)
        assert found.recent[0].share == pytest.approx(share)
    # They held one seat: one team, one after the other.
    record = next(h for h in stats.player_stats("newcomer").opponents if h.name == old.username)
    assert (record.together.games, record.against.games) == (1, 0)


@pytest.mark.parametrize("phases", [1, 3, 6])
def test_a_seats_holders_are_the_ratings_answer(make_game, phases):
    """``stats.seat_holders`` (rows) and ``games.outcomes.holders_of`` (a model) agree: no
    replacement, one, two, back to a former holder, one before the first phase."""
    game = _finish(make_game("forum-vanilla", starts_with="day"), "town")
    a, b = UserFactory(username="holder_a"), UserFactory(username="holder_b")
    # Each seat's earlier holders in order, and the phase each one's successor came in.
    chains = [[], [(a, 2)], [(a, 2), (b, 3)], [(a, 2), (b, 4), (a, 5)], [(b, None)]]
    for seat, chain in zip(game.slots.order_by("seat"), chains, strict=False):
        rows = []
        for i, (old, phase) in enumerate(chain):
            new = chain[i + 1][0] if i + 1 < len(chain) else seat.user
            Replacement.objects.create(slot=seat, old_user=old, new_user=new, phase_number=phase)
            rows.append((old.pk, new.pk, phase))
        expected = holders_of(Slot.objects.get(pk=seat.pk), phases)
        got = stats.seat_holders(seat.user_id, rows, phases)
        assert [u for u, _ in got] == [u for u, _ in expected]
        assert [share for _, share in got] == pytest.approx([share for _, share in expected])


def test_someone_replaced_before_the_first_phase_does_not_count_it(make_game):
    game = _finish(make_game("forum-vanilla", starts_with="day"), "town")
    seat = slot_of(game, "goon")
    stand_in = UserFactory(username="stand_in")
    # As ``services.replace_player`` records a replacement made in phase 1.
    Replacement.objects.create(slot=seat, old_user=stand_in, new_user=seat.user, phase_number=1)
    assert stats.player_stats("stand_in").overall.games == 0
    assert stats.player_stats(seat.user.username).overall == stats.WinRate.counted(0, 1)


def test_a_modkilled_player_lost_whatever_their_team_did(make_game):
    game = make_game("forum-vanilla", starts_with="day")
    flake = slot_of(game, "vanilla_townie")
    services.modkill(game.host, game.pk, flake.pk)
    _finish(game, "town")
    assert stats.player_stats(flake.user.username).overall == stats.WinRate.counted(0, 1)
    townie = slot_of(game, "vanilla_townie", 1).user.username
    assert stats.player_stats(townie).overall == stats.WinRate.counted(1, 1)


def test_the_player_queries_do_not_grow_with_the_games(make_game):
    _finish(make_game("forum-vanilla", starts_with="day"), "town")
    with CaptureQueriesContext(connection) as one:
        stats.player_stats("player1")
    for seed in (31, 32, 33):
        _finish(make_game("forum-vanilla", starts_with="day", seed=seed), "mafia")
    with CaptureQueriesContext(connection) as four:
        assert stats.player_stats("player1").overall.games == 4
    assert len(four.captured_queries) == len(one.captured_queries)


# -- pages, panels and the API -----------------------------------------------------------------
def test_the_setup_page_panel_and_api_agree(vanilla_games, client: Client):
    SimulationRun.objects.create(
        setup="forum-vanilla", games=200, done=200, status="done", wins={"town": 50, "mafia": 150}
    )
    page = _text(client.get("/setups/forum-vanilla/stats/"))
    assert "Forum (mafiascum-style): 3 finished games" in page
    assert "67% (21%–94%)" in page  # the town: 2 of 3 (Wilson 20.8% to 93.9%)
    assert "25% (20%–31%)" in page  # the simulator's town: 50 of 200
    assert "Mafia Goon" in page
    panel = _text(client.get("/setups/forum-vanilla/"))
    assert (
        'id="setup-stats"' in panel
        and "2 of 3" in panel
        and "/setups/forum-vanilla/stats/" in panel
    )
    answer = client.get("/api/v1/setups/forum-vanilla/stats/").json()
    assert answer["games"] == 3 and answer["prediction"]["games"] == 200
    town = next(s for s in answer["rulesets"][0]["sides"] if s["side"] == "town")
    assert town["real"] == {"wins": 2, "games": 3, "rate": 0.6667, "low": 0.2077, "high": 0.9385}
    assert town["predicted"]["wins"] == 50


def test_a_setup_without_finished_games_says_so(vanilla_games, client: Client):
    page = _text(client.get("/setups/classic-ten/"))
    assert "No finished game of this setup yet." in page
    answer = client.get("/api/v1/setups/classic-ten/stats/").json()
    assert answer["games"] == 0 and answer["rulesets"] == []


def test_unknown_setups_and_players_are_404s(client: Client, db):
    assert client.get("/setups/no-such-setup/stats/").status_code == 404
    assert client.get("/players/nobody-at-all/stats/").status_code == 404
    answer = client.get("/api/v1/setups/no-such-setup/stats/")
    assert answer.status_code == 404 and answer.json()["code"] == "unknown_setup"
    answer = client.get("/api/v1/players/nobody-at-all/stats/")
    assert answer.status_code == 404 and answer.json()["code"] == "no_user"


def test_a_saved_setup_page_has_no_panel(client: Client, db):
    owner = UserFactory(username="saver")
    saved = services.save_setup(owner, "Mine", SETUPS["forum-vanilla"].game_kwargs())
    client.force_login(owner)
    page = _text(client.get(f"/setups/saved/{saved.pk}/"))
    assert "Role list" in page and 'id="setup-stats"' not in page


def test_the_player_and_agent_pages_panels_and_api(vanilla_games, client: Client):
    (first, *_), _running = vanilla_games
    bot = slot_of(first, "goon").user
    Agent.objects.create(user=bot, owner=UserFactory(username="owner"))
    found = stats.player_stats(bot.username)
    wins = f"{found.overall.percent} ({found.overall.interval})"
    for url in (f"/players/{bot.username}/", f"/agents/{bot.username}/"):
        page = _text(client.get(url))
        assert 'id="player-stats"' in page and wins in page, url
        assert f"/players/{bot.username}/stats/" in page
    page = _text(client.get(f"/players/{bot.username}/stats/"))
    assert "Head to head" in page and "Mafia Goon" in page  # their seat in the first game
    assert f"/games/{first.pk}/archive/" in page
    answer = client.get(f"/api/v1/players/{bot.username}/stats/").json()
    assert answer["agent"] is True and answer["overall"]["games"] == 3
    assert [g["game_id"] for g in answer["recent"]] == [g.game_id for g in found.recent]
    assert {r["role"] for r in answer["roles"]} == {r.role for r in found.roles}
    assert len(answer["head_to_head"]) == 6


def test_a_running_games_role_never_shows(make_game, client: Client):
    game = make_game("forum-vanilla", starts_with="day")
    goon = slot_of(game, "goon").user.username
    for url in (f"/players/{goon}/stats/", f"/players/{goon}/"):
        page = _text(client.get(url))
        assert "Goon" not in page and f"/games/{game.pk}/" not in page, url
        assert "No finished game yet." in page
    answer = client.get(f"/api/v1/players/{goon}/stats/").json()
    assert answer["overall"]["games"] == 0 and answer["roles"] == [] and answer["recent"] == []
    assert answer["head_to_head"] == [] and answer["sides"][1]["rate"]["games"] == 0
    setup = client.get("/api/v1/setups/forum-vanilla/stats/").json()
    assert setup["games"] == 0 and setup["rulesets"] == []
    assert "Goon" not in _text(client.get("/setups/forum-vanilla/stats/"))
