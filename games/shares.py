"""A share: ``count`` of ``of`` (an agent's refused acts of all it tried, the guesses that
spotted it of all made, a player's wins of their games, a behaviour metric's n of d), with
its rate and its words, said once for every page and answer."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from .shapes import AgentRate


@dataclass(frozen=True)
class Share:
    count: int
    of: int

    @property
    def rate(self) -> float | None:
        """count / of, from 0 to 1; None when there is nothing to count."""
        return self.count / self.of if self.of else None

    @property
    def percent(self) -> str:
        """The rate as the pages write it ("38%"; blank when there is nothing to count)."""
        rate = self.rate
        return "" if rate is None else f"{rate:.0%}"

    def words(self, one: str = "", many: str = "") -> str:
        """ "n of d (x%)", or with the counted thing named: "n of d guesses (x%)"."""
        noun = (one if self.of == 1 else many or one) if one else ""
        values = {"count": self.count, "of": self.of, "noun": noun, "percent": self.percent}
        if noun:
            if self.of:
                return _("%(count)s of %(of)s %(noun)s (%(percent)s)") % values
            return _("%(count)s of %(of)s %(noun)s") % values
        if self.of:
            return _("%(count)s of %(of)s (%(percent)s)") % values
        return _("%(count)s of %(of)s") % values

    @property
    def text(self) -> str:
        return self.words()

    def data(self) -> AgentRate:
        """As the API gives a share: count, of, and the rate (null with nothing to count)."""
        return {"count": self.count, "of": self.of, "rate": self.rate}
