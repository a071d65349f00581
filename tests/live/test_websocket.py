"""The game socket over the REAL Redis channel layer: audiences, seqs, replay, access.

Each test opens sockets through the whole ASGI stack (origin check, session auth) with
``WebsocketCommunicator`` and changes the game through ``games.services`` in committed
transactions, so frames only exist if ``publish_events`` ran on commit.

"Never receives" is checked with a sentinel: a later public event every socket gets; a
private item would have arrived before it (the hub delivers in seq order).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from django.db import transaction

from games import services
from games.live import publisher
from games.models import GameEvent, Slot
from tests.live.ws_support import live_redis_layer, open_socket

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(60),
]

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True, params=["background", "inline"])
async def live_layer(request, settings):
    """The Redis layer under a fresh prefix; publishing as in the web server (a publisher
    thread) and as in Celery or a command (in the committing thread)."""
    async with live_redis_layer(settings, background=request.param == "background"):
        yield


def _slots(game) -> list[Slot]:
    return list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))


async def slots_of(game) -> list[Slot]:
    return await db(_slots)(game)


def _mafia_and_town(slots: list[Slot]) -> tuple[list[Slot], list[Slot]]:
    return [s for s in slots if s.is_mafia], [s for s in slots if not s.is_mafia]


async def current_seq(game) -> int:
    return await db(lambda: type(game).objects.get(pk=game.pk).event_seq)()


def is_kind(kind: str, **fields):
    def match(item: dict) -> bool:
        return item.get("kind") == kind and all(item.get(k) == v for k, v in fields.items())

    return match


def is_post_with(text: str):
    return lambda item: item.get("kind") == "post" and text in item.get("html", "")


def _stream_seqs(game, key: str) -> list[int]:
    """Game-wide seqs of an audience's items in client numbering order (``~kind``: state)."""
    rows = GameEvent.objects.filter(game=game)
    if key.startswith("~"):
        rows = rows.filter(kind=key[1:])
    else:
        rows = rows.filter(audience=key).exclude(kind="vote_count")
    return list(rows.order_by("seq").values_list("seq", flat=True))


async def stream_seqs(game, key: str) -> list[int]:
    return await db(_stream_seqs)(game, key)


def numbered(socket) -> list[dict]:
    return [i for i in socket.items if "n" in i]


def items_before(socket, predicate) -> list[dict]:
    for index, item in enumerate(socket.items):
        if predicate(item):
            return socket.items[:index]
    raise AssertionError("sentinel not received")


# --------------------------------------------------------------------------------------
async def test_spectator_gets_post_and_vote_count_numbered_without_gaps(make_game):
    game = await db(make_game)("forum-vanilla")
    slots = await slots_of(game)
    spectator, ok, _ = await open_socket(game.pk, since=game.event_seq)
    assert ok
    await db(services.cast_vote)(slots[0].user, game.pk, slots[1].pk)
    await db(services.cast_vote)(slots[2].user, game.pk, slots[1].pk)
    counts = await stream_seqs(game, "~vote_count")
    await spectator.wait_for(is_kind("vote_count", n=len(counts)))
    posts = spectator.of_kind("post")
    assert len(posts) == 2 and all("Vote" in p["html"] for p in posts)
    # Public items are numbered 1, 2, 3... in the public audience: no gaps, no repeats,
    # and each is the public event the database has at that place.
    public = await stream_seqs(game, "public")
    chain = [i for i in numbered(spectator) if i["kind"] != "vote_count"]
    start = spectator.controls("replay")[0]["positions"]["public"]
    assert [i["n"] for i in chain] == list(range(start + 1, len(public) + 1))
    kinds = await db(lambda: dict(GameEvent.objects.filter(game=game).values_list("seq", "kind")))()
    assert [i["kind"] for i in chain] == [kinds[public[i["n"] - 1]] for i in chain]
    assert all("seq" not in i for i in numbered(spectator))  # the game-wide seq stays home
    await spectator.close()


