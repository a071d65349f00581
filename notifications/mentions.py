"""Who a post speaks to: the people it quotes and the ``@name``s it mentions.

Read from the post's rendered HTML (``games.markup``): a ``[quote=name]`` becomes a
``<blockquote>`` opening with ``<span class="quote-author">name wrote:</span>``. Only the
post's own words count: a mention or a quote inside a quote is the quoted post's, and was
notified when that post was made.
"""

from __future__ import annotations

from collections.abc import Iterable
from html.parser import HTMLParser

from games.naming import fold

QUOTE_AUTHOR = "quote-author"
WROTE = " wrote:"
# Names are at most this long (``forms.USERNAME``); a mention is looked for that far.
LONGEST_NAME = 150


class _PostReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # blockquotes we are inside
        self.in_author = False
        self.own_text: list[str] = []
        self.authors: list[str] = []
        self._author: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "blockquote":
            self.depth += 1
        elif tag == "span" and self.depth == 1 and QUOTE_AUTHOR in (dict(attrs).get("class") or ""):
            self.in_author, self._author = True, []
        elif tag in ("p", "br", "li", "div", "pre", "code"):
            self.own_text.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "blockquote":
            self.depth = max(self.depth - 1, 0)
        elif tag == "span" and self.in_author:
            self.in_author = False
            name = "".join(self._author).strip()
            self.authors.append(name.removesuffix(WROTE.strip()).removesuffix(WROTE).strip())

    def handle_data(self, data: str) -> None:
        if self.in_author:
            self._author.append(data)
        elif self.depth == 0:
            self.own_text.append(data)


def read_post(html: str) -> tuple[list[str], str]:
    """(the names of the people the post quotes, the post's own text outside quotes)."""
    reader = _PostReader()
    reader.feed(html)
    reader.close()
    return reader.authors, "".join(reader.own_text)


def mentioned(text: str, folded_names: Iterable[str]) -> set[str]:
    """The folded names that ``text`` mentions as ``@name``: the longest name that the words
    after an ``@`` start with, ending where a word ends ("@ben," and "@Zoë Smith!" count,
    "@benjamin" is not "@ben", "ann@ben.org" is no mention)."""
    names = {n for n in folded_names if n}
    found: set[str] = set()
    start = text.find("@")
    while start != -1:
        if start and text[start - 1].isalnum():  # an e-mail address, not a mention
            start = text.find("@", start + 1)
            continue
        after = text[start + 1 : start + 1 + LONGEST_NAME]
        best = ""
        for end in range(1, len(after) + 1):
            if end < len(after) and after[end].isalnum():
                continue  # not the end of a word
            folded = fold(after[:end])
            if folded in names and len(folded) > len(best):
                best = folded
        if best:
            found.add(best)
        start = text.find("@", start + 1)
    return found


def spoken_to(html: str, folded_names: Iterable[str]) -> dict[str, str]:
    """Folded name -> "quoted" or "mentioned", for the names (folded) the post speaks to."""
    names = set(folded_names)
    authors, text = read_post(html)
    out = {name: "mentioned" for name in mentioned(text, names)}
    for author in authors:
        folded = fold(author)
        if folded in names:
            out[folded] = "quoted"
    return out
