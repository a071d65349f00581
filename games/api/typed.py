"""Serializers derived from the typed shapes the site already checks its answers against.

An answer's shape is said once, as a ``TypedDict`` (``games.shapes``; ``games.event_kinds``
for the payload an event carries and ``check_payload`` checks), which the code building the
answer is typed to return; the API's serializer, and so the OpenAPI component the generated
clients read, is derived from it here, key by key, instead of being written a second time by
hand. A key's help text rides on its type (``games.shapes.Doc``); ``Doc(..., time=True)``
marks an ISO 8601 time (``format: date-time``), as does a key typed ``datetime`` (``date``:
``format: date``).

What maps to what: ``int``, ``float``, ``bool``, ``str`` (blank allowed; ``Doc(url=True)``:
``format: uri``); ``X | None`` (nullable); ``Literal[...]`` (a choice); ``list[X]``;
``dict[str, X]`` (an object of X; ``dict[str, Any]``: any object); another ``TypedDict`` (a
nested component, one per shape; a shape that extends another is its keys then its own); a
``NotRequired`` key is not required. ``Doc(choices="games.models.Thread")`` makes a ``str``
a choice of a model's choices (their labels described; the type stays ``str``, as the
model's field is). ``Doc(serializer="Game")``: an answer written by hand (a serializer
registered with ``written``), where no shape can say it (the game's settings).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import fields, replace
from datetime import date, datetime
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from django.utils.module_loading import import_string
from rest_framework import serializers

from ..shapes import Doc

# One serializer per shape: a shape nested in several answers is one OpenAPI component.
_MADE: dict[type, type[serializers.Serializer]] = {}
# The serializers written by hand that a shape may name (``Doc(serializer=...)``), by name.
_WRITTEN: dict[str, type[serializers.Serializer]] = {}


def written(serializer: type[serializers.Serializer]) -> None:
    """Lets shapes name ``serializer`` (``Doc(serializer="Game")`` for ``GameSerializer``)."""
    _WRITTEN[serializer.__name__.removesuffix("Serializer")] = serializer


def serializer_for(shape: type, *, doc: str = "") -> type[serializers.Serializer]:
    """The serializer of ``shape`` (a ``TypedDict``), named as the shape is
    (``TurnPayload`` -> component ``Turn``)."""
    if shape in _MADE:
        return _MADE[shape]
    hints = get_type_hints(shape, include_extras=True)
    fields = {
        key: _field(hint, required=key in shape.__required_keys__)  # type: ignore[attr-defined]
        for key, hint in hints.items()
    }
    name = shape.__name__.removesuffix("Payload")
    made = serializers.SerializerMetaclass(
        f"{name}Serializer",
        (serializers.Serializer,),
        {"__doc__": doc or shape.__doc__ or "", "__module__": __name__, **fields},
    )
    _MADE[shape] = made
    return made


def _merged(docs: list[Doc]) -> Doc:
    """One ``Doc`` of several (an alias's and the key's own): each one's non-default fields."""
    doc = Doc()
    for each in docs:
        doc = replace(
            doc, **{f.name: getattr(each, f.name) for f in fields(each) if getattr(each, f.name)}
        )
    return doc


def _unwrap(hint: Any) -> tuple[Any, Doc]:
    """The type under ``Annotated``/``NotRequired`` and its ``Doc``."""
    doc = Doc()
    while True:
        origin = get_origin(hint)
        if origin is Annotated:
            hint, *extras = get_args(hint)
            doc = _merged([doc, *(e for e in extras if isinstance(e, Doc))])
        elif origin is NotRequired:
            (hint,) = get_args(hint)
        else:
            return hint, doc


def _resolved(hint: Any) -> tuple[Any, Doc, bool]:
    """The type, its ``Doc`` and whether it may be null (``X | None``)."""
    hint, doc = _unwrap(hint)
    if get_origin(hint) not in (Union, types.UnionType):
        return hint, doc, False
    options = [a for a in get_args(hint) if a is not type(None)]
    if len(options) != 1:
        raise TypeError(f"no API field for a union of {options}")
    inner, inner_doc = _unwrap(options[0])
    return inner, _merged([inner_doc, doc]), len(options) < len(get_args(hint))


def _field(hint: Any, *, required: bool = True) -> serializers.Field:
    hint, doc, nullable = _resolved(hint)
    kwargs: dict[str, Any] = {"required": required}
    if nullable:
        kwargs["allow_null"] = True
    if doc.text:
        kwargs["help_text"] = doc.text
    if doc.serializer:
        return _WRITTEN[doc.serializer](**kwargs)
    if doc.choices:
        return serializers.ChoiceField(choices=_choices(doc.choices), **kwargs)
    origin = get_origin(hint)
    if origin is list:
        (item,) = get_args(hint) or (Any,)
        item_type, _doc, item_nullable = _resolved(item)
        if typing.is_typeddict(item_type) and not item_nullable:
            return serializer_for(item_type)(many=True, **kwargs)
        return serializers.ListField(child=_field(item), **kwargs)
    if typing.is_typeddict(hint):
        return serializer_for(hint)(**kwargs)
    if hint is dict or origin in (dict, Mapping):
        _key, value = get_args(hint) or (str, Any)
        if value is not Any:
            kwargs["child"] = _field(value)
        return serializers.DictField(**kwargs)
    if get_origin(hint) is Literal:
        return serializers.ChoiceField(choices=list(get_args(hint)), **kwargs)
    if doc.url:
        return serializers.URLField(**kwargs)
    if doc.time or hint is datetime:
        return serializers.DateTimeField(**kwargs)
    if doc.day or hint is date:
        return serializers.DateField(**kwargs)
    if hint is bool:
        return serializers.BooleanField(**kwargs)
    if hint is int:
        return serializers.IntegerField(**kwargs)
    if hint is float:
        return serializers.FloatField(**kwargs)
    if hint is str:
        return serializers.CharField(allow_blank=True, **kwargs)
    if hint is Any:
        return serializers.JSONField(**kwargs)
    raise TypeError(f"no API field for {hint!r}")


def _choices(path: str) -> Any:
    """The choices ``path`` names: a Django ``Choices`` class's, a mapping's (value -> label)
    or a sequence's."""
    found = import_string(path)
    if isinstance(found, Mapping):
        return list(found.items())
    return getattr(found, "choices", None) or list(found)
