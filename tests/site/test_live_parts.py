"""What a live event redraws equals what a reload shows: the event-kind registry, the items
the live layer renders, and the four bugs seen in browsers (resume, extend, the host's
players panel, a vote from another tab).

``static/js/live.js`` applies the rule the registry states (``games.event_kinds``): a part
is replaced from the pushed HTML when it is the same for every viewer or the page is
anonymous; the socket pushes the viewer's own copy of the other parts an event redraws
(``games.live.own``), and no script fetches its own page.
"""

from __future__ import annotations

import ast
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

from games import fragments, services
from games.event_kinds import (
    KINDS,
    PARTS,
    Part,
    UndeclaredEvent,
    check_emit,
    check_payload,
    kinds_for_pages,
)
from games.live import kinds as live_kinds
from games.live.render import Renderer
from games.models import GameEvent
from tests.conftest import current_phase, slot_of

ROOT = Path(__file__).resolve().parents[2]


def _item(game, kind: str) -> dict:
    """The item a socket gets for the game's newest event of ``kind``."""
    event = GameEvent.objects.filter(game=game, kind=kind).latest("seq")
    return Renderer(game.pk).item(event, 1)


def _kinds_of_page(html: str) -> dict:
    found = re.search(r'<script id="live-kinds" type="application/json">(.*?)</script>', html)
    assert found, "the page carries no kind -> parts map for live.js"
    return json.loads(found.group(1))


def _part(html: str, part_id: str) -> str:
    """The element with ``id=part_id`` as a page renders it (to its closing tag)."""
    start = html.index(f'id="{part_id}"')
    start = html.rindex("<", 0, start)
    tag = re.match(r"<(\w+)", html[start:]).group(1)
    end = html.index(f"</{tag}>", start)
    return html[start:end]


# -- the registry ---------------------------------------------------------------------------
def test_every_carried_part_names_a_renderer_that_draws_it(make_game):
    """A part's renderer is said once, in its declaration: each names a function of
    ``games.fragments`` that draws it from the game, as the socket's item carries it."""
    game = make_game("forum-vanilla")
    renderer = Renderer(game.pk)
    for part in (p for p in PARTS.values() if p.pushed):
        draw = getattr(fragments, str(part.render))
        assert renderer.part_html(part.name) == str(draw(game)), part.name
    with pytest.raises(AssertionError):
        Part("stray", field="stray")  # carried, with nothing to draw it


def test_every_kind_the_services_emit_is_declared_and_every_declared_kind_is_emitted():
    source = "\n".join(p.read_text() for p in (ROOT / "games" / "services").glob("*.py"))
    emitted = set(re.findall(r'emit\(\s*tx,\s*"(\w+)"', source))
    emitted |= set(re.findall(r'_emit_deadline\(tx, "(\w+)"', source))
    assert emitted == set(KINDS)


def test_every_emit_in_the_services_is_addressed_to_an_audience_its_kind_allows():
    """Read from the source: each ``emit(tx, "kind", payload, audience)`` call whose
    audience is written out ("host", f"slot:{...}"; the default is "public")."""
    checked = 0
    for path in (ROOT / "games" / "services").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "emit"):
                continue
            kind = node.args[1]
            if not isinstance(kind, ast.Constant):
                continue  # the clock's three kinds, checked by the flows that emit them
            audience = node.args[3] if len(node.args) > 3 else ast.Constant("public")
            if isinstance(audience, ast.JoinedStr):
                audience = ast.Constant(ast.unparse(audience)[2:-1].replace("{", "").strip())
            if isinstance(audience, ast.Constant):
                check_emit(kind.value, audience.value)
                checked += 1
    assert checked > 40


def test_emit_refuses_an_undeclared_kind_or_audience():
    assert check_emit("post", "mafia").name == "post"
    assert check_emit("night_action", "slot:3").name == "night_action"
    with pytest.raises(UndeclaredEvent):
        check_emit("vote_counted", "public")
    with pytest.raises(UndeclaredEvent):
        check_emit("private_result", "public")  # a result is never public


