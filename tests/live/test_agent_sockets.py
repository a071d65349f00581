"""An agent's token signs its game socket in (no Origin: not a browser); a revoked token is
refused before the socket opens, as the API answers 401, and a socket already open with it
is closed (4401): at once by the revocation's push, or by its own re-check when that push
is lost."""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_asyncio
import redis
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from agents import services as agent_services
from games import services
from games.live import inbox as live_inbox
from games.live import publisher
from games.live.tokens import token_group
from games.services import moderation, person_tokens
from mafia_site.token_sockets import REFUSED
from tests.factories import UserFactory
from tests.live.test_league_live import open_league
from tests.live.ws_support import Socket, live_redis_layer, open_socket

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(60),
]

db = database_sync_to_async


@pytest_asyncio.fixture(autouse=True)
async def live_layer(settings):
    async with live_redis_layer(settings, background=False):
        yield


def _agent_in_game(make_game, host):
    owner = UserFactory(username="ada")
    agent = agent_services.register_agent(owner, "robo")
    first = agent_services.create_token(owner, "robo")
    second = agent_services.create_token(owner, "robo")
    game = make_game("forum-vanilla", start=False)
    last = game.slots.order_by("-seat").first()
    services.remove_signup(host, game.pk, last.pk)
    services.join_game(agent.user, game.pk)
    services.start_game(host, game.pk)
    return owner, agent, game, first, second


async def token_socket(
    game_id: int | None, key: str, path: str = ""
) -> tuple[Socket, bool, int | None]:
    """``ws/games/<id>/`` (or ``path``) with ``Authorization: Token <key>`` and no Origin."""
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False
    headers = [(b"host", b"testserver"), (b"authorization", f"Token {key}".encode())]
    path = path or f"/ws/games/{game_id}/"
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=5)
    return Socket(communicator), connected, code


async def test_an_agent_token_opens_its_seat_socket_until_revoked(make_game, host):
    owner, agent, game, first, second = await db(_agent_in_game)(make_game, host)
    socket, connected, _ = await token_socket(game.pk, first.key)
    assert connected
    hello = await socket.wait_for(lambda i: i.get("type") in ("replay", "reload"))
    assert hello
    # Its own post arrives live, with the badge a reload shows.
    await db(services.submit_post)(agent.user, game.pk, body="Beep boop.")
    item = await socket.wait_for(lambda i: i.get("kind") == "post" and "Beep boop" in i["html"])
    assert '<span class="agent-badge"' in item["html"]
    await socket.close()

    await db(agent_services.revoke_token)(owner, "robo", first.token.pk)
    _refused, connected, code = await token_socket(game.pk, first.key)
    assert not connected and code == REFUSED
    # The agent's other token still works: revoking one key leaves the others.
    other, connected, _ = await token_socket(game.pk, second.key)
    assert connected
    await other.close()


