"""Why a league queue made no game, or a series' next game did not start: one row that
every reader sees (``LeagueQueueState.problem``, ``Series.problem``), so it is stored in the
site's own language (``stored``) and shown in the reader's (``shown``)."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def waiting_for(more: int) -> str:
    return ngettext(
        "Waiting for %(more)s more player.", "Waiting for %(more)s more players.", more
    ) % {"more": more}


def setup_gone() -> str:
    return _("This setup no longer exists; you stay queued until it returns.")


def not_made(why: str) -> str:
    return _("The game could not be made: %(why)s Everyone stays queued.") % {"why": _said(why)}


def not_made_error() -> str:
    return _("The game could not be made (an error on the site); everyone stays queued.")


def next_not_started(why: str) -> str:
    return _("The next game could not start: %(why)s") % {"why": _said(why)}


def next_not_started_error() -> str:
    return _("The next game could not start (an error on the site).")


def _said(why: str) -> str:
    """A refusal's message kept in the site's language, in the active one where the
    catalogue has it (a message with a name or a number in it stays as it was)."""
    return _(why) if why else why


def in_site_language() -> translation.override:
    """Where a game is made for the queue or the series: a refusal raised there is kept in
    a problem (``stored``), so it is said in the site's language, whoever's request (a join
    by someone reading Russian) ran the matcher."""
    return translation.override(settings.LANGUAGE_CODE)


def stored(make: Callable[..., str], *args: object) -> str:
    """The problem as the row keeps it: in the site's language."""
    with in_site_language():
        return make(*args)


# The stored (site's language) problems, and how to say each again in the active language.
_SHAPES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"Waiting for (\d+) more players?\."), lambda m: waiting_for(int(m[1]))),
    (
        re.compile(r"This setup no longer exists; you stay queued until it returns\."),
        lambda m: setup_gone(),
    ),
    (
        re.compile(r"The game could not be made \(an error on the site\); everyone stays queued\."),
        lambda m: not_made_error(),
    ),
    (
        re.compile(r"The game could not be made: (.*) Everyone stays queued\.", re.DOTALL),
        lambda m: not_made(m[1]),
    ),
    (
        re.compile(r"The next game could not start \(an error on the site\)\."),
        lambda m: next_not_started_error(),
    ),
    (
        re.compile(r"The next game could not start: (.*)", re.DOTALL),
        lambda m: next_not_started(m[1]),
    ),
]


def shown(problem: str) -> str:
    """A stored problem in the active language (one of another shape as it is)."""
    if not problem or translation.get_language() == settings.LANGUAGE_CODE:
        return problem
    for pattern, say in _SHAPES:
        found = pattern.fullmatch(problem)
        if found is not None:
            return say(found)
    return problem
