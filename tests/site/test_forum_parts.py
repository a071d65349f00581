"""Forum roles built from parts, in the site: display names everywhere (never slugs), the
forum role PM, numbered modifiers on the create form, day actions through the pages and
the API, third parties and co-winners, masons' and neighbors' threads."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import InvalidInput, NotAllowed, WrongPhase
from games.models import DayAction, Game, Post, PrivateResult
from tests.conftest import current_phase, slot_of, slots_of
from tests.site.test_views import _create_post

pytestmark = pytest.mark.django_db

SLUGS = ("vanilla_townie", "one_shot_bulletproof", "selfTargeting", "protectionStopsAllKills")


def visible_text(page: str) -> str:
    """What a reader sees: the page without tags, attributes or scripts."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", page)


def api(user) -> APIClient:
    """Logged in with the site's session; bodies are sent as JSON (the API's only kind)."""
    client = APIClient()
    client.force_login(user)
    return client


# -- issue 9 point 5: display names and the forum role PM ------------------------------------
def test_create_form_shows_display_names_and_help(client_for, host):
    page = client_for(host).get("/games/new/?ruleset=forum").content.decode()
    text = visible_text(page)
    for slug in SLUGS:
        assert slug not in text, slug
    assert "Vanilla Townie (Town)" in text and "One-Shot Bulletproof" in text
    assert "Protection stops all kills" in text and "Self-targeting" in text
    # every flag and modifier has its one line
    assert "One protection stops every kill on its target that night" in text
    assert 'title="Trackers and watchers do not see their visits' in page
    # numbered modifiers are number fields
    assert 'name="roles-0-mod_shots"' in page and 'type="number"' in page
    assert 'name="roles-0-mod_vote_weight"' in page
    assert "X-Shot" in text and "X-Vote" in text


