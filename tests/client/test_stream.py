"""The client library against a real site: typed answers, moves, the live stream (a post
and a vote arrive live; a drop loses and repeats nothing), the inbox's ``wait_for_game``,
and a town seat's stream searched with the leak scanner's checks."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from mafia_client import (
    ApiError,
    Client,
    Event,
    Game,
    MyGames,
    PostPage,
    RolePM,
    StreamClosed,
    Turn,
    VoteCount,
)

from agents import services as agent_services
from games import services
from games.models import Slot
from games.setups import SETUPS
from tests.conftest import slot_of
from tests.factories import UserFactory
from tests.site import test_leak_scanner as leaks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def slots(game: Any) -> list[Slot]:
    return list(game.slots.select_related("user").order_by("seat"))


async def collect(stream: Any, until: Any, timeout: float = 15.0) -> list[Event]:
    """Events of ``stream`` until ``until(events)`` holds."""
    seen: list[Event] = []

    async def run() -> list[Event]:
        async for event in stream:
            seen.append(event)
            if until(seen):
                return seen
        return seen

    try:
        return await asyncio.wait_for(run(), timeout)
    except TimeoutError:
        kinds = [e.kind for e in seen]
        raise AssertionError(f"not within {timeout}s; got {kinds}") from None


def posts_of(events: list[Event]) -> list[int]:
    return [e.number for e in events if e.kind == "post" and e.thread == "public"]


def test_models_parse_the_real_answers(make_game, client_for):
    game = make_game("power-nine", table=True)
    seats = slots(game)
    c = client_for(seats[0].user)
    raw = c.get_json(f"games/{game.pk}/")
    g = c.game(game.pk)
    assert isinstance(g, Game) and g.id == game.pk and g.turn_based and g.raw == raw
    assert [p.slot_id for p in g.players] == [p["slot_id"] for p in raw["players"]]
    assert g.phase is not None and g.phase.kind == "day" and not g.over
    turn = c.turn(game.pk)
    raw_turn = c.get_json(f"games/{game.pk}/turn/")
    assert isinstance(turn, Turn) and turn.step == raw_turn["step"] == "question"
    assert turn.you_may == raw_turn["you_may"] and turn.key[0] == 1
    assert turn.speaker and turn.speaker.slot_id == raw_turn["speaker"]["slot_id"]
    assert [s.slot_id for s in turn.order] == [s["slot_id"] for s in raw_turn["order"]]
    assert turn.your_turn == (turn.speaker.slot_id == seats[0].pk)
    role = c.role(game.pk)
    assert isinstance(role, RolePM) and role.slot_id == seats[0].pk
    assert role.role == seats[0].role and role.alignment == seats[0].alignment
    assert {p.slot_id for p in role.partners} == {
        p["slot_id"] for p in c.get_json(f"games/{game.pk}/role/")["partners"]
    }
    count = c.vote_count(game.pk)
    assert isinstance(count, VoteCount) and count.at_table and count.alive_count == 9
    mine = c.my_games()
    assert isinstance(mine, MyGames) and [m.game_id for m in mine.active] == [game.pk]
    assert mine.active[0].you and mine.active[0].you.slot_id == seats[0].pk
    # A move: the speaker posts; the answer and the thread are typed the same.
    speaker = next(s for s in seats if s.pk == turn.speaker.slot_id)
    to = next(o.slot_id for o in turn.options if not o.skip)  # a power question's addressee
    result = client_for(speaker.user).post(game.pk, "Good morning, table.", to=to)
    assert result.post is not None and result.post.body == "Good morning, table."
    assert result.post.to is not None and result.post.to.slot_id == to
    page = c.posts(game.pk)
    assert isinstance(page, PostPage) and page.results[-1].number == result.post.number
    assert page.results[-1].slot_id == speaker.pk
    # A refusal is an ApiError with the API's status and code.
    with pytest.raises(ApiError) as refused:
        c.nominate(game.pk, 999_999)
    assert refused.value.status in (403, 422) and refused.value.code
    assert c.notifications().count >= 1  # "the game started"


def test_queues_join_and_leave_on_the_real_league(client_for, site):
    """``queues()`` / ``enter_queue`` / ``leave_queue`` against the site's league API (the
    waiting ``join_queue``: test_league_agents.py); a
    bad token's stream is refused for good, not retried."""
    users = [UserFactory(username=f"queuer{i}") for i in range(2)]
    first, second = client_for(users[0]), client_for(users[1])
    joined = first.enter_queue("forum-vanilla")
    assert (joined.setup, joined.queued, joined.waiting, joined.players) == (
        "forum-vanilla",
        True,
        1,
        7,
    )
    assert "Waiting for 6 more" in joined.problem
    assert second.enter_queue("forum-vanilla").waiting == 2
    mine = {q.setup: q for q in first.queues()}
    assert mine["forum-vanilla"].queued and mine["forum-vanilla"].latest_game is None
    assert not mine["classic-ten"].queued and mine["classic-ten"].players == 10
    left = first.leave_queue("forum-vanilla")
    assert (left.queued, left.waiting) == (False, 1)
    with pytest.raises(ApiError) as refused:
        first.join_queue("no-such-setup", timeout=30)
    assert refused.value.status == 404 and refused.value.code == "unknown_setup"

    async def stream_with_a_bad_token() -> None:
        async with Client(site.url, "agt_not-a-key").stream(1) as stream:
            await anext(stream)

    with pytest.raises(StreamClosed) as closed:
        asyncio.run(asyncio.wait_for(stream_with_a_bad_token(), 60))
    assert closed.value.status == 401


