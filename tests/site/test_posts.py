"""Who may post where and when (forum rules 2, 3 and 5), and how posts are stored."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.errors import NotAllowed, NotFound, WrongPhase
from games.models import GameEvent, Post
from tests.conftest import current_phase, slot_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def to_night(game, host):
    services.cut_deadline_now(host, game.pk)
    phase = current_phase(game)
    assert phase.is_night
    return phase


def test_posts_are_numbered_per_thread_and_rendered(make_game):
    game = make_game()
    goon, townie = slot_of(game, "goon"), slot_of(game, "vanilla_townie")
    first = services.submit_post(townie.user, game.pk, body="hello *all*").post
    second = services.submit_post(goon.user, game.pk, body="[b]hi[/b]").post
    chat = services.submit_post(goon.user, game.pk, body="we", thread="mafia").post
    # Post #1 of the game thread is the site's "Day 1 begins" announcement.
    assert (first.number, second.number, chat.number) == (2, 3, 1)
    assert first.html == "<p>hello <em>all</em></p>"
    assert second.html == "<p><strong>hi</strong></p>"
    assert first.slot == townie and first.phase.number == 1 and not first.is_host
    event = GameEvent.objects.get(
        game=game, kind="post", payload__thread="mafia", payload__number=chat.number
    )
    assert event.audience == "mafia"


def test_host_posts_anywhere_and_never_votes(make_game, host, client_for):
    game = make_game()
    host_client = client_for(host)
    townie = slot_of(game, "vanilla_townie")
    post = services.submit_post(host, game.pk, body=f"**Vote: {townie.display_name}**").post
    assert post.is_host and post.slot is None
    assert not post.votes.exists()
    assert services.host_post(host, game.pk, body="night falls", thread="dead").is_host
    with pytest.raises(NotAllowed):
        services.host_post(townie.user, game.pk, body="I am the host now")
    # Only into threads the game has: forum-vanilla has no neighbours, so nobody, the host
    # included, could open that thread (the pages and the service ask one answer).
    for thread in ("neighbors", "masons"):
        with pytest.raises(NotFound):
            services.host_post(host, game.pk, body="anyone here?", thread=thread)
        assert host_client.get(f"/games/{game.pk}/t/{thread}/").status_code == 404
    assert not Post.objects.filter(game=game, thread__in=("neighbors", "masons")).exists()


def test_dead_players_post_only_in_the_dead_thread(make_game, host):
    game = make_game()
    goon = slot_of(game, "goon")
    townie = slot_of(game, "vanilla_townie")
    services.modkill(host, game.pk, townie.pk)
    with pytest.raises(NotAllowed, match="Dead players cannot post in the game thread"):
        services.submit_post(townie.user, game.pk, body="I was town!")
    assert services.submit_post(townie.user, game.pk, body="gg", thread="dead").post.number == 1
    with pytest.raises(NotAllowed, match="Only dead players"):
        services.submit_post(goon.user, game.pk, body="peek", thread="dead")
    services.modkill(host, game.pk, goon.pk)
    with pytest.raises(NotAllowed, match="mafia chat"):
        services.submit_post(goon.user, game.pk, body="still here?", thread="mafia")


def test_mafia_chat_is_for_living_mafia(make_game):
    game = make_game()
    townie = slot_of(game, "vanilla_townie")
    with pytest.raises(NotAllowed, match="cannot post in the mafia chat"):
        services.submit_post(townie.user, game.pk, body="let me in", thread="mafia")
    with pytest.raises(NotAllowed, match="the Masons' thread"):
        services.submit_post(townie.user, game.pk, body="brother?", thread="masons")
    with pytest.raises(NotFound):
        services.submit_post(townie.user, game.pk, body="?", thread="secret")


def test_masons_post_in_their_thread(make_game):
    pytest.importorskip("resolver.rulesets.power")
    game = make_game("power-nine")
    mason = slot_of(game, "mason")
    cop = slot_of(game, "cop")
    assert services.submit_post(mason.user, game.pk, body="hi", thread="masons").post
    with pytest.raises(NotAllowed):
        services.submit_post(cop.user, game.pk, body="hi", thread="masons")


def test_no_night_posting_in_the_game_thread(make_game, host):
    game = make_game()
    to_night(game, host)
    townie, goon = slot_of(game, "vanilla_townie"), slot_of(game, "goon")
    with pytest.raises(WrongPhase, match="Nobody but the host posts in the game thread at night"):
        services.submit_post(townie.user, game.pk, body="psst")
    assert services.submit_post(goon.user, game.pk, body="kill who?", thread="mafia").post
    assert services.submit_post(host, game.pk, body="It is night.").post.is_host


def test_night_posting_allowed_but_votes_count_for_nothing(make_game, host):
    game = make_game(no_night_posting=False)
    to_night(game, host)
    townie, goon = slot_of(game, "vanilla_townie"), slot_of(game, "goon")
    result = services.submit_post(townie.user, game.pk, body=f"**Vote: {goon.display_name}**")
    assert result.vote is None
    assert "only count during the day" in result.vote_message


def test_only_players_post(make_game):
    game = make_game()
    with pytest.raises(NotAllowed, match="Only the players and the host"):
        services.submit_post(UserFactory(username="lurker"), game.pk, body="hi")


def test_signup_chatter_and_closed_private_threads(make_game):
    game = make_game(start=False)
    slot = game.slots.first()
    post = services.submit_post(slot.user, game.pk, body="excited!").post
    assert post.phase is None
    with pytest.raises(WrongPhase, match="sign-ups"):
        services.submit_post(slot.user, game.pk, body="x", thread="mafia")


def test_empty_and_huge_posts_are_refused(make_game):
    game = make_game()
    user = slot_of(game, "vanilla_townie").user
    with pytest.raises(Exception, match="empty"):
        services.submit_post(user, game.pk, body="   ")
    with pytest.raises(Exception, match="at most"):
        services.submit_post(user, game.pk, body="x" * 20_001)
    assert Post.objects.filter(game=game, is_auto=False).count() == 0


def test_a_refused_post_leaves_no_trace(make_game):
    game = make_game()
    townie = slot_of(game, "vanilla_townie")
    seq = game.event_seq
    with pytest.raises(NotAllowed):
        services.submit_post(townie.user, game.pk, body="x", thread="mafia")
    game.refresh_from_db()
    assert game.event_seq == seq
    assert not GameEvent.objects.filter(game=game, seq__gt=seq).exists()


def test_events_are_published_after_commit(
    make_game, monkeypatch, django_capture_on_commit_callbacks
):
    game = make_game()
    calls = []
    monkeypatch.setattr("games.live.publisher.publish_events", lambda g, s: calls.append((g, s)))
    townie = slot_of(game, "vanilla_townie")
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_post(townie.user, game.pk, body="hello")
    assert calls == [(game.pk, game.event_seq + 1)]


def test_posts_never_change_once_made(make_game):
    game = make_game()
    townie = slot_of(game, "vanilla_townie")
    post = services.submit_post(townie.user, game.pk, body="first").post
    services.submit_post(townie.user, game.pk, body="second", now=timezone.now() + timedelta(1))
    post.refresh_from_db()
    assert post.body == "first"
    assert not hasattr(services, "edit_post")


def test_someone_outside_a_team_thread_is_told_whose_it_is(make_game):
    game = make_game("power-nine")
    cop = slot_of(game, "cop")
    with pytest.raises(NotAllowed) as refused:
        services.submit_post(cop.user, game.pk, body="Let me in.", thread="masons")
    assert str(refused.value) == "You cannot post in the Masons' thread."
    assert refused.value.code == "not_mason"