async def closed_with(socket: Socket, timeout: float) -> int | None:
    """Read until the server closes the socket: its close code; None if still open after
    ``timeout``. What arrives before goes to ``socket.items``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := deadline - loop.time()) > 0:
        if await socket.comm.receive_nothing(timeout=left, interval=0.005):
            return None
        message = await socket.comm.receive_output()
        if message["type"] == "websocket.close":
            return message.get("code")
        socket.items.extend(json.loads(message["text"]))
    return None


def _revoke_through_the_api(owner, token_id: int) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    answer = client.post(f"/api/v1/agents/robo/tokens/{token_id}/revoke/")
    assert answer.status_code == 200 and answer.json()["revoked"]


def _a_person_in(game, agent):
    return game.slots.exclude(user=agent.user).select_related("user").first().user


async def _open_ready(game_id: int, key: str) -> Socket:
    socket, connected, _ = await token_socket(game_id, key)
    assert connected
    await socket.wait_for(lambda i: i.get("type") in ("replay", "reload"))
    return socket


def _is_post(text: str):
    return lambda i: i.get("kind") == "post" and text in i["html"]


async def test_revoking_a_token_closes_its_open_sockets_at_once(make_game, host, settings):
    settings.LIVE_TOKEN_RECHECK_SECONDS = 600  # only the revocation's push can close them
    owner, agent, game, first, second = await db(_agent_in_game)(make_game, host)
    person = await db(_a_person_in)(game, agent)
    revoked = await _open_ready(game.pk, first.key)
    revoked_bell, connected, _ = await token_socket(None, first.key, "/ws/inbox/")
    assert connected
    other_token = await _open_ready(game.pk, second.key)
    persons, connected, _ = await open_socket(game.pk, person)
    assert connected

    await db(_revoke_through_the_api)(owner, first.token.pk)
    assert await closed_with(revoked, 3.0) == REFUSED
    assert await closed_with(revoked_bell, 3.0) == REFUSED

    # The game goes on: the others hear it, the revoked socket hears nothing more.
    await db(services.submit_post)(person, game.pk, body="Still here.")
    await other_token.wait_for(_is_post("Still here."))
    await persons.wait_for(_is_post("Still here."))
    assert await revoked.comm.receive_nothing(timeout=0.5)
    assert not revoked.of_kind("post")
    for socket in (revoked, revoked_bell, other_token, persons):
        await socket.close()


async def test_a_lost_revocation_push_still_closes_the_socket_within_the_recheck(
    make_game, host, settings, monkeypatch
):
    settings.LIVE_TOKEN_RECHECK_SECONDS = 1.0
    owner, agent, game, first, second = await db(_agent_in_game)(make_game, host)
    revoked = await _open_ready(game.pk, first.key)
    other_token = await _open_ready(game.pk, second.key)
    lost: list[str] = []
    real_send = publisher._send

    def redis_away_for_tokens(messages):
        # The revocation's push (and every retry of it) meets a Redis that is away.
        groups = [group for group, _ in messages]
        if token_group(first.token.pk) in groups:
            lost.append(token_group(first.token.pk))
            raise redis.exceptions.ConnectionError("Redis is away")
        return real_send(messages)

    monkeypatch.setattr(publisher, "_send", redis_away_for_tokens)
    try:
        await db(agent_services.revoke_token)(owner, "robo", first.token.pk)
        assert lost, "the revocation's push was not even tried"
        # Within the re-check interval (1 s), with slack for a busy machine (CI runs
        # browsers beside it); the push's own path would take 600 s of no re-check.
        assert await closed_with(revoked, 1.0 + 5.0) == REFUSED
        # The agent's other token is not revoked: its socket stays open and live.
        await db(services.submit_post)(agent.user, game.pk, body="Beep again.")
        await other_token.wait_for(_is_post("Beep again."))
        assert await closed_with(other_token, 1.5) is None
    finally:
        live_inbox.SENDER.forget_retries()  # no retry of the lost push after this test
    for socket in (revoked, other_token):
        await socket.close()


async def test_a_suspension_closes_the_persons_and_their_agents_sockets_at_once(
    make_game, host, settings
):
    """A moderator's suspension (``services.moderation``): every socket of the person
    closes at once, by the push: their page's game socket and league page's socket (signed
    in by cookie), and the game and league sockets of their own API token; then the ban of
    an agent's owner closes the agent's token socket. The other players' sockets stay open;
    reopening is refused (the account is inactive)."""
    settings.LIVE_TOKEN_RECHECK_SECONDS = 600  # only the pushes can close them
    owner, agent, game, first, _second = await db(_agent_in_game)(make_game, host)
    person = await db(_a_person_in)(game, agent)
    own_key = (await db(person_tokens.create_token)(person)).key
    moderator = await db(UserFactory)(username="warden")
    await db(moderation.set_moderator)(moderator)
    owners_page, connected, _ = await open_socket(game.pk, person)
    assert connected
    persons = [owners_page, await open_league(person), await _open_ready(game.pk, own_key)]
    league_by_token, connected, _ = await token_socket(None, own_key, "/ws/league/")
    assert connected
    persons.append(league_by_token)
    agents = await _open_ready(game.pk, first.key)
    bystander, connected, _ = await open_socket(game.pk, host)
    assert connected
    watching_league = await open_league(host)

    await db(moderation.sanction)(moderator, person, "suspend", reason="abuse", days=3)
    for socket in persons:
        assert await closed_with(socket, 3.0) == REFUSED
    assert await closed_with(watching_league, 0.5) is None
    _again, connected, code = await token_socket(game.pk, own_key)
    assert not connected and code == REFUSED
    await db(moderation.sanction)(moderator, owner, "ban", reason="cheating")
    assert await closed_with(agents, 3.0) == REFUSED
    assert await closed_with(bystander, 0.5) is None
    _again, connected, code = await token_socket(game.pk, first.key)
    assert not connected and code == REFUSED
    await bystander.close()
    await watching_league.close()
