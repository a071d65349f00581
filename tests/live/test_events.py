"""The publisher (games.live.publisher) and the per-socket outbox (games.live.outbox).

Publishing tests listen on the real Redis channel layer with a channel of their own added
to the game's groups, as a server process's hub does.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connections

from games import services
from games.live import publisher
from games.live.audiences import access_meta, viewer_access, viewer_audiences
from games.live.outbox import Outbox
from games.live.wire import group_name
from games.models import GameEvent, Slot
from tests.live.ws_support import redis_layers

db = database_sync_to_async


@pytest_asyncio.fixture
async def layer(settings):
    settings.CHANNEL_LAYERS = redis_layers()
    settings.LIVE_PUBLISH_IN_BACKGROUND = False
    yield get_channel_layer()
    await db(connections.close_all)()


async def listen(layer, game_id: int, *audiences: str) -> str:
    channel = await layer.new_channel()
    for audience in audiences:
        await layer.group_add(group_name(game_id, audience), channel)
    return channel


async def received(layer, channel: str, quiet: float = 0.5) -> list[dict]:
    """Every item of every message until nothing arrives for ``quiet`` seconds."""
    items = []
    while True:
        try:
            message = await asyncio.wait_for(layer.receive(channel), quiet)
        except TimeoutError:
            return items
        for entry in message["items"]:
            items.append({**json.loads(entry["text"]), "state": entry["state"]})


def _slots(game) -> list[Slot]:
    return list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_late_callbacks_publish_each_event_once_in_order(layer, make_game, host, monkeypatch):
    game = await db(make_game)("forum-vanilla")
    slots = await db(_slots)(game)
    channel = await listen(layer, game.pk, "public")
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(publisher, "publish_events", lambda g, s: calls.append((g, s)))
    await db(services.cast_vote)(slots[0].user, game.pk, slots[1].pk)
    await db(services.host_post)(host, game.pk, body="second commit")
    assert len(calls) == 2
    # The second commit's callback runs first (another process was faster).
    await db(publisher._publish_safely)(*calls[1])
    await db(publisher._publish_safely)(*calls[0])
    items = await received(layer, channel)
    rows = await db(
        lambda: list(
            GameEvent.objects.filter(game=game, seq__gte=calls[0][1]).values_list("kind", flat=True)
        )
    )()
    assert [i["kind"] for i in items] == rows  # once each, in seq order
    stream = [i["n"] for i in items if not i["state"]]
    assert stream == list(range(stream[0], stream[0] + len(stream)))  # numbered without gaps


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_pile_of_commits_sends_only_the_newest_vote_count(
    layer, make_game, host, monkeypatch
):
    game = await db(make_game)("forum-vanilla", vote_rule="plurality")
    slots = await db(_slots)(game)
    channel = await listen(layer, game.pk, "public")
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(publisher, "publish_events", lambda g, s: calls.append((g, s)))
    for voter, target in ((0, 1), (2, 1), (3, 4)):
        await db(services.cast_vote)(slots[voter].user, game.pk, slots[target].pk)
    await db(publisher._publish_safely)(*calls[0])  # publishes all three commits at once
    items = await received(layer, channel)
    counts = [i for i in items if i["kind"] == "vote_count"]
    total = await db(lambda: GameEvent.objects.filter(game=game, kind="vote_count").count())()
    assert [c["n"] for c in counts] == [total] and counts[0]["state"]  # the newest only
    assert [i["kind"] for i in items].count("post") == 3  # posts are never dropped
    # Skipped counts take no place in the public numbering.
    stream = [i["n"] for i in items if not i["state"]]
    assert stream == list(range(stream[0], stream[0] + len(stream)))


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_numbers_are_per_audience(layer, make_game, host):
    game = await db(make_game)("forum-vanilla")
    mafia = [s for s in await db(_slots)(game) if s.is_mafia]
    channel = await listen(layer, game.pk, "public", "mafia")
    await db(services.submit_post)(mafia[0].user, game.pk, body="m1", thread="mafia")
    await db(services.host_post)(host, game.pk, body="p1")
    await db(services.submit_post)(mafia[1].user, game.pk, body="m2", thread="mafia")
    items = await received(layer, channel)
    m1, p1, m2 = items
    assert (m1["aud"], p1["aud"], m2["aud"]) == ("mafia", "public", "mafia")
    assert (m1["n"], m2["n"]) == (1, 2)  # the mafia chat's first and second
    public = await db(
        lambda: (
            GameEvent.objects.filter(game=game, audience="public")
            .exclude(kind="vote_count")
            .count()
        )
    )()
    assert p1["n"] == public  # the newest public event, numbered among those only


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_cursor_beyond_the_log_is_recovered(layer, make_game, host):
    game = await db(make_game)("forum-vanilla")
    channel = await listen(layer, game.pk, "public")
    store = publisher.get_store()
    await db(lambda: store.advance(game.pk, 10**6, {}))()  # e.g. the database was reset
    await db(services.host_post)(host, game.pk, body="still delivered")
    items = await received(layer, channel)
    assert [i["kind"] for i in items] == ["post"] and "still delivered" in items[0]["html"]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_background_publisher_delivers_after_commit(layer, make_game, host, settings):
    settings.LIVE_PUBLISH_IN_BACKGROUND = True
    game = await db(make_game)("forum-vanilla")
    assert await asyncio.to_thread(publisher.wait_until_published, 10)
    channel = await listen(layer, game.pk, "public")
    await db(services.host_post)(host, game.pk, body="from the publisher thread")
    assert await asyncio.to_thread(publisher.wait_until_published, 10)
    items = await received(layer, channel)
    assert "from the publisher thread" in items[0]["html"]


@pytest.mark.django_db
def test_death_events_carry_who_loses_access(make_game, host):
    game = make_game("forum-vanilla")
    slots = _slots(game)
    services.modkill(host, game.pk, slots[2].pk)
    event = GameEvent.objects.filter(game=game, kind="modkill").get()
    assert access_meta(event) == {"kind": "modkill", "dead": [slots[2].pk]}
    assert access_meta(GameEvent.objects.filter(game=game, kind="role_pm").first()) is None


@pytest.mark.django_db
def test_viewer_audiences_follow_the_rules(make_game, host):
    from django.contrib.auth.models import AnonymousUser

    game = make_game("forum-vanilla")
    slots = _slots(game)
    goon = next(s for s in slots if s.is_mafia)
    townie = next(s for s in slots if not s.is_mafia)
    assert viewer_audiences(game.pk, AnonymousUser())[0] == {"public"}
    assert viewer_audiences(game.pk, goon.user)[0] == {
        "public",
        f"slot:{goon.pk}",
        "mafia",
    }
    assert viewer_audiences(game.pk, townie.user)[0] == {
        "public",
        f"slot:{townie.pk}",
    }
    host_view = viewer_audiences(game.pk, game.host)[0]
    assert {"host", "mafia", "dead", "masons", f"slot:{townie.pk}"} <= host_view
    services.modkill(host, game.pk, goon.pk)
    assert viewer_audiences(game.pk, goon.user)[0] == {
        "public",
        f"slot:{goon.pk}",
        "dead",
    }
    assert viewer_audiences(10**9, goon.user) is None


@pytest.mark.django_db
def test_a_sockets_access_costs_one_query_between_changes(
    make_game, host, django_assert_num_queries
):
    """Every page view opens a socket: between two changes of state its access check reads
    the game alone (the slots are the process's copy as of the game's state), and a change
    (a modkill) is seen by the next check."""
    game = make_game("forum-vanilla")
    goon = next(s for s in _slots(game) if s.is_mafia)
    viewer_access(game.pk, goon.user)  # the first reads the slots
    with django_assert_num_queries(1):
        audiences, seq, slot_id = viewer_access(game.pk, goon.user)
    assert (audiences, slot_id) == ({"public", f"slot:{goon.pk}", "mafia"}, goon.pk)
    services.submit_post(goon.user, game.pk, body="a post moves the event seq only")
    with django_assert_num_queries(1):
        assert viewer_access(game.pk, goon.user)[1] > seq
    services.modkill(host, game.pk, goon.pk)
    assert viewer_access(game.pk, goon.user)[0] == {"public", f"slot:{goon.pk}", "dead"}


# -- the outbox ----------------------------------------------------------------------------
class SlowSocket:
    def __init__(self) -> None:
        self.frames: list[list] = []
        self.gate = asyncio.Event()

    async def send(self, text: str) -> None:
        await self.gate.wait()  # a client that reads slowly
        self.frames.append(json.loads(text))


def count(seq: int) -> dict[str, tuple[int, str]]:
    return {"vote_count": (seq, json.dumps({"kind": "vote_count", "seq": seq}))}


def post(seq: int) -> list[tuple[int, str]]:
    return [(seq, json.dumps({"kind": "post", "seq": seq}))]


@pytest.mark.asyncio
async def test_outbox_sends_the_latest_count_and_every_post_to_a_slow_socket():
    socket = SlowSocket()
    outbox = Outbox(socket.send)
    outbox.push(post(1), count(2))  # goes out at once, then waits on the slow client
    await asyncio.sleep(0)
    for seq in range(3, 40, 2):
        outbox.push(post(seq), count(seq + 1))
    socket.gate.set()
    for _ in range(50):
        await asyncio.sleep(0)
    seqs = [[i["seq"] for i in frame] for frame in socket.frames]
    assert seqs[0] == [1, 2]
    assert len(socket.frames) == 2  # the backlog went out as one frame
    assert seqs[1] == [*range(3, 40, 2), 40]  # every post, only the newest count


@pytest.mark.asyncio
async def test_outbox_never_sends_an_older_count_after_a_newer_one():
    socket = SlowSocket()
    socket.gate.set()
    outbox = Outbox(socket.send)
    outbox.push([], count(10))
    await asyncio.sleep(0.01)
    outbox.push([], count(8))
    await asyncio.sleep(0.01)
    assert [f[0]["seq"] for f in socket.frames] == [10]


@pytest.mark.asyncio
async def test_outbox_backlog_overflow_asks_the_client_to_resume(settings):
    settings.LIVE_OUTBOX_LIMIT = 5
    socket = SlowSocket()
    outbox = Outbox(socket.send)
    outbox.push(post(1), {})
    await asyncio.sleep(0)  # in flight: the client is not reading
    for seq in range(2, 10):
        outbox.push(post(seq), {})
    socket.gate.set()
    await asyncio.sleep(0.01)
    assert socket.frames == [
        [{"kind": "post", "seq": 1}],
        [{"type": "resync", "reason": "backlog"}],
    ]
    outbox.push(post(10), {})  # dropped until the client's resume replays the log
    await asyncio.sleep(0.01)
    assert len(socket.frames) == 2


@pytest.mark.asyncio
async def test_outbox_release_puts_the_replay_before_live_frames_and_drops_covered_ones():
    socket = SlowSocket()
    socket.gate.set()
    outbox = Outbox(socket.send)
    outbox.hold()
    outbox.push(post(5) + post(7), {})  # live, while the replay is read
    outbox.release(6, [(None, json.dumps({"type": "replay", "floor": 6})), *post(5)])
    await asyncio.sleep(0.01)
    outbox.push(post(6), {})  # a late push of something the replay covered
    await asyncio.sleep(0.01)
    assert [[i.get("seq", i.get("type")) for i in f] for f in socket.frames] == [["replay", 5, 7]]
