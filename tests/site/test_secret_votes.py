"""Secret votes (``Game.secret_votes``): while the day runs, everyone but the host sees only
each wagon's total ("totals") or no count at all ("hidden"); the host sees the whole count;
the day's end reveals it. No other door shows who votes whom: the vote button's post, a bold
vote typed in a post, the vote events, the numbered counts, the votes page and the API."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import fragments, services
from games.models import GameEvent, Phase, Post, Slot, Vote, VoteCountPost
from games.reads import activity
from games.reads.vote_count import public_count
from games.services.posts import SECRET_VOTE_NOTE
from tests.conftest import current_phase, slots_of

pytestmark = pytest.mark.django_db


def townies(game, n=4):
    return slots_of(game, "vanilla_townie")[:n]


def client(user=None):
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def test_totals_show_each_wagon_without_its_voters(make_game, host):
    game = make_game(secret_votes="totals")
    a, b, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    services.cast_vote(b.user, game.pk, c.pk)
    whole = services.vote_count(current_phase(game))
    assert [v["slot_id"] for v in whole["wagons"][0]["voters"]] == [a.pk, b.pk]
    game.refresh_from_db()
    public = public_count(game, whole)
    assert public["secret"] == "totals" and public["not_voting"] == []
    (wagon,) = public["wagons"]
    assert (wagon["name"], wagon["count"], wagon["l_minus"], wagon["voters"]) == (
        c.display_name,
        2,
        2,
        [],
    )
    spectator = client()
    page = spectator.get(f"/games/{game.pk}/").content.decode()
    assert "each wagon shows its total only" in page
    assert 'title="the post that cast this vote"' not in page
    host_page = client(host).get(f"/games/{game.pk}/").content.decode()
    assert 'id="whole-count"' in host_page and 'id="vote-count"' not in host_page
    assert "the post that cast this vote" not in host_page  # the button posts nothing
    whole = host_page.split('id="whole-count"')[1].split("</section>")[0]
    assert a.display_name in whole and b.display_name in whole
    shown = page.split('id="vote-count"')[1].split("</section>")[0]
    assert c.display_name in shown and a.display_name not in shown


def test_hidden_shows_no_count_until_the_day_ends(make_game, host):
    game = make_game(secret_votes="hidden")
    a, b, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    page = client(b.user).get(f"/games/{game.pk}/").content.decode()
    count = page.split('id="vote-count"')[1].split("</section>")[0]
    assert "Votes are secret until the day ends." in count
    assert c.display_name not in count and a.display_name not in count
    api = client(b.user).get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert api["secret"] == "hidden" and api["wagons"] == [] and api["not_voting"] == []
    whole = client(host).get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert "secret" not in whole and whole["wagons"][0]["voters"][0]["slot_id"] == a.pk


def test_the_vote_button_posts_nothing_and_its_event_is_the_hosts_and_the_voters(make_game):
    game = make_game(secret_votes="totals")
    a, _, c, _ = townies(game)
    before = Post.objects.count()
    result = services.cast_vote(a.user, game.pk, c.pk)
    assert result.post is None and result.vote.target == c
    assert Post.objects.count() == before
    votes = GameEvent.objects.filter(game=game, kind="vote")
    assert sorted(e.audience for e in votes) == sorted(["host", f"slot:{a.pk}"])
    services.unvote(a.user, game.pk)
    assert Post.objects.count() == before
    unvotes = GameEvent.objects.filter(game=game, kind="unvote")
    assert sorted(e.audience for e in unvotes) == sorted(["host", f"slot:{a.pk}"])
    for event in GameEvent.objects.filter(game=game, kind="vote_count"):
        assert all(w["voters"] == [] for w in event.payload["wagons"]), event.payload


def test_a_typed_vote_counts_but_its_post_does_not_name_the_target(make_game, host):
    game = make_game(secret_votes="totals")
    a, _, c, _ = townies(game)
    body = f"I think it is them.\n\n**Vote: {c.display_name}**\n\nbye"
    result = services.submit_post(a.user, game.pk, body=body)
    assert result.vote is not None and result.vote.target == c
    post = Post.objects.get(pk=result.post.pk)
    assert c.display_name not in post.body and c.display_name not in post.html
    assert "(voted)" in post.html and "I think it is them." in post.html
    event = GameEvent.objects.get(game=game, kind="post", payload__number=post.number)
    assert c.display_name not in json.dumps(event.payload)
    # The host sees whose vote it was and on whom, with its post, in the whole count.
    count = client(host).get(f"/api/v1/games/{game.pk}/vote-count/").json()
    voter = count["wagons"][0]["voters"][0]
    assert (voter["slot_id"], voter["post_number"]) == (a.pk, post.number)


def test_a_refused_typed_vote_tells_its_reason_to_the_voter_only(make_game):
    game = make_game(secret_votes="hidden")
    a = townies(game)[0]
    result = services.submit_post(a.user, game.pk, body="**Vote: Nobodyhere**")
    assert "Nobodyhere" in result.vote_message
    post = Post.objects.get(pk=result.post.pk)
    assert "Nobodyhere" not in post.html + post.body + post.vote_note
    assert post.vote_note == SECRET_VOTE_NOTE


def test_unvote_in_a_post_stays(make_game):
    game = make_game(secret_votes="totals")
    a, _, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    result = services.submit_post(a.user, game.pk, body="**Unvote**")
    assert "Unvote" in result.post.html
    assert not services.vote_count(current_phase(game))["wagons"]


def test_the_numbered_count_post_shows_totals_and_the_history_is_the_hosts(make_game, host):
    game = make_game(secret_votes="totals")
    a, b, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    posted = services.post_vote_count(host, game.pk)
    assert f"**{c.display_name} (1)** — L-3" in posted.post.body
    assert a.display_name not in posted.post.body and "Not voting" not in posted.post.body
    assert VoteCountPost.objects.get().data["wagons"][0]["voters"][0]["slot_id"] == a.pk
    game.refresh_from_db()
    assert activity.vote_log(game, whole=False) == []
    assert len(activity.vote_log(game)) == 1
    (entry,) = activity.count_history(game, whole=False)
    assert entry["changes"] == [] and entry["data"]["wagons"][0]["voters"] == []
    page = client(b.user).get(f"/games/{game.pk}/votes/").content.decode()
    assert "Votes are secret until the day ends" in page and "voted " not in page
    log = client(b.user).get(f"/api/v1/games/{game.pk}/vote-log/").json()
    assert log == []
    assert len(client(host).get(f"/api/v1/games/{game.pk}/vote-log/").json()) == 1


def test_hidden_count_post_says_votes_are_secret(make_game, host):
    game = make_game(secret_votes="hidden")
    a, _, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    posted = services.post_vote_count(host, game.pk)
    assert "Votes are secret until the day ends." in posted.post.body
    assert c.display_name not in posted.post.body


def test_the_days_end_reveals_every_vote(make_game, host):
    game = make_game(secret_votes="hidden")
    alive = list(game.slots.filter(alive=True).select_related("user").order_by("seat"))
    target = alive[0]
    voters = [s for s in alive if s.pk != target.pk][:4]  # 7 alive: 4 is majority
    for voter in voters:
        services.cast_vote(voter.user, game.pk, target.pk)
    game.refresh_from_db()
    day = game.phases.filter(kind="day").order_by("number").first()
    assert day.resolved
    ended = Post.objects.filter(game=game, is_auto=True).order_by("-number")
    announcement = next(p for p in ended if "eliminated" in p.body)
    for voter in voters:
        assert voter.display_name in announcement.body
    page = client().get(f"/games/{game.pk}/").content.decode()
    count = page.split('id="vote-count"')[1].split("</section>")[0]
    assert "Final vote count" in count and voters[0].display_name in count
    assert len(activity.vote_log(game, whole=False)) == 4


def test_open_games_are_unchanged(make_game):
    game = make_game()
    a, _, c, _ = townies(game)
    result = services.cast_vote(a.user, game.pk, c.pk)
    assert result.post.body == f"**Vote: {c.display_name}**"
    assert GameEvent.objects.get(game=game, kind="vote").audience == "public"
    context = fragments.vote_count_context(game)
    assert fragments.count_context(game, context["vc"], whole=False)["vc"] is context["vc"]
    assert Vote.objects.count() == 1


def api(user=None):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def voters_in(value):
    """Every voter named anywhere in a JSON answer (a wagon's voters, a vote's voter)."""
    if isinstance(value, dict):
        found = [v["slot_id"] for v in value.get("voters", [])]
        return found + [x for v in value.values() for x in voters_in(v)]
    if isinstance(value, list):
        return [x for v in value for x in voters_in(v)]
    return []


def test_a_whole_game_through_the_api_with_secret_votes(host, make_users):
    made = api(host).post(
        "/api/v1/games/",
        {"title": "Secret", "setup": "forum-vanilla", "secret_votes": "totals"},
        format="json",
    )
    assert made.status_code == 201, made.content
    game_id = made.json()["id"]
    users = make_users(7)
    for user in users:
        assert api(user).post(f"/api/v1/games/{game_id}/join/").status_code in (200, 201)
    assert api(host).post(f"/api/v1/games/{game_id}/start/").status_code == 200
    assert api(host).get(f"/api/v1/games/{game_id}/").json()["secret_votes"] == "totals"
    by_user = {s.user_id: s for s in Slot.objects.filter(game_id=game_id)}
    days = 0
    for _ in range(12):
        detail = api(host).get(f"/api/v1/games/{game_id}/").json()
        if detail["status"] != "running":
            break
        phase = Phase.objects.filter(game_id=game_id).order_by("-number").first()
        if phase.kind != "day":
            api(host).post(f"/api/v1/games/{game_id}/host/cut/")
            continue
        days += 1
        alive = [s for s in Slot.objects.filter(game_id=game_id, alive=True).order_by("seat")]
        goon = next((s for s in alive if s.role == "goon"), alive[0])
        voters = [s for s in alive if s.pk != goon.pk]
        majority = len(alive) // 2 + 1
        first, watcher = voters[0], voters[-1]
        # The first voter types it; the rest press the button.
        typed = api(first.user).post(
            f"/api/v1/games/{game_id}/posts/",
            {"body": f"**Vote: {goon.display_name}**"},
            format="json",
        )
        assert typed.status_code == 201 and goon.display_name not in typed.json()["post"]["html"]
        answer = api(voters[1].user).post(
            f"/api/v1/games/{game_id}/vote/", {"target": goon.pk}, format="json"
        )
        assert answer.status_code == 200 and answer.json()["post"] is None
        assert answer.json()["vote_count"]["secret"] == "totals"
        # Mid-day: nobody but the host learns who votes whom, from any read.
        for path in ("", "vote-count/", "vote-log/", "vote-counts/", "posts/?page=last"):
            for who in (watcher.user, None):
                seen = api(who).get(f"/api/v1/games/{game_id}/{path}").json()
                assert voters_in(seen) == [], (path, seen)
                assert f"Vote: {goon.display_name}" not in json.dumps(seen), path
        count = api(watcher.user).get(f"/api/v1/games/{game_id}/vote-count/").json()
        assert [(w["name"], w["count"]) for w in count["wagons"]] == [(goon.display_name, 2)]
        whole = api(host).get(f"/api/v1/games/{game_id}/vote-count/").json()
        assert voters_in(whole) == [first.pk, voters[1].pk]
        for voter in voters[2:majority]:
            api(voter.user).post(
                f"/api/v1/games/{game_id}/vote/", {"target": goon.pk}, format="json"
            )
        # The day is over: everyone sees who voted whom.
        final = api(watcher.user).get(f"/api/v1/games/{game_id}/vote-count/").json()
        assert "secret" not in final and voters_in(final)[:2] == [first.pk, voters[1].pk]
        log = api(None).get(f"/api/v1/games/{game_id}/vote-log/").json()
        assert {e["voter"] for e in log if e["phase"] == phase.number} >= {
            by_user[first.user_id].display_name
        }
    assert days >= 1
    assert api(host).get(f"/api/v1/games/{game_id}/").json()["status"] == "finished"


def test_the_activity_page_counts_no_secret_votes_but_the_hosts(make_game, host):
    game = make_game(secret_votes="hidden")
    a, b, c, _ = townies(game)
    services.cast_vote(a.user, game.pk, c.pk)
    game.refresh_from_db()
    mine = {r["name"]: r["cells"][0]["votes"] for r in activity.activity(game, whole=False)["rows"]}
    assert set(mine.values()) == {None}
    whole = {r["name"]: r["cells"][0]["votes"] for r in activity.activity(game)["rows"]}
    assert whole[a.display_name] == 1
    page = client(b.user).get(f"/games/{game.pk}/activity/").content.decode()
    assert "Votes are secret until the day ends" in page
    assert (
        "Votes are secret" not in client(host).get(f"/games/{game.pk}/activity/").content.decode()
    )
