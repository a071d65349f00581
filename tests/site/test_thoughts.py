"""Revealed reasoning (issue 34, part 4): any act through the API may carry ``thoughts``,
kept with the act and read by nobody, not the host nor the team, until the game ends.

(The leak scanner sends thoughts with every act of its four whole games and searches every
page, answer, frame, mail and webhook of every person for them, the host's included.)"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import InvalidInput
from games.models import MAX_THOUGHTS_LENGTH, Post, Thought
from games.reads.thoughts import thoughts_of
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def everything_seen(game: Any, users: list[Any]) -> str:
    """What these people may fetch of the game while it runs, pages and answers."""
    g = game.pk
    paths = [
        f"/api/v1/games/{g}/",
        f"/api/v1/games/{g}/posts/?page=last",
        f"/api/v1/games/{g}/posts/?thread=mafia&page=last",
        f"/api/v1/games/{g}/vote-count/",
        f"/api/v1/games/{g}/role/",
        f"/api/v1/games/{g}/host/",
        f"/api/v1/games/{g}/votes/",
        f"/games/{g}/",
        f"/games/{g}/t/mafia/",
        f"/games/{g}/role/",
        f"/games/{g}/host/",
        f"/games/{g}/votes/",
        f"/games/{g}/activity/",
    ]
    seen = []
    for user in users:
        client = api(user)
        for path in paths:
            seen.append(client.get(path).content.decode())
    return "\n".join(seen)


def test_thoughts_ride_with_every_kind_of_act_and_nobody_reads_them(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    g = f"/api/v1/games/{game.pk}/"
    goon, cop = slot_of(game, "goon"), slot_of(game, "cop")
    town = [s for s in slots_of(game, "vanilla_townie") if s.alive]
    answer = api(town[0].user).post(
        g + "posts/", {"body": "Hello all.", "thoughts": "POSTTHOUGHT goon reads scummy"}
    )
    assert answer.status_code == 201, answer.content
    number = answer.json()["post"]["number"]
    answer = api(town[1].user).post(
        g + "vote/", {"target": goon.pk, "thoughts": "VOTETHOUGHT a hunch"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    answer = api(goon.user).post(
        g + "posts/", {"body": "we", "thread": "mafia", "thoughts": "MAFIATHOUGHT kill the cop"}
    )
    assert answer.status_code == 201, answer.content
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    answer = api(cop.user).post(
        g + "actions/",
        {"ability": "investigate", "targets": [goon.pk], "thoughts": "NIGHTTHOUGHT check"},
        format="json",
    )
    assert answer.status_code == 200, answer.content

    kept = list(Thought.objects.filter(game=game).order_by("id"))
    assert [(t.slot_id, t.act, t.phase.label) for t in kept] == [
        (town[0].pk, "post", "Day 1"),
        (town[1].pk, "vote", "Day 1"),
        (goon.pk, "post", "Day 1"),
        (cop.pk, "night_action", "Night 1"),
    ]
    assert kept[0].post == Post.objects.get(game=game, thread="public", number=number)
    assert kept[1].post is not None and kept[1].post.body.startswith("**Vote:")
    # Nobody reads them while the game runs: the writers, their partners, the host, others.
    seen = everything_seen(game, [host, goon.user, cop.user, town[0].user, town[1].user, None])
    for marker in ("POSTTHOUGHT", "VOTETHOUGHT", "MAFIATHOUGHT", "NIGHTTHOUGHT"):
        assert marker not in seen, marker
    assert thoughts_of(game) == []  # the read answers nothing before the end


def test_a_table_s_pass_and_nomination_carry_thoughts(make_game):
    game = make_game("classic-ten", table=True)
    services.advance_phase(game.pk, 1, now=current_phase(game).deadline)
    g = f"/api/v1/games/{game.pk}/"
    speaker_id = api().get(g + "turn/").json()["speaker"]["slot_id"]
    speaker = game.slots.get(pk=speaker_id)
    other = game.slots.exclude(pk=speaker_id).filter(alive=True).first()
    answer = api(speaker.user).post(
        g + "nominate/", {"target": other.pk, "thoughts": "NOMTHOUGHT"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert Thought.objects.get(game=game).act == "nomination"
    # A pass with no body at all is still a pass; one whose step refuses it keeps nothing.
    refused = api(other.user).post(g + "turn/pass/", {"thoughts": "REFUSED"}, format="json")
    assert refused.status_code in (409, 422), refused.content
    assert not Thought.objects.filter(text="REFUSED").exists()


def test_bad_thoughts_refuse_the_act_and_leave_the_game_untouched(make_game, host):
    game = make_game()
    g = f"/api/v1/games/{game.pk}/"
    townie = slot_of(game, "vanilla_townie")
    posts = Post.objects.filter(game=game).count()
    too_long = "x" * (MAX_THOUGHTS_LENGTH + 1)
    for thoughts in (too_long, ["a"], {"a": 1}):  # (a number is taken as its text)
        answer = api(townie.user).post(
            g + "posts/", {"body": "Hi.", "thoughts": thoughts}, format="json"
        )
        assert answer.status_code == 400, answer.content
        assert answer.json()["field"] == "thoughts", answer.json()
    # Through the service (the pages, bots in process): 422 with the field named.
    with pytest.raises(InvalidInput) as refused:
        services.submit_post(townie.user, game.pk, body="Hi.", thoughts=too_long)
    assert refused.value.field == "thoughts" and refused.value.code == "thoughts"
    # The host's post is no player's act: its thoughts are refused, not dropped silently.
    answer = api(host).post(g + "posts/", {"body": "Day 1.", "thoughts": "mine"}, format="json")
    assert answer.status_code == 422 and answer.json()["code"] == "thoughts", answer.content
    # A refused act keeps no thoughts: a vote for a player not in the game.
    answer = api(townie.user).post(
        g + "vote/", {"target": 999_999, "thoughts": "LOST"}, format="json"
    )
    assert answer.status_code in (404, 422), answer.content
    assert Post.objects.filter(game=game).count() == posts
    assert not Thought.objects.exists()


def test_after_the_end_everyone_reads_them_named_by_the_holder_then(make_game, host):
    game = make_game()
    townie = slot_of(game, "vanilla_townie")
    before = townie.user.get_username()
    services.submit_post(townie.user, game.pk, body="Hi.", thoughts="BEFORE the swap")
    services.replace_player(host, game.pk, townie.pk, UserFactory(username="newcomer"))
    townie.refresh_from_db()
    services.submit_post(townie.user, game.pk, body="Hello.", thoughts="AFTER the swap")
    assert thoughts_of(game) == []
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    game.refresh_from_db()
    assert game.is_finished
    read = thoughts_of(game)
    assert [(t["name"], t["text"], t["act"], t["phase"]) for t in read] == [
        (before, "BEFORE the swap", "post", "Day 1"),
        ("newcomer", "AFTER the swap", "post", "Day 1"),
    ]
    assert all(t["seat"] == townie.seat and t["post"] for t in read)
    # The review shows them in their phase, on the page and in its answer.
    page = api().get(f"/games/{game.pk}/review/?phase=1").content.decode()
    assert "BEFORE the swap" in page and "AFTER the swap" in page and 'id="review-thoughts"' in page
    review = api().get(f"/api/v1/games/{game.pk}/review/").json()
    day = next(p for p in review["phases"] if p["number"] == 1)
    assert [t["text"] for t in day["thoughts"]] == ["BEFORE the swap", "AFTER the swap"]
    assert all(not p["thoughts"] for p in review["phases"] if p["number"] != 1)