def test_emit_checks_before_writing(make_game):
    from games.services.common import emit, game_tx

    game = make_game()
    seq = game.event_seq
    with pytest.raises(UndeclaredEvent), game_tx(game.pk) as tx:
        emit(tx, "role_pm", {}, "public")
    game.refresh_from_db()
    assert game.event_seq == seq


def test_the_payload_checker_catches_a_missing_an_extra_and_a_wrong_key():
    good = {"number": 2, "deadline": None, "paused_remaining": 30.0}
    assert check_payload("resumed", good) == []
    assert check_payload("resumed", {"number": 2, "deadline": None}) != []
    assert check_payload("resumed", {**good, "extra": 1}) != []
    assert check_payload("resumed", {**good, "number": "2"}) != []
    assert check_payload("no_such_kind", {}) != []


def test_the_live_sets_derive_from_the_registry():
    assert {"vote_count"} == live_kinds.STATE_KINDS
    assert {
        "post", "vote_refused", "whisper", "posts_left", "post_limit_lifted",
    } == live_kinds.POST_EVENT_KINDS  # fmt: skip
    assert {"private_result", "vote_refused", "prod", "your_turn"} == live_kinds.YOU_KINDS
    assert {"modkill", "replaced", "day_shot"} <= live_kinds.ACCESS_KINDS
    for name, kind in KINDS.items():
        carried = {part.name for part in live_kinds.CARRIED.get(name, ())}
        assert ("players" in carried) == ("players" in kind.parts)
        assert carried <= {p.name for p in PARTS.values() if p.pushed}
    assert not live_kinds.CARRIED.get("vote_count")  # its item is the count itself
    assert {p.name for p in live_kinds.CARRIED["turn"]} == {"turn-panel", "phase-banner", "players"}


def test_live_js_keeps_no_copy_of_the_kinds():
    script = (ROOT / "static" / "js" / "live.js").read_text()
    for copy in ("PART_GROUPS", "YOU_KINDS", "pageSeq", "personal"):
        assert copy not in script
    for kind in ("night_action_withdrawn", "absence_cancelled", "replacement_needed"):
        assert f'"{kind}"' not in script  # the map comes from the page


def test_every_part_a_kind_redraws_is_marked_on_the_pages(client_for, make_game):
    game = make_game()
    goon = slot_of(game, "goon")
    page = client_for(goon.user).get(f"/games/{game.pk}/").content.decode()
    for part in ("vote-count", "players", "phase-banner", "posts", "reply", "game-nav"):
        assert re.search(rf'id="{part}"[^>]*data-live-part="[^"]+"', page), part
    assert _kinds_of_page(page) == kinds_for_pages()


# -- bug 1: resume after a pause ----------------------------------------------------------
def test_resume_redraws_the_vote_count_and_the_players_panel(make_game, host):
    game = make_game()
    services.pause_game(host, game.pk)
    assert "Paused." in _item(game, "paused")["vote_count"]
    services.resume_game(host, game.pk)
    phase = current_phase(game)
    item = _item(game, "resumed")
    assert "Paused." not in item["vote_count"]
    assert f'datetime="{phase.deadline.isoformat()}"' in item["vote_count"]
    assert "vote-count" in KINDS["resumed"].parts
    # The vote buttons come back: a signed-in page gets its own panel from its socket.
    assert "players" in KINDS["resumed"].parts and "players" in item


# -- bug 2: extend ----------------------------------------------------------------------------
def test_extend_redraws_the_vote_count_with_the_new_deadline(make_game, host):
    game = make_game()
    old = current_phase(game).deadline
    services.extend_deadline(host, game.pk, by=timedelta(hours=3))
    new = current_phase(game).deadline
    assert new > old
    count = _item(game, "deadline_changed")["vote_count"]
    assert f'datetime="{new.isoformat()}"' in count
    assert old.isoformat() not in count


