"""The post limit (the ``post_limit`` variant): posts per living player per day in the game
thread, lifted ``post_limit_lifted`` before the deadline (``reads.post_limit``,
``services.post_limit``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games import scheduling, services, tasks
from games.errors import ErrorCode, WrongPhase
from games.models import GameEvent, Phase, Post
from games.reads import post_limit
from games.services import post_limit as limit_services
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def limited(make_game: Any, limit: int = 2, lifted: timedelta | None = None, **more: Any) -> Any:
    """A forum-vanilla game on day 1, 24 hours long, with the post limit."""
    return make_game(
        "forum-vanilla",
        post_limit=limit,
        post_limit_lifted=lifted,
        day_length=timedelta(hours=24),
        **more,
    )


def refused(user: Any, game: Any, body: str = "More talk.", **kw: Any) -> WrongPhase:
    before = (Post.objects.count(), GameEvent.objects.count())
    with pytest.raises(WrongPhase) as caught:
        services.submit_post(user, game.pk, body=body, **kw)
    assert caught.value.code == ErrorCode.POST_LIMIT_REACHED and caught.value.status == 409
    assert (Post.objects.count(), GameEvent.objects.count()) == before  # the game untouched
    return caught.value


def left(game: Any, slot: Any, **kw: Any) -> Any:
    slot.refresh_from_db()
    return post_limit.allowance(game, slot, current_phase(game), **kw)


def test_a_player_has_the_limit_a_day_and_is_refused_past_it(make_game):
    game = limited(make_game, 2)
    townie, other = slots_of(game, "vanilla_townie")[:2]
    assert left(game, townie).sentence() == "2 of 2 posts left today."
    services.submit_post(townie.user, game.pk, body="One.")
    assert left(game, townie).sentence() == "1 of 2 posts left today."
    services.submit_post(townie.user, game.pk, body="Two.")
    assert left(game, townie).sentence() == (
        "You have used your 2 posts today; the limit holds until tomorrow."
    )
    assert refused(townie.user, game).message == "You have used your 2 posts today."
    # Each player has their own: another player still posts.
    services.submit_post(other.user, game.pk, body="My first.")
    # The poster's own feed was told what was left after each post.
    told = GameEvent.objects.filter(game=game, kind="posts_left", audience=f"slot:{townie.pk}")
    assert [e.payload for e in told.order_by("seq")] == [
        {"left": 1, "limit": 2},
        {"left": 0, "limit": 2},
    ]


def test_no_limit_without_the_setting(make_game):
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    for n in range(5):
        services.submit_post(townie.user, game.pk, body=f"Post {n}.")
    assert left(game, townie) is None
    assert not GameEvent.objects.filter(game=game, kind="posts_left").exists()


def test_the_host_and_private_threads_are_never_limited(make_game, host):
    game = limited(make_game, 1)
    goon = slot_of(game, "goon")
    for n in range(3):
        services.submit_post(host, game.pk, body=f"Host post {n}.")
    services.submit_post(goon.user, game.pk, body="Public.")
    refused(goon.user, game)
    for n in range(3):
        services.submit_post(goon.user, game.pk, body=f"Plan {n}.", thread="mafia")
    # The dead thread too.
    services.modkill(host, game.pk, goon.pk)
    for n in range(3):
        services.submit_post(goon.user, game.pk, body=f"Ghost {n}.", thread="dead")


def test_votes_are_not_posts_and_may_be_cast_at_the_limit(make_game):
    game = limited(make_game, 1)
    townies = slots_of(game, "vanilla_townie")
    voter, a, b = townies[0], townies[1], townies[2]
    services.cast_vote(voter.user, game.pk, a.pk)  # the button: not counted
    assert left(game, voter).left == 1
    services.submit_post(voter.user, game.pk, body="I talk once.")
    assert left(game, voter).reached
    # At the limit the buttons still vote and unvote.
    services.cast_vote(voter.user, game.pk, b.pk)
    services.unvote(voter.user, game.pk)
    # A post that is only a vote line, as the button writes it, is a vote too.
    result = services.submit_post(voter.user, game.pk, body=f"**Vote: {a.display_name}**")
    assert result.vote is not None and result.vote.target_id == a.pk
    # A bold vote inside a post is a post: refused, and its vote not cast.
    refused(voter.user, game, body=f"Because they lurk. **Vote: {b.display_name}**")
    assert left(game, voter).used == 1


def test_with_secret_votes_a_typed_vote_line_is_still_a_vote(make_game):
    """Its post is stored as "(voted)" (the buttons post nothing then): never counted."""
    game = limited(make_game, 1, secret_votes="totals")
    voter, target = slots_of(game, "vanilla_townie")[:2]
    services.submit_post(voter.user, game.pk, body="My one post.")
    result = services.submit_post(voter.user, game.pk, body=f"**Vote: {target.display_name}**")
    assert result.vote is not None and result.post.body != f"**Vote: {target.display_name}**"
    assert left(game, voter).used == 1
    refused(voter.user, game)


def test_the_limit_is_lifted_before_the_deadline(make_game):
    game = limited(make_game, 1, lifted=HOUR)
    townie = slot_of(game, "vanilla_townie")
    deadline = current_phase(game).deadline
    services.submit_post(townie.user, game.pk, body="Once.")
    lifts = deadline - HOUR
    assert left(game, townie).sentence() == (
        "You have used your 1 post today; the limit lifts at "
        f"{lifts.strftime('%a %-d %b, %H:%M')} UTC."
    )
    refused(townie.user, game)
    just_before = lifts - timedelta(seconds=1)
    with pytest.raises(WrongPhase):
        services.submit_post(townie.user, game.pk, body="Too soon.", now=just_before)
    for n in range(3):
        services.submit_post(townie.user, game.pk, body=f"Lifted {n}.", now=lifts)
    found = left(game, townie, at=lifts)
    assert found.lifted and found.posts_left is None
    assert found.sentence() == "The post limit is lifted until the deadline."
    # No event told the poster of posts left while lifted.
    assert GameEvent.objects.filter(game=game, kind="posts_left").count() == 1


def test_an_extended_deadline_moves_the_lift(make_game, host):
    game = limited(make_game, 1, lifted=HOUR)
    townie = slot_of(game, "vanilla_townie")
    services.submit_post(townie.user, game.pk, body="Once.")
    deadline = current_phase(game).deadline
    inside = deadline - timedelta(minutes=30)
    services.submit_post(townie.user, game.pk, body="Lifted.", now=inside)
    services.extend_deadline(host, game.pk, by=2 * HOUR)
    with pytest.raises(WrongPhase):  # the new deadline is 2.5 hours away then
        services.submit_post(townie.user, game.pk, body="Not any more.", now=inside)
    services.submit_post(townie.user, game.pk, body="Lifted again.", now=deadline + HOUR)


def test_a_paused_day_keeps_its_lift(make_game, host):
    game = limited(make_game, 1, lifted=HOUR)
    townie = slot_of(game, "vanilla_townie")
    services.submit_post(townie.user, game.pk, body="Once.")
    services.pause_game(host, game.pk)  # 24 hours left: the limit holds
    assert left(game, townie).sentence() == (
        "You have used your 1 post today; the limit lifts 1 hour before the deadline."
    )
    refused(townie.user, game)
    Phase.objects.filter(game=game, number=1).update(paused_remaining=timedelta(minutes=30))
    assert left(game, townie).lifted  # paused inside the window: still lifted
    services.submit_post(townie.user, game.pk, body="Still lifted.")


def test_the_count_starts_again_each_day(make_game, host):
    game = limited(make_game, 1)
    townie = slot_of(game, "vanilla_townie")
    services.submit_post(townie.user, game.pk, body="Day one.")
    refused(townie.user, game)
    services.cut_deadline_now(host, game.pk)  # night: no limit by night
    assert left(game, townie) is None
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_day
    assert left(game, townie).sentence() == "1 of 1 post left today."
    services.submit_post(townie.user, game.pk, body="Day two.")


# -- the lift: an event at its moment --------------------------------------------------------
def test_the_lift_is_announced_once_per_deadline(make_game, host):
    game = limited(make_game, 1, lifted=HOUR)
    deadline = current_phase(game).deadline
    lifts = deadline - HOUR
    assert limit_services.due_lifts(lifts - timedelta(seconds=1)) == []
    assert limit_services.nearing_lifts(lifts - timedelta(seconds=20), timedelta(seconds=30)) == [
        (game.pk, 1, lifts)
    ]
    assert limit_services.lift(game.pk, 1, now=lifts - timedelta(seconds=1)) is False
    assert limit_services.lift_due(lifts) == [(game.pk, 1)]
    assert limit_services.lift_due(lifts) == []  # once
    event = GameEvent.objects.get(game=game, kind="post_limit_lifted")
    assert event.audience == "public"
    assert event.payload == {"number": 1, "deadline": deadline.isoformat()}
    # An extension after the lift: the limit holds again, and lifts again later.
    services.extend_deadline(host, game.pk, by=2 * HOUR)
    assert limit_services.lift_due(lifts) == []
    assert limit_services.lift_due(deadline + HOUR) == [(game.pk, 1)]
    assert GameEvent.objects.filter(game=game, kind="post_limit_lifted").count() == 2


def test_no_lift_without_a_lift_setting_or_by_night(make_game, host):
    game = limited(make_game, 1)  # never lifted
    deadline = current_phase(game).deadline
    assert limit_services.lift_due(deadline - timedelta(minutes=1)) == []
    other = limited(make_game, 1, lifted=HOUR)
    services.cut_deadline_now(host, other.pk)  # night
    night = current_phase(other)
    assert limit_services.lift(other.pk, night.number, now=night.deadline) is False


def test_the_embedded_runner_lifts_what_is_due(make_game):
    game = limited(make_game, 1, lifted=HOUR)
    Phase.objects.filter(game=game, number=1).update(
        deadline=timezone.now() + timedelta(minutes=30)
    )
    tasks.run_due_phases()
    assert GameEvent.objects.filter(game=game, kind="post_limit_lifted").count() == 1


def test_the_web_watchdog_lifts_what_is_overdue_by_its_grace(make_game):
    """The web process's watchdog (``deadlines``, no Celery and no Redis needed) lifts a
    limit once its lift is overdue by the watchdog's grace, as it ends an overdue phase."""
    game = limited(make_game, 1, lifted=HOUR)
    lifts = current_phase(game).deadline - HOUR
    grace = timedelta(seconds=25)
    assert limit_services.lift_due(lifts + timedelta(seconds=24), overdue_by=grace) == []
    assert limit_services.lift_due(lifts + grace, overdue_by=grace) == [(game.pk, 1)]
    assert limit_services.lift_due(lifts + 2 * grace) == []  # once: the scan finds it done
    assert GameEvent.objects.filter(game=game, kind="post_limit_lifted").count() == 1


