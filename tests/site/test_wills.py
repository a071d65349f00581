"""Last wills (the ``last_wills`` variant): a living player keeps a will; at their death
(elimination, night kill, modkill, day shot) the thread gets it right after the death's
announcement; a janitor's clean hides it; nobody but its writer and the host reads it
before. Services, pages, and a whole game through the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, GameRuleError
from games.models import Post, Slot, Thread
from games.services.wills import MAX_WILL_LENGTH
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def public_posts(game: Any) -> list[Post]:
    return list(Post.objects.filter(game=game, thread=Thread.PUBLIC).order_by("number"))


def after(game: Any, text: str) -> Post:
    """The post right after the first one containing ``text``."""
    posts = public_posts(game)
    at = next(i for i, p in enumerate(posts) if text in p.body)
    return posts[at + 1]


def refused(call: Any) -> ErrorCode:
    with pytest.raises(GameRuleError) as info:
        call()
    return info.value.code


def vote_out(game: Any, target: Slot) -> None:
    """Everyone else votes ``target``; the host ends the day."""
    for slot in game.slots.filter(alive=True).exclude(pk=target.pk).select_related("user"):
        if current_phase(game).is_day:
            services.cast_vote(slot.user, game.pk, target.pk)
    if current_phase(game).is_day:
        services.cut_deadline_now(game.host, game.pk)


# -- the services ---------------------------------------------------------------------------
def test_an_eliminated_players_will_follows_the_announcement(make_game):
    game = make_game("forum-vanilla", last_wills=True)
    townie = slot_of(game, "vanilla_townie")
    kept = services.write_will(townie.user, game.pk, "  I was town.\n\nTrust player3.  ")
    assert kept.will == "I was town.\n\nTrust player3."  # trimmed
    assert kept.will_updated_at is not None
    vote_out(game, townie)
    townie.refresh_from_db()
    assert not townie.alive
    post = after(game, "has been eliminated")
    assert post.is_auto and post.is_host
    assert post.body.startswith(f"**{townie.user.username}'s last will:**")
    # A quote of its own, as the thread renders every post.
    assert "<blockquote>" in post.html and "Trust player3." in post.html


def test_a_night_kill_and_a_modkill_post_the_will_or_say_there_is_none(make_game):
    game = make_game("forum-vanilla", last_wills=True)
    goon = slot_of(game, "goon")
    victim, silent = slots_of(game, "vanilla_townie")[:2]
    services.write_will(victim.user, game.pk, "Night will WILLMARK1")
    services.modkill(game.host, game.pk, silent.pk, reason="gone")
    assert after(game, "has been modkilled").body == f"**{silent.user.username} left no will.**"
    services.cut_deadline_now(game.host, game.pk)  # no elimination: the night
    assert current_phase(game).is_night
    services.submit_night_action(goon.user, game.pk, ability="kill", targets=[victim.pk])
    services.cut_deadline_now(game.host, game.pk)
    post = after(game, "was found dead")
    assert "WILLMARK1" in post.body and f"{victim.user.username}'s last will" in post.body
    # The banner links it with the night's announcement.
    day = current_phase(game)
    assert post.number in day.announcements


def test_a_day_shot_posts_the_will(make_game):
    game = make_game("forum-third-party-ten", last_wills=True)
    vig = slot_of(game, "day_vigilante")
    townie = slot_of(game, "vanilla_townie")
    services.write_will(townie.user, game.pk, "Shot will WILLMARK4")
    services.use_day_action(vig.user, game.pk, target=townie.pk)
    townie.refresh_from_db()
    assert not townie.alive
    post = after(game, "has been shot and dies")
    assert "WILLMARK4" in post.body
    assert post.number in current_phase(game).announcements


def test_without_last_wills_nothing_is_posted_and_nothing_written(make_game):
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    assert refused(lambda: services.write_will(townie.user, game.pk, "x")) == ErrorCode.NO_WILLS
    before = len(public_posts(game))
    services.modkill(game.host, game.pk, townie.pk)
    assert len(public_posts(game)) == before + 1  # the modkill's announcement alone
    assert "will" not in public_posts(game)[-1].body


def test_only_a_living_player_of_a_running_game_writes_a_will(make_game, host):
    pending = make_game("forum-vanilla", start=False, last_wills=True)
    signed = pending.slots.select_related("user").first()
    code = refused(lambda: services.write_will(signed.user, pending.pk, "early"))
    assert code == ErrorCode.NOT_STARTED

    game = make_game("forum-vanilla", last_wills=True, seed=8)
    townie = slot_of(game, "vanilla_townie")
    outsider = UserFactory(username="outsider")
    assert refused(lambda: services.write_will(outsider, game.pk, "x")) == ErrorCode.NOT_PLAYER
    assert refused(lambda: services.write_will(host, game.pk, "x")) == ErrorCode.NOT_PLAYER
    too_long = "w" * (MAX_WILL_LENGTH + 1)
    assert refused(lambda: services.write_will(townie.user, game.pk, too_long)) == (
        ErrorCode.TOO_LONG
    )
    nul = "a\x00b"  # PostgreSQL's text cannot hold it: refused, not a 500
    assert refused(lambda: services.write_will(townie.user, game.pk, nul)) == ErrorCode.INVALID
    services.write_will(townie.user, game.pk, "w" * MAX_WILL_LENGTH)  # the limit itself
    services.modkill(host, game.pk, townie.pk)
    assert refused(lambda: services.write_will(townie.user, game.pk, "x")) == ErrorCode.DEAD
    # The refused writes changed nothing.
    townie.refresh_from_db()
    assert townie.will == "w" * MAX_WILL_LENGTH
    for slot in game.slots.filter(alive=True).exclude(role="goon"):
        game.refresh_from_db()
        if game.is_running:  # (the mafia win at parity)
            services.modkill(host, game.pk, slot.pk)
    game.refresh_from_db()
    assert game.is_finished
    goon = slot_of(game, "goon")
    assert refused(lambda: services.write_will(goon.user, game.pk, "x")) == ErrorCode.GAME_OVER


def test_a_wills_markup_is_rendered_safely_and_cannot_pass_for_the_host(make_game):
    game = make_game("forum-vanilla", last_wills=True)
    townie = slot_of(game, "vanilla_townie")
    will = '<script>alert("x")</script>\n**player1 has been eliminated.**\n[vote]player2[/vote]'
    services.write_will(townie.user, game.pk, will)
    services.modkill(game.host, game.pk, townie.pk)
    post = after(game, "has been modkilled")
    assert "<script>" not in post.html and "&lt;script&gt;" in post.html
    # Every line of the will is inside the quote.
    assert post.html.count("<blockquote>") == 1
    assert post.html.index("<blockquote>") < post.html.index("player1 has been eliminated")
    assert all(line.startswith(">") for line in post.body.split("\n")[2:])


def test_a_janitors_clean_hides_the_will_with_the_role(make_game, host):
    game = services.create_game(
        host,
        title="Cleaned",
        ruleset="forum",
        role_list=[{"role": "janitor"}, {"role": "vanilla_townie", "count": 4}],
        starts_with="night",
        last_wills=True,
        seed=3,
    )
    for n in range(5):
        services.join_game(UserFactory(username=f"clean{n}"), game.pk)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    janitor = slot_of(game, "janitor")
    victim = slot_of(game, "vanilla_townie")
    services.write_will(victim.user, game.pk, "Cleaned away WILLMARK2")
    services.submit_night_action(janitor.user, game.pk, ability="kill", targets=[victim.pk])
    services.submit_night_action(janitor.user, game.pk, ability="clean", targets=[victim.pk])
    services.cut_deadline_now(host, game.pk)
    victim.refresh_from_db()
    assert not victim.alive and victim.revealed_role == "unknown"
    post = after(game, "was found dead")
    assert post.body == f"**{victim.user.username}'s last will could not be found.**"
    assert not any("WILLMARK2" in p.body for p in Post.objects.filter(game=game))
    # Its writer is told why, and the host still reads it.
    role_page = Client()
    role_page.force_login(victim.user)
    assert "You were cleaned" in role_page.get(f"/games/{game.pk}/role/").content.decode()
    host_page = Client()
    host_page.force_login(host)
    assert "WILLMARK2" in host_page.get(f"/games/{game.pk}/host/").content.decode()


# -- the pages ------------------------------------------------------------------------------
def test_the_role_pm_keeps_the_will_and_only_its_writer_and_the_host_see_it(make_game, host):
    game = make_game("forum-vanilla", last_wills=True)
    townie, other = slots_of(game, "vanilla_townie")[:2]
    writer = Client()
    writer.force_login(townie.user)
    page = writer.get(f"/games/{game.pk}/role/").content.decode()
    assert 'id="will-form"' in page and "Save will" in page
    answer = writer.post(f"/games/{game.pk}/role/will/", {"text": "Page will WILLMARK3"})
    assert answer.status_code == 302
    page = writer.get(answer["Location"]).content.decode()
    assert "WILLMARK3" in page and "Your will is saved" in page
    # Too long: the message says so and the will stays as it was.
    page = writer.post(
        f"/games/{game.pk}/role/will/", {"text": "y" * (MAX_WILL_LENGTH + 1)}, follow=True
    ).content.decode()
    assert f"at most {MAX_WILL_LENGTH:,} characters" in page and "WILLMARK3" in page

    someone, spectator, boss = Client(), Client(), Client()
    someone.force_login(other.user)
    boss.force_login(host)
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/role/", f"/api/v1/games/{game.pk}/"):
        for client in (someone, spectator):
            assert "WILLMARK3" not in client.get(url).content.decode(), url
    assert "WILLMARK3" in boss.get(f"/games/{game.pk}/host/").content.decode()

    services.modkill(host, game.pk, townie.pk)
    for client in (someone, spectator):
        assert "WILLMARK3" in client.get(f"/games/{game.pk}/").content.decode()
    page = writer.get(f"/games/{game.pk}/role/").content.decode()
    assert 'id="will-form"' not in page and "posted in the thread when you died" in page


def test_the_survivors_wills_are_posted_when_the_game_ends(make_game, host):
    """A survivor's will stays its writer's and the host's while the game runs; the game
    over, it is posted after the game-over announcement, readable to everyone in the thread
    (a survivor who kept none gets no post)."""
    game = make_game("forum-vanilla", last_wills=True)
    goon, other_goon = slots_of(game, "goon")
    townies = slots_of(game, "vanilla_townie")
    survivor, silent = townies[0], townies[1]
    services.write_will(survivor.user, game.pk, "Survivor will WILLMARK5")
    services.write_will(goon.user, game.pk, "Goon will WILLMARK6")
    spectator = Client()
    urls = (f"/games/{game.pk}/", f"/api/v1/games/{game.pk}/posts/?thread=public&page=last")
    for url in urls:
        page = spectator.get(url).content.decode()
        assert "WILLMARK5" not in page and "WILLMARK6" not in page, url
    vote_out(game, other_goon)
    services.cut_deadline_now(host, game.pk)  # a night with no kill
    for slot in game.slots.filter(alive=True).exclude(pk=goon.pk).select_related("user"):
        game.refresh_from_db()
        if game.is_running:  # the hammer: the town wins, the goon's will posted at death
            services.cast_vote(slot.user, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    bodies = [p.body for p in public_posts(game)]
    goons_will = next(i for i, body in enumerate(bodies) if "WILLMARK6" in body)
    game_over = next(i for i, body in enumerate(bodies) if "The game is over" in body)
    assert goons_will < game_over  # at its death, before the end
    survivor_post = after(game, "The game is over")
    assert survivor_post.body.startswith(f"**{survivor.user.username}'s last will:**")
    assert "WILLMARK5" in survivor_post.body and survivor_post.is_auto and survivor_post.is_host
    assert not any(p.body.startswith(f"**{silent.user.username}") for p in public_posts(game))
    for url in urls:  # the thread, as a dead player's will is
        assert "WILLMARK5" in spectator.get(url).content.decode(), url
    writer = Client()
    writer.force_login(survivor.user)
    page = writer.get(f"/games/{game.pk}/role/").content.decode()
    assert "your will was posted in the thread at its end" in page


def test_no_will_form_without_last_wills(make_game):
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    client = Client()
    client.force_login(townie.user)
    assert 'id="last-will"' not in client.get(f"/games/{game.pk}/role/").content.decode()


# -- the API --------------------------------------------------------------------------------
def api_for(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_the_api_reads_and_keeps_a_will_with_clear_errors(make_game):
    game = make_game("forum-vanilla", last_wills=True)
    townie = slot_of(game, "vanilla_townie")
    api = api_for(townie.user)
    url = f"/api/v1/games/{game.pk}/will/"
    assert api.get(url).json() == {
        "text": "",
        "updated_at": None,
        "editable": True,
        "fate": "kept",
        "max_length": MAX_WILL_LENGTH,
    }
    answer = api.put(url, {"text": "API will"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["text"] == "API will" and answer.json()["updated_at"]
    too_long = api.put(url, {"text": "z" * (MAX_WILL_LENGTH + 1)}, format="json")
    assert too_long.status_code == 400
    assert too_long.json()["field"] == "text" and "2000" in too_long.json()["error"]
    assert api.put(url, {}, format="json").status_code == 400
    assert api.get(url).json()["text"] == "API will"
    # Nobody else has a will here: a spectator, the host.
    assert api_for(UserFactory(username="nosy")).get(url).status_code == 404
    assert api_for(game.host).put(url, {"text": "x"}, format="json").json()["code"] == (
        "not_player"
    )
    services.modkill(game.host, game.pk, townie.pk)
    dead = api.put(url, {"text": "late"}, format="json")
    assert dead.status_code == 403 and dead.json()["code"] == "dead"
    assert api.get(url).json()["fate"] == "posted"

    plain = make_game("forum-vanilla", seed=9)
    player = plain.slots.select_related("user").first()
    off = api_for(player.user).put(f"/api/v1/games/{plain.pk}/will/", {"text": "x"}, format="json")
    assert off.status_code == 403 and off.json()["code"] == "no_wills"


def test_a_whole_game_through_the_api_with_last_wills(make_game):
    """Every player keeps a will; each death posts the dead player's will in the thread,
    no living player's will reaches the public posts while the game runs, and the
    survivors' are posted at its end."""
    game = make_game("forum-vanilla", last_wills=True, seed=11)
    host = api_for(game.host)
    g = game.pk
    slots = list(game.slots.select_related("user").order_by("seat"))
    marks = {s.pk: f"WILL{s.seat}MARK" for s in slots}
    for slot in slots:
        answer = api_for(slot.user).put(
            f"/api/v1/games/{g}/will/", {"text": f"I am {marks[slot.pk]}"}, format="json"
        )
        assert answer.status_code == 200, answer.content
    for _ in range(12):
        game.refresh_from_db()
        if not game.is_running:
            break
        alive = list(game.slots.filter(alive=True).select_related("user").order_by("seat"))
        number = game.phase_number
        if current_phase(game).is_day:
            target = next(s for s in alive if s.role == "goon")
            for slot in alive:
                if slot.pk != target.pk and current_phase(game).is_day:
                    api_for(slot.user).post(f"/api/v1/games/{g}/vote/", {"target": target.pk})
        else:
            goon = next(s for s in alive if s.role == "goon")
            town = next(s for s in alive if s.role != "goon")
            sent = api_for(goon.user).post(
                f"/api/v1/games/{g}/actions/",
                {"ability": "kill", "targets": [town.pk]},
                format="json",
            )
            assert sent.status_code == 200, sent.content
        game.refresh_from_db()
        if game.is_running and game.phase_number == number:  # (not ended by the hammer)
            host.post(f"/api/v1/games/{g}/host/cut/")
        posts = Client().get(f"/api/v1/games/{g}/posts/?thread=public&page=last").json()
        public = "\n".join(p["html"] for p in posts["results"])
        everything = "\n".join(p.body for p in public_posts(game))
        game.refresh_from_db()
        for slot in Slot.objects.filter(game=game):  # every will is posted at the end
            assert (marks[slot.pk] in everything) == (not slot.alive or game.is_finished), slot
        assert public
    game.refresh_from_db()
    assert game.is_finished
    dead = list(game.slots.filter(alive=False))
    assert len(dead) == 3
    for slot in game.slots.all():  # the dead's at their deaths, the survivors' at the end
        assert any(
            p.body.startswith(f"**{slot.user.username}'s last will:**") for p in public_posts(game)
        )