def test_create_form_numbers_become_modifiers(client_for, host):
    data = _create_post(
        **{
            "roles-0-role": "day_vigilante",
            "roles-0-sanity": "",
            "roles-0-mod_shots": "1",
            "roles-1-mod_vote_weight": "",
            "roles-2-mod_vote_weight": "3",
            "roles-2-modifiers": ["ninja", "loved"],
            "vote_modifiers_public": "on",
        }
    )
    response = client_for(host).post("/games/new/?ruleset=forum", data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    game = Game.objects.get()
    assert game.vote_modifiers_public
    assert game.role_list[0] == {"role": "day_vigilante", "count": 1, "modifiers": ["shots:1"]}
    assert game.role_list[2]["modifiers"] == ["ninja", "loved", "vote_weight:3"]
    bad = client_for(host).post(
        "/games/new/?ruleset=forum", _create_post(**{"roles-0-mod_shots": "0"})
    )
    assert bad.status_code == 200 and "greater than or equal to 1" in bad.content.decode()


def test_setup_numbers_fill_the_number_fields(client_for, host, settings):
    from games.setups import SETUPS

    page = client_for(host).get("/games/new/?setup=forum-vig-ten").content.decode()
    assert SETUPS["forum-vig-ten"].role_list  # the setup has a 1-shot vigilante
    assert re.search(r'name="roles-\d-mod_shots"[^>]*value="1"', page) or re.search(
        r'value="1"[^>]*name="roles-\d-mod_shots"', page
    )


def test_rulesets_api_lists_display_names_and_descriptions(client):
    data = client.get("/api/v1/rulesets/").json()
    forum = next(r for r in data if r["name"] == "forum")
    roles = {r["slug"]: r for r in forum["roles"]}
    assert roles["vanilla_townie"]["title"] == "Vanilla Townie"
    assert roles["serial_killer"]["alignment_title"] == "Serial Killer"
    mods = {m["slug"]: m for m in forum["modifier_list"]}
    assert mods["shots"]["form"] == "shots:N" and mods["shots"]["param"] == "N"
    assert mods["loved"]["kind"] == "vote" and mods["ninja"]["description"]
    flags = {f["name"]: f for f in forum["flags"]}
    assert flags["protectionStopsAllKills"]["title"] == "Protection stops all kills"
    assert {a["slug"] for a in forum["alignments"]} >= {"town", "mafia", "jester"}
    assert all(a["win_condition"] for a in forum["alignments"])
    assert forum["modifiers"]["ninja"]  # the old slug -> text mapping stays


@pytest.fixture
def parts_game(make_game):
    """A forum game with parts: a 1-shot day vigilante, a day investigator, a loved double
    voter, a serial killer, a survivor, two neighbors, two goons (one ninja)."""
    return make_game(
        "forum-vanilla",
        role_list=[
            {"role": "day_vigilante", "count": 1, "modifiers": ["shots:1"]},
            {"role": "day_investigator", "count": 1},
            {"role": "vanilla_townie", "count": 1, "modifiers": ["double_voter", "loved"]},
            {"role": "neighbor", "count": 2},
            {"role": "serial_killer", "count": 1},
            {"role": "survivor", "count": 1},
            {"role": "goon", "count": 1, "modifiers": ["ninja"]},
            {"role": "goon", "count": 1},
        ],
    )


def test_role_pm_reads_like_a_forum_role_pm(parts_game, client_for):
    vig = slot_of(parts_game, "day_vigilante")
    page = client_for(vig.user).get(f"/games/{parts_game.pk}/role/").content.decode()
    text = visible_text(page)
    assert "You are a Town 1-Shot Day Vigilante." in text
    assert "Shots left: 1" in " ".join(text.split())
    assert "Win condition:" in text and "every mafia member" in text
    assert "day_vigilante" not in text and "shots:1" not in text
    sk = slot_of(parts_game, "serial_killer")
    text = visible_text(client_for(sk.user).get(f"/games/{parts_game.pk}/role/").content.decode())
    assert "You are a Serial Killer." in text and "wins alone" in text.replace("win alone", "")
    data = api(vig.user).get(f"/api/v1/games/{parts_game.pk}/role/").json()
    assert data["role_pm"]["title"] == "Town 1-Shot Day Vigilante"
    assert data["role_pm"]["shots_left"] == 1
    assert data["day_actions"][0]["ability"] == "day_kill"


# -- day actions ------------------------------------------------------------------------------
def test_day_vigilante_shot_is_announced_and_spent(parts_game, host):
    game = parts_game
    vig = slot_of(game, "day_vigilante")
    goon = slots_of(game, "goon")[1]
    action = services.use_day_action(vig.user, game.pk, target=goon.pk)
    goon.refresh_from_db()
    assert not goon.alive and goon.death_cause == "shot" and goon.revealed_role == "goon"
    post = Post.objects.get(pk=action.post_id)
    assert post.is_host and f"{goon.display_name} has been shot and dies" in post.body
    assert "They were a **Goon**." in post.body and "goon" not in post.body.replace("Goon", "")
    assert post.is_auto  # a site announcement, linked from the phase banner
    assert DayAction.objects.filter(actor=vig).count() == 1
    with pytest.raises(InvalidInput, match="used all 1 of their shots"):
        services.use_day_action(vig.user, game.pk, target=slot_of(game, "goon").pk)
    # the role PM says it is spent
    game.refresh_from_db()
    options = services.day_action_options(game, vig)
    assert options[0]["choices"] == [] and "used all" in options[0]["unavailable"]


def test_day_actions_refused_at_night_dead_or_for_others(parts_game, host):
    game = parts_game
    vig = slot_of(game, "day_vigilante")
    townie = slot_of(game, "vanilla_townie")
    with pytest.raises(InvalidInput, match="has no day action"):
        services.use_day_action(townie.user, game.pk, target=vig.pk)
    with pytest.raises(InvalidInput, match="no such player"):
        services.use_day_action(vig.user, game.pk, target=99999)
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    with pytest.raises(WrongPhase, match="by day"):
        services.use_day_action(vig.user, game.pk, target=townie.pk)
    assert services.day_action_options(game, vig) == []
    assert not DayAction.objects.exists()


def test_day_investigation_is_private(parts_game, client_for, client):
    game = parts_game
    inv = slot_of(game, "day_investigator")
    goon = slot_of(game, "goon")
    before = Post.objects.filter(game=game).count()
    services.use_day_action(inv.user, game.pk, target=goon.pk)
    assert Post.objects.filter(game=game).count() == before  # nothing public
    result = PrivateResult.objects.get(slot=inv)
    assert "mafia" in result.text and goon.display_name in result.text
    mine = client_for(inv.user).get(f"/games/{game.pk}/role/").content.decode()
    assert result.text in mine
    other = client_for(slot_of(game, "survivor").user)
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/role/", f"/api/v1/games/{game.pk}/"):
        assert result.text not in other.get(url).content.decode()
        assert result.text not in client.get(url).content.decode()
    with pytest.raises(InvalidInput, match="already used their day action today"):
        services.use_day_action(inv.user, game.pk, target=goon.pk)


def test_day_action_through_the_api_and_the_page(parts_game, client_for):
    game = parts_game
    inv = slot_of(game, "day_investigator")
    vig = slot_of(game, "day_vigilante")
    survivor = slot_of(game, "survivor")
    bad = api(inv.user).post(
        f"/api/v1/games/{game.pk}/day-action/", {"target": "x"}, content_type="application/json"
    )
    assert bad.status_code == 400 and bad.json()["field"] == "target"
    ok = api(inv.user).post(
        f"/api/v1/games/{game.pk}/day-action/",
        {"target": survivor.pk, "ability": "day_investigate"},
        content_type="application/json",
    )
    assert ok.status_code == 200 and "innocent" in ok.json()["results"][0]["text"]
    again = api(inv.user).post(
        f"/api/v1/games/{game.pk}/day-action/", {"target": vig.pk}, content_type="application/json"
    )
    assert again.status_code == 422 and "already used" in again.json()["error"]
    response = client_for(vig.user).post(
        f"/games/{game.pk}/role/day-action/", {"target": survivor.pk, "ability": "day_kill"}
    )
    assert response.status_code == 302
    survivor.refresh_from_db()
    assert not survivor.alive
    nonsense = client_for(vig.user).post(f"/games/{game.pk}/role/day-action/", {"target": "?"})
    assert nonsense.status_code == 302  # a message, never a crash


# -- third parties and private threads --------------------------------------------------------
def test_neighbors_thread_is_theirs_alone_from_day_one(parts_game, client_for, client):
    game = parts_game
    n1, n2 = slots_of(game, "neighbor")
    assert current_phase(game).is_day
    services.submit_post(n1.user, game.pk, body="hello neighbour", thread="neighbors")
    url = f"/games/{game.pk}/t/neighbors/"
    assert "hello neighbour" in client_for(n2.user).get(url).content.decode()
    for outsider in (slot_of(game, "goon").user, slot_of(game, "survivor").user):
        assert client_for(outsider).get(url).status_code == 404
        with pytest.raises(NotAllowed):
            services.submit_post(outsider, game.pk, body="let me in", thread="neighbors")
    assert client.get(url).status_code == 404
    assert services.role_pm(n1, list(game.slots.all()))["partners"][0]["slot_id"] == n2.pk


def test_serial_killer_wins_alone_and_survivor_co_wins(make_game, host, client):
    game = make_game(
        "forum-vanilla",
        role_list=[
            {"role": "serial_killer", "count": 1},
            {"role": "survivor", "count": 1},
            {"role": "goon", "count": 1},
            {"role": "vanilla_townie", "count": 2},
        ],
    )
    sk, survivor = slot_of(game, "serial_killer"), slot_of(game, "survivor")
    for slot in [*slots_of(game, "goon"), *slots_of(game, "vanilla_townie")]:
        services.modkill(host, game.pk, slot.pk)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "serial_killer"
    assert game.co_winners == [survivor.pk]
    page = visible_text(client.get(f"/games/{game.pk}/archive/").content.decode())
    assert "Serial Killer wins" in page
    assert f"Also winning: {survivor.display_name} (Survivor)" in " ".join(page.split())
    assert sk.display_name in page
    thread = " ".join(visible_text(client.get(f"/games/{game.pk}/").content.decode()).split())
    assert f"Serial Killer wins, and so does {survivor.display_name} (Survivor)." in thread


# -- vote modifiers ---------------------------------------------------------------------------
VOTE_TABLE = [
    {"role": "vanilla_townie", "count": 1, "modifiers": ["double_voter"]},
    {"role": "cop", "count": 1, "modifiers": ["loved"]},
    {"role": "doctor", "count": 1, "modifiers": ["lynch_proof"]},
    {"role": "goon", "count": 2},
    {"role": "vanilla_townie", "count": 2},
]


def _people(game):
    plain = [s for s in slots_of(game, "vanilla_townie") if not s.modifiers]
    double = next(s for s in slots_of(game, "vanilla_townie") if s.modifiers)
    return double, slot_of(game, "cop"), slot_of(game, "doctor"), slots_of(game, "goon"), plain


def test_double_voter_hammers_with_weight_and_hidden_stays_hidden(make_game, client):
    game = make_game("forum-vanilla", role_list=VOTE_TABLE)  # 7 alive: majority 4
    double, _, _, goons, plain = _people(game)
    services.cast_vote(double.user, game.pk, goons[0].pk)
    body = client.get(f"/api/v1/games/{game.pk}/vote-count/").content.decode()
    wagon = client.get(f"/api/v1/games/{game.pk}/vote-count/").json()["wagons"][0]
    assert (wagon["count"], wagon["voter_count"], wagon["l_minus"]) == (2, 1, 2)
    # hidden: no word about who is loved or weighs double, in the API or the page
    for word in ("double", "loved", "weight", "lynch", "×"):
        assert word not in body.lower().replace("vote_modifiers_public", "")
        page = client.get(f"/games/{game.pk}/").content.decode().lower()
        assert word not in visible_text(page), word
    services.cast_vote(plain[0].user, game.pk, goons[0].pk)
    result = services.cast_vote(plain[1].user, game.pk, goons[0].pk)  # 2 + 1 + 1 = 4
    assert result.day_ended
    goons[0].refresh_from_db()
    assert not goons[0].alive and goons[0].death_cause == "day"


def test_loved_needs_one_more_and_lynch_proof_is_never_hammered(make_game):
    game = make_game("forum-vanilla", role_list=VOTE_TABLE, vote_modifiers_public=True)
    double, loved, proof, goons, plain = _people(game)
    for voter in (plain[0], plain[1], goons[0], goons[1]):  # 4 votes: a plain majority
        assert not services.cast_vote(voter.user, game.pk, loved.pk).day_ended
    count = services.vote_count(current_phase(game))
    wagon = count["wagons"][0]
    assert wagon["needed"] == 5 and wagon["l_minus"] == 1 and wagon["modifiers"] == ["loved"]
    assert current_phase(game).is_day
    for voter in (plain[0], plain[1], goons[0], goons[1]):
        services.unvote(voter.user, game.pk)
    services.cast_vote(double.user, game.pk, proof.pk)
    for voter in (plain[0], plain[1], goons[0]):  # weight 5, past majority
        assert not services.cast_vote(voter.user, game.pk, proof.pk).day_ended
    wagon = services.vote_count(current_phase(game))["wagons"][0]
    assert wagon["modifiers"] == ["lynch-proof"] and wagon["count"] == 5
    assert wagon["voters"][0]["weight"] == 2
    assert current_phase(game).is_day  # the day goes on
    last = services.cast_vote(goons[1].user, game.pk, loved.pk)
    assert not last.day_ended


def test_lynch_proof_can_end_the_day_without_an_elimination(make_game):
    game = make_game("forum-vanilla", role_list=VOTE_TABLE, lynch_proof_ends_day=True)
    double, _, proof, _, plain = _people(game)
    day = current_phase(game)
    services.cast_vote(double.user, game.pk, proof.pk)
    assert not services.cast_vote(plain[0].user, game.pk, proof.pk).day_ended  # 3 of 4
    assert services.cast_vote(plain[1].user, game.pk, proof.pk).day_ended  # 4: at majority
    proof.refresh_from_db()
    after = current_phase(game)
    assert proof.alive and after.pk != day.pk and not after.is_day
    assert all(s.alive for s in game.slots.all())  # nobody eliminated


def test_host_and_archive_records_show_the_day_action(parts_game, host, client_for):
    game = parts_game
    vig, goon = slot_of(game, "day_vigilante"), slot_of(game, "goon")
    services.use_day_action(vig.user, game.pk, target=goon.pk)
    page = visible_text(client_for(host).get(f"/games/{game.pk}/host/").content.decode())
    assert "Day kill" in page and f"{goon.display_name} dies" in page
    # nobody else sees the explanation during the game
    other = client_for(slot_of(game, "survivor").user).get(f"/games/{game.pk}/").content.decode()
    assert "Day kill" not in visible_text(other)
