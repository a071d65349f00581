"""A person's API token signs their sockets in as an agent's does; revoking it, or changing
the password, closes the sockets signed in with it (4401) at once, by the push; a lost push
still closes them within the re-check; the person's other tokens keep theirs."""

from __future__ import annotations

import pytest
import pytest_asyncio
import redis
from channels.db import database_sync_to_async

from games.live import inbox as live_inbox
from games.live import publisher
from games.live.tokens import person_token_group
from games.services import person_tokens
from mafia_site.token_sockets import REFUSED
from tests.conftest import slots_of
from tests.live.test_agent_sockets import closed_with, token_socket
from tests.live.ws_support import live_redis_layer

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


def _player_with_two_tokens(make_game):
    game = make_game("forum-vanilla")
    player = slots_of(game, "vanilla_townie")[0].user
    return game, player, person_tokens.create_token(player), person_tokens.create_token(player)


async def _open_ready(game_id: int, key: str):
    socket, connected, _ = await token_socket(game_id, key)
    assert connected
    await socket.wait_for(lambda i: i.get("type") in ("replay", "reload"))
    return socket


def _new_password(user) -> None:
    user.set_password("another-long-pass-456")
    user.save()


async def test_revoking_a_persons_token_closes_its_sockets_at_once(make_game, settings):
    settings.LIVE_TOKEN_RECHECK_SECONDS = 600  # only the revocation's push can close them
    game, player, first, second = await db(_player_with_two_tokens)(make_game)
    revoked = await _open_ready(game.pk, first.key)
    bell, connected, _ = await token_socket(None, first.key, "/ws/inbox/")
    assert connected
    other = await _open_ready(game.pk, second.key)

    await db(person_tokens.revoke_token)(player, first.token.pk)
    assert await closed_with(revoked, 3.0) == REFUSED
    assert await closed_with(bell, 3.0) == REFUSED
    assert await closed_with(other, 0.5) is None  # the other token's socket stays
    _refused, connected, code = await token_socket(game.pk, first.key)
    assert not connected and code == REFUSED
    await other.close()


async def test_a_password_change_closes_every_token_socket_at_once(make_game, settings):
    settings.LIVE_TOKEN_RECHECK_SECONDS = 600
    game, player, first, second = await db(_player_with_two_tokens)(make_game)
    sockets = [await _open_ready(game.pk, first.key), await _open_ready(game.pk, second.key)]
    await db(_new_password)(player)
    for socket in sockets:
        assert await closed_with(socket, 3.0) == REFUSED


async def test_a_lost_push_still_closes_a_persons_token_socket(make_game, settings, monkeypatch):
    settings.LIVE_TOKEN_RECHECK_SECONDS = 1.0
    game, player, first, _second = await db(_player_with_two_tokens)(make_game)
    revoked = await _open_ready(game.pk, first.key)
    real_send = publisher._send
    group = person_token_group(first.token.pk)

    def redis_away_for_tokens(messages):
        if group in [g for g, _ in messages]:
            raise redis.exceptions.ConnectionError("Redis is away")
        return real_send(messages)

    monkeypatch.setattr(publisher, "_send", redis_away_for_tokens)
    try:
        await db(person_tokens.revoke_token)(player, first.token.pk)
        assert await closed_with(revoked, 1.0 + 5.0) == REFUSED
    finally:
        live_inbox.SENDER.forget_retries()  # no retry of the lost push after this test
