"""The game socket as a hostile outsider probes it: nothing it answers may depend on hidden
events (the game-wide event counter, private posts, night actions), bad input never drops
the socket without a close frame, and only same-origin pages may open it.
"""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async

from games import services
from games.models import Game, Slot
from tests.live.ws_support import live_redis_layer, open_socket

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(90),
]

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True)
async def live_layer(settings):
    async with live_redis_layer(settings, background=False):
        yield


def _teams(game: Game) -> tuple[list[Slot], list[Slot]]:
    slots = list(Slot.objects.filter(game=game).select_related("user").order_by("seat"))
    return [s for s in slots if s.is_mafia], [s for s in slots if not s.is_mafia]


def _seq(game: Game) -> int:
    return Game.objects.get(pk=game.pk).event_seq


def _answer(socket) -> list:
    """What a socket was told on connecting, minus the clock (which always differs)."""
    out = []
    for item in socket.items:
        item = {k: v for k, v in item.items() if k != "server_time"}
        out.append(item)
    return out


async def _probe(game_id: int, query: str) -> list:
    socket, ok, _ = await open_socket(game_id, query=query)
    assert ok
    await socket.drain(0.15)
    await socket.close()
    return _answer(socket)


async def _night_with_hidden_events(make_game, host) -> tuple[Game, list[Slot], list[Slot]]:
    game = await db(make_game)("forum-vanilla")
    mafia, town = await db(_teams)(game)
    await db(services.cut_deadline_now)(host, game.pk)  # night 1
    await db(services.host_post)(host, game.pk, body="public one")
    options = await db(lambda: services.night_options(Game.objects.get(pk=game.pk), mafia[0]))()
    kill = next(o for o in options if o["factional"])
    await db(services.submit_night_action)(
        mafia[0].user, game.pk, ability=kill["ability"], targets=[town[0].pk]
    )
    await db(services.submit_post)(mafia[1].user, game.pk, body="hidden chat", thread="mafia")
    await db(services.host_post)(host, game.pk, body="public two")
    return game, mafia, town


async def test_since_answers_the_same_whatever_the_hidden_counter(make_game, host):
    """`?since=N` used to answer "reload" exactly when N passed the game's internal event
    counter, so ~17 anonymous connections read it (and its growth counted night actions)."""
    game, _mafia, _town = await _night_with_hidden_events(make_game, host)
    seq = await db(_seq)(game)
    answers = {}
    for since in (1, seq - 3, seq - 1, seq, seq + 1, seq + 50, 10**6):
        answers[since] = await _probe(game.pk, f"since={since}")
    first = answers[1]
    assert all(answer == first for answer in answers.values()), answers
    assert "reload" not in json.dumps(first)


async def test_since_cannot_place_hidden_events_between_public_ones(make_game, host):
    """Replaying from chosen `since` values would show where each public event sits in the
    game-wide sequence; the gaps would count the hidden events in between."""
    game, _mafia, _town = await _night_with_hidden_events(make_game, host)
    seq = await db(_seq)(game)
    seen = {json.dumps(await _probe(game.pk, f"since={since}")) for since in range(1, seq + 2)}
    assert len(seen) == 1


async def test_hidden_events_do_not_change_a_spectators_answers(make_game, host):
    """Two games alike in public, one with night actions and mafia chat: an anonymous
    socket (any since, positions, ping) is answered alike in both."""
    quiet = await db(make_game)("forum-vanilla", seed=7)
    busy = await db(make_game)("forum-vanilla", seed=7)
    mafia, town = await db(_teams)(busy)
    for game in (quiet, busy):
        await db(services.cut_deadline_now)(host, game.pk)
    options = await db(lambda: services.night_options(Game.objects.get(pk=busy.pk), mafia[0]))()
    kill = next(o for o in options if o["factional"])
    for target in town[:3]:
        await db(services.submit_night_action)(
            mafia[0].user, busy.pk, ability=kill["ability"], targets=[target.pk]
        )
    await db(services.submit_post)(mafia[1].user, busy.pk, body="psst", thread="mafia")
    for game in (quiet, busy):
        await db(services.host_post)(host, game.pk, body="same words")

    base = await db(_seq)(quiet)

    async def answers(game: Game) -> list:
        out = []
        for since in range(base - 1, base + 4):
            out.append(await _probe(game.pk, f"since={since}"))
        replayed = await _probe(game.pk, "positions=public.1,~vote_count.0")
        # Slot ids and links differ between the two games; the numbering must not.
        out.append(
            [(i.get("type"), i.get("positions"), i.get("kind"), i.get("n")) for i in replayed]
        )
        socket, _, _ = await open_socket(game.pk)
        await socket.send({"type": "ping"})
        pong = await socket.wait_for(lambda i: i.get("type") == "pong")
        await socket.close()
        out.append(pong["heads"])
        text = json.dumps(out).replace(f"/games/{game.pk}/", "/games/G/")
        return json.loads(text.replace(f'"game": {game.pk}', '"game": 0'))

    assert await answers(quiet) == await answers(busy)


