"""A page of a list and the links around it, as ``templates/games/_pagination.html`` reads
them: the thread's pages and the inbox's share it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Pages:
    number: int
    num_pages: int
    count: int  # items in the whole (filtered) list

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def links(self) -> list[tuple[int, str]]:
        """The page numbers the pagination shows: (n, "current" | "page" | "gap") for the
        first, the last and two either side of this one, a gap where pages are left out."""
        shown = {1, self.num_pages, *range(self.number - 2, self.number + 3)}
        links: list[tuple[int, str]] = []
        for n in sorted(n for n in shown if 1 <= n <= self.num_pages):
            if links and n > links[-1][0] + 1:
                links.append((n - 1, "gap"))
            links.append((n, "current" if n == self.number else "page"))
        return links


def page_number(raw: object, num_pages: int) -> int:
    """``last`` (and anything past the end) is the last page; junk is page 1."""
    if raw == "last":
        return num_pages
    try:
        number = int(str(raw)) if raw not in (None, "") else 1
    except ValueError:
        number = 1
    return min(max(number, 1), num_pages)


def page_reach(raw: object) -> int | None:
    """The furthest page a reload of ``?page=raw`` can come to show as the list grows: a
    number past the end shows the last page until the list gets there, ``last`` follows it
    for ever (None), junk is page 1. An open thread page moves on to a new page only this
    far (``static/js/live.js``), as a reload of its URL would."""
    if raw == "last":
        return None
    return page_number(raw, 2**31)
