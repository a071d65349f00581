"""A share: ``count`` of ``of`` (an agent's refused acts of all it tried, the guesses that
spotted it of all made), with its rate and its words, said once for every page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Share:
    count: int
    of: int

    @property
    def rate(self) -> float | None:
        """count / of, from 0 to 1; None when there is nothing to count."""
        return self.count / self.of if self.of else None

    def words(self, one: str = "", many: str = "") -> str:
        """ "n of d (x%)", or with the counted thing named: "n of d guesses (x%)"."""
        noun = (one if self.of == 1 else many or one) if one else ""
        rate = self.rate
        percent = "" if rate is None else f" ({rate:.0%})"
        return f"{self.count} of {self.of}{' ' + noun if noun else ''}{percent}"

    @property
    def text(self) -> str:
        return self.words()
