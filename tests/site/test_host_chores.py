"""The host's daily chores done by the site: numbered vote counts and their history, the
vote log, V/LA, the replacement queue, multi-ISO, the activity overview, the setup library
and a host's saved setups."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from games import services
from games.errors import InvalidInput, NotAllowed, WrongPhase
from games.models import Absence, Game, Replacement, ReplacementSignup, SavedSetup, VoteCountPost
from games.setups import SETUPS
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory
from tests.site.test_forum_parts import visible_text
from tests.site.test_views import _create_post

pytestmark = pytest.mark.django_db


def test_numbered_vote_counts_and_their_history(make_game, host, client):
    game = make_game("forum-vanilla", min_posts_per_day=0)
    a, b = slots_of(game, "vanilla_townie")[:2]
    goon = slot_of(game, "goon")
    first_vote = services.cast_vote(a.user, game.pk, goon.pk)
    one = services.post_vote_count(host, game.pk)
    assert one.label == "Vote count 1.1" and one.post.is_host
    assert f"**{goon.display_name} (1)**" in one.post.body and "L-3" in one.post.body
    services.cast_vote(b.user, game.pk, goon.pk)
    unvote = services.unvote(a.user, game.pk)
    two = services.post_vote_count(host, game.pk)
    assert two.label == "Vote count 1.2"
    with pytest.raises(NotAllowed):
        services.post_vote_count(a.user, game.pk)
    page = client.get(f"/games/{game.pk}/votes/").content.decode()
    text = " ".join(visible_text(page).split())
    assert "Vote count 1.2" in text and "Vote count 1.1" in text
    # each count links the votes that changed it, each vote its post
    assert f"#post-public-{unvote.post.number}" in page
    assert f"#post-public-{first_vote.post.number}" in page
    assert (
        f"{a.display_name} unvoted" in text
        and f"{b.display_name} voted {goon.display_name}" in text
    )
    # the vote log: every vote and unvote in order
    log = text[text.index("Vote log") :]
    assert log.index(a.display_name) < log.index(b.display_name)
    assert "unvote" in log
    services.cut_deadline_now(host, game.pk)
    with pytest.raises(WrongPhase, match="by day"):
        services.post_vote_count(host, game.pk)


def test_scheduled_vote_counts(make_game, host):
    game = make_game("forum-vanilla", vote_count_every=timedelta(hours=6))
    phase = current_phase(game)
    early = services.post_scheduled_counts(now=phase.started_at + timedelta(hours=5))
    assert early == [], (phase.started_at, game.vote_count_every)
    later = phase.started_at + timedelta(hours=6, minutes=1)
    assert services.post_scheduled_counts(now=later) == [game.pk]
    assert services.post_scheduled_counts(now=later + timedelta(hours=1)) == []  # not yet due
    assert [c.label for c in VoteCountPost.objects.all()] == ["Vote count 1.1"]
    with pytest.raises(InvalidInput, match="15 minutes"):
        services.create_game(
            host,
            title="Too often",
            **{**SETUPS["forum-vanilla"].game_kwargs(), "vote_count_every": timedelta(minutes=1)},
        )


def test_vla_shows_in_the_count_and_prods_skip_it(make_game, host, client):
    game = make_game("forum-vanilla", min_posts_per_day=1)
    away, present = slots_of(game, "vanilla_townie")[:2]
    today = timezone.now().date()
    services.mark_away(away.user, game.pk, starts=today, ends=today + timedelta(days=2))
    with pytest.raises(InvalidInput, match="before the first"):
        services.mark_away(present.user, game.pk, starts=today, ends=today - timedelta(days=1))
    with pytest.raises(InvalidInput, match="30 days"):
        services.mark_away(present.user, game.pk, starts=today, ends=today + timedelta(days=60))
    vc = client.get(f"/api/v1/games/{game.pk}/vote-count/").json()
    assert [p["name"] for p in vc["away"]] == [away.display_name]
    page = visible_text(client.get(f"/games/{game.pk}/").content.decode())
    assert "V/LA:" in page and away.display_name in page
    services.cut_deadline_now(host, game.pk)
    away.refresh_from_db()
    present.refresh_from_db()
    assert away.prods == 0 and present.prods == 1
    activity = visible_text(client.get(f"/games/{game.pk}/activity/").content.decode())
    assert "V/LA" in activity


def test_vla_pushes_a_fresh_vote_count_and_its_pages_follow_live(make_game, client_for):
    from games.models import GameEvent

    game = make_game("forum-vanilla")
    away = slots_of(game, "vanilla_townie")[0]
    today = timezone.now().date()

    def newest_count_away() -> list[str]:
        event = GameEvent.objects.filter(game=game, kind="vote_count").latest("seq")
        return [p["name"] for p in event.payload["away"]]

    assert newest_count_away() == []
    absence = services.mark_away(away.user, game.pk, starts=today, ends=today)
    assert newest_count_away() == [away.display_name]  # open pages swap in this count
    services.cancel_absence(away.user, game.pk, absence.pk)
    assert newest_count_away() == []

    # The activity page and the host's queue are live page parts (their sockets push them
    # after V/LA and queue events), and the activity page subscribes like the thread.
    page = client_for(away.user).get(f"/games/{game.pk}/activity/").content.decode()
    assert 'data-live-positions="' in page and "js/live.js" in page
    for part in ('id="activity-overview" data-live-part="activity"', 'data-live-part="chores"'):
        assert part in page
    host_page = client_for(game.host).get(f"/games/{game.pk}/host/").content.decode()
    assert 'id="replacement-queue" data-live-part="chores"' in host_page


def test_replacement_queue_host_click_and_after_prods(make_game, host, client_for):
    game = make_game("forum-vanilla", min_posts_per_day=1, inactivity_action="replace")
    sub1, sub2 = UserFactory(username="sub1"), UserFactory(username="sub2")
    services.join_queue(sub1, game.pk)
    with pytest.raises(InvalidInput, match="already in the replacement queue"):
        services.join_queue(sub1, game.pk)
    with pytest.raises(InvalidInput, match="already have a slot"):
        services.join_queue(slot_of(game, "goon").user, game.pk)
    response = client_for(sub2).post(f"/games/{game.pk}/replacements/join/")
    assert response.status_code == 302 and ReplacementSignup.objects.count() == 2
    slot = slot_of(game, "goon")
    old = slot.user
    services.replace_with_next(host, game.pk, slot.pk)
    slot.refresh_from_db()
    assert slot.user == sub1 and Replacement.objects.get(slot=slot).old_user == old
    # after the prod limit the site swaps in the next in line by itself
    services.submit_post(slot.user, game.pk, body="here")  # the new goon posts
    slow = [s for s in slots_of(game, "vanilla_townie")]
    for s in game.slots.exclude(pk__in=[x.pk for x in slow]).exclude(pk=slot.pk):
        services.submit_post(s.user, game.pk, body="here")
    services.cut_deadline_now(host, game.pk)  # day 1 ends: every vanilla townie prodded
    services.cut_deadline_now(host, game.pk)  # night
    for s in game.slots.all():
        if s.pk not in {x.pk for x in slow}:
            services.submit_post(s.user, game.pk, body="here again")
    services.cut_deadline_now(host, game.pk)  # day 2 ends: second prod
    game.refresh_from_db()
    replaced = Replacement.objects.filter(new_user=sub2)
    assert replaced.count() == 1 and ReplacementSignup.objects.count() == 0
    assert replaced.get().slot.prods == 0
    with pytest.raises(InvalidInput, match="Nobody is in the replacement queue"):
        services.replace_with_next(host, game.pk, slot.pk)
    assert client_for(sub1).post(f"/games/{game.pk}/replacements/nonsense/").status_code == 404


def test_multi_iso_and_activity(make_game, client):
    game = make_game("forum-vanilla")
    a, b = slots_of(game, "vanilla_townie")[:2]
    services.submit_post(a.user, game.pk, body="alpha speaks")
    services.submit_post(b.user, game.pk, body="beta speaks")
    services.submit_post(b.user, game.pk, body="beta again")
    page = client.get(f"/games/{game.pk}/iso/?iso={a.seat}&iso={b.seat}&iso=junk").content.decode()
    assert page.count('class="card iso-column"') == 2
    assert "alpha speaks" in page and "beta again" in page
    assert page.index("alpha speaks") < page.index("beta speaks")  # one column each
    activity = " ".join(
        visible_text(client.get(f"/games/{game.pk}/activity/").content.decode()).split()
    )
    assert f"{b.display_name} 2 / 0" in activity and f"{a.display_name} 1 / 0" in activity


def test_setup_library_and_openness(make_game, client, client_for, host):
    for slug in ("forum-mountainous", "forum-cop-nine", "forum-vig-ten", "forum-newbie-seven"):
        assert SETUPS[slug].openness == "open"
    third = SETUPS["forum-third-party-ten"]
    assert third.openness == "semi-open"
    assert any(e["role"] == "serial_killer" for e in third.role_list)
    start = client_for(host).get("/games/new/").content.decode()
    assert "Mountainous (13)" in start and "Cop 9er" in start and "Vig 10er" in start
    game = make_game("forum-vig-ten")
    detail = client.get(f"/api/v1/games/{game.pk}/").json()
    assert detail["openness"] == "open" and "1× Town 1-Shot Vigilante" in detail["public_setup"]
    assert "1× Town 1-Shot Vigilante" in client.get(f"/games/{game.pk}/").content.decode()
    semi = make_game("forum-third-party-ten")
    detail = client.get(f"/api/v1/games/{semi.pk}/").json()
    assert detail["role_list"] is None and "Serial Killer" in detail["public_setup"]
    assert not any("×" in line for line in detail["public_setup"])
    closed = make_game("forum-vanilla")
    assert client.get(f"/api/v1/games/{closed.pk}/").json()["public_setup"] is None


def test_a_host_saves_a_setup_and_reuses_it(client_for, host):
    client = client_for(host)
    data = _create_post(**{"save_as": "My cop game", "roles-0-mod_shots": "2"})
    assert client.post("/games/new/?ruleset=forum", data).status_code == 302
    saved = SavedSetup.objects.get(owner=host)
    assert saved.name == "My cop game" and saved.data["role_list"][0]["modifiers"] == ["shots:2"]
    assert "My cop game" in client.get("/games/new/").content.decode()
    form = client.get(f"/games/new/?saved={saved.pk}").content.decode()
    assert 'value="My cop game"' in form and "roles-0-mod_shots" in form
    other = client_for(UserFactory(username="other"))
    assert "My cop game" not in other.get(f"/games/new/?saved={saved.pk}").content.decode()
    # a broken setup is not saved, and no game is made either
    bad = _create_post(**{"save_as": "Broken", "roles-0-role": "goon", "roles-2-role": ""})
    before = Game.objects.count()
    client.post("/games/new/?ruleset=forum", {**bad, "roles-1-role": "goon"})
    assert Game.objects.count() == before and not SavedSetup.objects.filter(name="Broken")


def test_vla_and_queue_pages_refuse_bad_input(make_game, client_for):
    game = make_game("forum-vanilla")
    slot = slot_of(game, "goon")
    c = client_for(slot.user)
    assert c.post(f"/games/{game.pk}/away/", {"starts": "nonsense", "ends": ""}).status_code == 302
    assert not Absence.objects.exists()
    today = date.today().isoformat()
    assert c.post(f"/games/{game.pk}/away/", {"starts": today, "ends": today}).status_code == 302
    assert Absence.objects.count() == 1