def test_a_near_lift_gets_an_eta_task(
    make_game, host, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[tuple[str, tuple[int, ...], Any]] = []

    def fake_send_task(name: str, args: Any, eta: Any, expires: Any, retry: bool) -> None:
        sent.append((name, tuple(args), eta))

    monkeypatch.setattr(scheduling.celery_app, "send_task", fake_send_task)
    monkeypatch.setattr(scheduling, "eta_tasks_enabled", lambda: True)
    game = limited(make_game, 1, lifted=HOUR)
    assert sent == []  # 23 hours away: the scan's
    phase = current_phase(game)
    with django_capture_on_commit_callbacks(execute=True):
        services.pause_game(host, game.pk)
    Phase.objects.filter(pk=phase.pk).update(paused_remaining=HOUR + timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        services.resume_game(host, game.pk)
    deadline = current_phase(game).deadline
    assert (scheduling.LIFT_POST_LIMIT_TASK, (game.pk, 1), deadline - HOUR) in sent
    # The task lifts it once it is due, through the same service.
    assert tasks.lift_post_limit_task(game.pk, 1) is False  # five minutes early: nothing


# -- pages and the API -----------------------------------------------------------------------
def test_the_reply_box_says_what_is_left(make_game, client_for, host):
    game = limited(make_game, 2)
    townie = slot_of(game, "vanilla_townie")
    page = client_for(townie.user)
    assert "2 of 2 posts left today." in page.get(f"/games/{game.pk}/").content.decode()
    services.submit_post(townie.user, game.pk, body="One.")
    services.submit_post(townie.user, game.pk, body="Two.")
    html = page.get(f"/games/{game.pk}/").content.decode()
    assert "You have used your 2 posts today; the limit holds until tomorrow." in html
    assert 'id="reply-body"' not in html  # no box to type in
    goon = slot_of(game, "goon")
    mafia = client_for(goon.user).get(f"/games/{game.pk}/t/mafia/").content.decode()
    assert "posts left today" not in mafia and 'id="reply-body"' in mafia
    host_page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert "posts left today" not in host_page
    # The form's refusal is the service's sentence.
    answer = page.post(f"/games/{game.pk}/post/", {"body": "Three."}, follow=True)
    assert "You have used your 2 posts today." in answer.content.decode()


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_whole_game_through_the_api_with_a_post_limit(host, make_users):
    users = make_users(7)
    made = api(host).post(
        "/api/v1/games/",
        {
            "title": "Few words",
            "setup": "forum-vanilla",
            "post_limit": 2,
            "post_limit_lifted_minutes": 60,
            "day_length_minutes": 600,
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["post_limit"] == 2
    gid = made.json()["id"]
    for user in users:
        assert api(user).post(f"/api/v1/games/{gid}/join/").status_code == 200
    assert api(host).post(f"/api/v1/games/{gid}/start/").status_code == 200
    slots = {
        s["name"]: s["slot_id"] for s in api(host).get(f"/api/v1/games/{gid}/").json()["players"]
    }
    roles = {
        s["name"]: s["role"] for s in api(host).get(f"/api/v1/games/{gid}/host/").json()["slots"]
    }
    by_name = {u.username: u for u in users}
    town = [by_name[n] for n, r in roles.items() if r == "vanilla_townie"]
    goons = [by_name[n] for n, r in roles.items() if r == "goon"]
    me = town[0]
    assert api(me).get(f"/api/v1/games/{gid}/").json()["posts_left"] == 2
    assert api(host).get(f"/api/v1/games/{gid}/").json()["posts_left"] is None
    for body in ("Hello.", "Who is scum?"):
        assert (
            api(me).post(f"/api/v1/games/{gid}/posts/", {"body": body}, format="json").status_code
            == 201
        )
    assert api(me).get(f"/api/v1/games/{gid}/").json()["posts_left"] == 0
    answer = api(me).post(f"/api/v1/games/{gid}/posts/", {"body": "One more."}, format="json")
    assert answer.status_code == 409
    assert answer.json()["code"] == "post_limit_reached"
    assert answer.json()["error"] == "You have used your 2 posts today."
    # Private threads are not limited.
    for n in range(3):
        chat = api(goons[0]).post(
            f"/api/v1/games/{gid}/posts/", {"body": f"Plan {n}.", "thread": "mafia"}, format="json"
        )
        assert chat.status_code == 201
    # At the limit the vote still counts: the town votes a goon out (majority 4 of 7).
    target = slots[goons[0].username]
    for voter in [me, *town[1:4]]:
        vote = api(voter).post(f"/api/v1/games/{gid}/vote/", {"target": target}, format="json")
        assert vote.status_code == 200, vote.content
    game = api(me).get(f"/api/v1/games/{gid}/").json()
    assert game["phase"]["kind"] == "night" and game["posts_left"] is None
    # Night: the goon left kills a townie; day 2 counts again from nothing.
    victim = slots[town[-1].username]
    acted = api(goons[1]).post(
        f"/api/v1/games/{gid}/actions/", {"ability": "kill", "targets": [victim]}, format="json"
    )
    assert acted.status_code in (200, 201), acted.content
    assert api(host).post(f"/api/v1/games/{gid}/host/cut/").status_code == 200
    assert api(me).get(f"/api/v1/games/{gid}/").json()["posts_left"] == 2
    assert (
        api(me).post(f"/api/v1/games/{gid}/posts/", {"body": "Day 2."}, format="json").status_code
        == 201
    )
    # The town finishes it: the last goon by majority.
    alive = [p for p in api(me).get(f"/api/v1/games/{gid}/").json()["players"] if p["alive"]]
    last_goon = slots[goons[1].username]
    voters = [by_name[p["name"]] for p in alive if p["slot_id"] != last_goon]
    for voter in voters:
        if api(host).get(f"/api/v1/games/{gid}/").json()["status"] != "running":
            break
        api(voter).post(f"/api/v1/games/{gid}/vote/", {"target": last_goon}, format="json")
    final = api(me).get(f"/api/v1/games/{gid}/").json()
    assert final["status"] == "finished" and final["winner"] == "town"
    assert final["posts_left"] is None


def test_the_openapi_document_names_the_refusal(client):
    schema = client.get("/api/v1/openapi.json").content.decode()
    assert "post_limit_reached" in schema and "posts_left" in schema
