"""A rule set named in a URL or a query: one of the site's, or the refusal every page and
answer gives (the leaderboards, the statistics)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..errors import ErrorCode, NotFound
from ..models import Ruleset


def ruleset_or_404(ruleset: str) -> str:
    if ruleset not in Ruleset.values:
        raise NotFound(
            _("There is no rule set called %(name)s; use one of %(names)s.")
            % {"name": repr(ruleset), "names": ", ".join(Ruleset.values)},
            ErrorCode.RULESET,
            "ruleset",
        )
    return ruleset
