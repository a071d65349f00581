"""What each operation of the OpenAPI document says it answers, declared in one place.

Every answer of the API is JSON (``JSONRenderer`` only) and every request body is JSON (the
token exchange also takes a form, left undeclared: two bodies of one schema break generated
clients). An operation documents its success and every error status the server can answer:

* every operation: 400 (a query or body that does not match the document, or too many
  query parameters: ``mafia_site.guards``), 401 (a token that is not valid, or none where
  a person is needed), 403, 404, 406 (an ``Accept`` that excludes JSON) and 503 (the
  database or Redis is out: ``games.outage``, with ``Retry-After``);
* a write adds 409 (not now: the game's phase or state refuses it), 422 (well-formed, but
  the game's rules refuse it: ``errors.InvalidInput``) and, with a body, 413 (a body past
  the 2.5 MB limit: ``mafia_site.guards``) and 415 (a body that is not JSON);
* a rate-limited one adds 429 (with ``Retry-After``), found from its
  ``ratelimit.limited`` decorator or named with ``rate_limit``;
* a write whose answer is read back after its commit is documented as that answer OR
  ``Committed`` (``or_committed``): when the read fails, the write still happened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.plumbing import build_array_type, is_serializer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers

from ..errors import Refusal
from . import serializers as s

RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[429, 503],
    required=True,
    description="Seconds to wait before trying again.",
)

_ERRORS: dict[int, tuple[Any, str]] = {
    400: (s.ValidationErrorSerializer, "The request does not match this document."),
    401: (s.ErrorSerializer, "No valid token (or none where a person is needed)."),
    403: (s.ErrorSerializer, "Not yours to do or see."),
    404: (s.ErrorSerializer, "No such game, player, thread or item (or not visible to you)."),
    406: (s.ErrorSerializer, "The Accept header excludes application/json."),
    409: (s.ErrorSerializer, "Not now: the game's phase or state refuses it."),
    413: (s.ErrorSerializer, "The body is larger than 2.5 MB."),
    415: (s.ErrorSerializer, "The body is not JSON."),
    422: (
        s.ErrorSerializer,
        "Well-formed, but the game's rules refuse it (no such player, an illegal target or "
        "setup, a V/LA already over...).",
    ),
    429: (s.ThrottledSerializer, "Too many requests: wait retry_after seconds."),
    503: (s.ErrorSerializer, "The database or message service is out; nothing was changed."),
}
_EVERY_OPERATION = (400, 401, 403, 404, 406, 503)


def or_committed(serializer: Any) -> PolymorphicProxySerializer:
    """A write's answer: its usual body or, when reading it back after the commit failed,
    ``Committed`` (see ``GameAPIView.answer``)."""
    name = getattr(serializer, "__name__", type(serializer).__name__).removesuffix("Serializer")
    return PolymorphicProxySerializer(
        component_name=f"{name}OrCommitted",
        serializers=[serializer, s.CommittedSerializer],
        resource_type_field_name=None,
    )


def _responses(
    ok: Any, status: int, errors: Iterable[int], refusals: Iterable[Refusal] = ()
) -> dict[int, Any]:
    """The answers; an error status's description lists the refusals (``games.reads.policy``,
    the one place that decides them) the operation answers with it, by code."""
    answers: dict[int, Any] = {status: ok}
    refusals = list(refusals)
    for code in sorted({*errors, *(r.status for r in refusals)}):
        serializer, text = _ERRORS[code]
        lines = [f"`{r.code}`: {r.message}" for r in refusals if r.status == code]
        if lines:
            text += "\n\n" + "\n".join(f"- {line}" for line in dict.fromkeys(lines))
        answers[code] = OpenApiResponse(serializer, description=text)
    return answers


def read(
    ok: Any, *, parameters: Iterable[OpenApiParameter] = (), errors: Iterable[int] = ()
) -> Any:
    """``extend_schema`` for a GET: ``ok`` (a serializer) with status 200; ``errors``: what
    a query may be refused with besides every operation's (a 422 for a player the game
    does not have)."""
    return extend_schema(
        parameters=[*parameters, RETRY_AFTER],
        responses=_responses(ok, 200, {*_EVERY_OPERATION, *errors}),
    )


def write(
    ok: Any,
    *,
    request: Any = None,
    status: int = 200,
    after_commit: bool = False,
    rate_limit: str | None = None,
    game: bool = True,
    refusals: Iterable[Refusal] = (),
) -> Callable[[Any], Any]:
    """``extend_schema`` for a POST or DELETE (a method or a view class): ``request`` (a
    serializer, or None: no body) answered by ``ok`` with ``status``; ``after_commit``: the
    answer is read back after the commit (so it may be ``Committed``); ``rate_limit``: the
    kind of request it counts as (``ratelimit.enforce``), when no ``ratelimit.limited``
    decorator says so; ``game``:
    it acts on a game (whose state and rules may refuse it: 409, 422); ``refusals``: the
    policy's refusals it answers with, listed under their statuses by code."""

    def decorate(target: Any) -> Any:
        limited = rate_limit or getattr(target, "rate_limit_kind", None)
        errors = {*_EVERY_OPERATION, 409, 422} if game else set(_EVERY_OPERATION)
        if request is not None:
            errors.update((413, 415))
        if limited:
            errors.add(429)
        return extend_schema(
            request=request,
            parameters=[RETRY_AFTER],
            responses=_responses(
                or_committed(ok) if after_commit else ok, status, errors, refusals
            ),
        )(target)

    return decorate