# -- bug 3: the host's players panel --------------------------------------------------------
@pytest.mark.parametrize("kind", ["hammer", "night_ended", "modkill", "replaced", "day_ended"])
def test_the_hosts_public_page_gets_its_own_players_panel(client_for, make_game, host, kind):
    game = make_game()
    page = client_for(host).get(f"/games/{game.pk}/").content.decode()
    assert 'data-user="1"' in page  # signed in: parts that differ per viewer are its own
    panel = _part(page, "players")
    assert 'data-live-part="players"' in panel
    assert "Goon" in panel  # the host's panel has the role labels the pushed one has not
    live = _kinds_of_page(page)
    assert "players" in live["kinds"][kind]["parts"]
    assert "players" not in live["shared"]
    assert not PARTS["players"].same_for_everyone


def test_the_pushed_players_panel_is_the_spectators_one(make_game, host):
    game = make_game()
    services.modkill(host, game.pk, slot_of(game, "vanilla_townie").pk)
    assert "Goon" not in _item(game, "modkill")["players"]


# -- bug 4: a player's own vote from another tab ---------------------------------------------
def test_a_vote_count_redraws_a_signed_in_viewers_players_panel(client_for, make_game):
    game = make_game()
    goon = slot_of(game, "goon")
    first, second = [s for s in game.slots.order_by("seat") if s.pk != goon.pk][:2]
    services.cast_vote(goon.user, game.pk, first.pk)
    page = client_for(goon.user).get(f"/games/{game.pk}/").content.decode()
    live = _kinds_of_page(page)
    assert "players" in live["kinds"]["vote_count"]["own"]  # the voter's own copy comes
    services.cast_vote(goon.user, game.pk, second.pk)  # "another tab"
    panel = _part(client_for(goon.user).get(f"/games/{game.pk}/").content.decode(), "players")
    marked = [row for row in panel.split("<li")[1:] if "your vote" in row]
    assert len(marked) == 1 and f'data-slot="{second.pk}"' in marked[0]
    assert "data-unvote" in panel


def test_only_the_prodded_players_copy_of_a_prod_speaks_and_never_of_the_host(make_game, host):
    # The host's copy (audience "host") used to pop up "The host prodded you" on the host's
    # own pages; every prod is the site's, at a day's end, so "the host" was wrong anyway.
    game = make_game(min_posts_per_day=1)
    services.cut_deadline_now(host, game.pk)
    renderer = Renderer(game.pk)
    prods = GameEvent.objects.filter(game=game, kind="prod").order_by("seq")
    mine = [renderer.item(e, 1) for e in prods if e.audience.startswith("slot:")]
    hosts = [renderer.item(e, 1) for e in prods if e.audience == "host"]
    assert mine and len(hosts) == len(mine)
    assert all("notice" not in item for item in hosts)
    for item in mine:
        assert item["notice"] == (
            "You were prodded for inactivity: 0 of the 1 post a day this game asks for. "
            "Post more to stay in the game."
        )
    script = (ROOT / "static" / "js" / "live.js").read_text()
    assert "The host prodded you" not in script and "item.notice" in script


# -- push, never fetch ------------------------------------------------------------------------
def test_no_script_fetches_its_own_page() -> None:
    """Everything a live page shows arrives on its socket: no script asks for its own page
    again (a fetch or XMLHttpRequest of ``location``), and none sends the old refresh header."""
    from django.conf import settings

    scripts = sorted((settings.BASE_DIR / "static" / "js").glob("*.js"))
    assert {p.name for p in scripts} >= {"live.js", "league.js"}
    for path in scripts:
        source = path.read_text()
        assert not re.search(r"fetch\(\s*(window\.)?location", source), path.name
        assert not re.search(r"\.open\(\s*[\"']GET[\"']\s*,\s*(window\.)?location", source), (
            path.name
        )
        assert "X-Live-Refresh" not in source, path.name
