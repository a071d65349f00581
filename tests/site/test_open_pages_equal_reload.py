"""Open pages equal a reload (issue 30), tried as a new user would: the host's dashboard
at the end of the game and after a replacement, and the replaced-out player's own pages.

For the host's page the property live.js relies on is checked directly: render the page
before the change, let the change happen, and every element that differs from a fresh
load must lie inside a part the change's kinds redraw (``tests.site.live_pages``).
"""

from __future__ import annotations

import pytest

from games import services
from games.event_kinds import KINDS
from games.live.own import OwnPage, _own_fields, _render
from games.models import Game, GameEvent
from tests.conftest import slot_of, slots_of
from tests.live_model import socket_scope
from tests.site.live_pages import parse, stale_after


def _kinds_since(game: Game, seq: int) -> list[str]:
    """The kinds of the events the change wrote (a host's socket hears every audience)."""
    return list(
        GameEvent.objects.filter(game=game, seq__gt=seq)
        .order_by("seq")
        .values_list("kind", flat=True)
    )


def _seq(game: Game) -> int:
    return Game.objects.get(pk=game.pk).event_seq


# -- the host's dashboard ----------------------------------------------------------------------
def test_the_dashboard_left_open_at_the_end_equals_a_reload(client_for, make_game, host):
    """It kept "Post the vote count now" and "Replace a player": neither sat in a part."""
    game = make_game("forum-vanilla")
    goons = slots_of(game, "goon")
    services.modkill(host, game.pk, goons[0].pk)
    dashboard = client_for(host)
    before, seq = dashboard.get(f"/games/{game.pk}/host/").content.decode(), _seq(game)
    assert "Post the vote count now" in before and "Replace a player" in before

    services.modkill(host, game.pk, goons[1].pk)  # the last of the mafia: the town wins
    kinds = _kinds_since(game, seq)
    assert kinds[-1] == "game_finished"
    after = dashboard.get(f"/games/{game.pk}/host/").content.decode()
    assert "Post the vote count now" not in after and "Replace a player" not in after
    # game_finished alone redraws everything the end changes (the modkill before it too).
    assert stale_after(before, after, "game_finished") == []
    assert stale_after(before, after, *kinds) == []


def test_the_dashboard_left_open_at_a_replacement_equals_a_reload(
    client_for, make_game, host, make_users
):
    """Its Replace list kept the replaced player's old name."""
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    old_name = townie.user.username
    (newcomer,) = make_users(1, prefix="sub")
    dashboard = client_for(host)
    before, seq = dashboard.get(f"/games/{game.pk}/host/").content.decode(), _seq(game)

    services.replace_player(host, game.pk, townie.pk, newcomer)
    assert "replaced" in _kinds_since(game, seq)
    after = dashboard.get(f"/games/{game.pk}/host/").content.decode()
    for form in ("host-replace", "host-modkill"):
        assert newcomer.username in _text(after, form) and old_name not in _text(after, form)
    assert stale_after(before, after, "replaced") == []


def _text(html: str, element_id: str) -> str:
    """The text and option labels inside the element with ``element_id``."""

    def find(node):
        if node.attrs.get("id") == element_id:
            return node
        for child in node.children:
            if not isinstance(child, str) and (found := find(child)) is not None:
                return found
        return None

    def text(node) -> str:
        return " ".join(c if isinstance(c, str) else text(c) for c in node.children)

    found = find(parse(html))
    assert found is not None, element_id
    return text(found)


def test_the_comparison_catches_a_control_outside_every_part():
    """The helper itself: a change outside the redrawn parts is reported, one inside not."""
    before = (
        '<main><div id="a" data-live-part="phase"><p>old</p></div>'
        '<section id="b"><button>Post the vote count now</button></section></main>'
    )
    after = '<main><div id="a" data-live-part="phase"><p>new</p></div></main>'
    assert KINDS["game_finished"].parts >= {"phase"}
    stale = stale_after(before, after, "game_finished")
    assert len(stale) == 1 and "section#b" in stale[0]
    marked = before.replace('id="b"', 'id="b" data-live-part="phase"')
    assert stale_after(marked, after, "game_finished") == []


# -- the replaced-out player's own pages -----------------------------------------------------
def test_the_replaced_out_players_pages_answer_what_live_js_needs(
    client_for, make_game, host, make_users
):
    """Their role PM page as their socket renders it is refused (404: the items carry
    ``own_status`` and live.js reloads), and their thread page's "You were replaced" notice
    lies outside every live part: only the reload their sockets are told to do (an
    ``access`` frame) shows it."""
    game = make_game("forum-cop-doctor-nine")
    doctor = slot_of(game, "doctor")
    (newcomer,) = make_users(1, prefix="sub")
    them = client_for(doctor.user)
    role_before = them.get(f"/games/{game.pk}/role/").content.decode()
    assert "Doctor" in role_before
    thread_before = them.get(f"/games/{game.pk}/").content.decode()

    services.replace_player(host, game.pk, doctor.pk, newcomer)
    role = OwnPage.of(
        game.pk, socket_scope(them, doctor.user), "actions:phase+actions", f"/games/{game.pk}/role/"
    )
    rendered = _render(role, frozenset({"actions"}), cheap=False)
    assert rendered.status == 404 and rendered.parts == {}
    assert _own_fields(rendered, frozenset({"actions"}), role) == {"own_status": 404}
    reload = them.get(f"/games/{game.pk}/role/")
    assert reload.status_code == 404
    reloaded = reload.content.decode()
    assert "You were replaced" in reloaded and "Doctor" not in reloaded
    thread_after = them.get(f"/games/{game.pk}/").content.decode()
    assert "You were replaced" in thread_after
    stale = stale_after(thread_before, thread_after, "replaced")
    assert any("replaced-notice" in line for line in stale)  # hence the reload


@pytest.mark.parametrize("phase", ["day", "night"])
def test_a_thread_page_left_open_at_a_replacement_equals_a_reload(
    client_for, make_game, host, make_users, phase
):
    """A spectator's and another player's thread page: the players panel, the reply box
    and the vote count (redrawn by day by the vote count that follows) name the newcomer.
    The ISO list's names and post counts are not live (posts change them too): left out."""
    game = make_game("forum-cop-doctor-nine")
    if phase == "night":
        services.cut_deadline_now(host, game.pk)
    townie = slot_of(game, "vanilla_townie")
    (newcomer,) = make_users(1, prefix="sub")
    pages = {who: client_for(who) for who in (None, slot_of(game, "cop").user)}
    before = {who: c.get(f"/games/{game.pk}/").content.decode() for who, c in pages.items()}
    seq = _seq(game)

    services.replace_player(host, game.pk, townie.pk, newcomer)
    kinds = _kinds_since(game, seq)
    assert ("vote_count" in kinds) == (phase == "day")
    for who, page in pages.items():
        after = page.get(f"/games/{game.pk}/").content.decode()
        assert newcomer.username in after
        assert stale_after(before[who], after, *kinds, unchecked=["iso"]) == [], who
