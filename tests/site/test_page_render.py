"""The socket's page renders (``games.live.page_render``): which pages, and their parts."""

from __future__ import annotations

from games.live.page_render import live_parts, page_path, part_names


def test_only_the_sockets_own_games_live_pages_are_rendered() -> None:
    assert page_path(5, "/games/5/role/") == "/games/5/role/"
    assert page_path(5, "/games/5/?page=2&iso=7") == "/games/5/?page=2&iso=7"
    assert page_path(5, "/games/5/t/mafia/") == "/games/5/t/mafia/"
    for other in (
        "/games/6/role/",  # another game
        "/games/5/vote/",  # not a page
        "/notifications/",
        "//evil.example/games/5/",
        "https://evil.example/games/5/",
        "games/5/",
        "",
        None,
    ):
        assert page_path(5, other) is None, other


def test_the_parts_of_a_rendered_page_are_cut_out_whole() -> None:
    html = (
        '<main><div id="a" data-live-part="phase"><div><p>x</p></div><br>'
        '<section id="b" data-live-part="actions chores"><div>in</div></section></div>'
        '<div id="a" data-live-part="phase">second a</div>'
        '<aside id="c">not live</aside><input id="d" data-live-part="phase" value="v"></main>'
    )
    parts = live_parts(html)
    assert list(parts) == ["a", "b", "d"]
    assert parts["a"].startswith('<div id="a"') and parts["a"].endswith("</section></div>")
    assert parts["b"] == '<section id="b" data-live-part="actions chores"><div>in</div></section>'
    assert part_names(parts["b"]) == {"actions", "chores"}
    assert parts["d"] == '<input id="d" data-live-part="phase" value="v">'
