"""The API's JSON bodies, bounded in how deep they nest.

Python's JSON decoder recurses once per level of nesting: a body of 3,000 nested arrays
raised ``RecursionError`` inside it, which DRF does not take for a parse error, so eight
operations answered 500, the token exchange among them (anyone may call it). No body this
API takes nests deeper than a few levels (a create-game body: object, list of roles,
role), so a body nested deeper than ``MAX_DEPTH`` is refused as malformed, 400, before
any view sees it.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise _too_deep() from None
        if depth(data) > MAX_DEPTH:
            raise _too_deep()
        return data


def depth(value: Any) -> int:
    """How many objects and lists ``value`` nests (a scalar: 0), without recursion."""
    containers = (dict, list)
    deepest, stack = 0, [(value, 1)] if isinstance(value, containers) else []
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children if isinstance(child, containers))
    return deepest


def _too_deep() -> ParseError:
    return ParseError(
        _("JSON parse error - the body nests deeper than %(levels)s levels.")
        % {"levels": MAX_DEPTH}
    )
