"""Post markup: Markdown and BBCode render, and nothing executable survives."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from games.markup import escape_markdown, render_post


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("**bold** and *it*", "<p><strong>bold</strong> and <em>it</em></p>"),
        ("[b]Vote: Bob[/b] [i]x[/i] [u]y[/u] [s]z[/s]",
         "<p><strong>Vote: Bob</strong> <em>x</em> <u>y</u> <s>z</s></p>"),
        ("[vote]Cat[/vote]", "<p><strong>Vote: Cat</strong></p>"),
        ("~~gone~~", "<p><s>gone</s></p>"),
        ("[url=https://example.com/a?b=1]site[/url]",
         '<p><a href="https://example.com/a?b=1" rel="nofollow noopener noreferrer">site</a></p>'),
        ("[url]http://example.org[/url]",
         '<p><a href="http://example.org" rel="nofollow noopener noreferrer">'
         "http://example.org</a></p>"),
    ],
)  # fmt: skip
def test_formatting(body, expected):
    assert render_post(body) == expected


def test_quotes_nest_and_name_their_author():
    html = render_post("[quote=Ann]outer [quote=Bob]inner[/quote] tail[/quote]\nreply")
    assert html.count("<blockquote>") == 2
    assert '<span class="quote-author">Ann wrote:</span>' in html
    assert '<span class="quote-author">Bob wrote:</span>' in html
    assert html.endswith("<p>reply</p>")
    assert "<blockquote>" in render_post("[quote]plain[/quote]")


def test_spoiler_is_a_details_block():
    html = render_post("before [spoiler]secret[/spoiler] after")
    assert '<details class="spoiler"><summary>Spoiler</summary>secret</details>' in html


@pytest.mark.parametrize(
    "body",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](  javascript:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](vbscript:msgbox(1))",
        "[url=javascript:alert(1)]hi[/url]",
        "[url=JAVASCRIPT:alert(1)]hi[/url]",
        '[url="javascript:alert(1)"]hi[/url]',
        "[url]javascript:alert(1)[/url]",
        '[url=https://ok.example" onmouseover="alert(1)]hi[/url]',
        "<svg onload=alert(1)>",
        "[quote=<script>alert(1)</script>]x[/quote]",
        '[quote="a onerror=alert(1)"]x[/quote]',
        '![img](https://example.com/x.png" onerror="alert(1))',
        "\ue000b\ue001<script>x</script>\ue002b\ue001",
        "<iframe src='https://evil.example'></iframe>",
        "[b]<style>body{}</style>[/b]",
    ],
)
def test_nothing_executable_survives(body):
    tags = _tags(render_post(body))
    for tag, attrs in tags:
        assert tag not in {"script", "iframe", "svg", "img", "style", "object", "embed"}
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            if name in {"href", "src"}:
                assert urlsplit(value or "").scheme.lower() in {"http", "https", "mailto"}


class _TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def _tags(html):
    parser = _TagCollector()
    parser.feed(html)
    return parser.tags


def test_a_javascript_link_becomes_plain_text():
    for body in ("[x](javascript:alert(1))", "[url=javascript:alert(1)]x[/url]"):
        assert not [t for t, _ in _tags(render_post(body)) if t == "a"]


def test_attribute_injection_through_url_tag_fails():
    tags = _tags(render_post('[url=https://ok.example" onmouseover="alert(1)]hi[/url]'))
    assert all(name != "onmouseover" for _, attrs in tags for name, _ in attrs)


def test_relative_links_are_dropped():
    assert "href" not in render_post("[here](/admin/)")


def test_escape_markdown_round_trips_names():
    for name in ("__init__", "a*b*c", "[x](y)", "Bob.Smith+1", "<b>"):
        html = render_post(f"**Vote: {escape_markdown(name)}**")
        assert html.startswith("<p><strong>Vote: ")
        assert "<em>" not in html and "<a" not in html
