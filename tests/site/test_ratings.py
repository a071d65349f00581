"""Ratings: a rated game's end changes its players' ratings once, exactly as openskill
computes them from the result; the leaderboard and the player's page show them (and never
a running game's roles)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from openskill.models import PlackettLuce

from games import services
from games.models import Agent, DeathCause, Game, Slot
from games.outcomes import holders_of
from games.services.common import game_tx
from games.services.phases import finish
from ratings import compute as ratings
from ratings import reads as ratings_reads
from ratings.missed import rate_missed_games
from ratings.models import RatedGame, Rating, RatingChange
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _rated(game: Game) -> Game:
    Game.objects.filter(pk=game.pk).update(rated=True)
    game.refresh_from_db()
    return game


def _vote_out(game: Game, target: Slot) -> None:
    """Living players vote ``target`` until the day ends (a hammer, or the host's cut)."""
    game.refresh_from_db()
    day = game.phase_number
    for slot in game.slots.filter(alive=True).select_related("user"):
        if slot.pk != target.pk:
            services.cast_vote(slot.user, game.pk, target.pk)
            game.refresh_from_db()
            if game.phase_number != day or game.is_finished:
                return
    services.cut_deadline_now(game.host, game.pk)


def _town_wins(game: Game) -> Game:
    goons = slots_of(game, "goon")
    _vote_out(game, goons[0])
    services.cut_deadline_now(game.host, game.pk)  # the night: nobody acts
    _vote_out(game, goons[1])
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    return game


def _finish(game: Game, winner: str, co_winners: list[str] = ()) -> None:
    with game_tx(game.pk) as tx:
        finish(tx, winner, "The test says so.", co_winners)


def _expected(teams: list[list[Slot]], ranks: list[int], before: dict[int, Any] | None = None):
    """openskill's own computation, from scratch (not through ratings.compute)."""
    model = PlackettLuce()
    before = before or {}
    rated = model.rate(
        [[before.get(s.user_id) or model.rating() for s in team] for team in teams],
        ranks=ranks,
    )
    return {
        s.user_id: (r.mu, r.sigma)
        for team, new in zip(teams, rated, strict=True)
        for s, r in zip(team, new, strict=True)
    }


def _rating(user: Any, side: str = "overall", ruleset: str = "forum") -> Rating:
    return Rating.objects.get(user=user, ruleset=ruleset, side=side)


def test_a_rated_game_changes_ratings_as_openskill_computes_them(make_game):
    game = _rated(make_game("forum-vanilla", starts_with="day"))
    _town_wins(game)
    slots = list(game.slots.order_by("seat"))
    town = [s for s in slots if s.alignment == "town"]
    mafia = [s for s in slots if s.alignment == "mafia"]
    expected = _expected([town, mafia], [1, 2])
    for slot in slots:
        row = _rating(slot.user)
        assert (row.mu, row.sigma) == expected[slot.user_id]  # exactly openskill's figures
        assert row.games == 1 and row.wins == (slot.alignment == "town")
        assert row.ordinal == pytest.approx(row.mu - 3 * row.sigma)
        # The side figure: a first game on that side is the same match from scratch.
        side = _rating(slot.user, slot.alignment)
        assert (side.mu, side.sigma) == pytest.approx(expected[slot.user_id], abs=1e-9)
        other = "mafia" if slot.alignment == "town" else "town"
        assert _rating(slot.user, other).games == 0
    assert town and _rating(town[0].user).mu > 25 > _rating(mafia[0].user).mu
    assert RatingChange.objects.filter(game=game).count() == 2 * len(slots)


def test_ratings_change_once(make_game):
    game = _rated(make_game("forum-vanilla", starts_with="day"))
    _town_wins(game)
    before = {(r.pk): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    changes = RatingChange.objects.count()
    _finish(game, "mafia")  # a replayed end (even a different verdict) changes nothing
    game.refresh_from_db()
    assert ratings.apply_game(game, game.finished_at) is False
    assert {r.pk: (r.mu, r.sigma, r.games) for r in Rating.objects.all()} == before
    assert RatingChange.objects.count() == changes
    assert RatedGame.objects.filter(game=game).count() == 1


def test_a_fault_in_the_ratings_does_not_stop_the_game_ending(make_game, monkeypatch):
    game = _rated(make_game("forum-vanilla", starts_with="day"))

    def broken(*args, **kwargs):
        Rating.objects.create(
            user=game.host,
            ruleset="forum",
            side="overall",
            mu=1,
            sigma=1,
            ordinal=-2,
            updated_at=game.created_at,
        )  # rolled back with it
        raise ValueError("a bug in the ratings")

    monkeypatch.setattr(ratings, "apply_game", broken)
    _town_wins(game)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    assert not Rating.objects.exists() and not RatedGame.objects.exists()

    # The league's sweep rates it once the fault is gone, and only once.
    monkeypatch.undo()
    assert rate_missed_games() == [game.pk]
    assert RatedGame.objects.filter(game=game).exists()
    assert RatingChange.objects.filter(game=game, side="overall").count() == 7
    assert rate_missed_games() == []
    assert RatingChange.objects.filter(game=game, side="overall").count() == 7


def test_an_unrated_game_changes_nothing(make_game):
    game = make_game("forum-vanilla", starts_with="day")
    _town_wins(game)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert not RatedGame.objects.exists()


def test_a_second_game_starts_from_the_first(make_game):
    first = _rated(make_game("forum-vanilla", starts_with="day"))
    _town_wins(first)
    after_first = {r.user_id: (r.mu, r.sigma) for r in Rating.objects.filter(side="overall")}
    second = _rated(make_game("forum-vanilla", starts_with="day", seed=11))  # the same seven people
    _finish(second, "mafia")
    slots = list(second.slots.order_by("seat"))
    model = PlackettLuce()
    before = {u: model.rating(mu=m, sigma=s) for u, (m, s) in after_first.items()}
    town = [s for s in slots if s.alignment == "town"]
    mafia = [s for s in slots if s.alignment == "mafia"]
    expected = _expected([town, mafia], [2, 1], before)
    for slot in slots:
        row = _rating(slot.user)
        assert (row.mu, row.sigma) == pytest.approx(expected[slot.user_id], abs=1e-9)
        assert row.games == 2


def test_third_parties_play_alone_and_co_winners_share_first_place(make_game):
    game = _rated(make_game("forum-third-party-ten"))
    sk, survivor = slot_of(game, "serial_killer"), slot_of(game, "survivor")
    _finish(game, "town", [survivor.resolver_name])
    slots = list(game.slots.order_by("seat"))
    town = [s for s in slots if s.alignment == "town"]
    mafia = [s for s in slots if s.alignment == "mafia"]
    # The order of the teams does not matter to openskill; these are the site's.
    teams = {"town": town, "mafia": mafia, "sk": [sk], "survivor": [survivor]}
    ranks = {"town": 1, "mafia": 2, "sk": 2, "survivor": 1}
    expected = _expected(list(teams.values()), list(ranks.values()))
    for slot in slots:
        assert (_rating(slot.user).mu, _rating(slot.user).sigma) == pytest.approx(
            expected[slot.user_id], abs=1e-9
        )
    assert _rating(survivor.user).wins == 1 and _rating(sk.user).wins == 0
    # Third parties have no side figure.
    assert not RatingChange.objects.filter(user=sk.user).exclude(side="overall").exists()
    assert Rating.objects.get(user=survivor.user, ruleset="forum", side="town").games == 0


def test_a_modkilled_player_loses_whatever_their_team_does(make_game):
    game = _rated(make_game("forum-vanilla", starts_with="day"))
    town = slots_of(game, "vanilla_townie")
    flake = town[0]
    services.modkill(game.host, game.pk, flake.pk, reason="inactive")
    _town_wins(game)
    flake.refresh_from_db()
    assert flake.death_cause == DeathCause.MODKILL
    slots = list(game.slots.order_by("seat"))
    rest = [s for s in slots if s.alignment == "town" and s.pk != flake.pk]
    mafia = [s for s in slots if s.alignment == "mafia"]
    expected = _expected([rest, mafia, [flake]], [1, 2, 3])
    for slot in slots:
        row = _rating(slot.user)
        assert (row.mu, row.sigma) == pytest.approx(expected[slot.user_id], abs=1e-9)
    assert _rating(flake.user).wins == 0 and _rating(flake.user).mu < 25
    assert RatingChange.objects.get(user=flake.user, side="overall").modkilled


def test_replacements_share_the_slot_by_phases_held(make_game):
    game = _rated(make_game("forum-vanilla", starts_with="day"))
    goons = slots_of(game, "goon")
    _vote_out(game, goons[0])  # day 1 (phase 1)
    services.cut_deadline_now(game.host, game.pk)  # night 1 (phase 2)
    seat = slot_of(game, "vanilla_townie")
    old = seat.user
    newcomer = UserFactory(username="newcomer")
    services.replace_player(game.host, game.pk, seat.pk, newcomer)  # in phase 3 (day 2)
    _vote_out(game, goons[1])  # day 2 ends: town wins after 3 phases
    game.refresh_from_db()
    assert game.is_finished and game.phase_number == 3
    slots = list(game.slots.order_by("seat"))
    town = [s for s in slots if s.alignment == "town"]
    mafia = [s for s in slots if s.alignment == "mafia"]
    # The newcomer held phase 3 of 3; the one replaced phases 1 and 2.
    expected = _expected([town, mafia], [1, 2])
    mu, sigma = PlackettLuce().rating().mu, PlackettLuce().rating().sigma
    new = _rating(newcomer)
    assert new.mu == pytest.approx(mu + (expected[newcomer.pk][0] - mu) / 3)
    assert new.sigma == pytest.approx(sigma + (expected[newcomer.pk][1] - sigma) / 3)
    # The one replaced: as if they had held the slot in that same match, scaled by 2/3.
    stand_in = Slot(user=old, alignment="town")
    as_them = _expected([[*(s for s in town if s.pk != seat.pk), stand_in], mafia], [1, 2])
    kept = _rating(old)
    assert kept.mu == pytest.approx(mu + 2 * (as_them[old.pk][0] - mu) / 3)
    assert kept.games == 1 and kept.wins == 1
    change = RatingChange.objects.get(user=old, side="overall")
    assert change.share == pytest.approx(2 / 3) and change.role == "vanilla_townie"


def test_holders_of_a_slot_without_replacements_hold_it_all(make_game):
    game = make_game("forum-vanilla", starts_with="day")
    slot = game.slots.first()
    assert holders_of(slot, 5) == [(slot.user_id, 1.0)]


# -- the leaderboard and the player's page ----------------------------------------------------
@pytest.fixture
def board(make_game):
    """A finished rated forum game whose first goon is an agent, and a running one."""
    game = _rated(make_game("forum-vanilla", starts_with="day"))
    bot = slots_of(game, "goon")[0].user
    Agent.objects.create(user=bot, owner=UserFactory(username="owner"))
    _town_wins(game)
    # The same people in a running game: its roles are hidden.
    running = make_game("forum-vanilla", starts_with="day", seed=99)
    return game, bot, running


def _rows(html: str) -> list[str]:
    body = html[html.index("<tbody") : html.index("</tbody>")]
    return re.findall(r'<a href="/players/([^/]+)/">', body)


def test_leaderboard_page_and_api_filters(board):
    _, bot, _ = board
    web = Client()
    page = web.get("/leaderboard/forum/")
    assert page.status_code == 200
    html = page.content.decode()
    names = _rows(html)
    assert len(names) == 7 and bot.username in names
    assert names.index(bot.username) >= 5  # the mafia lost: below the five of the town
    assert 'class="agent-badge"' in html
    assert "/leaderboard/city/" in html  # links to the other rule sets
    assert _rows(web.get("/leaderboard/forum/?who=agents").content.decode()) == [bot.username]
    assert bot.username not in _rows(web.get("/leaderboard/forum/?who=people").content.decode())
    assert len(_rows(web.get("/leaderboard/forum/?side=mafia").content.decode())) == 2
    bad = web.get("/leaderboard/forum/?side=sheriff")
    assert bad.status_code == 200 and "Select a valid choice" in bad.content.decode()

    api = web.get("/api/v1/leaderboard/forum/").json()
    assert api["ruleset"] == "forum" and api["count"] == 7
    top = api["results"][0]
    assert top["rank"] == 1 and top["agent"] is False
    assert top["rating"] == pytest.approx(top["mu"] - 3 * top["sigma"], abs=1e-3)
    assert top["games"] == 1 and top["wins"] == {"town": 1, "mafia": 0, "other": 0}
    assert top["form"] == ["W"]
    agents = web.get("/api/v1/leaderboard/forum/?who=agents").json()["results"]
    assert [(r["name"], r["agent"], r["form"]) for r in agents] == [(bot.username, True, ["L"])]
    town = web.get("/api/v1/leaderboard/forum/?side=town&who=both").json()
    assert town["count"] == 5 and town["side"] == "town"
    assert web.get("/api/v1/leaderboard/city/").json()["count"] == 0


def test_leaderboard_refuses_unknown_rule_sets_and_filters(board):
    web = Client()
    assert web.get("/leaderboard/chess/").status_code == 404
    missing = web.get("/api/v1/leaderboard/chess/")
    assert missing.status_code == 404 and missing.json()["code"] == "ruleset"
    bad = web.get("/api/v1/leaderboard/forum/?who=robots")
    assert bad.status_code == 400 and bad.json()["field"] == "who"
    assert web.get("/api/v1/leaderboard/forum/?side=nope").status_code == 400


def test_player_page_chart_and_games_without_running_roles(board):
    game, bot, running = board
    web = Client()
    page = web.get(f"/players/{bot.username}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<svg" in html and "<polyline" in html and 'class="agent-badge"' in html
    assert f"/games/{game.pk}/archive/" in html and "<td>Goon</td>" in html  # the role's title
    assert "<td>Forum (mafiascum-style)</td>" in html  # the rule set's name, not its slug
    assert f"/games/{running.pk}/" not in html  # a running game is not among rated games
    # Whatever the running game dealt this person never shows.
    their_running_role = running.slots.get(user=bot).role
    api = web.get(f"/api/v1/players/{bot.username}/").json()
    assert api["agent"] is True and api["name"] == bot.username
    assert [g["game_id"] for g in api["games"]] == [game.pk]
    assert api["games"][0]["role"] == "goon" and api["games"][0]["won"] is False
    assert all(g["game_id"] != running.pk for g in api["games"])
    assert their_running_role not in {g["role"] for g in api["games"] if g["game_id"] != game.pk}
    forum = next(r for r in api["ratings"] if r["ruleset"] == "forum")
    assert forum["overall"]["games"] == 1 and forum["mafia"]["games"] == 1
    assert forum["town"] is None  # no game on that side yet
    assert len(forum["history"]) == 1
    assert web.get("/players/nobody-at-all/").status_code == 404
    assert web.get("/api/v1/players/nobody-at-all/").status_code == 404


def test_a_running_games_role_never_shows_on_the_player_page(make_game):
    running = _rated(make_game("forum-vanilla", starts_with="day"))
    goon = slot_of(running, "goon")
    html = Client().get(f"/players/{goon.user.username}/").content.decode()
    assert not [r for r in ("goon", "Goon", "vanilla_townie", "Vanilla Townie") if r in html]
    api = Client().get(f"/api/v1/players/{goon.user.username}/").json()
    assert api["games"] == [] and "goon" not in str(api)


def test_a_name_with_a_space_has_its_page(db):
    UserFactory(username="Zoë Smith")
    page = Client().get("/players/Zo%C3%AB%20Smith/")
    assert page.status_code == 200 and "No rated game yet" in page.content.decode()
    api = Client().get("/api/v1/players/Zo%C3%AB%20Smith/").json()
    clean = {
        "inactivity_modkills": 0,
        "replacements_out": 0,
        "league_games_left": 0,
        "league_cooldown_until": None,
        "marks": [],
    }
    assert api == {
        "name": "Zoë Smith",
        "agent": False,
        "ratings": [],
        "games": [],
        "reliability": clean,
    }


def test_the_chart_spans_its_box():
    drawn = ratings_reads.chart([0.0, 2.5, 1.0])
    assert drawn is not None and len(drawn.dots) == 3
    xs = [x for x, _ in drawn.dots]
    ys = [y for _, y in drawn.dots]
    assert xs[0] < xs[1] < xs[2] <= drawn.width
    assert min(ys) == ys[1] and max(ys) == ys[0]  # the best rating is drawn highest
    assert ratings_reads.chart([]) is None


def test_a_third_party_that_wins_alone_ranks_first_and_everyone_else_loses(make_game):
    """The serial killer's own win: its one-player team ranks 1; town, mafia and the
    survivor (no co-winner this time) rank 2, as openskill computes them."""
    game = _rated(make_game("forum-third-party-ten"))
    sk, survivor = slot_of(game, "serial_killer"), slot_of(game, "survivor")
    assert sk.alignment not in ("town", "mafia")
    _finish(game, sk.alignment)
    slots = list(game.slots.order_by("seat"))
    town = [s for s in slots if s.alignment == "town"]
    mafia = [s for s in slots if s.alignment == "mafia"]
    expected = _expected([town, mafia, [sk], [survivor]], [2, 2, 1, 2])
    for slot in slots:
        assert (_rating(slot.user).mu, _rating(slot.user).sigma) == pytest.approx(
            expected[slot.user_id], abs=1e-9
        )
    assert _rating(sk.user).wins == 1 and _rating(sk.user).mu > 25
    assert _rating(survivor.user).wins == 0
    assert all(_rating(s.user).wins == 0 for s in town + mafia)


def test_games_whose_ratings_keep_failing_do_not_starve_newer_ones(make_game, monkeypatch):
    """The sweep took the oldest unrated games first, every time: a batch of games whose
    fault stayed was tried for ever and no newer game was rated."""
    from ratings import missed as sweep

    real, stuck = ratings.apply_game, set()

    def apply_game(game: Any, now: Any) -> Any:
        if game.pk in stuck:
            raise ValueError("a fault that stays")
        return real(game, now)

    monkeypatch.setattr(ratings, "apply_game", apply_game)
    games = [_rated(make_game("forum-vanilla", starts_with="day")) for _ in range(3)]
    stuck.update(g.pk for g in games)  # none is rated as it ends
    for game in games:
        _finish(game, "town")
    assert not RatedGame.objects.exists()
    stuck.discard(games[2].pk)  # the two oldest keep failing; the newest would rate
    monkeypatch.setattr(sweep, "BATCH", 2)
    assert rate_missed_games() == []  # the two oldest, failing
    assert rate_missed_games() == [games[2].pk]  # then the newer one's turn
    assert RatedGame.objects.filter(game=games[2]).exists()
