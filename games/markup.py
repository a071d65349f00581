"""Post markup: Markdown (CommonMark) plus the BBCode tags forum players type, rendered safely.

Pipeline: BBCode is translated first (block tags to Markdown, inline tags to private-use
placeholders that Markdown leaves alone), Markdown is rendered with raw HTML disabled, the
placeholders become tags from a fixed list, and the result goes through nh3 with an
allowlist. Whatever the input, no script, event handler or non-http(s)/mailto URL survives:
nh3 is the last step, so even a bug in the earlier steps cannot let one through.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import nh3
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt

try:  # linkify only when its optional dependency is installed
    import linkify_it  # noqa: F401

    _LINKIFY = True
except ImportError:  # pragma: no cover - depends on the environment
    _LINKIFY = False

_md = MarkdownIt("commonmark", {"html": False, "linkify": _LINKIFY, "typographer": False})
_md.enable("strikethrough")
if _LINKIFY:  # pragma: no cover
    _md.enable("linkify")

ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "b", "em", "i", "u", "s", "del", "blockquote", "code", "pre",
    "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6", "details", "summary", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
ALLOWED_CLASSES = {"span": {"quote-author"}, "details": {"spoiler"}}
URL_SCHEMES = {"http", "https", "mailto"}

# Placeholders for inline BBCode: characters of the Unicode private-use area, which
# Markdown treats as plain text and which we strip from user input first.
_OPEN, _CLOSE, _END = "\ue000", "\ue001", "\ue002"
_PLACEHOLDER_CHARS = re.compile("[\ue000-\ue0ff]")
_INLINE_TAGS = {
    "b": ("<strong>", "</strong>"),
    "i": ("<em>", "</em>"),
    "u": ("<u>", "</u>"),
    "s": ("<s>", "</s>"),
    "spoiler": ('<details class="spoiler"><summary>Spoiler</summary>', "</details>"),
}
_INLINE = re.compile(r"\[(b|i|u|s|spoiler)\](.*?)\[/\1\]", re.IGNORECASE | re.DOTALL)
_VOTE = re.compile(r"\[vote\](.*?)\[/vote\]", re.IGNORECASE | re.DOTALL)
_URL_NAMED = re.compile(r"\[url=([^\]\s]+)\](.*?)\[/url\]", re.IGNORECASE | re.DOTALL)
_URL_BARE = re.compile(r"\[url\]([^\[\s]+)\[/url\]", re.IGNORECASE)
# Innermost quote first (no nested [quote inside), so nested quotes nest in Markdown too.
_QUOTE = re.compile(
    r"\[quote(?:=(?P<q>\"?)(?P<name>[^\]\"\n]{1,80})(?P=q))?\]"
    r"(?P<body>(?:(?!\[quote[=\]]).)*?)\[/quote\]",
    re.IGNORECASE | re.DOTALL,
)
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&])")


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown punctuation so ``text`` renders literally."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _quote(match: re.Match[str]) -> str:
    body = match.group("body").strip("\n")
    lines = []
    name = match.group("name")
    if name:
        lines.append(
            f"{_OPEN}author{_CLOSE}"
            + _("%(name)s wrote:") % {"name": escape_markdown(name.strip())}
            + f"{_END}author{_CLOSE}"
        )
        lines.append("")
    lines.extend(body.split("\n"))
    quoted = "\n".join(f"> {line}" if line else ">" for line in lines)
    return f"\n\n{quoted}\n\n"


def _url(href: str, text: str) -> str:
    href = href.strip().strip("\"'")
    if "<" in href or ">" in href:
        return text  # cannot be written as a Markdown link destination: keep the text only
    scheme = re.match(r"\s*([a-zA-Z][a-zA-Z0-9+.-]*):", href)
    if scheme is None or scheme.group(1).lower() not in URL_SCHEMES:
        # javascript:, data:, relative links...: Markdown would print the whole link
        # literally, so keep just the text, as a forum does with a link it refuses.
        return text
    return f"[{text}](<{href}>)"


def bbcode_to_markdown(text: str) -> str:
    """Translate the BBCode subset into Markdown plus inline placeholders."""
    text = _PLACEHOLDER_CHARS.sub("", text)
    text = _VOTE.sub(lambda m: f"[b]Vote: {m.group(1).strip()}[/b]", text)
    text = _URL_NAMED.sub(lambda m: _url(m.group(1), m.group(2)), text)
    text = _URL_BARE.sub(lambda m: _url(m.group(1), escape_markdown(m.group(1))), text)
    previous = None
    while previous != text:  # innermost first, until no pair is left
        previous = text
        text = _QUOTE.sub(_quote, text)
        text = _INLINE.sub(
            lambda m: (
                f"{_OPEN}{m.group(1).lower()}{_CLOSE}{m.group(2)}{_END}{m.group(1).lower()}{_CLOSE}"
            ),
            text,
        )
    return text


_PLACEHOLDER = re.compile(f"([{_OPEN}{_END}])([a-z]+){_CLOSE}")


def _placeholders_to_html(html: str) -> str:
    tags = dict(_INLINE_TAGS)
    tags["author"] = ('<span class="quote-author">', "</span>")

    def swap(m: re.Match[str]) -> str:
        pair = tags.get(m.group(2))
        if pair is None:
            return ""
        return pair[0] if m.group(1) == _OPEN else pair[1]

    return _PLACEHOLDER_CHARS.sub("", _PLACEHOLDER.sub(swap, html))


def sanitize(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=URL_SCHEMES,
        url_relative="deny",
        link_rel="nofollow noopener noreferrer",
        strip_comments=True,
        clean_content_tags={"script", "style"},
    )


def render_post(body: str) -> str:
    """The safe HTML of a post body."""
    html = _md.render(bbcode_to_markdown(body))
    # A block placeholder (spoiler) inside a paragraph leaves empty paragraphs behind.
    return sanitize(_placeholders_to_html(html)).replace("<p></p>", "").strip()


# Tags whose end (or which, alone) ends a line of the post's plain text.
_LINE_ENDS = frozenset({"p", "br", "li", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6"})


class _TextReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _LINE_ENDS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(html: str) -> str:
    """What a rendered post says, without markup: its text, a line per paragraph. An
    automatic post's names read as written (its source escapes Markdown: ``bot\\-a1``)."""
    reader = _TextReader()
    reader.feed(html)
    reader.close()
    lines = [" ".join(line.split()) for line in "".join(reader.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
