"""A small DOM for the in-process model of ``static/js/live.js`` (``tests/live_model.py``).

No HTML parser library is installed, so this builds a tree with the standard library's
``html.parser``: enough of the browser's behaviour for the site's own, well-formed templates
(void elements, the implied end of ``<p>``/``<li>``/``<option>``, raw text in ``<script>``)
plus the few operations live.js performs: find by id, replace an element, append children,
remove, and ``outerHTML``. Both sides of a comparison (the open page and a fresh load) go
through the same parser and serialiser, so what differs is the content, never the parsing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser

VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    ]
)
RAW = frozenset({"script", "style"})
# A start tag that closes an open element of the same kind first (the HTML parser's
# "implied end tags"), as the browser does for lists, options and table cells.
SELF_CLOSING_PEERS = {
    "li": {"li"},
    "option": {"option"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
}
BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "details",
        "div",
        "dl",
        "fieldset",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "ul",
    ]
)


class Node:
    parent: Element | None = None


class Text(Node):
    def __init__(self, text: str, raw: bool = False) -> None:
        self.text = text
        self.raw = raw  # script/style content: serialised as is

    def html(self) -> str:
        return self.text if self.raw else html.escape(self.text, quote=False)

    def text_content(self) -> str:
        return self.text


class Element(Node):
    def __init__(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tag = tag
        self.attrs: dict[str, str] = {}
        for name, value in attrs:
            self.attrs.setdefault(name, "" if value is None else value)  # first one wins
        self.children: list[Node] = []

    # -- reading ---------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.attrs.get("id", "")

    def get(self, name: str) -> str | None:
        return self.attrs.get(name)

    def elements(self) -> Iterator[Element]:
        """Every element below this one, in document order (not this one)."""
        stack = [c for c in reversed(self.children) if isinstance(c, Element)]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(c for c in reversed(element.children) if isinstance(c, Element))

    def by_id(self, element_id: str) -> Element | None:
        if self.id == element_id:
            return self
        for e in self.elements():
            if e.attrs.get("id") == element_id:
                return e
        return None

    def first(self, tag: str) -> Element | None:
        return next((e for e in self.elements() if e.tag == tag), None)

    def first_element(self) -> Element | None:
        return next((c for c in self.children if isinstance(c, Element)), None)

    def contains(self, other: Node) -> bool:
        node: Node | None = other
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def text_content(self) -> str:
        return "".join(c.text_content() for c in self.children)

    # -- changing --------------------------------------------------------------------------
    def append(self, node: Node) -> None:
        if node.parent is not None:
            node.parent.children.remove(node)
        node.parent = self
        self.children.append(node)

    def remove(self) -> None:
        if self.parent is not None:
            self.parent.children.remove(self)
            self.parent = None

    def replace_with(self, other: Element) -> None:
        parent = self.parent
        if parent is None:
            return
        if other.parent is not None:
            other.parent.children.remove(other)
        parent.children[parent.children.index(self)] = other
        other.parent, self.parent = parent, None

    def set_inner_html(self, markup: str) -> None:
        for child in self.children:
            child.parent = None
        self.children = []
        for child in list(parse_fragment(markup).children):
            self.append(child)

    def copy(self) -> Element:
        twin = Element(self.tag, list(self.attrs.items()))
        for child in self.children:
            if isinstance(child, Element):
                twin.append(child.copy())
            else:
                assert isinstance(child, Text)
                twin.append(Text(child.text, child.raw))
        return twin

    # -- writing ---------------------------------------------------------------------------
    def outer_html(self) -> str:
        attrs = "".join(
            f' {name}="{html.escape(value, quote=True)}"' for name, value in self.attrs.items()
        )
        if self.tag in VOID:
            return f"<{self.tag}{attrs}>"
        inner = "".join(c.html() for c in self.children)
        return f"<{self.tag}{attrs}>{inner}</{self.tag}>"

    def html(self) -> str:
        return self.outer_html()


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", [])
        self.stack: list[Element] = [self.root]

    def _close_to(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        peers = SELF_CLOSING_PEERS.get(tag)
        if peers and self.stack[-1].tag in peers:
            self.stack.pop()
        if tag in BLOCKS and self.stack[-1].tag == "p":
            self.stack.pop()  # a block closes an open paragraph
        element = Element(tag, attrs)
        self.stack[-1].append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if any(e.tag == tag for e in self.stack[1:]):
            self._close_to(tag)

    def handle_data(self, data: str) -> None:
        raw = self.stack[-1].tag in RAW
        self.stack[-1].append(Text(data, raw))


def parse_fragment(markup: str) -> Element:
    """The nodes of ``markup`` under a holder element (as ``div.innerHTML = markup``)."""
    builder = _Builder()
    builder.feed(markup)
    builder.close()
    return builder.root


def parse_document(markup: str) -> Element:
    return parse_fragment(markup)


# -- what is compared (tests/e2e/live_parity.py's EXTRACT) ---------------------------------
_SPACE = re.compile(r"\s+")


def normalised(element: Element) -> str:
    """The part as live_parity compares it: no live notices or status, countdowns without
    their text (the ``datetime`` stays), no CSRF token, whitespace collapsed."""
    out: list[str] = []
    _write(element, out, top=True)
    text = _SPACE.sub(" ", "".join(out))
    return text.replace("> <", "><").replace(" >", ">").strip()


def _write(node: Node, out: list[str], top: bool = False) -> None:
    """``outer_html`` with live_parity's changes made on the way (no copy of the tree)."""
    if isinstance(node, Text):
        out.append(node.html())
        return
    assert isinstance(node, Element)
    attrs = node.attrs
    if not top and attrs.get("id") in ("live-notices", "live-status"):
        return
    # An age (``data-clock``: "3 s ago") depends on the moment of rendering: no text either.
    clock = (node.tag == "time" and "data-countdown" in attrs) or "data-clock" in attrs
    skip = set()
    if clock:
        skip = {"title", "data-absolute"}
    elif node.tag == "input" and attrs.get("name") == "csrfmiddlewaretoken":
        skip = {"value"}
    out.append(f"<{node.tag}")
    for name, value in attrs.items():
        if name not in skip:
            out.append(f' {name}="{html.escape(value, quote=True)}"')
    out.append(">")
    if node.tag in VOID:
        return
    if not clock:
        for child in node.children:
            _write(child, out)
    out.append(f"</{node.tag}>")
