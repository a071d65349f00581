"""Creating games, sign-ups and the start: the invariants the services keep."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from games import services
from games.errors import InvalidInput, NotAllowed, WrongPhase
from games.models import Game, GameEvent, Phase, Slot
from games.setups import SETUPS
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_every_ready_made_setup_creates_a_legal_game(host):
    for slug, setup in SETUPS.items():
        game = services.create_game(host, title=slug, **setup.game_kwargs())
        assert game.player_cap == setup.player_count
        assert game.status == "signups"
        assert game.seed  # stored at creation


def test_create_game_refuses_unknown_roles_and_bad_shapes(host):
    with pytest.raises(InvalidInput, match="not legal"):
        services.create_game(
            host, title="x", ruleset="forum", role_list=[{"role": "wizard", "count": 5}]
        )
    with pytest.raises(InvalidInput, match="role list"):
        services.create_game(host, title="x", ruleset="forum", role_list=[])
    with pytest.raises(InvalidInput, match="plurality"):
        services.create_game(
            host, title="x", vote_rule="majority_hammer", **_without_vote_rule("classic-ten")
        )
    with pytest.raises(InvalidInput, match="exactly 7 players"):
        services.create_game(host, title="x", player_cap=9, **SETUPS["forum-vanilla"].game_kwargs())
    with pytest.raises(InvalidInput, match="between one minute"):
        services.create_game(
            host,
            title="x",
            **{**SETUPS["forum-vanilla"].game_kwargs(), "day_length": timedelta(seconds=5)},
        )


def _without_vote_rule(slug):
    kwargs = SETUPS[slug].game_kwargs()
    del kwargs["vote_rule"]
    return kwargs


def test_site_settings_are_written_into_the_rule_set_flags(host):
    kwargs = {**SETUPS["forum-vanilla"].game_kwargs(), "self_vote_allowed": True}
    game = services.create_game(host, title="x", **kwargs)
    assert game.flags["selfVote"] is True
    assert game.flags["dayVote"] == "majority"
    assert game.flags["noEliminationVote"] is True


def test_join_leave_and_cap(make_game, make_users, host):
    game = make_game(start=False)
    assert game.slots.count() == 7
    extra = UserFactory(username="latecomer")
    with pytest.raises(WrongPhase, match="full"):
        services.join_game(extra, game.pk)
    first = game.slots.order_by("seat").first()
    services.leave_game(first.user, game.pk)
    assert game.slots.count() == 6
    slot = services.join_game(extra, game.pk)
    assert slot.seat == 8  # seats are renumbered at the start, not now
    with pytest.raises(InvalidInput, match="already joined"):
        services.join_game(extra, game.pk)
    with pytest.raises(NotAllowed, match="host cannot play"):
        services.join_game(host, game.pk)


def test_host_removes_a_signup_and_only_the_host(make_game, host):
    game = make_game(start=False)
    slot = game.slots.order_by("seat").last()
    other = game.slots.order_by("seat").first()
    with pytest.raises(NotAllowed):
        services.remove_signup(other.user, game.pk, slot.pk)
    services.remove_signup(host, game.pk, slot.pk)
    assert not Slot.objects.filter(pk=slot.pk).exists()


def test_start_needs_a_full_table_and_the_host(make_game, host):
    game = make_game(start=False)
    services.leave_game(game.slots.first().user, game.pk)
    with pytest.raises(WrongPhase, match="needs 7 players; 6 have joined"):
        services.start_game(host, game.pk)
    services.join_game(UserFactory(username="sub"), game.pk)
    with pytest.raises(NotAllowed):
        services.start_game(game.slots.first().user, game.pk)
    phase = services.start_game(host, game.pk)
    assert phase.number == 1 and phase.kind == "day"
    assert sorted(game.slots.values_list("seat", flat=True)) == list(range(1, 8))


def test_join_after_start_is_refused(make_game):
    game = make_game()
    with pytest.raises(WrongPhase, match="Sign-ups are closed"):
        services.join_game(UserFactory(username="late"), game.pk)
    with pytest.raises(WrongPhase, match="started"):
        services.leave_game(game.slots.first().user, game.pk)


def test_start_deals_exactly_the_role_list(make_game):
    game = make_game("forum-cop-doctor-nine")
    dealt = Counter(game.slots.values_list("role", flat=True))
    assert dealt == {"cop": 1, "doctor": 1, "vanilla_townie": 5, "goon": 2}
    assert set(game.slots.filter(role="goon").values_list("alignment", flat=True)) == {"mafia"}
    state = game.resolver_state
    assert [p["name"] for p in state["players"]] == [f"P{i}" for i in range(1, 10)]
    for slot in game.slots.all():
        assert state["players"][slot.seat - 1]["role"] == slot.role


def _deal(game):
    return list(game.slots.order_by("seat").values_list("role", flat=True))


def test_the_deal_is_reproducible_from_the_seed(make_game, make_users, host):
    first = _deal(make_game("classic-ten", seed=12345))
    Game.objects.all().delete()
    # Same seed, same table: the same deal, seat for seat.
    again = make_game("classic-ten", seed=12345)
    assert _deal(again) == first
    assert len({tuple(_deal(make_game("classic-ten", seed=s))) for s in range(1, 6)}) > 1


def test_start_writes_events_for_each_audience(make_game):
    game = make_game("forum-vanilla")
    events = GameEvent.objects.filter(game=game)
    seqs = list(events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert game.event_seq == seqs[-1]
    public = events.filter(audience="public")
    assert public.filter(kind="game_started").exists()
    for event in public:
        assert "role" not in str(event.payload).replace("role_pm", "")
    goon = game.slots.filter(role="goon").first()
    pm = events.get(kind="role_pm", audience=f"slot:{goon.pk}").payload
    assert pm["role"] == "goon"
    assert [p["slot_id"] for p in pm["partners"]] == list(
        game.slots.filter(role="goon").exclude(pk=goon.pk).values_list("pk", flat=True)
    )
    townie = game.slots.filter(role="vanilla_townie").first()
    assert events.get(kind="role_pm", audience=f"slot:{townie.pk}").payload["partners"] == []
    assert events.filter(kind="roles", audience="host").exists()
    assert Phase.objects.get(game=game).deadline is not None
