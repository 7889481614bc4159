"""The walker's abstract values (analyzer/django/values.py) as JSON, for the warm cache.

What a helper returns is kept with the helper's autocommit call sites: a caller walked again
takes it from the cache instead of walking the helper again. Tags keep Python's types apart
(a tuple is not a list, a frozenset not a list); a frozenset is written in a fixed order, so
the text of equal values is equal and serves as their fingerprint. A value holding anything
else (it should not) raises TypeError and is simply not cached.
"""

from __future__ import annotations

import dataclasses
import json

from ..django.values import QuerySet, Val

_CLASSES = {"V": Val, "Q": QuerySet}
_FIELDS = {tag: [f.name for f in dataclasses.fields(cls)] for tag, cls in _CLASSES.items()}


def encode(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, Val):
        return {"V": [encode(getattr(obj, name)) for name in _FIELDS["V"]]}
    if isinstance(obj, QuerySet):
        return {"Q": [encode(getattr(obj, name)) for name in _FIELDS["Q"]]}
    if isinstance(obj, list):
        return [encode(v) for v in obj]
    if isinstance(obj, tuple):
        return {"t": [encode(v) for v in obj]}
    if isinstance(obj, frozenset):
        return {"f": sorted((encode(v) for v in obj), key=fingerprint)}
    if isinstance(obj, dict):
        return {"d": [[encode(k), encode(v)] for k, v in obj.items()]}
    raise TypeError(f"{type(obj).__name__} is not a value the cache keeps")


def decode(obj):
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    (tag, body), = obj.items()
    if tag in _CLASSES:
        return _CLASSES[tag](**{name: decode(v) for name, v in zip(_FIELDS[tag], body)})
    if tag == "t":
        return tuple(decode(v) for v in body)
    if tag == "f":
        return frozenset(decode(v) for v in body)
    return {decode(k): decode(v) for k, v in body}


def fingerprint(encoded) -> str:
    """The text of an encoded value: equal values, equal text."""
    return json.dumps(encoded, separators=(",", ":"), ensure_ascii=False)
