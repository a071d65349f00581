"""An agent's token signs its game socket in (no Origin: not a browser); a revoked token is
refused before the socket opens, as the API answers 401."""

from __future__ import annotations

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import services
from games.live import publisher
from games.services import agents as agent_services
from mafia_site.token_sockets import REFUSED
from tests.factories import UserFactory
from tests.live.ws_support import Socket, live_redis_layer

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


async def token_socket(game_id: int, key: str) -> tuple[Socket, bool, int | None]:
    """``ws/games/<id>/`` with ``Authorization: Token <key>`` and no Origin header."""
    from mafia_site.asgi import application

    publisher.BACKGROUND_DEFAULT = False
    headers = [(b"host", b"testserver"), (b"authorization", f"Token {key}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=headers)
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
