"""Votes in posts, read the way a forum moderator reads them.

Only text wholly inside bold (``<strong>``/``<b>``) counts, and never inside a quote
(``<blockquote>``): quoting someone's vote is not voting. ``Vote: Name`` / ``Vote Name``
casts a vote, ``Unvote`` / ``Un Vote`` withdraws one (case-insensitive, optional colon);
``V: Name``, ``UV`` and unbolded votes count for nothing (forum rule 6). The last vote or
unvote in a post stands. Parsing works on the rendered, sanitised HTML, so what counts is
exactly what readers see in bold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Generic, TypeVar

from django.utils.translation import gettext as _

from .naming import fold

BOLD_TAGS = {"strong", "b"}
QUOTE_TAGS = {"blockquote"}
SKIP_WORDS = {"no elimination", "no lynch", "nolynch", "no-lynch", "skip", "no vote", "nobody"}
_SKIP_FOLDED = {fold(w) for w in SKIP_WORDS}

_UNVOTE = re.compile(r"^un\s?vote\b\s*:?", re.IGNORECASE)
_VOTE = re.compile(r"^vote\b\s*:?\s*(?P<name>.*)$", re.IGNORECASE | re.DOTALL)
_TRAILING = re.compile(r"[\s.,;!?]+$")


class _BoldText(HTMLParser):
    """Collects the text of each outermost bold element outside quotes, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.segments: list[str] = []
        self._bold_depth = 0
        self._quote_depth = 0
        self._current: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in QUOTE_TAGS:
            self._quote_depth += 1
        elif tag in BOLD_TAGS:
            self._bold_depth += 1
        elif tag == "br" and self._bold_depth:
            self._current.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in QUOTE_TAGS:
            self._quote_depth = max(0, self._quote_depth - 1)
        elif tag in BOLD_TAGS and self._bold_depth:
            self._bold_depth -= 1
            if self._bold_depth == 0:
                if self._quote_depth == 0:
                    self.segments.append("".join(self._current))
                self._current = []

    def handle_data(self, data: str) -> None:
        if self._bold_depth:
            self._current.append(data)


@dataclass(frozen=True)
class VoteIntent:
    """What a post asks for: ``kind`` "vote" (with ``name`` as written) or "unvote"."""

    kind: str
    name: str = ""


def bold_segments(html: str) -> list[str]:
    parser = _BoldText()
    parser.feed(html)
    parser.close()
    return [" ".join(s.split()) for s in parser.segments]


def find_vote(html: str) -> VoteIntent | None:
    """The vote or unvote that stands in a post (the last one), or None."""
    found: VoteIntent | None = None
    for segment in bold_segments(html):
        for line in segment.split("\n"):
            intent = _parse_segment(line.strip())
            if intent is not None:
                found = intent
    return found


def _parse_segment(text: str) -> VoteIntent | None:
    if _UNVOTE.match(text):
        return VoteIntent("unvote")
    match = _VOTE.match(text)
    if match:
        return VoteIntent("vote", _TRAILING.sub("", match.group("name")).strip())
    return None


K = TypeVar("K")  # what a name maps to (the site's: slot ids)


@dataclass(frozen=True)
class NameMatch(Generic[K]):
    """A name resolved against the living players: ``key`` of the match, or ``error``."""

    key: K | None = None
    skip: bool = False
    error: str = ""


def match_name(
    written: str,
    living: Mapping[str, K],
    *,
    dead: Iterable[str] = (),
    skip_allowed: bool = True,
) -> NameMatch[K]:
    """Resolve a written name: exact, then "no elimination", then prefix, each compared by
    ``naming.fold`` (accents, case and spaces do not matter: "zoe smith" is "Zoë Smith").

    ``living`` maps display names to keys (slot ids). The error messages only use public
    facts (who is alive or dead, who the players are).
    """
    wanted = fold(written.strip().lstrip("@"))
    if not wanted:
        return NameMatch(error=_("Your vote names nobody: write **Vote: Name**."))
    # The name as written first: two names older than the sign-up check may fold alike.
    as_written = written.strip().lstrip("@").casefold()
    for name, key in living.items():
        if name.casefold() == as_written:
            return NameMatch(key=key)
    for name, key in living.items():
        if fold(name) == wanted:
            return NameMatch(key=key)
    if wanted in _SKIP_FOLDED:
        if skip_allowed:
            return NameMatch(skip=True)
        return NameMatch(error=_('This game has no "no elimination" vote.'))
    for name in dead:
        if fold(name) == wanted:
            return NameMatch(error=_("%(name)s is dead and cannot be voted for.") % {"name": name})
    candidates = [(n, k) for n, k in living.items() if fold(n).startswith(wanted)]
    if len(candidates) == 1:
        return NameMatch(key=candidates[0][1])
    if candidates:
        options = ", ".join(sorted(n for n, _key in candidates))
        said = _('"%(written)s" could mean %(options)s: write the name in full.')
        return NameMatch(error=said % {"written": written, "options": options})
    return NameMatch(error=_('No living player is called "%(written)s".') % {"written": written})


# What a post shows in place of a secret vote (``Game.secret_votes``): that the player voted,
# not whom. It reads as no vote itself ("voted" is not "vote").
SECRET_VOTE_TEXT = "**(voted)**"


def casts_vote(html: str) -> bool:
    """Whether any bold line of ``html`` (quoted or not) reads as a vote for someone."""
    parser = _BoldText()
    parser.feed(html)
    parser.close()
    for segment in [*parser.segments, "".join(parser._current)]:
        for line in segment.split("\n"):
            intent = _parse_segment(" ".join(line.split()))
            if intent is not None and intent.kind == "vote":
                return True
    return False


def _casts_vote_anywhere(html: str) -> bool:
    # Quotes too: a vote shown inside a quote would show a target all the same.
    return casts_vote(html.replace("<blockquote>", "").replace("</blockquote>", ""))


def redact_votes(body: str, render: Callable[[str], str]) -> str:
    """``body`` with every line that renders as a bold vote (``render``: the post markup)
    put as ``SECRET_VOTE_TEXT``; a vote bold across lines makes the whole post that line.
    Unvotes stay: they name nobody."""
    if not _casts_vote_anywhere(render(body)):
        return body
    lines = [
        SECRET_VOTE_TEXT if _casts_vote_anywhere(render(line)) else line
        for line in body.split("\n")
    ]
    redacted = "\n".join(lines)
    return SECRET_VOTE_TEXT if _casts_vote_anywhere(render(redacted)) else redacted