def test_a_post_and_a_vote_arrive_live_and_a_drop_loses_nothing(make_game, client_for):
    game = make_game("forum-vanilla")
    seats = slots(game)
    watcher, talker = client_for(seats[0].user), client_for(seats[1].user)

    async def scenario() -> None:
        async with watcher.stream(game.pk) as stream:
            await collect(stream, lambda ev: any(e.type == "replay" for e in ev))
            await asyncio.to_thread(talker.post, game.pk, "First!")
            await asyncio.to_thread(talker.vote, game.pk, seats[2].pk)
            got = await collect(
                stream, lambda ev: any(e.kind == "vote" for e in ev) and posts_of(ev)
            )
            vote = next(e for e in got if e.kind == "vote")
            assert vote.audience == "public" and vote.data  # the vote, as everyone sees it
            first = posts_of(got)
            assert len(first) >= 1
            # A network drop (no close frame); meanwhile three posts are made.
            assert stream._ws is not None
            stream._ws.transport.abort()
            for i in range(3):
                await asyncio.to_thread(talker.post, game.pk, f"While you were away {i}")
            after = await collect(stream, lambda ev: len(posts_of(ev)) >= 3)
            await asyncio.to_thread(talker.post, game.pk, "Back to live.")
            after += await collect(stream, lambda ev: len(posts_of(ev)) >= 1)
            numbers = posts_of(got) + posts_of(after)
            assert numbers == sorted(set(numbers)), numbers  # no loss, no repeat, in order
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
            assert stream.connects == 2
            items = [e for e in got + after if e.is_item and e.kind != "vote_count"]
            per_audience: dict[str, list[int]] = {}
            for e in items:
                per_audience.setdefault(e.audience or "", []).append(e.n or 0)
            for audience, ns in per_audience.items():
                assert ns == list(range(ns[0], ns[0] + len(ns))), (audience, ns)

    asyncio.run(scenario())


def test_wait_for_game_wakes_on_the_inbox_when_a_game_starts(make_game, client_for, host):
    game = make_game("forum-vanilla", start=False)
    seat = slots(game)[0]
    c = client_for(seat.user)
    found: dict[str, Any] = {}

    def wait() -> None:
        found["game"] = c.wait_for_game(timeout=30)

    waiter = threading.Thread(target=wait)
    waiter.start()
    import time

    time.sleep(1.5)  # the inbox socket is open and has read my-games once
    assert "game" not in found
    client_for(host).post_json(f"games/{game.pk}/start/")  # through the site: its bells ring
    waiter.join(35)
    assert found["game"].game_id == game.pk and found["game"].status == "running"


