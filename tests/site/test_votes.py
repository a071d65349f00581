"""Day votes: posts and buttons, majority with hammer or lock, plurality, nominations, revotes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import fragments, services
from games.errors import InvalidInput, NotAllowed, WrongPhase
from games.models import Vote
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db

LATER = timedelta(days=3)


def vote(slot, target, game):
    return services.submit_post(slot.user, game.pk, body=f"**Vote: {target.display_name}**")


def test_a_bold_vote_in_a_post_counts_and_links_to_it(make_game):
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    result = vote(a, b, game)
    assert result.vote.target == b and result.vote.post == result.post
    count = services.vote_count(current_phase(game))
    assert count["wagons"][0]["name"] == b.display_name
    voter = count["wagons"][0]["voters"][0]
    assert (voter["slot_id"], voter["post_number"]) == (a.pk, result.post.number)
    assert count["wagons"][0]["l_minus"] == 3  # 7 alive: majority 4
    assert count["majority_text"] == "With 7 alive it takes 4 to eliminate"
    assert a.pk not in [p["slot_id"] for p in count["not_voting"]]
    assert len(count["not_voting"]) == 6


def test_unbolded_quoted_and_abbreviated_votes_count_for_nothing(make_game):
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    name = b.display_name
    for body in (f"Vote: {name}", f"**V: {name}**", f"[quote]**Vote: {name}**[/quote]"):
        result = services.submit_post(a.user, game.pk, body=body)
        assert result.vote is None and result.vote_message == ""
    assert not Vote.objects.exists()


def test_unknown_ambiguous_dead_and_prefix_names(make_game, host):
    game = make_game()
    a, _, c = slots_of(game, "vanilla_townie")[:3]
    result = services.submit_post(a.user, game.pk, body="**Vote: Nobodyhere**")
    assert result.post.pk and result.vote is None
    assert 'No living player is called "Nobodyhere"' in result.vote_message
    result = services.submit_post(a.user, game.pk, body="**Vote: play**")  # player1..player7
    assert "could mean" in result.vote_message and result.vote is None
    result = services.submit_post(a.user, game.pk, body="**Vote: PLAYER3**")
    assert result.vote.target.display_name == "player3"
    services.modkill(host, game.pk, c.pk)
    result = services.submit_post(a.user, game.pk, body=f"**Vote: {c.display_name}**")
    assert "is dead" in result.vote_message


def test_self_votes_only_where_allowed(make_game):
    game = make_game()
    a = slot_of(game, "vanilla_townie")
    with pytest.raises(InvalidInput, match="cannot vote for yourself"):
        services.cast_vote(a.user, game.pk, a.pk)
    result = vote(a, a, game)
    assert result.vote is None and "yourself" in result.vote_message
    game2 = make_game(self_vote_allowed=True, seed=99)
    a2 = slot_of(game2, "vanilla_townie")
    assert services.cast_vote(a2.user, game2.pk, a2.pk).vote.target == a2


def test_vote_button_posts_the_vote(make_game):
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    result = services.cast_vote(a.user, game.pk, b.pk)
    assert result.post.body == f"**Vote: {b.display_name}**"
    assert result.vote.post == result.post
    skip = services.cast_vote(a.user, game.pk, None)
    assert skip.vote.is_skip and "No elimination" in skip.post.body
    count = services.vote_count(current_phase(game))
    assert count["wagons"][0]["target"] is None
    assert count["wagons"][0]["name"] == "No elimination"
    undo = services.unvote(a.user, game.pk)
    assert undo.post.body == "**Unvote**"
    assert services.vote_count(current_phase(game))["wagons"] == []
    with pytest.raises(InvalidInput, match="not voting"):
        services.unvote(a.user, game.pk)


def test_latest_vote_per_voter_stands(make_game):
    game = make_game()
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    vote(a, b, game)
    vote(a, c, game)
    services.submit_post(b.user, game.pk, body=f"**Vote: {c.display_name}** then **Unvote**")
    wagons = services.vote_count(current_phase(game))["wagons"]
    assert [(w["name"], w["count"]) for w in wagons] == [(c.display_name, 1)]


def test_votes_refused_at_night_by_the_dead_and_for_spectators(make_game, host):
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    services.modkill(host, game.pk, b.pk)
    with pytest.raises(InvalidInput, match="dead"):
        services.cast_vote(a.user, game.pk, b.pk)
    with pytest.raises(NotAllowed, match="dead"):
        services.cast_vote(b.user, game.pk, a.pk)
    services.cut_deadline_now(host, game.pk)
    with pytest.raises(WrongPhase, match="during the day"):
        services.cast_vote(a.user, game.pk, None)
    with pytest.raises(InvalidInput):
        services.cast_vote(a.user, game.pk, 999999)


def test_hammer_ends_the_day_at_once(make_game):
    game = make_game()  # forum vanilla, 7 alive, hammer at 4
    goon = slot_of(game, "goon")
    townies = slots_of(game, "vanilla_townie")
    for voter in townies[:3]:
        assert not vote(voter, goon, game).day_ended
    result = vote(townies[3], goon, game)
    assert result.day_ended
    day = game.phases.get(number=1)
    assert day.resolved and day.report["eliminated"] == goon.resolver_name
    goon.refresh_from_db()
    assert not goon.alive and goon.death_cause == "day" and goon.revealed_role == "goon"
    night = current_phase(game)
    assert night.number == 2 and night.is_night and not night.resolved


def test_hammer_on_no_elimination_ends_the_day_without_a_death(make_game):
    game = make_game()
    for voter in slots_of(game, "vanilla_townie")[:4]:
        services.cast_vote(voter.user, game.pk, None)
    assert game.phases.get(number=1).report["eliminated"] is None
    assert game.slots.filter(alive=True).count() == 7


def test_lock_one_vote_past_majority(make_game):
    game = make_game("forum-cop-doctor-nine")  # 9 alive: majority 5, lock at 6
    goon = slot_of(game, "goon")
    voters = [s for s in game.slots.order_by("seat") if s.role != "goon"][:6]
    for voter in voters[:5]:
        services.cast_vote(voter.user, game.pk, goon.pk)
    assert not current_phase(game).resolved  # majority does not end a lock day
    assert not Vote.objects.filter(locked=True).exists()
    services.unvote(voters[0].user, game.pk)  # not locked yet: may withdraw
    services.cast_vote(voters[0].user, game.pk, goon.pk)
    services.cast_vote(voters[5].user, game.pk, goon.pk)
    count = services.vote_count(current_phase(game))
    assert count["wagons"][0]["locked"] and count["lock_text"] == "A wagon of 6 locks"
    with pytest.raises(NotAllowed, match="locked"):
        services.unvote(voters[1].user, game.pk)
    with pytest.raises(NotAllowed, match="locked"):
        services.cast_vote(voters[1].user, game.pk, None)
    result = services.submit_post(voters[2].user, game.pk, body="**Unvote**")
    assert "locked" in result.vote_message
    # The panel offers a locked voter no button the service would refuse, and says why;
    # a voter outside the locked wagon keeps theirs.
    locked_panel = fragments.players_context(game, voters[1].user)
    assert locked_panel["vote_locked"] and not locked_panel["can_unvote"]
    assert not any(row["votable"] for row in locked_panel["rows"])
    assert not locked_panel["skip_votable"]
    assert "data-vote-locked" in fragments.render_players(game, voters[1].user)
    free = next(s for s in game.slots.order_by("seat") if s not in voters and s.role != "goon")
    free_panel = fragments.players_context(game, free.user)
    assert not free_panel["vote_locked"] and any(row["votable"] for row in free_panel["rows"])
    assert services.advance_phase(game.pk, 1, now=timezone.now() + LATER)
    goon.refresh_from_db()
    assert not goon.alive


def test_no_majority_at_the_deadline_means_no_elimination(make_game):
    game = make_game("forum-cop-doctor-nine")
    slots = list(game.slots.order_by("seat"))
    for voter in slots[:4]:
        services.cast_vote(voter.user, game.pk, slots[8].pk)
    for voter in slots[4:7]:
        services.cast_vote(voter.user, game.pk, slots[0].pk)
    assert services.advance_phase(game.pk, 1, now=timezone.now() + LATER)
    day = game.phases.get(number=1)
    assert day.report["eliminated"] is None
    assert any("majority" in line for line in day.report["explanation"])
    assert game.slots.filter(alive=True).count() == 9


def test_classic_nominations_plurality_and_revote(make_game):
    game = make_game("classic-ten")
    slots = list(game.slots.order_by("seat"))
    a, b = slots[0], slots[1]
    with pytest.raises(InvalidInput, match="not been nominated"):
        services.cast_vote(slots[2].user, game.pk, a.pk)
    services.nominate(slots[2].user, game.pk, a.pk)
    services.nominate(slots[3].user, game.pk, b.pk)
    services.nominate(slots[4].user, game.pk, None)  # skip: allowed on day 1
    services.nominate(slots[5].user, game.pk, a.pk)  # a second nomination of a: listed once
    with pytest.raises(InvalidInput, match="already nominated"):
        services.nominate(slots[2].user, game.pk, b.pk)
    count = services.vote_count(current_phase(game))
    assert [n and n["slot_id"] for n in count["nominated"]] == [a.pk, b.pk, None]
    # 3 for a, 3 for b: a tie goes to a revote between them.
    for voter in slots[2:5]:
        services.cast_vote(voter.user, game.pk, a.pk)
    for voter in slots[5:8]:
        services.cast_vote(voter.user, game.pk, b.pk)
    assert services.advance_phase(game.pk, 1, now=timezone.now() + LATER)
    day = current_phase(game)
    assert day.number == 1 and not day.resolved and sorted(day.revote) == sorted([a.pk, b.pk])
    assert services.vote_count(day)["in_revote"]
    with pytest.raises(InvalidInput, match="revote ballot"):
        services.cast_vote(slots[9].user, game.pk, slots[8].pk)
    # A late second firing of the first deadline must not end the revote early.
    assert not services.advance_phase(game.pk, 1, now=timezone.now() + timedelta(minutes=1))
    for voter in slots[2:6]:
        services.cast_vote(voter.user, game.pk, b.pk)
    assert services.advance_phase(game.pk, 1, now=timezone.now() + 2 * LATER)
    day.refresh_from_db()
    assert day.resolved and day.report["eliminated"] == b.resolver_name
    b.refresh_from_db()
    assert not b.alive and b.revealed_role == ""  # classic reveals no roles


def test_classic_skip_nomination_only_on_day_one(make_game, host):
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)  # day 1 ends
    services.cut_deadline_now(host, game.pk)  # night 1 ends (no actions)
    alive = list(game.slots.filter(alive=True).order_by("seat"))
    with pytest.raises(InvalidInput, match="only allowed on day 1"):
        services.nominate(alive[0].user, game.pk, None)


def test_forum_games_have_no_nominations(make_game):
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    with pytest.raises(InvalidInput, match="no nominations"):
        services.nominate(a.user, game.pk, b.pk)


def test_vote_count_lists_dead_with_public_roles_only(make_game, host):
    game = make_game()
    goon = slot_of(game, "goon")
    townies = slots_of(game, "vanilla_townie")
    services.modkill(host, game.pk, townies[0].pk)
    for voter in townies[1:5]:
        services.cast_vote(voter.user, game.pk, goon.pk)  # hammer
    services.cut_deadline_now(host, game.pk)  # night 2 passes
    count = services.vote_count(current_phase(game))
    dead = {d["slot_id"]: d for d in count["dead"]}
    assert dead[goon.pk]["role"] == "goon"  # flipped by the vote
    assert dead[townies[0].pk]["role"] is None  # modkills do not reveal
    assert count["alive_count"] == 5 and count["majority"] == 3
    assert "goon" not in str(count["alive"]) and "vanilla" not in str(count)


def test_a_forum_day_s_deadline_is_the_rule_before_the_timer_runs(make_game):
    """A vote a second after the deadline, before any sweeper has ended the day, does not
    count: the button is refused, a bold vote's post stands with a note saying so."""
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    late = current_phase(game).deadline + timedelta(seconds=1)
    with pytest.raises(WrongPhase) as refused:
        services.cast_vote(a.user, game.pk, b.pk, now=late)
    assert refused.value.code == "turn_ended"
    assert refused.value.message == "The day ended: its deadline has passed."
    result = services.submit_post(a.user, game.pk, body=f"**Vote: {b.display_name}**", now=late)
    assert result.post is not None and result.vote is None
    assert "deadline has passed" in result.post.vote_note
    assert not Vote.objects.filter(voter=a).exists()
    # A second earlier the same vote counts.
    services.cast_vote(a.user, game.pk, b.pk, now=late - timedelta(seconds=2))
    assert Vote.objects.filter(voter=a, target=b).exists()
