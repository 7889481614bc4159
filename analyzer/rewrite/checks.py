"""Checks of rewritten source before it is shown as code: it parses, and it names only
attributes the entity has. libcst is imported by the Python checks only: a TypeScript scan
does not load it."""

from __future__ import annotations

import re
import warnings


def python_parses(path: str, text: str) -> str | None:
    """None when `text` is valid Python; otherwise why not. libcst accepts some code the
    compiler rejects (a repeated keyword argument), so both parse it; nothing is executed."""
    import libcst as cst

    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return f"{path}:{exc.raw_line}: {exc.message}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{path}:{exc.lineno}: {exc.msg}"
    return None


def unknown_attributes(entity: dict | None, attributes) -> list[str]:
    """The attributes (Django lookups allowed: `stock__gte`) the entity does not have."""
    if entity is None:
        return sorted(set(attributes))
    known = set(entity.get("fields", [])) | set(entity.get("pk", [])) | {"pk"}
    known |= {f"{r['attribute']}_id" for r in entity.get("relations", [])}
    return sorted({a for a in attributes if a.split("__", 1)[0] not in known})


def queryset_keywords(text: str, lines: list[tuple[int, int]]) -> set[str]:
    """Keyword names passed to filter()/exclude()/get()/update() on the given lines of `text`."""
    import libcst as cst

    from ..django.positions import line_numbers

    starts, _ends = line_numbers(cst.parse_module(text))
    names = set()
    for node, line in starts.items():
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in ("filter", "exclude", "get", "update")
                and any(a <= line <= b for a, b in lines)):
            names.update(arg.keyword.value for arg in node.args if arg.keyword is not None)
    return names


_INCREMENT = re.compile(r"\.(?:increment|decrement)\(\s*(\w+)\s*,\s*\{([^{}]*)\}\s*,\s*\"(\w+)\"")
_KEY = re.compile(r"(?:^|,)\s*(\w+)\s*(?::|,|$)")


def typeorm_increments(text: str, lines: list[tuple[int, int]]) -> list[tuple[str, list[str]]]:
    """(entity, attributes named) of each `increment(Entity, { key: ... }, "column", n)` on the lines."""
    out = []
    all_lines = text.splitlines()
    for first, last in lines:
        for match in _INCREMENT.finditer("\n".join(all_lines[first - 1:last])):
            keys = _KEY.findall(match.group(2))
            out.append((match.group(1), [*keys, match.group(3)]))
    return out
