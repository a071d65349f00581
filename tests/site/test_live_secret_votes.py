"""Live equals reload with secret votes, for every kind of viewer: the spectators and the
players see totals (or nothing) as a reload shows them, the host's open page keeps the whole
count (the ``whole-count`` part, pushed by the host's own socket), and the day's end shows
every page the final count naming every voter. In the style of
``tests/site/test_live_in_process.py`` (``tests.live_model``: live.js's model, fed what the
live layer sends)."""

from __future__ import annotations

import pytest
from django.test import TestCase

from games import services
from games.live.inbox import publish_inbox
from games.models import Game
from tests.conftest import slots_of
from tests.factories import UserFactory
from tests.live_model import LiveRoom, OpenPage, forget_gets

pytestmark = pytest.mark.django_db


def count_of(page: OpenPage) -> str:
    """The text of the page's vote count as it stands (live-updated, not reloaded)."""
    element = page.doc.by_id("whole-count") or page.doc.by_id("vote-count")
    assert element is not None, page.label
    return " ".join(element.text_content().split())


@pytest.mark.parametrize("secrecy", ["totals", "hidden"])
def test_open_pages_equal_a_reload_for_every_viewer(client_for, make_game, host, secrecy):
    game = make_game(secret_votes=secrecy)
    a, b, c, d = slots_of(game, "vanilla_townie")[:4]
    goon = slots_of(game, "goon")[0]
    spectator = UserFactory(username="watcher")
    room = LiveRoom(game.pk)
    thread = f"/games/{game.pk}/"
    pages = {
        "anonymous": OpenPage(client_for(), thread, viewer="anonymous"),
        "spectator": OpenPage(client_for(spectator), thread, viewer="spectator", user=spectator),
        "voter": OpenPage(client_for(a.user), thread, viewer="voter", user=a.user),
        "player": OpenPage(client_for(b.user), thread, viewer="player", user=b.user),
        "host": OpenPage(client_for(host), thread, viewer="host", user=host),
        "host votes": OpenPage(client_for(host), f"{thread}host/", viewer="host", user=host),
        "activity": OpenPage(
            client_for(b.user), f"{thread}activity/", viewer="player", user=b.user
        ),
        "host activity": OpenPage(client_for(host), f"{thread}activity/", viewer="host", user=host),
    }
    for page in pages.values():
        room.open(page)

    def step(action):
        with TestCase.captureOnCommitCallbacks(execute=False) as after_commit:
            action()
        told = set()  # whose bells the action pushes (as ``test_live_in_process`` reads them)
        for callback in after_commit:
            if getattr(callback, "func", None) is publish_inbox:
                told |= set(callback.args[0])
        forget_gets()
        room.sync(told)
        for name, page in pages.items():
            assert page.drift() == [], (name, page.drift())

    step(lambda: services.cast_vote(a.user, game.pk, goon.pk))
    typed = f"Hm.\n\n**Vote: {goon.display_name}**"
    step(lambda: services.submit_post(b.user, game.pk, body=typed))
    step(lambda: services.cast_vote(c.user, game.pk, d.pk))
    step(lambda: services.unvote(c.user, game.pk))
    step(lambda: services.post_vote_count(host, game.pk))

    # Mid-day: the host's open page names the voters, nobody else's does.
    assert a.display_name in count_of(pages["host"])
    for name in ("anonymous", "spectator", "voter", "player"):
        shown = count_of(pages[name])
        assert "Votes are secret until the day ends" in shown, name
        assert a.display_name not in shown and b.display_name not in shown, (name, shown)
        if secrecy == "totals":
            assert goon.display_name in shown and "(2)" in shown, (name, shown)
        else:
            assert goon.display_name not in shown, (name, shown)
    # The voter sees their own vote (the players panel's "your vote"), the others do not.
    voter_panel = pages["voter"].doc.by_id("players")
    assert voter_panel is not None and "your vote" in voter_panel.text_content()

    # The day ends: the final count names every voter on every page.
    step(lambda: services.cast_vote(c.user, game.pk, goon.pk))
    step(lambda: services.cast_vote(d.user, game.pk, goon.pk))
    game.refresh_from_db()
    assert Game.objects.get(pk=game.pk).current_phase().kind == "night"
    for name, page in pages.items():
        if name in ("host votes", "activity", "host activity"):
            continue
        shown = count_of(page)
        assert "Final vote count" in shown and a.display_name in shown, (name, shown)
