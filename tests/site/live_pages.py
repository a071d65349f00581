"""An open page after live.js has redrawn an event's parts, compared with a fresh load.

``static/js/live.js`` keeps a signed-in page equal to a reload by fetching the page again
and swapping in each element whose ``data-live-part`` names a part the event's kind
redraws (``games.event_kinds``), removing the ones the fresh page no longer has. It never
touches anything else. So an open page equals a reload exactly when every element that
differs between the page as it was and a fresh load lies inside such a part; this module
plays that swap on parsed HTML (no browser) and lists what still differs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from games.event_kinds import KINDS

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
    | {"source", "track", "wbr"}
)


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    def parts(self) -> frozenset[str]:
        return frozenset((self.attrs.get("data-live-part") or "").split())

    def label(self) -> str:
        if "id" in self.attrs:
            return f"{self.tag}#{self.attrs['id']}"
        if "name" in self.attrs:
            return f"{self.tag}[name={self.attrs['name']}]"
        return f"{self.tag}.{self.attrs['class']}" if "class" in self.attrs else self.tag


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._volatile():
            self.stack[-1].children.append(text)

    def _volatile(self) -> bool:
        # A countdown's text ticks on the client; its ``datetime`` attribute is compared.
        # An age (``data-clock``: "3 s ago") depends on the moment of rendering.
        return any(
            (n.tag == "time" and "data-countdown" in n.attrs) or "data-clock" in n.attrs
            for n in self.stack
        )


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    _normalise(builder.root)
    return builder.root


def _normalise(node: Node) -> None:
    """Drop what differs between two loads of the same page by design: the CSRF token
    (masked afresh per response), the page's live positions (the socket's business) and
    the bell and the title's unread count (kept by their own inbox frames: bell.js)."""
    if node.attrs.get("name") == "csrfmiddlewaretoken":
        node.attrs.pop("value", None)
    node.attrs.pop("data-live-positions", None)
    if node.attrs.get("id") == "bell" or node.tag == "title":
        node.attrs, node.children = {"id": "bell"} if node.tag != "title" else {}, []
    for child in node.children:
        if isinstance(child, Node):
            _normalise(child)


def redrawn_parts(*kinds: str, signed_in: bool = True) -> frozenset[str]:
    """The parts these kinds redraw on a page (a signed-in page also its ``own_parts``)."""
    parts: set[str] = set()
    for name in kinds:
        kind = KINDS[name]
        parts |= kind.parts | (kind.own_parts if signed_in else frozenset())
    return frozenset(parts)


def _by_id(node: Node, found: dict[str, Node] | None = None) -> dict[str, Node]:
    found = {} if found is None else found
    if "id" in node.attrs:
        found.setdefault(node.attrs["id"], node)
    for child in node.children:
        if isinstance(child, Node):
            _by_id(child, found)
    return found


def after_live(before: Node, fresh: Node, parts: frozenset[str]) -> Node:
    """``before`` as live.js leaves it: each element with an id and one of ``parts`` is
    swapped for the fresh page's element of that id, or removed if the fresh page has none."""
    fresh_ids = _by_id(fresh)

    def walk(node: Node) -> Node:
        children: list[Node | str] = []
        for child in node.children:
            if isinstance(child, Node) and "id" in child.attrs and child.parts() & parts:
                swapped = fresh_ids.get(child.attrs["id"])
                if swapped is not None:
                    children.append(swapped)
                continue
            children.append(walk(child) if isinstance(child, Node) else child)
        return Node(node.tag, dict(node.attrs), children)

    return walk(before)


def differences(shown: Node, fresh: Node, path: str = "") -> list[str]:
    """Where ``shown`` (the open page) and ``fresh`` (a reload) differ: the innermost
    elements whose own attributes or children differ, each as a path of tags and ids."""
    here = f"{path}/{shown.label()}"
    if shown.tag != fresh.tag:
        return [f"{here}: is <{fresh.tag}> after a reload"]
    found: list[str] = []
    if shown.attrs != fresh.attrs:
        found.append(f"{here}: attributes {shown.attrs}, a reload {fresh.attrs}")
    if len(shown.children) != len(fresh.children) or any(
        isinstance(a, str) != isinstance(b, str)
        for a, b in zip(shown.children, fresh.children, strict=True)
    ):
        kept = [_short(c) for c in shown.children]
        want = [_short(c) for c in fresh.children]
        return [*found, f"{here}: shows {kept}, a reload {want}"]
    for a, b in zip(shown.children, fresh.children, strict=True):
        if isinstance(a, str):
            if a != b:
                found.append(f"{here}: text {a!r}, a reload {b!r}")
        else:
            found += differences(a, b, here)  # type: ignore[arg-type]
    return found


def _short(child: Node | str) -> str:
    return child[:40] if isinstance(child, str) else child.label()


def _drop(node: Node, ids: frozenset[str]) -> Node:
    kept = [
        _drop(c, ids) if isinstance(c, Node) else c
        for c in node.children
        if not (isinstance(c, Node) and c.attrs.get("id") in ids)
    ]
    return Node(node.tag, node.attrs, kept)


def stale_after(
    before_html: str, fresh_html: str, *kinds: str, unchecked: Iterable[str] = ()
) -> list[str]:
    """What an open page (``before_html``) still shows differently from a reload
    (``fresh_html``) once live.js has redrawn the parts of ``kinds``: empty when the
    registry and the page's part marks are right. ``unchecked``: ids of elements left out
    on both sides (what a test knowingly does not hold to the property)."""
    skip = frozenset(unchecked)
    fresh = _drop(parse(fresh_html), skip)
    shown = after_live(_drop(parse(before_html), skip), fresh, redrawn_parts(*kinds))
    return differences(shown, fresh)