def _space_class() -> str:
    """A regex class of what ``str.strip()`` strips, spelled out: JSON Schema's ECMA ``\\s``
    is not Python's (it lacks U+001C..U+001F and U+0085)."""
    spaces = [c for c in range(0x110000) if chr(c).isspace()]
    runs: list[tuple[int, int]] = []
    for c in spaces:
        if runs and runs[-1][1] == c - 1:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c, c))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs)


# Spelled as alternatives from the start of the text: the same strings as the plainer
# "^[^\x00]*[^\x00 ...][^\x00]*$", but generators (schemathesis) draw them ten times faster.
_SPACE = _space_class()
NOT_BLANK = rf"^[^\x00{_SPACE}][^\x00]*$|^[{_SPACE}]+[^\x00{_SPACE}][^\x00]*$"
NO_NUL = r"^[^\x00]+$|^$"


def _text_patterns(node: Any) -> None:
    """Request text fields: a DRF ``CharField`` trims surrounding whitespace and refuses NUL
    characters, so a non-blank one needs a character that is not whitespace, and none may
    hold NUL. Said as patterns so that the document's valid strings are the server's."""
    if isinstance(node, list):
        for item in node:
            _text_patterns(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and not {"enum", "pattern"} & node.keys():
        if node.get("format") == "password":  # not trimmed (``trim_whitespace=False``)
            node["pattern"] = NO_NUL
        elif "format" not in node:
            node["pattern"] = NOT_BLANK if node.get("minLength") else NO_NUL
    for value in node.values():
        _text_patterns(value)


def postprocess(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict:
    """``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``: the request components' text
    patterns (``COMPONENT_SPLIT_REQUEST`` names them ``...Request``)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            _text_patterns(component)
    return result


class _SetupOrRoleList(OpenApiSerializerExtension):
    """A new game's body: one of two objects, from a ready-made setup or from a rule set and
    a role list (``GameCreateSerializer.needs_one_of``, which its ``validate`` checks). Each
    is closed (``additionalProperties: false``), so a body matches one only: naming a setup
    makes it the first, whatever else it overrides."""

    target_class = s.GameCreateSerializer  # not its subclasses: they are the two objects

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        variants = (s.GameFromSetupSerializer, s.GameFromRoleListSerializer)
        return {
            "oneOf": [auto_schema.resolve_serializer(v, direction).ref for v in variants],
            # What both require, said here too: drf-spectacular reads it to mark the body
            # required.
            "required": ["title"],
        }


class _ClosedGameBody(OpenApiSerializerExtension):
    """Each of a new game's two bodies is closed (see ``_SetupOrRoleList``)."""

    target_class = s.GameFromSetupSerializer
    match_subclasses = True  # and GameFromRoleListSerializer, whose base is the same

    @classmethod
    def _matches(cls, target: Any) -> bool:
        return isinstance(target, (s.GameFromSetupSerializer, s.GameFromRoleListSerializer))

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        schema["additionalProperties"] = False
        return schema


class _NullableItems(OpenApiSerializerFieldExtension):
    """A list whose items are a serializer's objects or null (``ListField(child=
    X(allow_null=True))``: a vote count's skip nomination). drf-spectacular maps such a child
    to its bare component and drops ``allow_null``, so generated clients refused the null
    the server sends."""

    target_class = serializers.ListField
    match_subclasses = True

    @classmethod
    def _matches(cls, target: Any) -> bool:
        child = getattr(target, "child", None)
        return super()._matches(target) and is_serializer(child) and child.allow_null

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        component = auto_schema.resolve_serializer(self.target.child, direction)
        return build_array_type({"allOf": [component.ref], "nullable": True})