@pytest.mark.parametrize(
    "query",
    [
        "positions=public.99999999999999999999999",
        "positions=~vote_count.99999999999999999999999",
        "since=99999999999999999999999",
        "since=-5",
        "positions=%00.1,public.0",
    ],
)
async def test_huge_or_odd_positions_are_answered_not_crashed(make_game, query):
    game = await db(make_game)("forum-vanilla")
    socket, ok, _ = await open_socket(game.pk, query=query)
    assert ok and socket.controls("hello")
    assert socket.controls("replay") or socket.controls("reload")
    # The socket is still alive: it answers a ping and a silly resume.
    await socket.send({"type": "resume", "positions": {"public": 10**30}})
    await socket.send({"type": "ping"})
    await socket.wait_for(lambda i: i.get("type") == "pong")
    await socket.close()


BAD_POSITIONS = {
    "type": "error",
    "code": "bad_positions",
    "error": "Positions are whole numbers of 0 or more, one per audience "
    '(positions=public.12,mafia.3 or {"public": 12, "mafia": 3}).',
}


@pytest.mark.parametrize(
    "positions",
    ["public.-1", "public.-99999999999999999999999", "public.%00", "public.1e3", "public.x"],
)
async def test_negative_or_malformed_positions_are_refused_with_a_clear_error(make_game, positions):
    game = await db(make_game)("forum-vanilla")
    socket, ok, _ = await open_socket(game.pk, query=f"positions={positions}", expect_ready=False)
    assert ok  # accepted only to say why, then closed: nothing is replayed
    frame = await socket.comm.receive_output(timeout=5)
    assert json.loads(frame["text"]) == [BAD_POSITIONS]
    closed = await socket.comm.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4400}


async def test_a_resume_with_negative_positions_is_refused_and_the_socket_stays(make_game):
    game = await db(make_game)("forum-vanilla")
    socket, ok, _ = await open_socket(game.pk, since=game.event_seq)
    assert ok
    for positions in ({"public": -1}, {"public": True}, ["public", 1], {"public": "-3"}):
        await socket.send({"type": "resume", "positions": positions})
        error = await socket.wait_for(lambda i: i.get("type") == "error")
        assert error == BAD_POSITIONS
        socket.items.remove(error)
    await socket.send({"type": "resume", "positions": {"public": 0}})
    await socket.wait_for(lambda i: i.get("type") == "replay")
    await socket.close()


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (b"http://testserver", True),
        (b"https://testserver", False),  # another scheme is another origin
        (b"http://testserver:9999", False),  # another port too
        (b"http://localhost:8412", False),  # an allowed host, but not this page's
        (b"http://127.0.0.1:9999", False),
        (b"http://evil.example", False),
        (b"null", False),
    ],
)
async def test_origin_must_be_the_whole_origin_of_the_site(make_game, origin, accepted):
    game = await db(make_game)("forum-vanilla", start=False)
    socket, ok, _ = await open_socket(game.pk, origin=origin, expect_ready=False)
    assert ok is accepted
    if ok:
        await socket.close()


async def test_missing_origin_is_refused(make_game):
    from channels.testing import WebsocketCommunicator

    from mafia_site.asgi import application

    game = await db(make_game)("forum-vanilla", start=False)
    comm = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/", headers=[(b"host", b"testserver")]
    )
    connected, _ = await comm.connect(timeout=5)
    assert not connected
