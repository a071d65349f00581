"""``games.reads.needs.needs_of``: what the game waits for from each player now."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Slot
from games.reads.needs import needs_of
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db


def slots(game: Any) -> list[Slot]:
    return list(game.slots.select_related("user").order_by("seat"))


def needs(game: Any) -> dict[int, list[str]]:
    game.refresh_from_db()
    return needs_of(game, slots(game))


def test_a_forum_day_needs_every_living_players_vote_until_they_vote(make_game):
    game = make_game("forum-vanilla")
    first, second, third = slots(game)[:3]
    assert set(map(tuple, needs(game).values())) == {("vote",)}
    services.cast_vote(first.user, game.pk, second.pk)
    services.cast_vote(second.user, game.pk, None)  # no elimination is a vote too
    now = needs(game)
    assert now[first.pk] == [] and now[second.pk] == [] and now[third.pk] == ["vote"]
    services.unvote(first.user, game.pk)
    assert needs(game)[first.pk] == ["vote"]


def test_only_the_given_slots_are_answered(make_game):
    game = make_game("forum-vanilla")
    one = slots(game)[0]
    assert needs_of(game, [one]) == {one.pk: ["vote"]}


def test_a_night_needs_the_actions_of_those_who_have_one(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(host, game.pk)
    assert current_phase(game).is_night
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    goons = slots_of(game, "goon")
    now = needs(game)
    assert now[cop.pk] == ["night_action"] and now[doctor.pk] == ["night_action"]
    assert all(now[g.pk] == ["night_action"] for g in goons)
    assert all(now[s.pk] == [] for s in slots_of(game, "vanilla_townie"))
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[doctor.pk])
    services.submit_night_action(goons[0].user, game.pk, ability="kill", targets=[doctor.pk])
    now = needs(game)
    assert now[cop.pk] == [] and now[doctor.pk] == ["night_action"]
    # The faction's kill is sent for both goons, whoever sent it.
    assert all(now[g.pk] == [] for g in goons)


def test_a_table_day_needs_the_speaker(make_game, host):
    pytest.importorskip("resolver.rulesets.classic")
    game = make_game("classic-ten", table=True)
    assert current_phase(game).night_zero
    assert not any(needs(game).values())  # night zero: nobody acts
    services.advance_phase(game.pk, 1, now=current_phase(game).deadline)
    from games.reads.table import turn_view

    game.refresh_from_db()
    speaker = turn_view(game, current_phase(game), slots(game))["speaker"]["slot_id"]
    now = needs(game)
    assert now[speaker] == ["your_turn"]
    assert all(codes == [] for slot_id, codes in now.items() if slot_id != speaker)


def test_a_prod_is_news_for_the_phase_after_the_day_that_earned_it(make_game, host):
    game = make_game("forum-vanilla", min_posts_per_day=1)
    talker = slots(game)[0]
    services.submit_post(talker.user, game.pk, body="I am here and talking.")
    services.cut_deadline_now(host, game.pk)  # everyone else has not posted: prodded
    now = needs(game)
    assert "prodded" not in now[talker.pk]
    quiet = [s for s in slots(game) if s.alive and s.pk != talker.pk]
    assert all(now[s.pk][-1] == "prodded" for s in quiet)
    services.cut_deadline_now(host, game.pk)  # the night ends: day 2, the prod is old news
    assert current_phase(game).is_day
    assert not any("prodded" in codes for codes in needs(game).values())


def test_nothing_is_needed_before_the_start_or_after_the_end(make_game):
    game = make_game("forum-vanilla", start=False)
    assert not any(needs(game).values())