def test_a_town_seats_stream_carries_nothing_hidden(client_for, host, site):
    """The leak scanner's checks over everything a town seat's library stream got, live and
    replayed, while the mafia talk, kill and the cop investigates through the API. Every
    seat is an agent playing with its own agent token: an agent sees what a person would."""
    # Neutral names: a title saying "cop" would be found as a role (as in the scanner).
    kwargs = SETUPS["forum-cop-doctor-nine"].game_kwargs()
    game = services.create_game(host, title="A watched game", seed=7, **kwargs)
    owner = UserFactory(username="watchowner")
    keys = {}
    for n in range(game.player_cap):
        agent = agent_services.register_agent(owner, f"watched{n}")
        keys[agent.user_id] = agent_services.create_token(owner, agent.user.username).key
        services.join_game(agent.user, game.pk)
    services.start_game(host, game.pk)
    game.refresh_from_db()
    seats = slots(game)
    mafia = [s for s in seats if s.is_mafia]
    town = next(s for s in seats if s.role in leaks.PLAIN_TOWN)
    cop = slot_of(game, "cop")
    secrets = leaks.Secrets()
    by = {s.pk: Client(site.url, keys[s.user_id], username=s.user.username) for s in seats}
    hosting = client_for(host)

    def mafia_says(n: int) -> None:
        secret = f"MAFIASECRET{game.pk}x{n}"
        by[mafia[0].pk].post(game.pk, f"psst {secret}", thread="mafia")
        secrets.posts["mafia"].append(secret)

    async def scenario() -> tuple[list[Event], list[Event], list[Event]]:
        async with (
            by[town.pk].stream(game.pk, from_start=True) as live,
            by[mafia[1].pk].stream(game.pk, from_start=True) as control,
        ):
            await collect(live, lambda ev: any(e.type == "replay" for e in ev))
            await collect(control, lambda ev: any(e.type == "replay" for e in ev))
            await asyncio.to_thread(mafia_says, 1)
            await asyncio.to_thread(by[town.pk].post, game.pk, "Town speaks.")
            await asyncio.to_thread(hosting.post_json, f"games/{game.pk}/host/cut/")
            await asyncio.to_thread(mafia_says, 2)
            role = await asyncio.to_thread(by[mafia[0].pk].role, game.pk)
            kill = next(a for a in role.abilities if a.factional)
            victim = next(c for c in kill.choices if c.slot_id not in (town.pk, cop.pk))
            await asyncio.to_thread(
                by[mafia[0].pk].night_action, game.pk, kill.ability, [victim.slot_id]
            )
            cop_role = await asyncio.to_thread(by[cop.pk].role, game.pk)
            check = cop_role.abilities[0]
            await asyncio.to_thread(by[cop.pk].night_action, game.pk, check.ability, [mafia[0].pk])
            await asyncio.to_thread(hosting.post_json, f"games/{game.pk}/host/cut/")
            await asyncio.to_thread(by[town.pk].post, game.pk, "Morning.")
            seen = await collect(live, lambda ev: "Morning." in str([e.raw for e in ev]), 30)
            peek = await collect(control, lambda ev: "MAFIASECRET" in str([e.raw for e in ev]))
        async with by[town.pk].stream(game.pk, from_start=True) as replayed:
            again = await collect(replayed, lambda ev: "Morning." in str([e.raw for e in ev]))
        return seen, again, peek

    seen, again, peek = asyncio.run(scenario())
    game.refresh_from_db()
    assert game.is_running and game.current_phase().number == 3  # day 1, night 1, day 2
    # The scan has teeth: the mafia's own stream carries the secret it must not leak.
    assert secrets.posts["mafia"][0] in str([e.raw for e in peek])
    person = leaks.Person("town", town.user, town.pk)
    who = leaks.knowledge(game, person)
    bad = leaks.forbidden(game, who, secrets)
    assert set(secrets.posts["mafia"]) <= set(bad)
    assert any(why.endswith("private result") for why in bad.values())
    cut = leaks.rules_texts(game)
    problems = []
    for label, events in (("live", seen), ("replayed", again)):
        assert any(e.kind == "phase_started" for e in events), label
        for i, event in enumerate(events):
            where = "socket: inbox" if event.type == "inbox" else f"client stream {label} {i}"
            problems += leaks.structural(game, who, where, event.raw)
            if event.is_item and event.audience not in who.audiences:
                problems.append(f"{where}: the audience {event.audience!r}")
            text = leaks.searchable(event.raw, cut)
            for token, why in bad.items():
                if leaks.token_pattern(token).search(text):
                    problems.append(f"{where} ({event.kind}): {token!r} ({why})")
    assert not problems, "\n".join(problems[:30])
