"""The live regions: each partial renders from the page's context and from the live
layer's smaller one (just the game and the event's data), with its stable id."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string

from games import fragments, services
from games.models import Post
from games.reads.access import Viewer
from tests.conftest import current_phase, slots_of

pytestmark = pytest.mark.django_db


def test_vote_count_partial_from_the_page_and_from_an_event(make_game):
    game = make_game("forum-vanilla")
    a, b = list(game.slots.order_by("seat"))[:2]
    services.cast_vote(a.user, game.pk, b.pk)
    page = fragments.render_vote_count(game)
    count = services.vote_count(current_phase(game))
    live = render_to_string("games/_vote_count.html", {"game": game, "count": count})
    for html in (page, live):
        assert 'id="vote-count"' in html and f"{b.display_name}</span>" in html
        assert "?page=1#post-public-2" in html and "L-3" in html  # #1: "Day 1 begins"
        assert "<time datetime=" in html and "UTC</time>" in html
    services.cut_deadline_now(game.host, game.pk)
    game.refresh_from_db()
    assert "Final vote count" in fragments.render_vote_count(game)


def test_players_partial_buttons_depend_on_the_viewer(make_game):
    game = make_game("forum-vanilla")
    a = game.slots.order_by("seat").first()
    mine = fragments.render_players(game, a.user)
    anonymous = fragments.render_players(game, None)
    live = render_to_string(
        "games/_players.html", {"game": game, "viewer": Viewer(game, AnonymousUser(), None)}
    )
    assert 'id="players"' in mine and 'id="players"' in anonymous and 'id="players"' in live
    assert len(re.findall(r'data-vote="\d+"', mine)) == 6
    assert "data-vote" not in anonymous and "data-vote" not in live
    for html in (mine, anonymous, live):
        for slot in slots_of(game, "goon"):
            assert "goon" not in html and slot.display_name in html


def test_banner_and_post_partials(make_game):
    game = make_game("forum-vanilla", start=False)
    banner = render_to_string("games/_phase_banner.html", {"game": game, "phase": None})
    assert 'id="phase-banner"' in banner and "7 of 7 players" in banner
    game = make_game("forum-cop-doctor-nine", seed=3)
    a = game.slots.order_by("seat").first()
    services.submit_post(a.user, game.pk, body="**hello** <script>x</script>")
    post = Post.objects.get(game=game, is_auto=False)
    html = fragments.render_post(post)
    assert 'id="post-public-2"' in html and "<strong>hello</strong>" in html
    # The same HTML for everyone: CSS shows "Quote" only beside a reply box.
    assert "<script>" not in html and 'data-quote="2"' in html
    day = fragments.render_phase_banner(game)
    assert "Day 1" in day and "data-countdown" in day
    # The banner links the site's announcement of the phase.
    assert 'data-announcement="1"' in day and "?page=1#post-public-1" in day