async def test_public_numbers_do_not_count_hidden_events(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, town = _mafia_and_town(await slots_of(game))
    await db(services.cut_deadline_now)(host, game.pk)  # night 1
    spectator = (await open_socket(game.pk, since=await current_seq(game)))[0]
    townie = (await open_socket(game.pk, town[0].user, since=await current_seq(game)))[0]
    await db(services.host_post)(host, game.pk, body="before")
    before = await spectator.wait_for(is_post_with("before"))
    options = await db(
        lambda: services.night_options(type(game).objects.get(pk=game.pk), mafia[0])
    )()
    kill = next(o for o in options if o["factional"])
    for target in town[1:4]:  # three hidden submissions: nine hidden events
        await db(services.submit_night_action)(
            mafia[0].user, game.pk, ability=kill["ability"], targets=[target.pk]
        )
    await db(services.host_post)(host, game.pk, body="after")
    for socket in (spectator, townie):
        after = await socket.wait_for(is_post_with("after"))
        assert after["n"] == before["n"] + 1
        text = json.dumps(socket.items)
        assert '"seq"' not in text and f'data-seq=\\"{await current_seq(game)}\\"' not in text
    for socket in (spectator, townie):
        await socket.close()


async def test_mafia_chat_reaches_mafia_only(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, town = _mafia_and_town(await slots_of(game))
    goon = (await open_socket(game.pk, mafia[0].user, since=game.event_seq))[0]
    townie = (await open_socket(game.pk, town[0].user, since=game.event_seq))[0]
    spectator, _ = (await open_socket(game.pk, since=game.event_seq))[:2]
    host_socket, _ = (await open_socket(game.pk, host, since=game.event_seq))[:2]
    assert "mafia" in goon.controls("hello")[0]["audiences"]
    assert townie.controls("hello")[0]["audiences"] == ["public", f"slot:{town[0].pk}"]

    await db(services.submit_post)(mafia[1].user, game.pk, body="kill the cop", thread="mafia")
    await db(services.host_post)(host, game.pk, body="sentinel one")

    item = await goon.wait_for(is_post_with("kill the cop"))
    assert item["aud"] == "mafia" and item["thread"] == "mafia"
    await host_socket.wait_for(is_post_with("kill the cop"))
    for socket in (townie, spectator):
        await socket.wait_for(is_post_with("sentinel one"))
        assert not any("kill the cop" in i.get("html", "") for i in socket.items)
        assert not any(i.get("aud") == "mafia" for i in socket.items)
    for socket in (goon, townie, spectator, host_socket):
        await socket.close()


async def test_private_result_reaches_only_its_player(make_game, host):
    game = await db(make_game)("forum-cop-doctor-nine")
    slots = await slots_of(game)
    cop = next(s for s in slots if s.role == "cop")
    goon = next(s for s in slots if s.is_mafia)
    other = next(s for s in slots if not s.is_mafia and s.role != "cop")
    await db(services.cut_deadline_now)(host, game.pk)  # day 1 ends: night 1
    options = await db(lambda: services.night_options(type(game).objects.get(pk=game.pk), cop))()
    ability = options[0]["ability"]
    await db(services.submit_night_action)(cop.user, game.pk, ability=ability, targets=[goon.pk])
    since = await current_seq(game)
    cop_socket, _ = (await open_socket(game.pk, cop.user, since=since))[:2]
    other_socket, _ = (await open_socket(game.pk, other.user, since=since))[:2]
    spectator, _ = (await open_socket(game.pk, since=since))[:2]
    await db(services.cut_deadline_now)(host, game.pk)  # night 1 ends

    result = await cop_socket.wait_for(is_kind("private_result"))
    assert result["aud"] == f"slot:{cop.pk}" and result["data"]["text"]
    for socket in (other_socket, spectator):
        await socket.wait_for(is_kind("night_ended"))
        await socket.wait_for(is_kind("phase_started"))
        assert not socket.of_kind("private_result")
        assert not any(
            i.get("aud", "public") != "public" and i.get("aud") != f"slot:{other.pk}"
            for i in socket.items
            if "n" in i
        )
    for socket in (cop_socket, other_socket, spectator):
        await socket.close()


async def test_dead_mafia_socket_stops_receiving_mafia_chat(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, town = _mafia_and_town(await slots_of(game))
    doomed, partner = mafia
    doomed_socket, _ = (await open_socket(game.pk, doomed.user, since=game.event_seq))[:2]
    await db(services.submit_post)(partner.user, game.pk, body="before the end", thread="mafia")
    await doomed_socket.wait_for(is_post_with("before the end"))

    for voter in town[:4]:  # 4 of 7 is majority: the hammer ends the day at once
        await db(services.cast_vote)(voter.user, game.pk, doomed.pk)
    await doomed_socket.wait_for(is_kind("day_ended"))
    await db(services.submit_post)(partner.user, game.pk, body="after the end", thread="mafia")
    await db(services.host_post)(host, game.pk, body="sentinel two")

    await doomed_socket.wait_for(is_post_with("sentinel two"))
    assert not any("after the end" in i.get("html", "") for i in doomed_socket.items)
    # The re-check gives the dead player the dead thread and takes the mafia chat away.
    access = await doomed_socket.wait_for(lambda i: i.get("type") == "access")
    assert "dead" in access["audiences"] and "mafia" not in access["audiences"]
    await db(services.submit_post)(partner.user, game.pk, body="still after", thread="mafia")
    await db(services.host_post)(host, game.pk, body="sentinel three")
    await doomed_socket.wait_for(is_post_with("sentinel three"))
    assert not any(
        "after" in i.get("html", "") and i.get("aud") == "mafia" for i in doomed_socket.items
    )
    await doomed_socket.close()


async def test_game_end_opens_everything(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, town = _mafia_and_town(await slots_of(game))
    spectator, _ = (await open_socket(game.pk, since=game.event_seq))[:2]
    assert spectator.controls("hello")[0]["audiences"] == ["public"]
    for townie in town:
        finished = await db(lambda: type(game).objects.get(pk=game.pk).is_finished)()
        if finished:
            break
        await db(services.modkill)(host, game.pk, townie.pk)
    end = await spectator.wait_for(is_kind("game_finished"))
    assert end["data"]["winner"]
    access = await spectator.wait_for(lambda i: i.get("type") == "access")
    assert {"host", "mafia", f"slot:{mafia[0].pk}"} <= set(access["audiences"])
    assert access["reload"] is True
    # A socket opened after the end replays the whole game, private threads included.
    late, _ = (await open_socket(game.pk, since=0))[:2]
    assert any(i.get("kind") == "role_pm" for i in late.items)
    for socket in (spectator, late):
        await socket.close()


async def test_reconnect_replays_exactly_the_missed_visible_events(make_game, host):
    game = await db(make_game)("forum-vanilla")
    slots = await slots_of(game)
    mafia, town = _mafia_and_town(slots)
    first, _ = (await open_socket(game.pk, since=game.event_seq))[:2]
    await db(services.host_post)(host, game.pk, body="seen live")
    seen = await first.wait_for(is_post_with("seen live"))
    await first.close()

    await db(services.submit_post)(town[0].user, game.pk, body="missed one")
    await db(services.submit_post)(mafia[0].user, game.pk, body="secret", thread="mafia")
    await db(services.cast_vote)(town[1].user, game.pk, town[2].pk)
    await db(services.cast_vote)(town[3].user, game.pk, town[2].pk)

    held = {**first.controls("replay")[0]["positions"], "public": seen["n"]}
    query = "positions=" + ",".join(f"{k}.{v}" for k, v in held.items())
    second, _ = (await open_socket(game.pk, query=query))[:2]
    replay = second.controls("replay")[0]
    await second.drain(0.3)
    got = [(i["kind"] == "vote_count", i["n"]) for i in numbered(second)]
    public = await stream_seqs(game, "public")
    counts = await stream_seqs(game, "~vote_count")
    # every missed public event once, in order, then the newest count
    assert got == [(False, n) for n in range(seen["n"] + 1, len(public) + 1)] + [
        (True, len(counts))
    ]
    assert replay["positions"]["public"] == len(public)
    assert not any("secret" in i.get("html", "") for i in second.items)

    # Asking again over the open socket replays the same events.
    await second.send({"type": "resume", "positions": held})
    await second.wait_for(lambda i: i.get("type") == "replay" and i is not replay)
    await second.drain(0.3)
    assert [(i["kind"] == "vote_count", i["n"]) for i in numbered(second)] == got * 2
    await second.close()


async def test_too_far_behind_is_told_to_reload(make_game, host, settings):
    settings.LIVE_REPLAY_LIMIT = 3
    from games.live import numbering

    game = await db(make_game)("forum-vanilla")
    held = await db(numbering.page_positions)(game, None)  # what a page rendered now holds
    for n in range(5):
        await db(services.host_post)(host, game.pk, body=f"post {n}")
    socket, _ = (await open_socket(game.pk, query=f"positions={held}"))[:2]
    assert socket.controls("reload")
    await socket.close()


async def test_foreign_origin_is_refused(make_game):
    game = await db(make_game)("forum-vanilla", start=False)
    _, ok, _ = await open_socket(game.pk, origin=b"http://evil.example", expect_ready=False)
    assert not ok
    socket, ok, _ = await open_socket(game.pk, origin=b"http://testserver")
    assert ok
    await socket.close()


async def test_unknown_game_is_refused(db_blocker=None):
    _, ok, code = await open_socket(999_999, expect_ready=False)
    assert not ok and code == 4404


async def test_rolled_back_change_is_never_announced(make_game, host):
    game = await db(make_game)("forum-vanilla")
    slots = await slots_of(game)
    spectator, _ = (await open_socket(game.pk, since=game.event_seq))[:2]

    def post_then_fail() -> None:
        with transaction.atomic():
            services.submit_post(slots[0].user, game.pk, body="never happened")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await db(post_then_fail)()
    await db(services.submit_post)(slots[1].user, game.pk, body="this happened")
    item = await spectator.wait_for(is_post_with("this happened"))
    start = spectator.controls("replay")[0]["positions"]["public"]
    assert item["n"] == start + 1  # the rolled-back post took no number
    assert not any("never happened" in i.get("html", "") for i in spectator.items)
    await spectator.close()


async def test_coalescer_delivers_latest_count_and_every_post(make_game, settings):
    # A budget of 4 frames a second for one socket: batches at most every 0.25 s.
    settings.LIVE_FRAME_BUDGET = 4
    game = await db(make_game)("forum-vanilla", vote_rule="plurality")
    slots = await slots_of(game)
    spectator, _ = (await open_socket(game.pk, since=game.event_seq))[:2]

    def vote_storm() -> None:
        # One commit: the 42 events reach the socket together however slow the machine
        # (vote by vote, a loaded machine took longer than a frame for each).
        with transaction.atomic():
            for round_ in range(3):
                for voter in slots:
                    target = slots[(voter.seat + round_) % len(slots)]
                    services.cast_vote(voter.user, game.pk, target.pk)

    await db(vote_storm)()
    final = len(await stream_seqs(game, "~vote_count"))
    await spectator.wait_for(is_kind("vote_count", n=final))
    await spectator.drain(0.5)
    counts = spectator.of_kind("vote_count")
    posts = spectator.of_kind("post")
    votes = await db(lambda: GameEvent.objects.filter(game=game, kind="vote").count())()
    assert len(posts) == votes == 21  # posts are never dropped
    assert len(counts) < votes  # counts were coalesced
    assert counts[-1]["n"] == final  # and the last one is the latest
    assert [c["n"] for c in counts] == sorted({c["n"] for c in counts})
    await spectator.close()


async def test_host_socket_sees_night_actions(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, town = _mafia_and_town(await slots_of(game))
    await db(services.cut_deadline_now)(host, game.pk)
    since = await current_seq(game)
    host_socket, _ = (await open_socket(game.pk, host, since=since))[:2]
    townie, _ = (await open_socket(game.pk, town[0].user, since=since))[:2]
    options = await db(
        lambda: services.night_options(type(game).objects.get(pk=game.pk), mafia[0])
    )()
    kill = next(o for o in options if o["factional"])
    await db(services.submit_night_action)(
        mafia[0].user, game.pk, ability=kill["ability"], targets=[town[1].pk]
    )
    await host_socket.wait_for(is_kind("night_action", aud="host"))
    await db(services.extend_deadline)(host, game.pk, by=timedelta(hours=1))
    changed = await townie.wait_for(is_kind("deadline_changed"))
    assert changed["deadline"]
    assert not townie.of_kind("night_action")
    for socket in (host_socket, townie):
        await socket.close()


async def test_resume_with_positions_replays_each_audience_from_its_own(make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia, _town = _mafia_and_town(await slots_of(game))
    goon = (await open_socket(game.pk, mafia[0].user, since=game.event_seq))[0]
    await db(services.submit_post)(mafia[1].user, game.pk, body="m1", thread="mafia")
    m1 = await goon.wait_for(is_post_with("m1"))
    await db(services.host_post)(host, game.pk, body="p1")
    p1 = await goon.wait_for(is_post_with("p1"))
    await db(services.submit_post)(mafia[1].user, game.pk, body="m2", thread="mafia")
    m2 = await goon.wait_for(is_post_with("m2"))
    await goon.close()

    # Has the public thread up to p1, the mafia chat only up to m1: gets m2, not p1 again.
    held = {**goon.controls("replay")[0]["positions"], "public": p1["n"], "mafia": m1["n"]}
    query = "positions=" + ",".join(f"{k}.{v}" for k, v in held.items())
    again, ok, _ = await open_socket(game.pk, mafia[0].user, query=query)
    assert ok
    await again.drain(0.3)
    assert [(i["aud"], i["n"]) for i in numbered(again)] == [("mafia", m2["n"])]
    await again.close()


async def test_ping_reveals_a_lost_frame_and_resume_recovers_it(make_game, host, monkeypatch):
    game = await db(make_game)("forum-vanilla")
    spectator, _ = (await open_socket(game.pk, since=game.event_seq))[:2]
    monkeypatch.setattr(publisher, "publish_events", lambda *args: None)  # the push is lost
    await db(services.host_post)(host, game.pk, body="lost on the way")
    monkeypatch.undo()
    await spectator.send({"type": "ping"})
    pong = await spectator.wait_for(lambda i: i.get("type") == "pong")
    held = spectator.controls("replay")[0]["positions"]
    assert pong["heads"]["public"] == held["public"] + 1  # the client sees it is behind
    await spectator.send({"type": "resume", "positions": held})
    item = await spectator.wait_for(is_post_with("lost on the way"))
    assert item["n"] == held["public"] + 1
    await spectator.close()


async def test_pings_refresh_presence_every_other_time_not_each(make_game, monkeypatch):
    """A ping writes the page's presence only when the last write is
    ``presence.REFRESH_SECONDS`` old: the connect's write stands for the next ping."""
    from games import presence
    from games.models import GamePresence

    game = await db(make_game)("forum-vanilla")
    player = (await slots_of(game))[0].user

    def last_seen():
        return GamePresence.objects.get(user=player, game=game).last_seen

    socket, ok, _ = await open_socket(game.pk, player, since=game.event_seq)
    assert ok
    opened = await db(last_seen)()
    await socket.send({"type": "ping"})
    await socket.wait_for(lambda i: i.get("type") == "pong")
    assert await db(last_seen)() == opened  # 30 s later in a browser: not written again
    monkeypatch.setattr(presence, "REFRESH_SECONDS", 0.0)  # as if it were old enough
    await socket.send({"type": "ping"})
    await socket.wait_for(lambda i: len(socket.controls("pong")) == 2)
    assert await db(last_seen)() > opened
    await socket.close()


async def test_replaced_player_socket_loses_the_slot_and_the_new_one_gains_it(
    make_game, host, make_users
):
    game = await db(make_game)("forum-vanilla")
    mafia, _town = _mafia_and_town(await slots_of(game))
    goon = mafia[0]
    (newcomer,) = await db(make_users)(1, prefix="sub")
    old_socket = (await open_socket(game.pk, goon.user, since=game.event_seq))[0]
    new_socket = (await open_socket(game.pk, newcomer, since=game.event_seq))[0]
    spectator = (await open_socket(game.pk, since=game.event_seq))[0]
    assert new_socket.controls("hello")[0]["audiences"] == ["public"]

    await db(services.replace_player)(host, game.pk, goon.pk, newcomer)
    await db(services.submit_post)(mafia[1].user, game.pk, body="welcome aboard", thread="mafia")
    await db(services.host_post)(host, game.pk, body="sentinel four")

    await old_socket.wait_for(is_post_with("sentinel four"))
    assert not any("welcome aboard" in i.get("html", "") for i in old_socket.items)
    assert not old_socket.of_kind("role_pm")  # the slot's new role PM is not theirs
    access = await new_socket.wait_for(lambda i: i.get("type") == "access")
    assert {"mafia", f"slot:{goon.pk}"} <= set(access["audiences"]) and access["reload"]
    # The public frame names the seat and the two names; the user id the hub used to take
    # the old player's sockets off the slot stays on the server, live and in a replay.
    replaced = await spectator.wait_for(lambda i: i.get("kind") == "replaced")
    assert replaced["data"] == {
        "slot_id": goon.pk,
        "seat": goon.seat,
        "old_name": goon.user.username,
        "new_name": newcomer.username,
    }
    late = (await open_socket(game.pk, since=0))[0]
    assert [i["data"] for i in late.of_kind("replaced")] == [replaced["data"]]
    for socket in (old_socket, new_socket, spectator, late):
        await socket.close()


async def test_in_memory_layer_delivers_too(make_game, host, settings):
    # The embedded run command: no Redis, one process.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    game = await db(make_game)("forum-vanilla")
    spectator, ok, _ = await open_socket(game.pk, since=game.event_seq)
    assert ok
    await db(services.host_post)(host, game.pk, body="no redis needed")
    await spectator.wait_for(is_post_with("no redis needed"))
    await spectator.close()


async def test_page_positions_replace_the_page_seq(make_game, host):
    from games.live import numbering

    game = await db(make_game)("forum-vanilla")
    mafia, _town = _mafia_and_town(await slots_of(game))
    rendered = await db(numbering.page_positions)(game, mafia[0].user)
    assert str(game.event_seq) not in rendered.split(",")[0]  # numbers, not the seq
    held = dict(pair.rsplit(".", 1) for pair in rendered.split(","))
    assert set(held) == {"public", "mafia", f"slot:{mafia[0].pk}", "~vote_count"}
    goon, ok, _ = await open_socket(game.pk, mafia[0].user, query=f"positions={rendered}")
    assert ok and not numbered(goon)  # up to date: nothing to replay
    await db(services.submit_post)(mafia[1].user, game.pk, body="first words", thread="mafia")
    item = await goon.wait_for(is_post_with("first words"))
    assert item["n"] == int(held["mafia"]) + 1
    await goon.close()


def _table_turn(game) -> dict:
    from games.reads.table import turn_view

    game = type(game).objects.get(pk=game.pk)
    return turn_view(game, game.current_phase(), _slots(game))


async def test_the_table_redraws_live_and_your_turn_reaches_only_its_player(make_game, host):
    game = await db(make_game)("city-ten", table=True)
    slots = await slots_of(game)
    first, second, third = slots[0], slots[1], slots[2]
    assert (await db(_table_turn)(game))["speaker"]["slot_id"] == first.pk
    since = await current_seq(game)
    spectator = (await open_socket(game.pk, since=since))[0]
    second_socket = (await open_socket(game.pk, second.user, since=since))[0]
    third_socket = (await open_socket(game.pk, third.user, since=since))[0]

    await db(services.pass_turn)(first.user, game.pk)
    turn = await spectator.wait_for(is_kind("turn"))
    # The pushed panel is the spectators' table, redrawn: the new speaker, the next one.
    assert f'data-speaker="{second.pk}"' in turn["turn"]
    assert f'Speaking now: <strong data-seat="2">{second.display_name}</strong>' in turn["turn"]
    assert f"next: {third.display_name}" in turn["turn"]
    assert "your-turn" not in turn["turn"] and "<form" not in turn["turn"]  # nobody's buttons
    mine = await second_socket.wait_for(is_kind("your_turn"))
    assert mine["aud"] == f"slot:{second.pk}" and mine["data"]["step"] == "speech"
    await db(services.host_post)(host, game.pk, body="sentinel")
    for socket in (spectator, third_socket):
        await socket.wait_for(is_post_with("sentinel"))
        assert not socket.of_kind("your_turn")

    # The vote is everyone's turn at once: each living player is told on their own feed.
    await db(services.pass_turn)(second.user, game.pk)
    await third_socket.wait_for(is_kind("your_turn", aud=f"slot:{third.pk}"))
    for slot in slots[2:]:
        await db(services.pass_turn)(slot.user, game.pk)
    vote = await third_socket.wait_for(
        lambda i: i.get("kind") == "your_turn" and i["data"]["step"] == "vote"
    )
    assert vote["aud"] == f"slot:{third.pk}"
    await second_socket.wait_for(
        lambda i: i.get("kind") == "your_turn" and i["data"]["step"] == "vote"
    )
    panel = await spectator.wait_for(lambda i: i.get("kind") == "turn" and "Voted (0)" in i["turn"])
    assert "Ballots are shown when the vote closes" in panel["turn"]
    await db(services.cast_vote)(third.user, game.pk, second.pk)
    panel = await spectator.wait_for(lambda i: i.get("kind") == "turn" and "Voted (1)" in i["turn"])
    assert third.display_name in panel["turn"] and "turn-ballots" not in panel["turn"]
    assert not spectator.of_kind("your_turn")
    for socket in (spectator, second_socket, third_socket):
        await socket.close()
