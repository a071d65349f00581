"""The resolver's words for people, in whatever language the caller reads.

The resolver is pure Python and knows no translation machinery. Its sentences for people
(explanations, win reasons, refusals, role PMs) go through ``_`` / ``ngettext``, which call
a translator the caller installs (``set_translator``); none installed, they are English as
written (the CLI, whose JSON is a contract, and the resolver's own tests).

- ``_("Nobody is eliminated: %(why)s.") % {"why": why}``: the template is translated, then
  filled; a reason filled into a sentence is itself a whole translated phrase.
- ``gettext_noop``: marks module-level data (role descriptions, flag titles) for the
  catalogue without translating it; whoever shows it translates it then (``_(spec.title)``).

The names ``_``, ``ngettext``, ``pgettext`` and ``gettext_noop`` are the ones Django's
``makemessages`` extracts, so these strings land in the site's catalogue.
"""

from __future__ import annotations

from collections.abc import Callable

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]
Pgettext = Callable[[str, str], str]


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def _english_context(context: str, message: str) -> str:
    return message


_gettext: Gettext = str
_ngettext: Ngettext = _english_plural
_pgettext: Pgettext = _english_context


def set_translator(
    gettext: Gettext | None,
    ngettext: Ngettext | None = None,
    pgettext: Pgettext | None = None,
) -> None:
    """Install the caller's translation functions (None: back to English as written)."""
    global _gettext, _ngettext, _pgettext
    _gettext = gettext or str
    _ngettext = ngettext or _english_plural
    _pgettext = pgettext or _english_context


def gettext_noop(message: str) -> str:
    """Mark ``message`` for translation without translating it (module-level data)."""
    return message


def _(message: str) -> str:
    """``message`` in the caller's language (English when no translator is installed)."""
    return str(_gettext(message)) if message else message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted sentence for ``n``, in the caller's language."""
    return str(_ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` in the caller's language, told apart from the same words by ``context``."""
    return str(_pgettext(context, message)) if message else message


def names(items: list[str] | tuple[str, ...]) -> str:
    """A list of names in a sentence: ``['A', 'B', 'C']`` -> ``'A, B and C'``."""
    items = list(items)
    if not items:
        return _("nobody")
    if len(items) == 1:
        return items[0]
    return _("%(names)s and %(last)s") % {"names": ", ".join(items[:-1]), "last": items[-1]}
